/**
 * Information gain of an edge's weight with respect to the outcome (seed 003, Sect. 2.3, Eqs. 1–3):
 *
 *   Info(D)    = −Σ_i p_i log2 p_i                       (entropy of the class, failed/correct)
 *   Info_A(D)  = Σ_j |D_j|/|D| · Info(D_j)               (D_j: the runs whose weight is the j-th value)
 *   InfoGain   = Info(D) − Info_A(D)
 *
 * The attribute is split into one subset per distinct weight value, as the seed's text says (no
 * discretisation); a run without the edge has weight 0. Runs may carry weights (class balancing,
 * methodRanking.ts): |D_j| is then the sum of the run weights in D_j.
 *
 * The core works on one sparse column (the runs that have the edge) and allocates nothing.
 */

/** Entropy in bits of a two-class distribution with (weighted) counts a and b. */
export function entropy(a: number, b: number): number {
  const n = a + b;
  if (n <= 0) return 0;
  let h = 0;
  if (a > 0) {
    const p = a / n;
    h -= p * Math.log2(p);
  }
  if (b > 0) {
    const q = b / n;
    h -= q * Math.log2(q);
  }
  return h;
}

/** Runs are < 2^RUN_BITS so that (weight, run) packs into one double. */
export const RUN_BITS = 20;
const RUN_SCALE = 2 ** RUN_BITS;

/**
 * InfoGain of one column. `packed[0..n)` holds `weight · 2^20 + run` for the runs with a non-zero
 * weight, sorted ascending (so equal weights are adjacent); every other run has weight 0.
 * `runWeight[r]` is run r's weight in the table (0 excludes it), `runFailed[r]` is 1 for a failed
 * run; `totalFailed`/`totalPassed` are the sums of the run weights of all failed/correct runs.
 */
export function informationGainSparse(
  packed: Float64Array,
  n: number,
  runWeight: Float64Array,
  runFailed: Uint8Array,
  totalFailed: number,
  totalPassed: number,
): number {
  const total = totalFailed + totalPassed;
  if (total <= 0) return 0;
  const info = entropy(totalFailed, totalPassed);
  if (info === 0) return 0;
  let restFailed = totalFailed;
  let restPassed = totalPassed;
  let infoA = 0;
  let k = 0;
  while (k < n) {
    const value = Math.floor(packed[k] / RUN_SCALE);
    let f = 0;
    let p = 0;
    while (k < n && Math.floor(packed[k] / RUN_SCALE) === value) {
      const run = packed[k] - value * RUN_SCALE;
      const w = runWeight[run];
      if (runFailed[run]) f += w;
      else p += w;
      k++;
    }
    restFailed -= f;
    restPassed -= p;
    if (f + p > 0) infoA += ((f + p) / total) * entropy(f, p);
  }
  // the runs without the edge: weight 0
  if (restFailed < 1e-12) restFailed = 0;
  if (restPassed < 1e-12) restPassed = 0;
  if (restFailed + restPassed > 0) infoA += ((restFailed + restPassed) / total) * entropy(restFailed, restPassed);
  const gain = info - infoA;
  return gain < 1e-12 ? 0 : gain;
}

/**
 * InfoGain of a dense column: `values[r]` is the weight in run r, `failed[r]` its class, optional
 * `weights[r]` the run weight (default 1). Edge weights must be non-negative integers.
 */
export function informationGain(values: readonly number[], failed: readonly boolean[], weights?: readonly number[]): number {
  const runs = values.length;
  if (failed.length !== runs || (weights && weights.length !== runs)) throw new Error('informationGain: values, classes and weights need one entry per run');
  if (runs >= RUN_SCALE) throw new Error(`informationGain: at most ${RUN_SCALE - 1} runs`);
  const packed = new Float64Array(runs);
  const runWeight = new Float64Array(runs);
  const runFailed = new Uint8Array(runs);
  let n = 0;
  let tf = 0;
  let tp = 0;
  for (let r = 0; r < runs; r++) {
    const v = values[r];
    if (!(v >= 0) || !Number.isInteger(v)) throw new Error(`informationGain: weight ${v} of run ${r} is not a non-negative integer`);
    const w = weights ? weights[r] : 1;
    runWeight[r] = w;
    runFailed[r] = failed[r] ? 1 : 0;
    if (failed[r]) tf += w;
    else tp += w;
    if (v > 0) packed[n++] = v * RUN_SCALE + r;
  }
  packed.subarray(0, n).sort();
  return informationGainSparse(packed, n, runWeight, runFailed, tf, tp);
}
