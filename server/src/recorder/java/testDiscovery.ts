/**
 * Finds the JUnit 4, JUnit 5 (Jupiter) and TestNG tests in a Java source text: the test methods
 * (annotated @Test, and for JUnit 5 also @ParameterizedTest, @RepeatedTest, @TestFactory,
 * @TestTemplate) and the classes holding them (nested classes as Outer$Inner). A lexical scan, no
 * parser: comments, strings and character literals are blanked first, braces give the nesting.
 */
import type { TestFramework } from './testCommand';
import { lineIndex } from '../discovery/lineIndex';
import { DiscoveryBudget, MAX_TESTS_PER_FILE } from '../discovery/discoveryBudget';

export interface FoundTest {
  framework: TestFramework;
  /** fully qualified class name (nested classes joined with $) */
  className: string;
  /** the method; absent for the class entry */
  method?: string;
  /** 0-based line and character of the class or method name */
  line: number;
  character: number;
  /**
   * the method's parameter list as written (comments blanked, whitespace collapsed), when it has
   * parameters — a JUnit 5 @ParameterizedTest(String s): JUnit's method selector needs their types
   * (javaParameterTypes.ts); the first of overloads
   */
  parameters?: string;
}

const JUPITER = new Set(['Test', 'ParameterizedTest', 'RepeatedTest', 'TestFactory', 'TestTemplate']);

/** The text with comments and string/char literals replaced by spaces (newlines kept, so offsets and lines stay). */
export function blankJava(text: string): string {
  const out = text.split('');
  let i = 0;
  const n = text.length;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  while (i < n) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? n : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      const end = e < 0 ? n : e + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' && text.startsWith('"""', i)) {
      const e = text.indexOf('"""', i + 3);
      const end = e < 0 ? n : e + 3;
      blank(i + 1, end - 1);
      i = end;
    } else if (c === '"' || c === "'") {
      let k = i + 1;
      while (k < n && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else i++;
  }
  return out.join('');
}

export function testFramework(text: string): TestFramework | undefined {
  if (/\borg\.junit\.jupiter\b/.test(text)) return 'junit5';
  if (/\borg\.testng\b/.test(text)) return 'testng';
  if (/\borg\.junit\b/.test(text)) return 'junit4';
  return undefined;
}

function isTestAnnotation(name: string, fw: TestFramework): boolean {
  const simple = name.slice(name.lastIndexOf('.') + 1);
  if (name.includes('.')) {
    const ok = fw === 'junit5' ? name.startsWith('org.junit.jupiter.') : fw === 'testng' ? name.startsWith('org.testng.') : name === 'org.junit.Test';
    if (!ok) return false;
  }
  return fw === 'junit5' ? JUPITER.has(simple) : simple === 'Test';
}

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'synchronized', 'return', 'new', 'throw', 'try', 'do', 'else']);

/** A class whose qualified name is longer has no entry (nor its nested classes): no class file can be named so. */
export const MAX_CLASS_NAME = 1000;
/** Longest parameter list kept (longer: no parameter types, the selector names the method only). */
const MAX_PARAMETERS = 2000;

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isNameChar = (c: string | undefined) => c !== undefined && /[\w.]/.test(c);

/**
 * The package a (blanked) source declares: `package a.b;` with only white space before it on its
 * line. One pass: a regular expression `^\s*package…` with the m flag read every run of blank lines
 * once per line (quadratic: 2 s for 47 KB of comment lines, found by the fuzz campaign).
 */
