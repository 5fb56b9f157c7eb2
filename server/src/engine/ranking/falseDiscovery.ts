/**
 * Evidence among many patterns (issue 38 item 5, "passing runs weighed by how rare they are";
 * docs/algorithms.md "Evidence among many patterns"). Evidence first (rootCauseOrder.hasEvidence) lists
 * every pattern whose one-sided Fisher p is below 0.05 before every pattern without. A recording has
 * hundreds or thousands of patterns, so when failing runs are rare some of them reach p < 0.05 by
 * chance: a pattern in 2 of 62 failing runs and 2 of 689 passing ones has p = 0.036 and was listed
 * before the racing pair present in all 62 failing runs (resilience4j-eventconsumers). Such a pattern
 * is a false discovery, and the list should not let it jump ahead of patterns with a higher score.
 *
 * The presence p-values of the patterns seen in some failing run get the Benjamini–Hochberg step-up
 * procedure at the evidence threshold (false discovery rate 0.05): sorted, the i-th smallest of m is a
 * discovery when some p_(j) ≤ j · 0.05 / m for j ≥ i. A pattern's presence is evidence only when its p is
 * a discovery. Patterns with equal counts have equal p-values, so the procedure runs over the distinct
 * (failed, passed) tables, each counted as many times as it occurs: a few dozen tables, not the patterns.
 */
import { fisherOneSided } from './fisherExact';
import { EVIDENCE_ALPHA } from './rootCauseOrder';

/**
 * The largest presence p-value that is a discovery (Benjamini–Hochberg at `alpha` over the patterns
 * seen in a failing run), or -1 when none is. `failed[id]`, `passed[id]`: each pattern's runs.
 */
export function presenceDiscoveryCutoff(failed: ArrayLike<number>, passed: ArrayLike<number>, totalFailed: number, totalPassed: number, alpha = EVIDENCE_ALPHA): number {
  const P1 = totalPassed + 1;
  const tables = new Map<number, number>();
  let m = 0;
  for (let id = 0; id < failed.length; id++) {
    const f = failed[id];
    if (f === 0) continue;
    m++;
    const k = f * P1 + passed[id];
    tables.set(k, (tables.get(k) ?? 0) + 1);
  }
  const sorted = [...tables].map(([k, n]) => ({ p: fisherOneSided(Math.floor(k / P1), k % P1, totalFailed, totalPassed), n })).sort((a, b) => a.p - b.p);
  let cut = -1;
  let i = 0;
  for (const t of sorted) {
    // every pattern of the table is counted before its p is compared: tied p-values share the larger rank
    i += t.n;
    if (t.p <= (i * alpha) / m) cut = t.p;
  }
  return cut;
}
