/**
 * Weak patterns (issue 16, "less noise"): a ranked pattern that does not
 * separate failing from passing runs — its score is below
 * `braid.views.minScore` (default 0.3) or it occurs in every passing run.
 * The views fold them under "n weaker patterns" and give them no heat, icon,
 * code lens, diagnostic or hover. The ranking itself is unchanged (the thesis'
 * order; `braid.views.minScore` 0 shows every pattern as before, except those
 * present in every passing run).
 */

export const DEFAULT_MIN_SCORE = 0.3;

export interface WeakPatternInput {
  score: number;
  passed: number;
}

/** `passingRuns`: the number of passing runs analyzed. */
export function isWeakPattern(p: WeakPatternInput, passingRuns: number, minScore = DEFAULT_MIN_SCORE): boolean {
  if (p.score < minScore || p.score <= 0) return true;
  return passingRuns > 0 && p.passed >= passingRuns;
}