function packageOf(t: string): string | undefined {
  const n = t.length;
  let lineStart = true;
  for (let k = 0; k < n; k++) {
    const c = t[k];
    if (isSpace(c)) {
      if (c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029') lineStart = true;
      continue;
    }
    if (lineStart && t.startsWith('package', k) && isSpace(t[k + 7])) {
      let j = k + 7;
      while (isSpace(t[j])) j++;
      const from = j;
      while (isNameChar(t[j])) j++;
      const name = t.slice(from, j);
      while (isSpace(t[j])) j++;
      if (name && t[j] === ';') return name;
      k = j - 1;
    }
    lineStart = false;
  }
  return undefined;
}

/** A class declared in a source and the class it extends (as written: simple or qualified), if any. */
export interface ClassDeclaration {
  /** fully qualified name of a top-level class; nested classes as Outer$Inner are not listed */
  className: string;
  superclass?: string;
}

/**
 * The top-level classes a Java source declares with the class they extend: for tests a class
 * inherits (`class FastCacheTest extends CacheContract` whose @Test methods are in CacheContract).
 * Top-level means at brace depth 0 of the blanked text.
 */
export function classDeclarations(text: string): ClassDeclaration[] {
  const t = blankJava(text);
  const pkg = packageOf(t);
  const out: ClassDeclaration[] = [];
  const re = /\bclass\s+([A-Za-z_$][\w$]*)/g;
  let depth = 0;
  let at = 0;
  for (let m; (m = re.exec(t)); ) {
    if (t[m.index - 1] === '.') continue;
    for (; at < m.index; at++) {
      if (t[at] === '{') depth++;
      else if (t[at] === '}') depth = Math.max(0, depth - 1);
    }
    if (depth !== 0) continue;
    const open = t.indexOf('{', re.lastIndex);
    const head = t.slice(re.lastIndex, open < 0 ? t.length : open);
    // `extends` after the type parameters (which may hold `extends` themselves)
    let k = 0;
    let angle = 0;
    let superclass: string | undefined;
    for (; k < head.length; k++) {
      const c = head[k];
      if (c === '<') angle++;
      else if (c === '>') angle = Math.max(0, angle - 1);
      else if (angle === 0 && head.startsWith('extends', k) && !/[\w$]/.test(head[k - 1] ?? ' ') && /\s/.test(head[k + 7] ?? '')) {
        superclass = /^\s*([A-Za-z_$][\w$.]*)/.exec(head.slice(k + 7))?.[1];
        break;
      }
    }
    out.push({ className: pkg ? `${pkg}.${m[1]}` : m[1], ...(superclass ? { superclass } : {}) });
  }
  return out;
}

/** The matching close of every `open` character of `t`, by a stack; -1 when unclosed. */
function matching(t: string, open: string, close: string): Int32Array {
  const match = new Int32Array(t.length).fill(-1);
  const stack: number[] = [];
  for (let k = 0; k < t.length; k++) {
    if (t[k] === open) stack.push(k);
    else if (t[k] === close && stack.length) match[stack.pop()!] = k;
  }
  return match;
}

/**
 * The test classes and methods of a Java source, in linear work (issue 39: nested classes by the
 * thousand took seconds): one pass each for the literals, the brackets and the declarations; a
 * method's annotations are followed once (each annotation's result is shared by those before it).
 */
export function findTests(text: string, budget: DiscoveryBudget = DiscoveryBudget.forText(text)): FoundTest[] {
  const fw = testFramework(text);
  if (!fw) return [];
  budget.spend(text.length);
  const t = blankJava(text);
  const n = t.length;
  const pkg = packageOf(t);
  const pos = lineIndex(t);
  budget.spend(4 * n);
  const parenClose = matching(t, '(', ')');
  /** index just past the parenthesised group starting at i (t[i] === '('); the text's end when unclosed */
  const skipParens = (i: number) => (parenClose[i] < 0 ? n : parenClose[i] + 1);
  /** the next `{` at or after each offset; the last `;` or `}` before it */
  const nextOpen = new Int32Array(n + 1).fill(-1);
  for (let k = n - 1; k >= 0; k--) nextOpen[k] = t[k] === '{' ? k : nextOpen[k + 1];
  const lastEnd = new Int32Array(n + 1).fill(-1);
  for (let k = 0; k < n; k++) lastEnd[k + 1] = t[k] === ';' || t[k] === '}' ? k : lastEnd[k];

  interface Cls {
    nameAt: number;
    open: number;
    /** undefined when longer than MAX_CLASS_NAME (or inside such a class): no entry */
    qualified?: string;
    classTest: boolean;
    tests: FoundTest[];
  }
  const classes: Cls[] = [];
  /** the first class declared at each body `{` */
  const classAt = new Map<number, Cls>();
  const decls: { at: number; name: string; end: number }[] = [];
  const declRe = /\b(class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/g;
  for (let m; (m = declRe.exec(t)); ) {
    budget.spend(m[0].length);
    if (t[m.index - 1] !== '.') decls.push({ at: m.index, name: m[2], end: m.index + m[0].length }); // not a `.class` literal
  }
  const anns: { at: number; name: string; end: number }[] = [];
  const annRe = /@\s*([A-Za-z_$][\w$.]*)/g;
  for (let m; (m = annRe.exec(t)); ) {
    budget.spend(m[0].length);
    anns.push({ at: m.index, name: m[1], end: m.index + m[0].length });
  }

  // one sweep: the open braces enclosing the offset, each with the innermost class it is inside (or opens)
  const stack: { open: number; cls?: Cls; opensClass: boolean }[] = [];
  /** for each test annotation directly in a class body: its class */
  const testAnns: { ann: (typeof anns)[number]; cls: Cls }[] = [];
  let d = 0;
  let a = 0;
  let prevDeclEnd = 0;
  for (let k = 0; k <= n; k++) {
    while (d < decls.length && decls[d].at === k) {
      const decl = decls[d++];
      const open = nextOpen[decl.at];
      if (open < 0) continue;
      const outer = stack.length ? stack[stack.length - 1].cls : undefined;
      const name = decl.name;
      const qualified = outer ? (outer.qualified !== undefined ? `${outer.qualified}$${name}` : undefined) : pkg ? `${pkg}.${name}` : name;
      // a class-level @Test (TestNG: every public method is a test) right before the declaration
      const from = Math.max(outer ? outer.open + 1 : 0, lastEnd[decl.at] + 1, prevDeclEnd);
      budget.spend(decl.at - from);
      const classTest = fw === 'testng' && /@(?:org\.testng\.annotations\.)?Test\b/.test(t.slice(from, decl.at));
      prevDeclEnd = decl.end;
      const cls: Cls = { nameAt: decl.end - name.length, open, ...(qualified !== undefined && qualified.length <= MAX_CLASS_NAME ? { qualified } : {}), classTest, tests: [] };
      classes.push(cls);
      if (!classAt.has(open)) classAt.set(open, cls);
    }
    while (a < anns.length && anns[a].at === k) {
      const ann = anns[a++];
      const top = stack[stack.length - 1];
      // directly in a class body (not in a method or an initializer)
      if (top?.opensClass && top.cls && isTestAnnotation(ann.name, fw)) testAnns.push({ ann, cls: top.cls });
    }
    if (k === n) break;
    if (t[k] === '{') {
      const own = classAt.get(k);
      stack.push({ open: k, cls: own ?? stack[stack.length - 1]?.cls, opensClass: own !== undefined });
    } else if (t[k] === '}' && stack.length) stack.pop();
  }

  /**
   * The method an annotation belongs to: the first `name(` after it that is not another annotation.
   * Reaching another annotation, the answer is that one's: computed from the last annotation back,
   * each stretch of text is read once.
   */
  const annAt = new Map<number, number>();
  anns.forEach((x, i) => annAt.set(x.at, i));
  const methodOf: ({ name: string; at: number; parameters?: string } | null)[] = new Array(anns.length).fill(null);
  const idRe = /(@\s*)?([A-Za-z_$][\w$.]*)\s*(\()?|[;{}=]/g;
  for (let i = anns.length - 1; i >= 0; i--) {
    let k = anns[i].end;
    while (k < n && /\s/.test(t[k])) k++;
    if (t[k] === '(') k = skipParens(k);
    idRe.lastIndex = k;
    let found: { name: string; at: number; parameters?: string } | null = null;
    for (let r; (r = idRe.exec(t)); ) {
      budget.spend(r.index - k + r[0].length);
      k = idRe.lastIndex;
      if (!r[2]) break; // ; { } = : a field or a class, not a method
      if (r[1]) {
        // another annotation: its method is this one's
        const j = annAt.get(r.index);
        found = j !== undefined && j > i ? methodOf[j] : null;
        break;
      }
      if (r[3]) {
        if (!KEYWORDS.has(r[2]) && !r[2].includes('.')) {
          const open = idRe.lastIndex - 1;
          const close = parenClose[open];
          const list = close > open ? t.slice(open + 1, close).replace(/\s+/g, ' ').trim() : '';
          found = { name: r[2], at: r.index, ...(list && list.length <= MAX_PARAMETERS ? { parameters: list } : {}) };
        }
        break;
      }
      if (r[2] === 'class' || r[2] === 'interface' || r[2] === 'enum' || r[2] === 'record') break;
    }
    methodOf[i] = found;
  }

  const seen = new Set<string>();
  for (const { ann, cls } of testAnns) {
    const m = methodOf[annAt.get(ann.at)!];
    if (!m || cls.qualified === undefined) continue;
    const key = `${cls.qualified}#${m.name}`;
    if (seen.has(key)) continue; // overloads: one entry
    seen.add(key);
    budget.spend(1);
    cls.tests.push({ framework: fw, className: cls.qualified, method: m.name, ...pos(m.at), ...(m.parameters ? { parameters: m.parameters } : {}) });
  }
  const out: FoundTest[] = [];
  for (const c of classes) {
    if ((!c.tests.length && !c.classTest) || c.qualified === undefined) continue;
    if (out.length + 1 + c.tests.length > MAX_TESTS_PER_FILE) break;
    out.push({ framework: fw, className: c.qualified, ...pos(c.nameAt) });
    out.push(...c.tests);
  }
  return out;
}
