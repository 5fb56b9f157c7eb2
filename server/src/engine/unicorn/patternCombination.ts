/**
 * UNICORN Step 2, isPattern/makePattern (Algorithm 2, lines 19–20): whether
 * two pairs, p1 = (a1, a2) before p2 = (b1, b2) in pair order, form one of
 * P4–P17 (Table 1). Split in two so that the second half runs once per
 * signature tuple (PatternRegistry memoizes it):
 *
 * - `placement` (per occurrence, on global indices): the pairs must involve
 *   the same two threads in opposite directions, p1 = T1 → T2 and
 *   p2 = T2 → T1 (the caller only offers such pairs). On one location, p2
 *   must start with p1's second access (the same dynamic access): a(T1) b(T2)
 *   c(T1). On two locations x (p1) and y (p2), the placement of the y-pair
 *   relative to the x-pair is sequential, interleaved or nested.
 * - `combinedPatternNumber` (per signature tuple, on access types): P4–P8
 *   from the three types; P9–P17: thread 1 accesses x and y with the same
 *   type, thread 2 too, and the placement picks the row.
 */
import { PairRelation, multiVariablePatternNumber, singleVariablePatternNumber } from './patternCatalog';

/**
 * How p2 = (b1, b2) is placed relative to p1 = (a1, a2) (global indices;
 * `sameLocation`: both pairs are on one dynamic location). PairRelation.Pair
 * means the two pairs form no pattern.
 */
export function placement(sameLocation: boolean, a1: number, a2: number, b1: number, b2: number): PairRelation {
  if (sameLocation) return a2 === b1 ? PairRelation.SharedMiddle : PairRelation.Pair;
  if (a1 > b1) return PairRelation.Pair;
  return a2 < b1 ? PairRelation.Sequential : a2 < b2 ? PairRelation.Interleaved : PairRelation.Nested;
}

/** The Table 1 number (4–17) of pairs placed as `rel` with these access types (W = true), or 0. */
export function combinedPatternNumber(rel: PairRelation, a1: boolean, a2: boolean, b1: boolean, b2: boolean): number {
  if (rel === PairRelation.Pair) return 0;
  if (rel === PairRelation.SharedMiddle) return singleVariablePatternNumber(a1, a2, b2);
  // thread 1 does a1 (x) and b2 (y); thread 2 does a2 (x) and b1 (y)
  if (a1 !== b2 || a2 !== b1) return 0;
  return multiVariablePatternNumber(rel, a1, a2);
}

/** Positions in pair order (a1 a2 b1 b2 = 0 1 2 3) of a pattern's accesses in execution order, per relation. */
export const EXECUTION_ORDER: readonly (readonly number[])[] = [
  [0, 1], // Pair: a1 a2
  [0, 1, 3], // SharedMiddle: a1 a2(= b1) b2
  [0, 1, 2, 3], // Sequential: a1 a2 b1 b2
  [0, 2, 1, 3], // Interleaved: a1 b1 a2 b2
  [0, 2, 3, 1], // Nested: a1 b1 b2 a2
];
