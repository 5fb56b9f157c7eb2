/**
 * Finds the tests of node:test, mocha, jest and vitest in a JavaScript or TypeScript source text
 * (.js/.mjs/.cjs/.jsx/.ts/.mts/.cts/.tsx): the calls `test('name', …)`, `it('name', …)`,
 * `specify('name', …)` (one test) and `describe('name', …)`, `suite('name', …)`, `context('name', …)`
 * (a suite), with `.only`, `.concurrent`, `.sequential` or `.serial` after the name; a test inside
 * a suite carries the suite names before its own. The name must be a string literal (a template
 * literal without `${…}`); a skipped or pending test (`.skip`, `.todo`, `.each`, no function) has
 * no entry. A lexical scan, no parser, so TypeScript and JSX syntax do not stop it: comments,
 * strings, template literals and regular-expression literals are blanked first (a quote or a
 * slash that does not close on its line starts none: JSX text such as `<p>Don't</p>`),
 * parentheses give the nesting.
 */
import path from 'node:path';
import { lineIndex } from '../discovery/lineIndex';
import { DiscoveryBudget, MAX_TESTS_PER_FILE } from '../discovery/discoveryBudget';

/** The test runners Braid can run one test of. */
export type JsRunner = 'node-test' | 'mocha' | 'jest' | 'vitest';

export const JS_SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;
export const TS_SOURCE = /\.(?:[cm]?ts|tsx)$/i;

export interface FoundJsTest {
  /** one test (test/it/specify) or a suite (describe/suite/context: all its tests) */
  kind: 'test' | 'suite';
  /** the enclosing suites' names, then its own, outermost first */
  titles: string[];
  /** 0-based line and character of the call (`test`, `describe`, …) */
  line: number;
  character: number;
}

interface StringToken {
  start: number;
  end: number;
  /** the literal's value; undefined for a template literal with substitutions */
  value?: string;
}

export interface JsScan {
  /** the text with comments and the insides of strings, templates and regular expressions blanked (newlines kept) */
  code: string;
  /** string and template literals by their start offset (the quote) */
  strings: Map<number, StringToken>;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** The value of a string's body (between its quotes) with its escapes read. */
function unescape(body: string): string {
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])/g, (_, e: string) => {
    if (e[0] === 'u' && e[1] === '{') return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
    if (e[0] === 'u' && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e[0] === 'x' && e.length === 3) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (e === '\n' || e === '\r\n' || e === '\r' || e === '\u2028' || e === '\u2029') return ''; // line continuation
    return ESCAPES[e] ?? e;
  });
}

/** Keywords after which a `/` starts a regular expression (not a division). */
const BEFORE_EXPRESSION = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await', 'extends']);

const isIdStart = (c: string) => /[A-Za-z_$\u00a0-\uffff]/.test(c);
const isIdPart = (c: string) => /[\w$\u00a0-\uffff]/.test(c);

