/**
 * Weak patterns (issue 16, "less noise"): a ranked pattern that does not
 * separate failing from passing runs — its score is below
 * `braid.views.minScore` (default 0.3) or it occurs in every passing run —
 * unless it has evidence (Fisher p < 0.05 and missing from some passing runs,
 * `evidence` of the ranking): the report and the panel list such a pattern as
 * a cause, so the views never fold it as one that "does not separate" (issue 43,
 * one weak rule; a lost update seen as R1 W2 in 5 of 18 failing runs and in no
 * passing run scores 0.28 and was folded).
 * The views fold them under "n weaker patterns" and give them no heat, icon,
 * code lens, diagnostic or hover. The ranking itself is unchanged (the thesis'
 * order; `braid.views.minScore` 0 shows every pattern as before, except those
 * present in every passing run).
 */

export const DEFAULT_MIN_SCORE = 0.3;

export interface WeakPatternInput {
  score: number;
  passed: number;
  /** the ranking's evidence (rootCauseOrder's hasEvidence, or evidence by order); absent: by the score alone */
  evidence?: boolean;
}

/** `passingRuns`: the number of passing runs analyzed. */
export function isWeakPattern(p: WeakPatternInput, passingRuns: number, minScore = DEFAULT_MIN_SCORE): boolean {
  if (p.evidence === true && p.score > 0) return false;
  if (p.score < minScore || p.score <= 0) return true;
  return passingRuns > 0 && p.passed >= passingRuns;
}
