/**
 * A ranked pattern in plain words (issue 30, point 6): what each thread did, in execution order,
 * with the values when the traces record them —
 * "Thread `copier` read `size` (3), then thread `adder` wrote it (4) and wrote `data`, then
 * `copier` read `data`." The thesis' names (P14, RWWR, multi-variable atomicity) stay in the details.
 *
 * The sentence uses the fix-advice headline's format (griffin/fixAdvice.ts): plain words with
 * trace names as `code spans`, and no other backtick (a name's backticks become `'`), so a caller
 * renders it with `mdHeadline` (Markdown: hover, tooltips) or `plainHeadline` (a tree label), both
 * in engine/outputEscaping.ts. Pure, no dependencies but displayNames: importable by the client.
 */
import { roleNames, shortMethod, shortVariable, simpleClassName } from '../displayNames';

/** The fields of an access the sentence reads (PatternAccessDto, the engine's pattern accesses). */
export interface SentenceAccess {
  thread: number;
  threadName?: string;
  type: 'R' | 'W';
  variable: string;
  /** a library call recorded at this access (`java.util.HashMap.put`): the variable is then the object's type */
  call?: string;
  value?: unknown;
}

/** The pattern's accesses in words, one clause per change of thread (see the file comment). */
export function patternSentence(accesses: readonly SentenceAccess[]): string {
  if (!accesses.length) return '';
  const who = threadNamer(accesses);
  const varName = variableNamer(accesses);
  const clauses: string[] = [];
  let prev: SentenceAccess | undefined;
  let clause = '';
  for (const a of accesses) {
    const sameThread = prev !== undefined && prev.thread === a.thread;
    const sameVar = prev !== undefined && prev.variable === a.variable && (prev.call === undefined) === (a.call === undefined);
    const what = a.call !== undefined ? `called ${code(callName(a))}` : `${a.type === 'W' ? 'wrote' : 'read'} ${sameVar ? 'it' : code(varName(a.variable))}`;
    const part = `${what}${valueNote(a)}`;
    if (sameThread) clause += ` and ${part}`;
    else {
      if (clause) clauses.push(clause);
      clause = `${who(a.thread)} ${part}`;
    }
    prev = a;
  }
  clauses.push(clause);
  const text = clauses.join(', then ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * How a role is named: "thread `copier`" the first time and "`copier`" after; roles without a name
 * (older traces), or two roles with one name, are "thread T1", then "T1".
 */
function threadNamer(accesses: readonly SentenceAccess[]): (role: number) => string {
  const names = roleNames(accesses);
  const distinct = new Set(names.values()).size === names.size;
  const seen = new Set<number>();
  return (role) => {
    const n = names.get(role);
    const label = n !== undefined && distinct ? code(n) : `T${role}`;
    const first = !seen.has(role);
    seen.add(role);
    return first ? `thread ${label}` : label;
  };
}

/** The field alone (`size`), or `Class.field` when two variables of the pattern share the field's name. */
function variableNamer(accesses: readonly SentenceAccess[]): (variable: string) => string {
  const member = (v: string) => {
    const s = shortVariable(v);
    const dot = s.lastIndexOf('.');
    return dot < 0 ? s : s.slice(dot + 1);
  };
  const vars = [...new Set(accesses.filter((a) => a.call === undefined).map((a) => a.variable))];
  const clash = new Set(vars.map(member)).size < vars.length;
  return (v) => (clash ? shortVariable(v) : member(v));
}

/** `HashMap.put` for a call `java.util.HashMap.put` on a `java.util.HashMap`. */
function callName(a: SentenceAccess): string {
  const c = shortMethod(a.call ?? '');
  return c.includes('.') ? c : `${simpleClassName(a.variable)}.${c}`;
}

/** " (3)", " (null)", " (a `HashMap`)" when the value is recorded; nothing for a call. */
function valueNote(a: SentenceAccess): string {
  if (a.value === undefined || a.call !== undefined) return '';
  return ` (${valueText(a.value)})`;
}

/** `"java.util.HashMap@1b6d3586"` (the agent's text for an object) → `HashMap`. */
function objectType(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\[\])*)@-?[0-9a-fA-F]+$/.exec(v);
  return m ? simpleClassName(m[1].replace(/(\[\])+$/, '')) + (m[1].match(/(\[\])+$/)?.[0] ?? '') : undefined;
}

/** A value in words: null, 3, true, "text" (quoted, cut after 40 characters), an object as "a `Type`". */
export function valueText(v: unknown): string {
  const obj = objectType(v);
  if (obj !== undefined) return `${/^[AEIOUaeiou]/.test(obj) ? 'an' : 'a'} ${code(obj)}`;
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  if (s.length > 40) s = `${s.slice(0, 40)}…`;
  return plain(typeof v === 'string' ? JSON.stringify(s) : s);
}

/** A code span; the text loses its backticks (the only backticks of the sentence delimit spans). */
function code(s: string): string {
  return '`' + plain(s) + '`';
}

/** Trace text without backticks or line breaks. */
function plain(s: string): string {
  return s.replace(/`/g, "'").replace(/[\r\n\u2028\u2029\u0085]+/g, ' ');
}
