/**
 * The writer takes over what the reader left (issue 38 item 5, "the method where a missing action
 * belongs"; docs/griffin.md "The writer takes over what the reader left"). An order violation between
 * Node.js tasks names the reader first (fixAdvice.ts `orderFixLane`: the reader should await the pending
 * operation or re-check). That holds when the reader assumed a state it could have waited for. It does
 * not when the reader, having read the state as it was, left something for the writer to finish — a
 * waiter pushed on a queue that the writer's method then takes off, a count the writer's method then
 * updates — and the writer's method, after its write, goes on with that: the reader already deferred to
 * the writer, and the step that is missing or wrong is the writer's hand-over (it marks free what it hands
 * to the waiter, it restarts one worker where two stopped). The writer is then named first.
 *
 * Detected from the bug's patterns alone: the lead is a pair R → W (the read first in the failing runs)
 * whose fix lane is the reader's; among the bug's family and related patterns, one that occurs in at
 * least the lead's failing runs and at most its passing runs holds a write of another variable made in
 * the reader's method (on the reader lane's stacks, not in the writer's method) followed by another
 * thread's access of that variable made in the writer's method. metautil's Pool: `next` reads
 * `available` = 0 and pushes a waiter on `queue`; `release` then writes `available++` and shifts the
 * waiter off `queue` (the fix returns before marking the item free). async's queue: a task's `next`
 * writes `workers -= 1` and `process` reads `paused`; `resume` writes `paused = false` and its `process`
 * updates `workers` (the fix starts one `process` per worker). generic-pool's `clear` reads the free list
 * and leaves nothing the create's continuation uses: the reader stays first.
 */
import type { CoverageMatrix, MatrixAccess } from './coverageMatrix';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';

export interface HandOff {
  /** the writer's lane: named first */
  writerLane: 1 | 2;
  /** the pattern (row) holding the hand-over */
  row: number;
  /** the reader's write (what it left) and the writer's access of the same variable */
  left: MatrixAccess;
  taken: MatrixAccess;
}

/** A method as the suspicious methods name it (method and file). */
interface Named {
  method: string;
  file: string;
}

function onStack(a: MatrixAccess, n: Named): boolean {
  return a.stack.some((f) => f.method === n.method && f.file === n.file);
}

/**
 * The hand-over of the bug led by `lead` (a pair R → W, a member of the bug's family), or undefined.
 * `readerLane`: the lane the order rule names first (the reader's); `reader`, `writer`: the lanes'
 * suspicious methods; `rows`: the bug's family and related patterns.
 */
export function handOff(m: CoverageMatrix, lead: Pick<PatternMember, 'row' | 'flip'>, rows: readonly number[], reader: Named, writer: Named): HandOff | undefined {
  const p = m.pattern(lead.row);
  if (p.accesses.length !== 2) return undefined;
  const [r, w] = p.accesses;
  if (r.type !== 'R' || w.type !== 'W' || r.thread === w.thread || r.variable !== w.variable) return undefined;
  if (reader.method === writer.method && reader.file === writer.file) return undefined;
  const writerLane = laneOf(m, lead, 1);
  for (const row of rows) {
    if (row === lead.row || m.failed[row] < m.failed[lead.row] || m.passed[row] > m.passed[lead.row]) continue;
    const acc = m.pattern(row).accesses;
    for (let i = 0; i < acc.length; i++) {
      const left = acc[i];
      if (left.type !== 'W' || left.variable === r.variable || !onStack(left, reader) || onStack(left, writer)) continue;
      for (let j = i + 1; j < acc.length; j++) {
        const taken = acc[j];
        if (taken.thread === left.thread || taken.variable !== left.variable || !onStack(taken, writer)) continue;
        return { writerLane, row, left, taken };
      }
    }
  }
  return undefined;
}
