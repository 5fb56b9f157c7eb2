/**
 * getSuspiciousPatterns(C, M, F, t) of Algorithms 3 and 4.
 *
 * Thesis (`scoring: 'global'`, the default): the first t patterns of the
 * ranked list F (= M's row order) that are observed in at least one run of
 * the cluster C. Scores are the global ones.
 *
 * Extension (`scoring: 'cluster'`): the patterns seen in C re-scored with the
 * analysis' formula against the failing runs of C only and all passing runs
 * (failed = runs of C covering it, totalFailed = |C|); the best t are kept,
 * ties broken by more failing runs, fewer passing runs, then F's order. A
 * pattern unique to a one-run cluster then scores 1, which splits bugs.
 * (ties = true also keeps every pattern tied with the t-th, as competition
 * ranking would; on the generated datasets that clustered worse, so it is off.)
 *
 * A cluster's counts are a sparse vector (sorted rows + counts) so that
 * merging two clusters costs O(patterns seen in them), not O(all patterns).
 */
import { Formula, suspiciousness } from '../ranking/suspiciousness';
import { sameScore } from '../ranking/competitionRanking';
import type { CoverageMatrix } from './coverageMatrix';

export interface ClusterCounts {
  /** pattern rows seen in the cluster's runs, ascending */
  rows: Int32Array;
  /** per entry of rows: how many runs of the cluster cover it */
  counts: Int32Array;
  /** number of failing runs in the cluster */
  size: number;
}

export interface ScoredPattern {
  row: number;
  score: number;
  failed: number;
  passed: number;
}

/**
 * The counts of a cluster of runs. With `limit` only its first `limit` rows (in F's order) are kept:
 * enough for getSuspiciousPatterns with scoring 'global' and t ≤ limit, and exact for them — a row among
 * the cluster's first `limit` is among the first `limit` of every run covering it, so its count is whole.
 */
export function countsOfRuns(m: CoverageMatrix, runs: readonly number[], limit?: number): ClusterCounts {
  let c: ClusterCounts = { rows: new Int32Array(0), counts: new Int32Array(0), size: 0 };
  for (const r of runs) {
    const rows = limit === undefined ? m.runRows(r) : m.runTop(r, limit);
    c = mergeCounts(c, { rows, counts: new Int32Array(rows.length).fill(1), size: 1 }, limit);
  }
  return c;
}

/** The counts of two clusters together (with `limit`: their first `limit` rows, see countsOfRuns). */
export function mergeCounts(a: ClusterCounts, b: ClusterCounts, limit?: number): ClusterCounts {
  const max = limit === undefined ? a.rows.length + b.rows.length : Math.min(limit, a.rows.length + b.rows.length);
  const rows = new Int32Array(max);
  const counts = new Int32Array(max);
  let i = 0;
  let j = 0;
  let n = 0;
  while (n < max && (i < a.rows.length || j < b.rows.length)) {
    const ra = i < a.rows.length ? a.rows[i] : 0x7fffffff;
    const rb = j < b.rows.length ? b.rows[j] : 0x7fffffff;
    if (ra === rb) {
      rows[n] = ra;
      counts[n++] = a.counts[i++] + b.counts[j++];
    } else if (ra < rb) {
      rows[n] = ra;
      counts[n++] = a.counts[i++];
    } else {
      rows[n] = rb;
      counts[n++] = b.counts[j++];
    }
  }
  return { rows: n === max ? rows : rows.slice(0, n), counts: n === max ? counts : counts.slice(0, n), size: a.size + b.size };
}

/** Is `a` ranked before `b`? */
function before(a: ScoredPattern, b: ScoredPattern): boolean {
  if (!sameScore(a.score, b.score)) return a.score > b.score;
  if (a.failed !== b.failed) return a.failed > b.failed;
  if (a.passed !== b.passed) return a.passed < b.passed;
  return a.row < b.row;
}

/** How getSuspiciousPatterns scores: thesis = global ranking F; cluster = re-scored within the cluster. */
export type Scoring = 'global' | 'cluster';

/** The cluster's top t patterns, best first. */
export function getSuspiciousPatterns(m: CoverageMatrix, c: ClusterCounts, formula: Formula, t: number, scoring: Scoring = 'global', ties = false): ScoredPattern[] {
  const top: ScoredPattern[] = [];
  if (t <= 0 || c.size === 0) return top;
  if (scoring === 'global') {
    // c.rows is ascending = F's order: the first t rows the cluster covers
    for (let k = 0; k < c.rows.length && top.length < t; k++) {
      const row = c.rows[k];
      if (c.counts[k] === 0) continue;
      top.push({ row, score: globalScore(m, row, formula), failed: c.counts[k], passed: m.passed[row] });
    }
    return top;
  }
  const tp = m.totalPassed;
  for (let k = 0; k < c.rows.length; k++) {
    const row = c.rows[k];
    const f = c.counts[k];
    if (f === 0) continue;
    const p = m.passed[row];
    const cand = { row, score: suspiciousness(formula, f, p, c.size, tp), failed: f, passed: p };
    if (top.length === t && !before(cand, top[t - 1])) continue;
    let at = top.length === t ? t - 1 : top.length;
    if (top.length < t) top.push(cand);
    while (at > 0 && before(cand, top[at - 1])) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = cand;
  }
  if (top.length === t && ties) {
    // competition ranking: every pattern tied with the t-th one also has a rank ≤ t
    const last = top[t - 1];
    const inTop = new Set(top.map((x) => x.row));
    const extra: ScoredPattern[] = [];
    for (let k = 0; k < c.rows.length; k++) {
      const row = c.rows[k];
      const f = c.counts[k];
      if (f === 0 || inTop.has(row)) continue;
      const p = m.passed[row];
      const score = suspiciousness(formula, f, p, c.size, tp);
      if (sameScore(score, last.score)) extra.push({ row, score, failed: f, passed: p });
    }
    extra.sort((a, b) => (before(a, b) ? -1 : 1));
    top.push(...extra);
  }
  return top;
}

/** A row's score in the ranked list F (all failing and passing runs). */
export function globalScore(m: CoverageMatrix, row: number, formula: Formula): number {
  if (m.scores) return m.scores[row];
  return m.totalFailed === 0 ? 0 : suspiciousness(formula, m.failed[row], m.passed[row], m.totalFailed, m.totalPassed);
}

/** Jaccard similarity index of two ascending row sets (Equation 4); 0 for two empty sets. */
export function jaccardSimilarity(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 && b.length === 0) return 0;
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      common++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return common / (a.length + b.length - common);
}

export function rowSet(top: readonly ScoredPattern[]): Int32Array {
  return Int32Array.from(top, (p) => p.row).sort();
}
