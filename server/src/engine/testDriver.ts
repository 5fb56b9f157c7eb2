/**
 * The test driver, wherever it lives (issue 27, point 4). A stress `main`
 * in the library's own package (`datasource.PoolStress`), a hand-written
 * test run as a program: neither is marked by the recorder (no JUnit) nor
 * lies under `src/test/`, and a race on the driver's own counters would be
 * ranked, and blamed, like a bug of the library.
 *
 * The rule, from the runs' entry class E (trace header `program`: the class
 * whose `main` the command ran) and the code the patterns were recorded in
 * (their accesses' locations and the frames of their call stacks):
 *
 *   - E's family is the code written in E's source file: E itself (`main`,
 *     the lambdas written in it, its other methods), its nested, local and
 *     anonymous classes (`E$Worker`, `E$1`), and any other class declared in
 *     that file; a class named `E$…` in any case.
 *   - When the patterns show user code outside E's family (not library code,
 *     not declared test code), E drives that code: E's family is driver
 *     code. Callbacks written in the driver's file and called by the library
 *     (a listener, a factory, an uncaught-exception handler) are driver code
 *     too: they are the driver's, whoever calls them.
 *   - Otherwise E *is* the program under test — a single-file program such
 *     as `hashmaprace.HitCounter` (`main` next to the buggy `hit`), or
 *     `orderviolation.OrderViolation` whose `main` itself races — and
 *     nothing is driver code.
 *
 * Classes in other files are never driver code by this rule, even when
 * only the driver calls them: so is the library's own entry point
 * (`MetricRegistry`, called only by `MetricsDriver`), and nothing in a call
 * stack tells a driver's helper class from it. The user's `--test-code`
 * globs decide before this rule (testCode.ts): a glob names such a helper,
 * and a `!` glob keeps code of the entry's file under test (a library class
 * that has a `main` and other classes in other files).
 *
 * A Node.js program's entry is its script (header `program`: `main.mjs`); its family is that
 * file, and the same rule applies: the script drives the modules it imports.
 *
 * Only the patterns are read (with the first occurrence's stacks, as a
 * summary carries them), so traces and summaries give the same rule.
 */
import type { PatternRegistry } from './unicorn/patternRegistry';
import { isJsSourceFile } from './jsSourceFile';

export interface DriverEntry {
  /** the entry class (a run's `program`) */
  entry: string;
  /** its family's source files (paths as the locations name them, `/` separated) */
  files: string[];
}

/** The driver code of a set of runs: one entry per entry class that drives code outside its family. */
export interface DriverRule {
  entries: DriverEntry[];
}

/**
 * The entry class a trace header's `program` names: a class name as `java` was given it
 * (`bank.Bank`; `module/bank.Bank`; `Bank.java` in source-launcher mode); undefined for a jar or
 * anything else.
 */
export function entryClassOf(program: string | undefined): string | undefined {
  if (!program) return undefined;
  let p = program.trim().replace(/\\/g, '/');
  if (/\.jar$/i.test(p)) return undefined;
  if (p.includes('/')) p = p.slice(p.lastIndexOf('/') + 1);
  p = p.replace(/\.(java|kt)$/, '');
  return /^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u.test(p) ? p : undefined;
}

/**
 * The entry script a trace header's `program` names (the Node.js recorder: `main.mjs`,
 * `src/app.ts`, relative to the working folder, `/` separated); undefined for anything else.
 */
export function entryScriptOf(program: string | undefined): string | undefined {
  if (!program) return undefined;
  const p = program.trim().replace(/\\/g, '/');
  return isJsSourceFile(p) && !p.startsWith('/') ? p : undefined;
}

/** The class of a qualified method name (`pkg.A$B.run` → `pkg.A$B`). */
export function classOfMethod(method: string): string {
  const dot = method.lastIndexOf('.');
  return dot < 0 ? '' : method.slice(0, dot);
}

/** The class is the entry class or one of its nested, local or anonymous classes. */
function inClassFamily(entry: string, cls: string): boolean {
  return cls === entry || (cls.length > entry.length && cls.startsWith(entry) && cls[entry.length] === '$');
}

/** A DriverRule for lookups: is a location (file, method) driver code? */
export class DriverCode {
  private readonly entries: { entry: string; files: Set<string>; script: boolean }[];

  constructor(rule: DriverRule) {
    this.entries = rule.entries.map((e) => ({ entry: e.entry, files: new Set(e.files), script: entryScriptOf(e.entry) !== undefined }));
  }

  isDriver(file: string, method: string): boolean {
    const f = file.indexOf('\\') < 0 ? file : file.replace(/\\/g, '/');
    let cls: string | undefined;
    for (const e of this.entries) if (e.files.has(f) || (!e.script && inClassFamily(e.entry, (cls ??= classOfMethod(method))))) return true;
    return false;
  }
}

