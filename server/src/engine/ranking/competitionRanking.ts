/**
 * Competition ranking ("1224"): items with equal scores share a rank, and
 * the next rank skips the tied places — thesis Table 9 (1, 1, 1, 1, 5, 6,
 * 6, 6, 6). Scores are compared after rounding to 12 digits so that equal
 * fractions computed differently still tie.
 */
export function competitionRanks(scoresDescending: readonly number[]): number[] {
  const ranks: number[] = new Array(scoresDescending.length);
  for (let k = 0; k < scoresDescending.length; k++) {
    if (k > 0 && sameScore(scoresDescending[k], scoresDescending[k - 1])) ranks[k] = ranks[k - 1];
    else ranks[k] = k + 1;
  }
  return ranks;
}

export function sameScore(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-12;
}