/** Blanks comments and literals (see JsScan). */
export function scanJs(text: string, budget: DiscoveryBudget = DiscoveryBudget.forText(text)): JsScan {
  budget.spend(2 * text.length);
  const out = text.split('');
  const n = text.length;
  const strings = new Map<number, StringToken>();
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  /** index just past a quoted string starting at i (or at its line's end when unterminated) */
  const stringEnd = (i: number): number => {
    const q = text[i];
    let k = i + 1;
    while (k < n && text[k] !== q) {
      if (text[k] === '\\') k += text[k + 1] === '\r' && text[k + 2] === '\n' ? 3 : 2;
      else if (text[k] === '\n') return k;
      else k++;
    }
    return Math.min(k + 1, n);
  };
  /**
   * Index just past a template literal starting at i; whether it had substitutions. Substitutions hold
   * code, which can hold templates again: followed with a stack, not by recursion (issue 39:
   * `` test(`${ `` ×5,000 overflowed the call stack). Each entry is a template (-1) or the brace depth
   * of a substitution's code.
   */
  const templateEnd = (i: number): { end: number; subst: boolean } => {
    const stack: number[] = [-1];
    let subst = false;
    let k = i + 1;
    while (k < n) {
      const c = text[k];
      const top = stack[stack.length - 1];
      if (top < 0) {
        if (c === '\\') k += 2;
        else if (c === '`') {
          stack.pop();
          k++;
          if (!stack.length) return { end: k, subst };
        } else if (c === '$' && text[k + 1] === '{') {
          if (stack.length === 1) subst = true;
          stack.push(0);
          k += 2;
        } else k++;
      } else if (c === '{') {
        stack[stack.length - 1]++;
        k++;
      } else if (c === '}') {
        if (top === 0) stack.pop();
        else stack[stack.length - 1]--;
        k++;
      } else if (c === '"' || c === "'") k = stringEnd(k);
      else if (c === '`') {
        stack.push(-1);
        k++;
      } else if (c === '/' && text[k + 1] === '/') {
        const e = text.indexOf('\n', k);
        k = e < 0 ? n : e;
      } else if (c === '/' && text[k + 1] === '*') {
        const e = text.indexOf('*/', k + 2);
        k = e < 0 ? n : e + 2;
      } else k++;
    }
    return { end: n, subst };
  };
  /**
   * States (offset, inside a character class: bit 2, else bit 1) from which no regular expression
   * closes on its line: a later `/` on the line that reaches one stops there, so every character is
   * read at most twice however many slashes the line holds (issue 39: a line of `/[` took 30 s for 40 KB).
   */
  const noClose = new Uint8Array(n + 1);
  /** index just past a regular-expression literal starting at i (flags included), or -1 when none closes on its line */
  const regexEnd = (i: number): number => {
    let k = i + 1;
    let inClass = false;
    const path: number[] = [];
    const failed = () => {
      budget.spend(path.length);
      for (const s of path) noClose[s >> 1] |= (s & 1) + 1;
      return -1;
    };
    while (k < n) {
      if (noClose[k] & (inClass ? 2 : 1)) return failed();
      path.push(k * 2 + (inClass ? 1 : 0));
      const c = text[k];
      if (c === '\n' || c === '\r') return failed();
      if (c === '\\') k += 2;
      else {
        if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) {
          k++;
          while (k < n && isIdPart(text[k])) k++;
          budget.spend(k - i);
          return k;
        }
        k++;
      }
    }
    return failed();
  };

  // what came before, for telling a regular expression from a division
  let prev: 'none' | 'value' | 'op' = 'none';
  let i = 0;
  if (text.startsWith('#!')) {
    const e = text.indexOf('\n');
    i = e < 0 ? n : e;
    blank(0, i);
  }
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? n : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      const end = e < 0 ? n : e + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      const end = stringEnd(i);
      if (text[end - 1] === c && end - 1 > i) {
        strings.set(i, { start: i, end, value: unescape(text.slice(i + 1, end - 1)) });
        blank(i + 1, end - 1);
        i = end;
      } else i++; // no closing quote on its line: not a string (JSX text, `<p>Don't</p>`), or one being typed
      prev = 'value';
    } else if (c === '`') {
      const { end, subst } = templateEnd(i);
      const closed = text[end - 1] === '`' && end - 1 > i;
      strings.set(i, { start: i, end, ...(closed && !subst ? { value: unescape(text.slice(i + 1, end - 1).replace(/\r\n?/g, '\n')) } : {}) });
      blank(i + 1, closed ? end - 1 : end);
      i = end;
      prev = 'value';
    } else if (c === '/') {
      const end = prev === 'value' ? -1 : regexEnd(i);
      if (end > 0) {
        blank(i + 1, end);
        i = end;
        prev = 'value';
      } else {
        i++;
        prev = 'op';
      }
    } else if (isIdStart(c)) {
      let k = i + 1;
      while (k < n && isIdPart(text[k])) k++;
      const word = text.slice(i, k);
      // a property name (`x.return`) is a value
      prev = BEFORE_EXPRESSION.has(word) && text[i - 1] !== '.' ? 'op' : 'value';
      i = k;
    } else if (c >= '0' && c <= '9') {
      let k = i + 1;
      while (k < n && /[\w.]/.test(text[k])) k++;
      i = k;
      prev = 'value';
    } else {
      prev = c === ')' || c === ']' ? 'value' : 'op';
      i++;
    }
  }
  return { code: out.join(''), strings };
}

