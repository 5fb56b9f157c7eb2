/**
 * Seed 004's scoring of instrumentation points and groups.
 *
 * - The likelihood-ratio score of a point (seed Eq. 1):
 *     Score(i) = P(Success | X_i) / P(!Success | X_i)
 *   "Success" is eliciting the bug: the share of runs with noise at point i
 *   that failed, over the share that passed. The sample probabilities get a
 *   Haldane correction (+½ each) so that a point whose runs all failed has
 *   a finite score.
 * - The likelihood-ratio test (G-test) of the 2×2 table "noise at i / not ×
 *   failed / passed" over every run so far: its p-value is what `braid
 *   pinpoint` reports and what the p < 10⁻⁶ stop looks at.
 * - The comparison of two groups of one IGS round (seed §5, Table 2, Eq. 9):
 *     S = (a − c) / √((a + c)(2n − a − c) / (2n))
 *   with a ≥ c the failures with each group, n the configurations run with
 *   each; its one-sided normal tail is the p-value compared with 10⁻⁶.
 */

/** The seed's significance threshold (§5: "a conservative threshold of p < 10⁻⁶"). */
export const SIGNIFICANCE = 1e-6;

/** Score(i) = P(fail | noise at i) / P(pass | noise at i), Haldane-corrected. */
export function likelihoodRatioScore(failsWith: number, runsWith: number): number {
  const passesWith = runsWith - failsWith;
  return (failsWith + 0.5) / (passesWith + 0.5);
}

/** Complementary error function (Numerical Recipes' erfcc, a Chebyshev fit; relative error < 1.2e-7 everywhere). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** P(Z > z) for a standard normal Z. */
export function normalUpperTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** P(χ²₁ > x): the upper tail of a chi-square with one degree of freedom. */
export function chiSquare1UpperTail(x: number): number {
  if (!(x > 0)) return 1;
  return erfc(Math.sqrt(x / 2));
}

function xlogx(o: number, e: number): number {
  return o > 0 ? o * Math.log(o / e) : 0;
}

/**
 * One-sided likelihood-ratio (G) test that runs with noise at the point fail more often than runs
 * without it. Table: with noise `failsWith` of `runsWith` failed; without noise `failsWithout` of
 * `runsWithout`. Returns 1 when the point's failure rate is not higher (or a side has no run).
 */
export function likelihoodRatioPValue(failsWith: number, runsWith: number, failsWithout: number, runsWithout: number): number {
  const n = runsWith + runsWithout;
  const fails = failsWith + failsWithout;
  if (runsWith === 0 || runsWithout === 0 || fails === 0 || fails === n) return 1;
  if (failsWith / runsWith <= failsWithout / runsWithout) return 1;
  const passesWith = runsWith - failsWith;
  const passesWithout = runsWithout - failsWithout;
  const passes = n - fails;
  const g =
    2 *
    (xlogx(failsWith, (runsWith * fails) / n) +
      xlogx(passesWith, (runsWith * passes) / n) +
      xlogx(failsWithout, (runsWithout * fails) / n) +
      xlogx(passesWithout, (runsWithout * passes) / n));
  // one-sided: half of the two-sided chi-square tail
  return Math.min(1, 0.5 * chiSquare1UpperTail(g));
}

/** Seed Eq. 9: the normal-approximation score of two groups' failure counts a ≥ c out of n configurations each. */
export function groupDifferenceScore(a: number, c: number, n: number): number {
  if (a < c) [a, c] = [c, a];
  const v = ((a + c) * (2 * n - a - c)) / (2 * n);
  if (a === c) return 0;
  if (v <= 0) return Infinity;
  return (a - c) / Math.sqrt(v);
}

/** p-value of Eq. 9's score (one-sided normal tail). */
export function groupDifferencePValue(a: number, c: number, n: number): number {
  const s = groupDifferenceScore(a, c, n);
  return s === Infinity ? 0 : normalUpperTail(s);
}

/**
 * Per-point run statistics over every configuration run so far: how many runs had noise at the
 * point and how many of those failed, plus the totals. Typed arrays indexed by point.
 */
export class PointStatistics {
  readonly runsWith: Uint32Array;
  readonly failsWith: Uint32Array;
  runs = 0;
  fails = 0;

  constructor(readonly size: number) {
    this.runsWith = new Uint32Array(size);
    this.failsWith = new Uint32Array(size);
  }

  /** Records one run with noise at `active` (point indices) that failed or passed. */
  add(active: ArrayLike<number>, failed: boolean): void {
    this.runs++;
    if (failed) this.fails++;
    for (let k = 0; k < active.length; k++) {
      const p = active[k];
      this.runsWith[p]++;
      if (failed) this.failsWith[p]++;
    }
  }

  failWith(p: number): number {
    return this.runsWith[p] ? this.failsWith[p] / this.runsWith[p] : 0;
  }

  failWithout(p: number): number {
    const runs = this.runs - this.runsWith[p];
    return runs ? (this.fails - this.failsWith[p]) / runs : 0;
  }

  score(p: number): number {
    return likelihoodRatioScore(this.failsWith[p], this.runsWith[p]);
  }

  pValue(p: number): number {
    return likelihoodRatioPValue(this.failsWith[p], this.runsWith[p], this.fails - this.failsWith[p], this.runs - this.runsWith[p]);
  }
}
