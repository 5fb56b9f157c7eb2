/**
 * The value of an access as the reader keeps it (docs/trace-format.md, `value`; issue 31, N13):
 * bounded by what it can be shown as, so that memory follows what is shown, not what a trace line
 * holds (8 lines with an 8 M-element array each once took 3.4 GB for a 134 MB trace).
 *
 * - a string of more than MAX_VALUE_CHARS characters: its first MAX_VALUE_CHARS, then `…`;
 * - an array or object whose JSON text is longer than MAX_VALUE_CHARS: a summary string,
 *   `[8388608 numbers]` (`strings`, `booleans`, `nulls`, `arrays`, `objects`, or `values` when
 *   mixed; `[1 number]` for one) or `{3000 keys}`;
 * - anything else (numbers, booleans, null, short strings, small arrays and objects): as it is.
 */

/** Longest string, and longest JSON text of an array or object, kept as it is. */
export const MAX_VALUE_CHARS = 1024;

/** The value as kept: `v` itself when it is small enough, else its bounded form (above). */
export function boundValue(v: unknown): unknown {
  if (typeof v === 'string') return v.length > MAX_VALUE_CHARS ? cutString(v) : v;
  if (v === null || typeof v !== 'object') return v;
  if (jsonFits(v, MAX_VALUE_CHARS)) return v;
  if (Array.isArray(v)) return arraySummary(v);
  const keys = countKeys(v);
  return `{${keys} ${keys === 1 ? 'key' : 'keys'}}`;
}

/** The first MAX_VALUE_CHARS characters and `…` (a surrogate pair is not split). */
export function cutString(s: string): string {
  let end = MAX_VALUE_CHARS;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end) + '…';
}

/** Whether JSON.stringify(v) has at most `budget` characters; stops as soon as it has more. */
function jsonFits(v: object, budget: number): boolean {
  let left = budget;
  const walk = (x: unknown): boolean => {
    if (x === null) left -= 4;
    else if (typeof x === 'number') left -= Number.isFinite(x) ? String(x).length : 4;
    else if (typeof x === 'boolean') left -= x ? 4 : 5;
    else if (typeof x === 'string') {
      if (x.length + 2 > left) return false;
      left -= JSON.stringify(x).length;
    } else if (Array.isArray(x)) {
      left -= 2 + Math.max(0, x.length - 1);
      if (left < 0) return false;
      for (const e of x) if (!walk(e)) return false;
    } else if (typeof x === 'object') {
      left -= 2;
      let first = true;
      for (const k in x) {
        if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
        left -= (first ? 0 : 1) + JSON.stringify(k).length + 1;
        first = false;
        if (left < 0 || !walk((x as Record<string, unknown>)[k])) return false;
      }
    } else left -= 4; // not from JSON
    return left >= 0;
  };
  return walk(v);
}

function kindOf(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  return typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean' || typeof x === 'object' ? typeof x : 'value';
}

function arraySummary(a: unknown[]): string {
  let kind = a.length ? kindOf(a[0]) : 'value';
  for (let k = 1; k < a.length && kind !== 'value'; k++) if (kindOf(a[k]) !== kind) kind = 'value';
  return `[${a.length} ${kind}${a.length === 1 ? '' : 's'}]`;
}

function countKeys(o: object): number {
  let n = 0;
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) n++;
  return n;
}
