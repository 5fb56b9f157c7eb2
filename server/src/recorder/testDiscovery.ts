/**
 * Finds the JUnit 4, JUnit 5 (Jupiter) and TestNG tests in a Java source text: the test methods
 * (annotated @Test, and for JUnit 5 also @ParameterizedTest, @RepeatedTest, @TestFactory,
 * @TestTemplate) and the classes holding them (nested classes as Outer$Inner). A lexical scan, no
 * parser: comments, strings and character literals are blanked first, braces give the nesting.
 */
import type { TestFramework } from './testCommand';
import { lineIndex } from './lineIndex';

export interface FoundTest {
  framework: TestFramework;
  /** fully qualified class name (nested classes joined with $) */
  className: string;
  /** the method; absent for the class entry */
  method?: string;
  /** 0-based line and character of the class or method name */
  line: number;
  character: number;
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

/** Index just past the parenthesised group starting at `i` (text[i] === '('). */
function skipParens(t: string, i: number): number {
  let d = 0;
  for (let k = i; k < t.length; k++) {
    if (t[k] === '(') d++;
    else if (t[k] === ')' && --d === 0) return k + 1;
  }
  return t.length;
}

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'synchronized', 'return', 'new', 'throw', 'try', 'do', 'else']);

export function findTests(text: string): FoundTest[] {
  const fw = testFramework(text);
  if (!fw) return [];
  const t = blankJava(text);
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(t)?.[1];
  const pos = lineIndex(t);
  // classes: name, body range, qualified name
  interface Cls {
    name: string;
    nameAt: number;
    open: number;
    close: number;
    qualified: string;
    classTest: boolean;
    tests: FoundTest[];
  }
  const classes: Cls[] = [];
  const declRe = /\b(class|interface|enum|record)\s+([A-Za-z_$][\w$]*)/g;
  for (let m; (m = declRe.exec(t)); ) {
    // skip `.class` literals
    if (t[m.index - 1] === '.') continue;
    const open = t.indexOf('{', m.index);
    if (open < 0) continue;
    let d = 0;
    let close = t.length;
    for (let k = open; k < t.length; k++) {
      if (t[k] === '{') d++;
      else if (t[k] === '}' && --d === 0) {
        close = k;
        break;
      }
    }
    const outer = [...classes].reverse().find((c) => c.open < m.index && m.index < c.close);
    const qualified = outer ? `${outer.qualified}$${m[2]}` : pkg ? `${pkg}.${m[2]}` : m[2];
    // a class-level @Test (TestNG: every public method is a test) right before the declaration
    const before = t.slice(Math.max(outer ? outer.open + 1 : 0, t.lastIndexOf(';', m.index) + 1, t.lastIndexOf('}', m.index) + 1), m.index);
    const classTest = fw === 'testng' && /@(?:org\.testng\.annotations\.)?Test\b/.test(before);
    classes.push({ name: m[2], nameAt: m.index + m[0].length - m[2].length, open, close, qualified, classTest, tests: [] });
  }
  const innermost = (off: number) => {
    let best: Cls | undefined;
    for (const c of classes) if (c.open < off && off < c.close && (!best || c.open > best.open)) best = c;
    return best;
  };
  // brace depth before each offset (one pass), so a method's depth inside its class is a subtraction
  const depth = new Int32Array(t.length + 1);
  for (let k = 0, d = 0; k < t.length; k++) {
    if (t[k] === '{') d++;
    else if (t[k] === '}') d--;
    depth[k + 1] = d;
  }
  const depthIn = (c: Cls, off: number) => depth[off] - depth[c.open + 1];
  const annRe = /@\s*([A-Za-z_$][\w$.]*)/g;
  const seen = new Set<string>();
  for (let m; (m = annRe.exec(t)); ) {
    if (!isTestAnnotation(m[1], fw)) continue;
    const c = innermost(m.index);
    if (!c || depthIn(c, m.index) !== 0) continue;
    // the method name: the first `name(` after the annotation that is not another annotation
    let k = m.index + m[0].length;
    while (/\s/.test(t[k] ?? '')) k++;
    if (t[k] === '(') k = skipParens(t, k);
    let name: string | undefined;
    let nameAt = -1;
    const idRe = /(@\s*)?([A-Za-z_$][\w$.]*)\s*(\()?|[;{}=]/g;
    idRe.lastIndex = k;
    for (let r; (r = idRe.exec(t)); ) {
      if (!r[2]) break; // ; { } = : a field or a class, not a method
      if (r[1]) {
        if (r[3]) idRe.lastIndex = skipParens(t, r.index + r[0].length - 1);
        continue;
      }
      if (r[3]) {
        if (!KEYWORDS.has(r[2]) && !r[2].includes('.')) {
          name = r[2];
          nameAt = r.index;
        }
        break;
      }
      if (r[2] === 'class' || r[2] === 'interface' || r[2] === 'enum' || r[2] === 'record') break;
    }
    if (!name) continue;
    const key = `${c.qualified}#${name}`;
    if (seen.has(key)) continue; // overloads: one entry
    seen.add(key);
    c.tests.push({ framework: fw, className: c.qualified, method: name, ...pos(nameAt) });
  }
  const out: FoundTest[] = [];
  for (const c of classes) {
    if (!c.tests.length && !c.classTest) continue;
    out.push({ framework: fw, className: c.qualified, ...pos(c.nameAt) });
    out.push(...c.tests);
  }
  return out;
}
