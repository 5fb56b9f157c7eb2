/**
 * UNICORN Step 2, isPattern/makePattern (Algorithm 2, lines 19–20): whether
 * two pairs, p1 before p2 in pair order, form one of P4–P17 (Table 1).
 *
 * - The pairs must involve the same two threads in opposite directions:
 *   p1 = T1 → T2 and p2 = T2 → T1.
 * - P4–P8: one location, and p2 starts with p1's second access (the same
 *   dynamic access): a(T1) b(T2) c(T1).
 * - P9–P17: two different locations x (p1) and y (p2); thread 1 accesses x
 *   and y with the same type, thread 2 too; the placement of the y-pair
 *   relative to the x-pair (sequential, interleaved, nested) picks the row.
 */
import type { WindowAccess } from './accessWindow';
import { PairRelation, multiVariablePatternNumber, singleVariablePatternNumber } from './patternCatalog';

/**
 * Returns the pattern p1 = (a1, a2) + p2 = (b1, b2) forms, packed as
 * n·8 + relation, or 0. Allocates nothing.
 */
export function combinePairs(a1: WindowAccess, a2: WindowAccess, b1: WindowAccess, b2: WindowAccess): number {
  if (a1.thread !== b2.thread || a2.thread !== b1.thread) return 0;
  if (a1.win === b1.win) {
    if (a2 !== b1) return 0;
    const n = singleVariablePatternNumber(a1.write, a2.write, b2.write);
    return n ? n * 8 + PairRelation.SharedMiddle : 0;
  }
  // thread 1 does a1 (x) and b2 (y); thread 2 does a2 (x) and b1 (y)
  if (a1.write !== b2.write || a2.write !== b1.write || a1.idx > b1.idx) return 0;
  const rel = a2.idx < b1.idx ? PairRelation.Sequential : a2.idx < b2.idx ? PairRelation.Interleaved : PairRelation.Nested;
  const n = multiVariablePatternNumber(rel, a1.write, a2.write);
  return n ? n * 8 + rel : 0;
}

/** The four (or three) accesses of a combination in execution order. */
export function orderedAccesses<T>(rel: PairRelation, a1: T, a2: T, b1: T, b2: T): T[] {
  switch (rel) {
    case PairRelation.SharedMiddle:
      return [a1, a2, b2];
    case PairRelation.Sequential:
      return [a1, a2, b1, b2];
    case PairRelation.Interleaved:
      return [a1, b1, a2, b2];
    case PairRelation.Nested:
      return [a1, b1, b2, a2];
    default:
      return [a1, a2];
  }
}