/** What DriverDetector.refresh needs from the analyzer. */
export interface DriverInputs {
  /** the runs' `program`s */
  programs: Iterable<string | undefined>;
  /** the location is library code (the analyzer's predicate, cached) */
  isLibraryLoc: (loc: number) => boolean;
  /** the library predicate itself: another one (the language server's) reads everything again */
  library: unknown;
  /** what the user's globs and the recorder say of a location (TestCodeClassifier.declared) */
  declared: (loc: number) => boolean | undefined;
  /** something `declared` answers has changed (a later trace marked a location as test code) */
  force?: boolean;
}

const UNREAD = 0;

/**
 * Builds the DriverRule incrementally from a PatternRegistry: each new pattern's access locations
 * and stack frames are read once (a stack node once, whatever the number of patterns sharing it),
 * and the user code they show is kept as one location per method; the rule is recomputed
 * from that, which is small, only when it, the entry classes or the declared test code changed.
 */
export class DriverDetector {
  /** the current rule */
  rule: DriverRule = { entries: [] };
  private ruleText = '{"entries":[]}';
  private library: unknown;
  private processed = 0;
  /** per stack node: 1 when read */
  private nodeRead = new Uint8Array(0);
  /** per loc: 1 when seen */
  private locSeen = new Uint8Array(0);
  /** user code seen: one location per (file, method) */
  private readonly methods = new Map<string, number>();
  private programsKey = '';
  private changed = false;

  constructor(private readonly registry: PatternRegistry) {}

  /** Reads the registry's new patterns; returns the rule when it changed since the last call. */
  refresh(input: DriverInputs): DriverRule | undefined {
    if (input.library !== this.library) this.reset(input.library);
    const reg = this.registry;
    const n = reg.patternCount;
    if (this.processed < n) {
      const count = reg.stackCount;
      if (this.nodeRead.length < count) {
        const grown = new Uint8Array(Math.max(count, this.nodeRead.length * 2, 1024));
        grown.set(this.nodeRead);
        this.nodeRead = grown;
      }
      for (let id = this.processed; id < n; id++) {
        for (let k = 0, len = reg.patternDef(id).kind.length; k < len; k++) {
          this.see(reg.accesses[reg.patternAccessAt(id, k)].loc, input.isLibraryLoc);
          // a stack node and the nodes below it, once
          for (let s = reg.patternStackAt(id, k); s >= 0 && this.nodeRead[s] === UNREAD; s = reg.stackParent(s)) {
            this.nodeRead[s] = 1;
            this.see(reg.stackTop(s), input.isLibraryLoc);
          }
        }
      }
      this.processed = n;
    }
    const entries = [...new Set([...input.programs].map((p) => entryScriptOf(p) ?? entryClassOf(p)).filter((e): e is string => e !== undefined))].sort();
    const key = entries.join('\n');
    if (!this.changed && !input.force && key === this.programsKey) return undefined;
    this.changed = false;
    this.programsKey = key;
    const rule: DriverRule = { entries: [] };
    for (const entry of entries) {
      const e = this.entryRule(entry, input.declared);
      if (e) rule.entries.push(e);
    }
    const text = JSON.stringify(rule);
    if (text === this.ruleText) return undefined;
    this.rule = rule;
    this.ruleText = text;
    return rule;
  }

  private reset(library: unknown): void {
    this.library = library;
    this.processed = 0;
    this.nodeRead = new Uint8Array(0);
    this.locSeen = new Uint8Array(0);
    this.methods.clear();
    this.changed = true;
  }

  private see(loc: number, isLibraryLoc: (loc: number) => boolean): void {
    if (loc >= this.locSeen.length) {
      const grown = new Uint8Array(Math.max(loc + 1, this.locSeen.length * 2, 1024));
      grown.set(this.locSeen);
      this.locSeen = grown;
    }
    if (this.locSeen[loc]) return;
    this.locSeen[loc] = 1;
    if (isLibraryLoc(loc)) return;
    const l = this.registry.locs[loc];
    if (l.file === '<unknown>') return;
    const key = `${l.file}\u0000${l.method}`;
    if (!this.methods.has(key)) {
      this.methods.set(key, loc);
      this.changed = true;
    }
  }

  /** The rule of one entry class; undefined when no user code outside its family was seen. */
  private entryRule(entry: string, declared: (loc: number) => boolean | undefined): DriverEntry | undefined {
    const locs = this.registry.locs;
    const fileOf = (loc: number) => locs[loc].file.replace(/\\/g, '/');
    // a script entry's family is its file; a class's, the files of the class and its nested classes
    const script = entryScriptOf(entry) !== undefined;
    const inFamily = (loc: number) => (script ? fileOf(loc) === entry : inClassFamily(entry, classOfMethod(locs[loc].method)));
    const files = new Set<string>();
    for (const loc of this.methods.values()) if (inFamily(loc)) files.add(fileOf(loc));
    if (files.size === 0) return undefined;
    for (const loc of this.methods.values()) {
      if (files.has(fileOf(loc)) || inFamily(loc)) continue;
      // code under test elsewhere (declared test code is not)
      if (declared(loc) !== true) return { entry, files: [...files].sort() };
    }
    return undefined;
  }
}
