/**
 * `braid test <Class#method | Class>`: finds the test's source file under a project folder. The
 * class may be named in full (`bank.AccountTest`), by its simple name (`AccountTest`), and a nested
 * class with `$` or `.` (`bank.AccountTest$Deposits`). Only files named after one of the name's
 * parts are read (`AccountTest.java`), and their tests found as the code lens finds them
 * (testDiscovery.findTests). Errors say what was searched.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { classDeclarations, findTests } from './testDiscovery';
import { DiscoveryLimitError } from '../discovery/discoveryBudget';
import { selectorParameterTypes } from './javaParameterTypes';
import { TestCommandError, TestTarget } from './testCommand';

/** Folders never searched: hidden ones (.git, .braid, .gradle), dependencies and build outputs. */
const SKIPPED = new Set(['node_modules', 'target', 'build', 'out', 'bin', 'dist']);
/** Most .java files looked at (a guard for a project folder given by mistake, e.g. $HOME). */
const MAX_FILES = 200_000;

export interface TestName {
  className: string;
  method?: string;
  /** the parameter types given after the method, as written (`Class#m(String, int)`) */
  parameters?: string;
}

/**
 * `Class#method`, `Class#method(Type, …)` (a JUnit 5 parameterized test; the types may be simple
 * names) or `Class` (a qualified or simple class name); throws TestCommandError for anything else.
 */
export function parseTestName(spec: string): TestName {
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:#([A-Za-z_$][\w$]*)(?:\(([\w$.,\[\]<>?\s]*)\))?)?$/.exec(spec.trim());
  if (!m) throw new TestCommandError(`"${spec}" is not a test name: give Class#method or Class, e.g. bank.AccountTest#concurrentDepositsAreAllKept (a parameterized test: Class#method or Class#method(String, int))`);
  return { className: m[1], ...(m[2] ? { method: m[2] } : {}), ...(m[3] !== undefined && m[3].trim() ? { parameters: m[3].trim() } : {}) };
}

/** The .java files under `root` named `<one of names>.java`, and how many .java files were seen. */
function javaFilesNamed(root: string, names: Set<string>): { files: string[]; seen: number } {
  const files: string[] = [];
  let seen = 0;
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (seen >= MAX_FILES) return;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIPPED.has(e.name)) walk(path.join(dir, e.name));
      } else if (e.isFile() && e.name.endsWith('.java')) {
        seen++;
        if (names.has(e.name.slice(0, -'.java'.length))) files.push(path.join(dir, e.name));
      }
    }
  };
  walk(root);
  return { files, seen };
}

const dotted = (className: string) => className.replace(/\$/g, '.');

/** How many superclasses up a test class's inherited tests are looked for. */
const MAX_SUPERCLASSES = 8;

/**
 * The test methods `className` inherits from `superclass` (as its source `text` names it) and the
 * superclasses above it, found in the files named after each superclass under `root`: the framework
 * and methods, and which classes held them; undefined when none has a test.
 */