const SUITE_CALLS = new Set(['describe', 'suite', 'context']);
const TEST_CALLS = new Set(['test', 'it', 'specify']);
/** modifiers that still run the test (`test.only`, vitest's `it.concurrent`, `describe.sequential`, ava-style `serial`) */
const RUNNING_MODIFIERS = new Set(['only', 'concurrent', 'sequential', 'serial']);

/** The runner a test file names in its imports (`from 'node:test'`, `'vitest'`, `'@jest/globals'`, `'mocha'`), if any. */
export function importedRunner(text: string, scan: JsScan = scanJs(text)): JsRunner | undefined {
  for (const s of scan.strings.values()) {
    const runner = s.value === 'node:test' ? 'node-test' : s.value === 'vitest' ? 'vitest' : s.value === '@jest/globals' ? 'jest' : s.value === 'mocha' ? 'mocha' : undefined;
    if (!runner) continue;
    const before = scan.code.slice(Math.max(0, s.start - 40), s.start);
    if (/(?:\bfrom|\brequire\s*\(|\bimport\s*\(|\bimport)\s*$/.test(before)) return runner;
  }
  return undefined;
}

/**
 * Whether a JS/TS file is a test file worth scanning: named `*.test.*` / `*.spec.*`, under a
 * `test`, `tests`, `__tests__` or `spec` folder, or importing a test runner; never under node_modules.
 */
export function isJsTestFile(file: string, text: string, scan?: JsScan): boolean {
  if (!JS_SOURCE.test(file)) return false;
  const parts = file.split(/[\\/]/);
  if (parts.includes('node_modules')) return false;
  if (/\.(?:test|spec)\.[^.]+$/i.test(parts[parts.length - 1] ?? '')) return true;
  if (parts.slice(0, -1).some((p) => p === 'test' || p === 'tests' || p === '__tests__' || p === 'spec')) return true;
  return importedRunner(text, scan) !== undefined;
}

/** Suites nested deeper have no entry, nor the tests inside them. */
export const MAX_SUITE_DEPTH = 64;
/** A test or suite whose full name (its suites' names and its own) is longer has no entry. */
export const MAX_TEST_NAME = 2000;

/** The tests and suites of a JS/TS test source, in text order (at most MAX_TESTS_PER_FILE), in linear work. */
export function findJsTests(text: string, scan: JsScan = scanJs(text), budget: DiscoveryBudget = DiscoveryBudget.forText(text)): FoundJsTest[] {
  const t = scan.code;
  budget.spend(3 * t.length);
  // the matching `)` of every `(`
  const close = new Map<number, number>();
  const stack: number[] = [];
  for (let k = 0; k < t.length; k++) {
    if (t[k] === '(') stack.push(k);
    else if (t[k] === ')' && stack.length) close.set(stack.pop()!, k);
  }
  const pos = lineIndex(text);

  interface Call {
    kind: 'test' | 'suite';
    name: string;
    at: number;
    open: number;
    close: number;
  }
  const calls: Call[] = [];
  /** calls with no entry (skipped, a computed name): the tests inside them have none either */
  const opaque: { open: number; close: number }[] = [];
  const re = /[A-Za-z_$][\w$]*/g;
  for (let m; (m = re.exec(t)); ) {
    const word = m[0];
    budget.spend(word.length);
    const kind = SUITE_CALLS.has(word) ? 'suite' : TEST_CALLS.has(word) ? 'test' : undefined;
    if (!kind) continue;
    // not a member (`t.test(…)`, `foo.it`) and not part of a longer name
    if (m.index > 0 && isIdPart(t[m.index - 1])) continue;
    let b = m.index - 1;
    while (b >= 0 && /\s/.test(t[b])) b--;
    if (b >= 0 && t[b] === '.') continue;
    // modifiers: `.only`, `.concurrent`, …; any other (`.skip`, `.todo`, `.each`) runs nothing
    let k = m.index + word.length;
    let runs = true;
    for (;;) {
      let j = k;
      while (j < t.length && /\s/.test(t[j])) j++;
      if (t[j] !== '.') {
        k = j;
        break;
      }
      j++;
      while (j < t.length && /\s/.test(t[j])) j++;
      const mod = /^[A-Za-z_$][\w$]*/.exec(t.slice(j, j + 40))?.[0];
      if (!mod) {
        runs = false;
        break;
      }
      if (!RUNNING_MODIFIERS.has(mod)) runs = false;
      k = j + mod.length;
    }
    re.lastIndex = k;
    if (t[k] !== '(') continue;
    const open = k;
    // the call's extent, chained calls included (`describe.each([…])('name %s', () => {…})`)
    let end = close.get(open) ?? t.length;
    for (let j = end + 1; ; ) {
      while (j < t.length && /\s/.test(t[j])) j++;
      if (t[j] !== '(') break;
      end = close.get(j) ?? t.length;
      j = end + 1;
    }
    let a = open + 1;
    while (a < t.length && /\s/.test(t[a])) a++;
    const lit = scan.strings.get(a);
    let after = lit ? lit.end : a;
    while (after < t.length && /\s/.test(t[after])) after++;
    // skipped, a name that is not a plain literal, or no function (`it('pending')`): no entry, nor for the tests inside
    if (!runs || !lit || lit.value === undefined || t[after] !== ',') {
      opaque.push({ open, close: end });
      continue;
    }
    calls.push({ kind, name: lit.value, at: m.index, open, close: end });
  }

  // calls and opaque calls in text order; their extents nest, so one sweep with a stack finds what
  // encloses each (issue 39: comparing every call with every other took 153 s for 8,000 nested describes)
  interface Open {
    close: number;
    /** an opaque call or a test encloses it (or is it) */
    blocked: boolean;
    /** the enclosing suites' names, innermost last (shared with the entry below) */
    titles: string[];
  }
  const stackOpen: Open[] = [];
  const nameLengths = new Map<Open, number>();
  const out: FoundJsTest[] = [];
  let ci = 0;
  let oi = 0;
  while (ci < calls.length || oi < opaque.length) {
    const isCall = oi >= opaque.length || (ci < calls.length && calls[ci].open < opaque[oi].open);
    const ext = isCall ? calls[ci++] : opaque[oi++];
    budget.spend(1);
    while (stackOpen.length && stackOpen[stackOpen.length - 1].close < ext.open) {
      stackOpen.pop();
      budget.spend(1);
    }
    const around = stackOpen[stackOpen.length - 1];
    const blockedAround = around?.blocked ?? false;
    const suites = around?.titles ?? [];
    if (!isCall) {
      stackOpen.push({ close: ext.close, blocked: true, titles: suites });
      continue;
    }
    const c = ext as Call;
    // a test inside another test (node:test subtests are `t.test`), or inside a skipped call: no entry;
    // too deep or too long a name to be one a runner selects by: none either
    const titles = suites.length < MAX_SUITE_DEPTH ? [...suites, c.name] : undefined;
    budget.spend(titles?.length ?? 1);
    const nameLength = titles ? (around ? (nameLengths.get(around) ?? 0) : 0) + c.name.length : Infinity;
    const ok = !blockedAround && titles !== undefined && nameLength <= MAX_TEST_NAME && out.length < MAX_TESTS_PER_FILE;
    if (ok) out.push({ kind: c.kind, titles: titles!, ...pos(c.at) });
    const entry: Open = { close: c.close, blocked: blockedAround || c.kind === 'test' || !ok, titles: titles ?? suites };
    nameLengths.set(entry, nameLength);
    stackOpen.push(entry);
  }
  return out;
}

/** The base name of a test file without its test and language extensions (`inventory.test.ts` → `inventory`). */
export function testFileStem(file: string): string {
  return path.basename(file).replace(JS_SOURCE, '').replace(/\.(?:test|spec)$/i, '');
}
