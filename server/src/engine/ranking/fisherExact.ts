/**
 * Confidence of a pattern: the one-sided p-value of Fisher's exact test on
 * the 2×2 table of runs (pattern present / absent × failed / passed).
 *
 *                 failed        passed
 *   present       f             p
 *   absent        F − f         P − p
 *
 * Under the null hypothesis (the pattern is unrelated to failing) the number
 * of failing runs among the f + p runs that show the pattern is
 * hypergeometric; the p-value is the probability of seeing f or more of
 * them: Σ_{x ≥ f} C(F, x)·C(P, k − x) / C(F + P, k) with k = f + p.
 * Small p means the association is unlikely to be chance. Computed in log
 * space so that thousands of runs neither overflow nor underflow early.
 */
export function fisherOneSided(failed: number, passed: number, totalFailed: number, totalPassed: number): number {
  const F = totalFailed;
  const P = totalPassed;
  const k = failed + passed;
  const N = F + P;
  if (k === 0 || failed === 0 || N === 0) return 1;
  const hi = Math.min(F, k);
  const denom = logChoose(N, k);
  let sum = 0;
  for (let x = failed; x <= hi; x++) {
    if (k - x > P) continue;
    sum += Math.exp(logChoose(F, x) + logChoose(P, k - x) - denom);
  }
  return Math.min(1, Math.max(0, sum));
}

const logFactCache: number[] = [0];

function logFactorial(n: number): number {
  for (let m = logFactCache.length; m <= n; m++) logFactCache.push(logFactCache[m - 1] + Math.log(m));
  return logFactCache[n];
}

function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return -Infinity;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}
