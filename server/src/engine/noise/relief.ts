/**
 * Baseline of seed 004 §3.2: RELIEF feature weighting (Kira and Rendell) on random
 * configurations. Each run has noise at each point with probability ½; every sampled run is taken
 * once as the selected instance, its nearest hit (closest run, in Hamming distance, with the same
 * outcome) and nearest miss (closest run with the other outcome) are found, and each point's
 * weight moves by (|x − miss| − |x − hit|) / m. The seed trains RELIEF "using the same number of
 * runs used by IGS" and selects as many points as IGS: `reliefWeights` scores a given sample, so
 * the bench can score prefixes of one sample.
 */
import { ConfigurationOracle, ConfigurationRunner } from './configurationOracle';

export interface ReliefSample {
  /** one bit per point and run: rows[run][point] */
  rows: Uint8Array[];
  failed: boolean[];
}

export async function sampleRandomConfigurations(points: number, runs: number, oracle: ConfigurationOracle, random: () => number, jobs = 1, signal?: AbortSignal): Promise<ReliefSample> {
  const rows: Uint8Array[] = [];
  const configs: number[][] = [];
  for (let r = 0; r < runs; r++) {
    const row = new Uint8Array(points);
    const on: number[] = [];
    for (let p = 0; p < points; p++) {
      if (random() < 0.5) {
        row[p] = 1;
        on.push(p);
      }
    }
    rows.push(row);
    configs.push(on);
  }
  const runner = new ConfigurationRunner(oracle, points, runs, jobs, signal);
  const outcomes = await runner.run(configs);
  const kept = outcomes.map((o, k) => (o === undefined ? -1 : k)).filter((k) => k >= 0);
  return { rows: kept.map((k) => rows[k]), failed: kept.map((k) => outcomes[k] as boolean) };
}

function hamming(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let k = 0; k < a.length; k++) d += a[k] ^ b[k];
  return d;
}

/** RELIEF weights of the points from the first `n` runs of the sample (default all). All zero when every run has the same outcome. */
export function reliefWeights(sample: ReliefSample, n = sample.rows.length): Float64Array {
  const D = sample.rows[0]?.length ?? 0;
  const w = new Float64Array(D);
  const m = Math.min(n, sample.rows.length);
  for (let i = 0; i < m; i++) {
    let hit = -1;
    let miss = -1;
    let dHit = Infinity;
    let dMiss = Infinity;
    for (let j = 0; j < m; j++) {
      if (j === i) continue;
      const d = hamming(sample.rows[i], sample.rows[j]);
      if (sample.failed[j] === sample.failed[i]) {
        if (d < dHit) [hit, dHit] = [j, d];
      } else if (d < dMiss) [miss, dMiss] = [j, d];
    }
    if (hit < 0 || miss < 0) continue;
    const x = sample.rows[i];
    const h = sample.rows[hit];
    const s = sample.rows[miss];
    for (let p = 0; p < D; p++) w[p] += ((x[p] ^ s[p]) - (x[p] ^ h[p])) / m;
  }
  return w;
}

/** Points by RELIEF weight, best first (ties by index). */
export function reliefRanking(weights: Float64Array): number[] {
  return Array.from(weights.keys()).sort((a, b) => weights[b] - weights[a] || a - b);
}
