/**
 * The window's cause (issue 40, item 1): a pattern whose forcing only "confirms the window" — the
 * hold makes the failure whatever the order (a symmetric W1 W2 on a counter that both threads
 * increment once past a check-then-act: the symptom, not the cause) — is attributed to the pattern
 * that opens that window: the first listed pattern with evidence, of two distinct roles (not
 * symmetric), that shares a method with it and is not refuted or not forced. `braid analyze
 * --confirm` forces that pattern next when it was not tried, and the report names it.
 */
import type { RankedPattern } from '../analysis';
import type { ConfirmedPattern } from './confirmedRanking';
import { isSymmetric } from './forcingPlan';

/** The index (in `rows`) of the window's cause pattern of `p`, or -1 when none is listed. */
export function windowCause(rows: readonly (RankedPattern | ConfirmedPattern)[], p: Pick<RankedPattern, 'key' | 'accesses'>): number {
  const methods = new Set(p.accesses.map((a) => a.method));
  for (const [k, q] of rows.entries()) {
    if (q.key === p.key || q.evidence === false) continue;
    const v = (q as ConfirmedPattern).confirmation?.verdict;
    if (v === 'refuted' || v === 'not forced' || v === 'confirms the window') continue;
    if (isSymmetric(q)) continue;
    if (q.accesses.some((a) => methods.has(a.method))) return k;
  }
  return -1;
}