function inheritedTests(root: string, className: string, superclass: string | undefined, text: string): { framework: TestTarget['framework']; methods: string[]; from: string[] } | undefined {
  const methods: string[] = [];
  const from: string[] = [];
  let framework: TestTarget['framework'] | undefined;
  let pkg = className.includes('.') ? className.slice(0, className.lastIndexOf('.')) : '';
  let source = text;
  const seen = new Set<string>([className]);
  for (let depth = 0; superclass && depth < MAX_SUPERCLASSES; depth++) {
    const simple = superclass.slice(superclass.lastIndexOf('.') + 1);
    // the superclass's full name: as written, by an import, or in the same package
    const imported = new RegExp(`^\\s*import\\s+([\\w.]+\\.${simple.replace(/\$/g, '\\$')})\\s*;`, 'm').exec(source)?.[1];
    const full = superclass.includes('.') ? superclass : (imported ?? (pkg ? `${pkg}.${simple}` : simple));
    if (seen.has(full)) break;
    seen.add(full);
    let next: { text: string; superclass?: string } | undefined;
    for (const file of javaFilesNamed(root, new Set([simple])).files) {
      let t: string;
      try {
        t = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const decl = classDeclarations(t).find((d) => d.className === full);
      if (!decl) continue;
      let tests: ReturnType<typeof findTests> = [];
      try {
        tests = findTests(t);
      } catch (e) {
        if (!(e instanceof DiscoveryLimitError)) throw e;
      }
      const mine = tests.filter((x) => x.className === full && x.method !== undefined);
      if (mine.length) {
        framework ??= mine[0].framework;
        from.push(full);
        for (const x of mine) if (!methods.includes(x.method!)) methods.push(x.method!);
      }
      next = { text: t, superclass: decl.superclass };
      break;
    }
    if (!next) break;
    source = next.text;
    pkg = full.includes('.') ? full.slice(0, full.lastIndexOf('.')) : '';
    superclass = next.superclass;
  }
  return framework ? { framework, methods, from } : undefined;
}

/** The test `spec` names under the project folder `root`, as the code lens would record it. */
export function locateTest(root: string, spec: string): TestTarget {
  const name = parseTestName(spec);
  const want = dotted(name.className);
  const parts = want.split('.');
  const { files, seen } = javaFilesNamed(root, new Set(parts));
  /** files whose discovery gave up (DiscoveryLimitError), with the reason */
  const skipped: string[] = [];
  const hits: { file: string; className: string; framework: TestTarget['framework']; methods: string[]; text?: string }[] = [];
  // each file read once: the inherited-tests pass below reads the same files again
  const texts = new Map<string, string | undefined>();
  const textOf = (file: string): string | undefined => {
    if (!texts.has(file)) {
      try {
        texts.set(file, readFileSync(file, 'utf8'));
      } catch {
        texts.set(file, undefined);
      }
    }
    return texts.get(file);
  };
  for (const file of files) {
    const text = textOf(file);
    if (text === undefined) continue;
    let tests: ReturnType<typeof findTests>;
    try {
      tests = findTests(text);
    } catch (e) {
      if (!(e instanceof DiscoveryLimitError)) throw e;
      skipped.push(`${path.relative(root, file) || file}: ${e.message}`);
      continue;
    }
    const methods = new Map<string, string[]>();
    for (const t of tests) {
      if (t.method === undefined) continue;
      const list = methods.get(t.className);
      if (list) list.push(t.method);
      else methods.set(t.className, [t.method]);
    }
    for (const t of tests) {
      if (t.method !== undefined) continue;
      const have = dotted(t.className);
      if (have === want || have.endsWith(`.${want}`)) {
        hits.push({ file, className: t.className, framework: t.framework, methods: methods.get(t.className) ?? [], text });
      }
    }
  }
  const rel = (f: string) => path.relative(root, f) || f;
  // a class whose tests are inherited (all of them, or the method asked for): its superclasses' tests
  const inheritedFrom: string[] = [];
  const own = hits.filter((h) => dotted(h.className) === want || dotted(h.className).endsWith(`.${want}`));
  if (!own.length || (name.method && !own.some((h) => h.methods.includes(name.method!)))) {
    for (const file of files) {
      const text = textOf(file);
      if (text === undefined) continue;
      for (const d of classDeclarations(text)) {
        const have = dotted(d.className);
        if (have !== want && !have.endsWith(`.${want}`)) continue;
        const inherited = inheritedTests(root, d.className, d.superclass, text);
        if (!inherited) continue;
        inheritedFrom.push(...inherited.from);
        const hit = own.find((h) => h.className === d.className);
        if (hit) hit.methods.push(...inherited.methods.filter((m) => !hit.methods.includes(m)));
        else hits.push({ file, className: d.className, framework: inherited.framework, methods: inherited.methods });
      }
    }
  }
  if (hits.length === 0) {
    const looked = `${seen} .java file(s) under ${root}${files.length ? `; ${files.map(rel).join(', ')} ${files.length === 1 ? 'holds' : 'hold'} no JUnit 4/5 or TestNG test class ${name.className}` : `, none named ${[...new Set(parts.filter((p) => /^[A-Z]/.test(p)))].map((p) => `${p}.java`).join(' or ') || `${parts[parts.length - 1]}.java`}`}`;
    throw new TestCommandError(`no test class ${name.className} found: searched ${looked} (hidden folders, node_modules, target, build, out, bin and dist are skipped; --project DIR names the project folder)${skipped.length ? `; not scanned: ${skipped.join('; ')}` : ''}`);
  }
  const distinct = [...new Map(hits.map((h) => [h.className, h])).values()];
  if (distinct.length > 1) {
    throw new TestCommandError(`${name.className} names ${distinct.length} test classes: ${distinct.map((h) => `${h.className} (${rel(h.file)})`).join(', ')}; give the full name`);
  }
  const hit = distinct[0];
  if (name.method && hit.methods.length && !hit.methods.includes(name.method)) {
    throw new TestCommandError(`${hit.className} (${rel(hit.file)}) has no test method ${name.method}${inheritedFrom.length ? `, not even inherited from ${inheritedFrom.join(', ')}` : ''}; its tests: ${hit.methods.join(', ')}`);
  }
  // JUnit 5's method selector needs a parameterized test's parameter types: as the user wrote them
  // (resolved against the test's source), else inferTestCommand reads them from the declaration
  let parameterTypes: string[] | undefined;
  if (hit.framework === 'junit5' && name.parameters !== undefined && hit.text !== undefined) {
    parameterTypes = selectorParameterTypes(name.parameters.split(',').map((t, k) => `${t} p${k}`).join(','), hit.text);
    if (!parameterTypes) throw new TestCommandError(`"${spec}": cannot read the parameter types (${name.parameters}); give them as Java types, e.g. ${hit.className}#${name.method}(String, int)`);
  }
  return { file: hit.file, className: hit.className, framework: hit.framework, ...(name.method ? { method: name.method } : {}), ...(parameterTypes?.length ? { parameterTypes } : {}) };
}
