/**
 * Evidence by start order (issue 38, "what differs is the order within the same pattern"; docs/algorithms.md
 * "Evidence by start order"). A symmetric pattern — two workers' `W index++` at one line, W1 → W2 — occurs
 * in every run, failing or passing, and has no other order to be compared with (evidence by order,
 * orderEvidence.ts): swapping its threads gives the same pattern. What can differ is *which* thread came
 * first: the workers are started in the order of their elements, and the run fails when the worker
 * started later gets to the counter first (p-map's `pMapIterable`: in 77 of 77 failing runs, in none of
 * 23 passing ones).
 *
 * An occurrence of a pattern is *overtaken* when its first access's thread started after the other
 * thread of its first pair (UNICORN's collector ranks a run's threads by their first appearance in the
 * trace: their first event, or the START that started them). Each pattern has two *variants* — its
 * occurrences overtaken, and those in start order — and a run has a variant when it has at least one
 * such occurrence. A variant is a pattern with thread roles by start order, so it is tested and scored
 * as UNICORN tests and scores a pattern, on its runs: the one-sided Fisher p of its presence in the
 * failing runs against the passing ones, below 0.05 divided by the tests made (two per pattern tested,
 * Bonferroni), and it must be missing from some passing runs (rootCauseOrder.hasEvidence's 95 %).
 * Tested: a pattern in a failing run with neither evidence by presence nor evidence by order, seen both
 * ways. The pattern keeps its own counts; it is scored as its variant (the passing runs that give it the
 * variant's score, variantScoredPassed).
 */
import { fisherOneSided } from './fisherExact';
import { EVIDENCE_ALPHA, NEARLY_EVERY_PASSING_RUN } from './rootCauseOrder';

/** The runs of a pattern's two variants. */
export interface StartOrderRuns {
  /** failing runs with an overtaken occurrence (the first thread started after the other) */
  failingOvertaken: number;
  /** failing runs with an occurrence in start order */
  failingInOrder: number;
  passingOvertaken: number;
  passingInOrder: number;
}

/** The variant with evidence, when one has. */
export interface StartOrderVariant {
  /** true: the overtaken occurrences go with failing; false: those in start order do */
  overtaken: boolean;
  /** its runs */
  failed: number;
  passed: number;
  /** the one-sided Fisher p of its presence */
  pValue: number;
}

/** Whether a pattern seen in a failing run was seen both ways (overtaken and in start order), so that it can be tested. */
export function testable(r: StartOrderRuns): boolean {
  return r.failingOvertaken + r.failingInOrder > 0 && r.failingOvertaken + r.passingOvertaken > 0 && r.failingInOrder + r.passingInOrder > 0;
}

/** The threshold with `tested` patterns tested (Bonferroni over both variants of each). */
export function startOrderThreshold(tested: number): number {
  return EVIDENCE_ALPHA / Math.max(1, 2 * tested);
}

/** The variant of a pattern whose presence is evidence at `threshold`, the stronger of the two; undefined when neither is. */
export function startOrderVariant(r: StartOrderRuns, totalFailed: number, totalPassed: number, threshold: number): StartOrderVariant | undefined {
  const over = variant(true, r.failingOvertaken, r.passingOvertaken, totalFailed, totalPassed, threshold);
  const inOrder = variant(false, r.failingInOrder, r.passingInOrder, totalFailed, totalPassed, threshold);
  if (!over) return inOrder;
  if (!inOrder) return over;
  return over.pValue <= inOrder.pValue ? over : inOrder;
}

function variant(overtaken: boolean, failed: number, passed: number, totalFailed: number, totalPassed: number, threshold: number): StartOrderVariant | undefined {
  if (failed === 0) return undefined;
  if (totalPassed > 0 && passed >= NEARLY_EVERY_PASSING_RUN * totalPassed) return undefined;
  const pValue = fisherOneSided(failed, passed, totalFailed, totalPassed);
  return pValue < threshold ? { overtaken, failed, passed, pValue } : undefined;
}

/**
 * The passing runs a pattern in `failed` failing runs is scored on so that its Jaccard score is its
 * variant's, v.failed / (totalFailed + v.passed): (failed · (totalFailed + v.passed)) / v.failed − totalFailed,
 * rounded up (never above the variant's score). The pattern's own failing runs are at least the variant's.
 */
export function variantScoredPassed(failed: number, v: StartOrderVariant, totalFailed: number): number {
  if (v.failed >= failed) return v.passed;
  return Math.max(v.passed, Math.ceil((failed * (totalFailed + v.passed)) / v.failed - totalFailed - 1e-9));
}
