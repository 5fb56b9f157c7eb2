/**
 * The write the reader saw (issue 38 item 5; docs/griffin.md "The write the reader saw"): a bug whose
 * lead is an order violation W → R of one variable, where the read's recorded value is not the value
 * the write stored, read another write's value: a third write replaced the first one's before the read.
 * When the bug's patterns (its family or its related patterns) hold that write — a pair from the same
 * first write to another thread's write of the same variable, in the same failing and passing runs,
 * storing the value the reader saw — the wrong moment is that write's: the fix goes where the replacing write is made, not where the
 * stale value is read. lokijs' save clears every collection's dirty flag in its adapter's callback: an
 * update's `dirty = true` made while the file is written is replaced by the callback's `dirty = false`,
 * and `close()` reads false and does not save; the fix moved the clearing before the adapter's call,
 * in `saveDatabaseInternal`, the function that made the callback.
 *
 * The replacing write's lane names the method the usual rules give its stack (the top of the stack,
 * code under test), except that a write made by a class' own method called from a callback nested in
 * another method of that class (`saveDatabasecallback in Loki.saveDatabaseInternal` calling
 * `Loki.autosaveClearFlags`) names the callback: its maker decided when the write runs (after the
 * asynchronous operation completes), and that is the moment that is wrong. Only when every access has a
 * recorded value (a trace without values gives no rule).
 */
import type { CoverageMatrix, MatrixAccess } from './coverageMatrix';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { SuspiciousMethod } from './suspiciousMethods';

export interface OverwritingWrite {
  /** the lane of the replacing write (the reader's lane) */
  lane: 1 | 2;
  /** the pattern (row) holding it */
  row: number;
  /** the method named for that lane */
  method: SuspiciousMethod;
}

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

/** `saveDatabasecallback in Loki.saveDatabaseInternal` → `Loki.saveDatabaseInternal` (a function made in another, as the Node.js recorder names it). */
function makerOf(method: string): string | undefined {
  const k = method.lastIndexOf(' in ');
  return k < 0 ? undefined : method.slice(k + 4);
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * The replacing write of the bug led by `lead` (a member of `family`), or undefined. `canName`: a frame
 * that may be named (code under test).
 */
export function overwritingWrite(m: CoverageMatrix, lead: Pick<PatternMember, 'row' | 'flip'>, rows: readonly number[], canName: (f: { file: string; method: string; line: number }) => boolean): OverwritingWrite | undefined {
  const p = m.pattern(lead.row);
  const [w, r] = p.accesses;
  if (p.accesses.length !== 2 || w.type !== 'W' || r.type !== 'R' || w.variable !== r.variable || w.thread === r.thread) return undefined;
  if (w.value === undefined || r.value === undefined || sameValue(w.value, r.value)) return undefined;
  const readerLane = laneOf(m, lead, 1);
  for (const row of rows) {
    if (row === lead.row || m.failed[row] !== m.failed[lead.row] || m.passed[row] !== m.passed[lead.row]) continue;
    // from the same write (so on the writer's lane) to a write of the same variable by the other thread
    const acc = m.pattern(row).accesses;
    if (acc.length !== 2 || acc[0].key !== w.key || acc[1].thread === acc[0].thread) continue;
    const v = acc[1];
    if (v.type !== 'W' || v.variable !== w.variable || v.value === undefined || !sameValue(v.value, r.value)) continue;
    if (v.method === r.method && v.file === r.file) continue;
    const method = writeMethod(v, canName);
    if (!method) continue;
    return { lane: readerLane, row, method: { thread: readerLane, ...method } };
  }
  return undefined;
}

/** The method named for the replacing write: the top frame of code under test, or the callback nested in a method of its class that calls it. */
function writeMethod(v: MatrixAccess, canName: (f: { file: string; method: string; line: number }) => boolean): Omit<SuspiciousMethod, 'thread'> | undefined {
  const s = v.stack;
  let k = s.length - 1;
  while (k >= 0 && !canName(s[k])) k--;
  if (k < 0) return undefined;
  const cls = classOf(s[k].method);
  if (cls && k > 0) {
    const maker = makerOf(s[k - 1].method);
    if (maker !== undefined && classOf(maker) === cls && canName(s[k - 1])) k--;
  }
  const f = s[k];
  const lines = [...new Set(s.filter((x) => x.method === f.method && x.file === f.file).map((x) => x.line))].sort((a, b) => a - b);
  return { method: f.method, file: f.file, line: f.line, lines, commonStack: s.slice(0, k + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })), rule: 1 };
}
