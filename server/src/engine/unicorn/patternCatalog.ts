/**
 * Table 1 of the thesis: the 17 problematic memory-access patterns, P1–P3
 * (order violations, one pair), P4–P8 (single-variable atomicity
 * violations, two pairs sharing the middle access) and P9–P17
 * (multi-variable atomicity violations, two pairs on variables x and y).
 */

export type PatternCategory = 'order' | 'single-variable atomicity' | 'multi-variable atomicity';

/** How the two pairs of a multi-variable pattern are placed in time. */
export const enum PairRelation {
  /** a single pair: P1–P3 */
  Pair = 0,
  /** p1 = (a, b), p2 = (b, c) on one variable: P4–P8 */
  SharedMiddle = 1,
  /** x-pair, then y-pair: a1 a2 b1 b2 (P9, P12, P14) */
  Sequential = 2,
  /** a1 b1 a2 b2 (P10, P13, P15) */
  Interleaved = 3,
  /** a1 b1 b2 a2 (P11, P16, P17) */
  Nested = 4,
}

export interface PatternDefinition {
  /** 1..17 */
  n: number;
  /** "P1".."P17" */
  id: string;
  /** access types in execution order, e.g. "RWR" */
  kind: string;
  /** thread roles of the accesses in execution order */
  roles: readonly (1 | 2)[];
  /** variables of the accesses in execution order (x or y) */
  vars: readonly ('x' | 'y')[];
  category: PatternCategory;
  /** the thesis' notation, e.g. "R1(x) W2(x) R1(x)" */
  notation: string;
}

function def(n: number, kind: string, roles: (1 | 2)[], vars: ('x' | 'y')[], category: PatternCategory): PatternDefinition {
  const notation = kind
    .split('')
    .map((t, k) => `${t}${roles[k]}(${vars[k]})`)
    .join(' ');
  return { n, id: `P${n}`, kind, roles, vars, category, notation };
}

export const PATTERNS: readonly PatternDefinition[] = [
  def(1, 'RW', [1, 2], ['x', 'x'], 'order'),
  def(2, 'WR', [1, 2], ['x', 'x'], 'order'),
  def(3, 'WW', [1, 2], ['x', 'x'], 'order'),
  def(4, 'RWR', [1, 2, 1], ['x', 'x', 'x'], 'single-variable atomicity'),
  def(5, 'WWR', [1, 2, 1], ['x', 'x', 'x'], 'single-variable atomicity'),
  def(6, 'WRW', [1, 2, 1], ['x', 'x', 'x'], 'single-variable atomicity'),
  def(7, 'RWW', [1, 2, 1], ['x', 'x', 'x'], 'single-variable atomicity'),
  def(8, 'WWW', [1, 2, 1], ['x', 'x', 'x'], 'single-variable atomicity'),
  def(9, 'WWWW', [1, 2, 2, 1], ['x', 'x', 'y', 'y'], 'multi-variable atomicity'),
  def(10, 'WWWW', [1, 2, 2, 1], ['x', 'y', 'x', 'y'], 'multi-variable atomicity'),
  def(11, 'WWWW', [1, 2, 1, 2], ['x', 'y', 'y', 'x'], 'multi-variable atomicity'),
  def(12, 'WRRW', [1, 2, 2, 1], ['x', 'x', 'y', 'y'], 'multi-variable atomicity'),
  def(13, 'WRRW', [1, 2, 2, 1], ['x', 'y', 'x', 'y'], 'multi-variable atomicity'),
  def(14, 'RWWR', [1, 2, 2, 1], ['x', 'x', 'y', 'y'], 'multi-variable atomicity'),
  def(15, 'RWWR', [1, 2, 2, 1], ['x', 'y', 'x', 'y'], 'multi-variable atomicity'),
  def(16, 'RWRW', [1, 2, 1, 2], ['x', 'y', 'y', 'x'], 'multi-variable atomicity'),
  def(17, 'WRWR', [1, 2, 1, 2], ['x', 'y', 'y', 'x'], 'multi-variable atomicity'),
];

export function patternDefinition(n: number): PatternDefinition {
  const d = PATTERNS[n - 1];
  if (!d) throw new RangeError(`no pattern P${n}`);
  return d;
}

/**
 * The pattern number for a pair (one pair) given its access types.
 * write flags: w1 = first access is a write, w2 = second.
 */
export function pairPatternNumber(w1: boolean, w2: boolean): number {
  if (!w1 && w2) return 1; // RW
  if (w1 && !w2) return 2; // WR
  if (w1 && w2) return 3; // WW
  return 0; // RR is not a pattern
}

/** P4–P8 by the types of a, b (shared), c as bits a·4 + b·2 + c (W = 1). */
const SINGLE_VARIABLE = [0, 0, 4, 7, 0, 6, 5, 8]; // RRR RRW RWR RWW WRR WRW WWR WWW

/** P4–P8 from the types of a, b (shared), c. 0 when not a pattern. */
export function singleVariablePatternNumber(wa: boolean, wb: boolean, wc: boolean): number {
  return SINGLE_VARIABLE[(wa ? 4 : 0) + (wb ? 2 : 0) + (wc ? 1 : 0)];
}

/** rows: relation (Sequential, Interleaved, Nested); columns: T1 W+T2 W, T1 W+T2 R, T1 R+T2 W */
const MULTI_VARIABLE = [
  [9, 12, 14],
  [10, 13, 15],
  [11, 17, 16],
];

/**
 * P9–P17 from the relation of the x-pair (T1→T2) and the y-pair (T2→T1),
 * and the access types of thread 1 (w1: both of its accesses are writes)
 * and thread 2. The two accesses of one thread must have the same type.
 */
export function multiVariablePatternNumber(rel: PairRelation, t1Write: boolean, t2Write: boolean): number {
  const col = t1Write ? (t2Write ? 0 : 1) : t2Write ? 2 : -1;
  const row = rel - PairRelation.Sequential;
  if (col < 0 || row < 0 || row > 2) return 0;
  return MULTI_VARIABLE[row][col];
}
