/**
 * GRIFFIN Step 2, Algorithm 3 ClusterFailingExecutions (thesis §5.3.2).
 *
 * Every failing run starts as its own cluster. Each round finds the pair of
 * clusters whose top-t suspicious patterns (getSuspiciousPatterns) are most
 * alike (Jaccard index, Equation 4) and merges it when the similarity is at
 * least s; the round's first pair with similarity 1 is merged at once. It
 * stops when no pair reaches s.
 *
 * Same result as the thesis' loop (the pair picked each round is the first
 * pair, in (i, j) order, with the highest similarity), but without redoing
 * the O(k²) comparisons each round: top-t sets and similarities are cached,
 * and after a merge only the merged cluster's similarities are recomputed.
 * Each row keeps its best partner to its right, so a round costs O(k).
 */
import { Formula } from '../ranking/suspiciousness';
import type { CoverageMatrix } from './coverageMatrix';
import { ClusterCounts, countsOfRuns, getSuspiciousPatterns, jaccardSimilarity, mergeCounts, rowSet, Scoring } from './suspiciousPatterns';

export interface ClusterFailingOptions {
  /** number of suspicious patterns compared per cluster (thesis default 30) */
  t?: number;
  /** similarity threshold for merging (thesis default 0.8) */
  s?: number;
  /** suspiciousness formula (default jaccard) */
  formula?: Formula;
  /** getSuspiciousPatterns: 'global' = thesis (top t of F), 'cluster' = re-scored per cluster */
  scoring?: Scoring;
}

export const DEFAULT_T = 30;
export const DEFAULT_S = 0.8;
/** Algorithm 3's k × k similarity table: 8 bytes per pair, ≤ 800 MB at this bound. */
export const MAX_FAILING_RUNS = 10000;

/**
 * Returns the clusters of failing runs (run indices into m.runs, ascending),
 * ordered by their first run.
 */
export function clusterFailingExecutions(m: CoverageMatrix, options: ClusterFailingOptions = {}): number[][] {
  const t = options.t ?? DEFAULT_T;
  const s = options.s ?? DEFAULT_S;
  const formula = options.formula ?? 'jaccard';
  const scoring = options.scoring ?? 'global';
  if (!Number.isInteger(t) || t < 1) throw new Error(`t must be an integer ≥ 1, got ${t}`);
  if (!(s >= 0 && s <= 1)) throw new Error(`s must be within [0, 1], got ${s}`);

  const k = m.failingRuns.length;
  // the similarity table has k² entries: beyond MAX_FAILING_RUNS say so instead of failing to allocate it
  if (k > MAX_FAILING_RUNS) throw new Error(`Algorithm 3 compares every pair of failing runs: ${k} failing runs are too many (at most ${MAX_FAILING_RUNS}); the evidence clustering has no such limit`);
  const members: number[][] = m.failingRuns.map((r) => [r]);
  // global scoring reads only each cluster's first t rows: keep only those (countsOfRuns)
  const limit = scoring === 'global' ? t : undefined;
  const counts: ClusterCounts[] = m.failingRuns.map((r) => countsOfRuns(m, [r], limit));
  const tops: Int32Array[] = counts.map((c) => rowSet(getSuspiciousPatterns(m, c, formula, t, scoring)));
  const active = new Uint8Array(k).fill(1);
  const sim = new Float64Array(k * k);
  // best partner j > i of each row i: the first j with the highest similarity
  const bestSim = new Float64Array(k).fill(-1);
  const bestJ = new Int32Array(k).fill(-1);

  for (let i = 0; i < k; i++)
    for (let j = i + 1; j < k; j++) {
      const x = jaccardSimilarity(tops[i], tops[j]);
      sim[i * k + j] = x;
      sim[j * k + i] = x;
    }
  const recomputeBest = (i: number) => {
    let b = -1;
    let bj = -1;
    for (let j = i + 1; j < k; j++) {
      if (!active[j]) continue;
      const x = sim[i * k + j];
      if (x > b) {
        b = x;
        bj = j;
      }
    }
    bestSim[i] = b;
    bestJ[i] = bj;
  };
  for (let i = 0; i < k; i++) recomputeBest(i);

  for (;;) {
    // the thesis keeps cand_pair only for similarity > max_similarity, starting at 0
    let ci = -1;
    let best = 0;
    for (let i = 0; i < k; i++) {
      if (active[i] && bestJ[i] >= 0 && bestSim[i] > best) {
        best = bestSim[i];
        ci = i;
      }
    }
    if (ci < 0 || best < s) break;
    const cj = bestJ[ci];
    // merge cj into ci
    members[ci].push(...members[cj]);
    counts[ci] = mergeCounts(counts[ci], counts[cj], limit);
    tops[ci] = rowSet(getSuspiciousPatterns(m, counts[ci], formula, t, scoring));
    active[cj] = 0;
    members[cj] = [];
    for (let x = 0; x < k; x++) {
      if (!active[x] || x === ci) continue;
      const v = jaccardSimilarity(tops[ci], tops[x]);
      sim[ci * k + x] = v;
      sim[x * k + ci] = v;
    }
    for (let x = 0; x < k; x++) {
      if (!active[x]) continue;
      if (x === ci || bestJ[x] === ci || bestJ[x] === cj) recomputeBest(x);
      else if (x < ci) {
        const v = sim[x * k + ci];
        if (v > bestSim[x] || (v === bestSim[x] && ci < bestJ[x])) {
          bestSim[x] = v;
          bestJ[x] = ci;
        }
      }
    }
  }
  const out: number[][] = [];
  for (let i = 0; i < k; i++) if (active[i]) out.push(members[i].sort((a, b) => a - b));
  out.sort((a, b) => a[0] - b[0]);
  return out;
}
