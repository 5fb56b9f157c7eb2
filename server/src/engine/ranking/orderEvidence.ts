/**
 * Evidence by order (issue 38, "most runs fail / the root cause is in every run"; docs/algorithms.md
 * "Evidence by order"). A racing pair can occur in nearly every run, failing or passing, so its
 * presence is no evidence (Fisher p ≈ 1). What differs is which of its orders the threads took: a
 * lazy map cache's check by one thread before the other's put happens in passing runs too (for
 * another key), but much more often in failing runs, relative to the same accesses in the other
 * order (the put before the check).
 *
 * The *orders* of a pattern are the patterns over the same static accesses (the same multiset of
 * type, variable and location), whatever their order and thread roles: R1 → W2 and W1 → R2 of one
 * check and one put; R1 W2 W1, W1 R2 W1 and W1 W2 R1 of a check and two puts. For a pattern X with
 * occurrences x_F in the failing runs and x_P in the passing runs, and o_F, o_P occurrences of its
 * other orders, the table
 *
 *              X     other orders
 *   failing   x_F    o_F
 *   passing   x_P    o_P
 *
 * gets the one-sided Fisher p-value that X's share of the occurrences is larger in the failing runs.
 * Occurrences of one run are not independent draws, so the threshold is corrected for the number of
 * patterns tested (Bonferroni: α / m, m = the patterns with another order seen at all), and only a
 * pattern with no evidence by presence (rootCauseOrder.hasEvidence) is tested: one that separates the
 * runs already has the sharper evidence.
 */
import { fisherOneSided } from './fisherExact';
import { EVIDENCE_ALPHA } from './rootCauseOrder';
import { normalUpperTail } from '../noise/likelihoodRatio';

/** The occurrences of a pattern and of its other orders, in failing and passing runs. */
export interface OrderCounts {
  /** occurrences of the pattern in the failing runs */
  failing: number;
  /** occurrences of its other orders (same static accesses) in the failing runs */
  failingOther: number;
  passing: number;
  passingOther: number;
}

/** One-sided Fisher p-value that the pattern's share of its accesses' occurrences is larger in the failing runs (1 when there is no other order). */
export function orderPValue(c: OrderCounts): number {
  if (c.failingOther + c.passingOther === 0 || c.failing === 0) return 1;
  const nF = c.failing + c.failingOther;
  const nP = c.passing + c.passingOther;
  // Fisher's sum runs over up to min(nF, x) terms: beyond EXACT_LIMIT occurrences the normal
  // approximation of the same one-sided test (two proportions, pooled), which is close there
  if (nF + nP > EXACT_LIMIT) return twoProportionP(c.failing, nF, c.passing, nP);
  return fisherOneSided(c.failing, c.passing, nF, nP);
}

/**
 * The passing runs a pattern with evidence by order is scored on: its passing runs `passed` weighted by
 * its share of its accesses' occurrences in the passing runs over that in the failing runs (< 1 where
 * the order goes with failing), rounded. A pattern present in most runs of both kinds is scored as if
 * it were in as few passing runs as its order makes it count for: one that takes 27 % of its accesses'
 * occurrences in passing runs and 47 % in failing runs counts 17 passing runs as 10.
 */
export function weightedPassedRuns(passed: number, c: OrderCounts): number {
  const nF = c.failing + c.failingOther;
  const nP = c.passing + c.passingOther;
  if (nF === 0 || nP === 0 || c.failing === 0) return passed;
  const ratio = c.passing / nP / (c.failing / nF);
  return ratio >= 1 ? passed : Math.round(passed * ratio);
}

/** Occurrence tables larger than this get the normal approximation (a busy program's pairs occur millions of times). */
export const EXACT_LIMIT = 20000;

/** One-sided p-value that proportion a/n1 exceeds b/n2 (pooled two-proportion z-test). */
export function twoProportionP(a: number, n1: number, b: number, n2: number): number {
  if (n1 === 0 || n2 === 0) return 1;
  const pool = (a + b) / (n1 + n2);
  const se = Math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2));
  if (se === 0) return 1;
  const z = (a / n1 - b / n2) / se;
  return normalUpperTail(z);
}

/** The threshold of evidence by order with `tested` patterns tested (Bonferroni). */
export function orderThreshold(tested: number): number {
  return EVIDENCE_ALPHA / Math.max(1, tested);
}

/** Whether a pattern's order is evidence of going with failing: its order p-value is below the corrected threshold. */
export function hasOrderEvidence(c: OrderCounts, tested: number): boolean {
  return orderPValue(c) < orderThreshold(tested);
}
