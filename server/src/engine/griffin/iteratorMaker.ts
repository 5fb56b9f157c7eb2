/**
 * Where the iterator is made (issue 38 item 5, "the method where a missing action belongs"; docs/griffin.md
 * "Where the iterator is made"): an iteration while modified whose iterating thread steps a library
 * collection's iterator (`Iterator.next`, `hasNext`) from a class of the code under test that is not the
 * method that made that iterator — the code under test wraps the collection's iterator in an iterator
 * class of its own: its constructor calls `entrySet().iterator()`, its `next` steps it — names, for the
 * iterating thread, the method that made the iterator, and names that thread first. The fix that is
 * missing belongs there: a snapshot taken where the iteration starts (the constructor iterates a copy),
 * or the lock taken there; the stepping method only continues what the constructor began, and the
 * writer changes the collection under its own lock, as it should.
 *
 * ExpiringMap 0.5.10 (jhalterman/expiringmap #30): `values()`'s iterator is an
 * `AbstractHashIterator` whose constructor makes `entries.entrySet().iterator()` (ExpiringMap.java:370)
 * and whose `getNext` steps it (:378) without a lock, while `put` changes `entries` under the write
 * lock; the fix (523fe77) made the constructor iterate over a copy and the `iterator()` methods take the
 * read lock. The stepping `getNext` and the writer's `put` were named before.
 *
 * The iterator-making access is looked for among the first `MAKER_ROWS` rows of the ranked list (any
 * pattern: it is usually in passing runs only, far from the writer's change): a read of the same
 * collection type by a library call that makes an iterator (`iterator`, `listIterator`, `spliterator`,
 * `elements`), made in another method of the stepping method's class, in the same thread body (the
 * bottom frame of its stack is the stepping access's). Off (`iteratorMaker: false`), the lanes are
 * named as before (the modifying thread first).
 */
import type { CoverageMatrix, MatrixAccess } from './coverageMatrix';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { SuspiciousMethod } from './suspiciousMethods';

/** rows of the ranked list searched for the iterator-making call */
export const MAKER_ROWS = 256;

const STEP = /\.(next|hasNext|nextElement|hasMoreElements|forEachRemaining|tryAdvance)$/;
const MAKE = /\.(iterator|listIterator|spliterator|elements|descendingIterator)$/;

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

export interface IteratorMaker {
  /** the iterating lane */
  lane: 1 | 2;
  /** the pattern row holding the iterator-making call */
  row: number;
  /** the method named for the iterating lane: the one that made the iterator */
  method: SuspiciousMethod;
}

/**
 * The method that made the iterator the bug's iterating lane steps, or undefined. `iterating`: the
 * iterating lane (FixAdvice's shape `iteration-while-modified`); `family`: the bug's patterns;
 * `canName`: a frame that may be named (code under test).
 */
export function iteratorMaker(
  m: CoverageMatrix,
  iterating: 1 | 2,
  family: readonly Pick<PatternMember, 'row' | 'flip'>[],
  canName: (f: { file: string; method: string; line: number }) => boolean,
): IteratorMaker | undefined {
  // the iterating lane's steps: reads by an iterator's own call, in a method of the code under test
  const steps: MatrixAccess[] = [];
  for (const mem of family)
    m.pattern(mem.row).accesses.forEach((a, k) => {
      if (laneOf(m, mem, k) === iterating && a.type === 'R' && a.call !== undefined && STEP.test(a.call) && canName(a)) steps.push(a);
    });
  if (!steps.length) return undefined;
  const cls = classOf(steps[0].method);
  if (!cls || steps.some((s) => classOf(s.method) !== cls)) return undefined;
  const stepMethods = new Set(steps.map((s) => s.method));
  const bottoms = new Set(steps.map((s) => s.stack[0]?.method));
  const rows = Math.min(m.rowCount, MAKER_ROWS);
  for (let row = 0; row < rows; row++) {
    const acc = m.pattern(row).accesses;
    for (const a of acc) {
      if (a.type !== 'R' || a.call === undefined || !MAKE.test(a.call)) continue;
      if (a.variable !== steps[0].variable || classOf(a.method) !== cls || stepMethods.has(a.method) || a.file !== steps[0].file) continue;
      if (!bottoms.has(a.stack[0]?.method) || !canName(a)) continue;
      // the maker's frames: its lines, and the innermost of them ends the common stack
      const lines = new Set<number>();
      let k = -1;
      a.stack.forEach((f, i) => {
        if (f.method !== a.method || f.file !== a.file) return;
        lines.add(f.line);
        if (k < 0) k = i;
      });
      return {
        lane: iterating,
        row,
        method: {
          thread: iterating,
          method: a.method,
          file: a.file,
          line: a.line,
          lines: lines.size ? [...lines].sort((x, y) => x - y) : [a.line],
          commonStack: a.stack.slice(0, k < 0 ? a.stack.length : k + 1).map((f) => ({ file: f.file, line: f.line, method: f.method })),
          rule: 1,
        },
      };
    }
  }
  return undefined;
}
