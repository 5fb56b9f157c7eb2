/**
 * The ranking after confirmation (issue 28, `braid analyze --confirm K`): the patterns that were
 * forced carry their verdict, and the list is reordered — confirmed causes first (in their
 * ranked order), then the patterns not tried, then the refuted and the not-forced ones, which lose
 * their place and say why. Scores, p-values and ranks are kept (they are the statistics of the
 * recorded runs); ties are renumbered over the new order.
 */
import type { AnalysisResult, RankedPattern } from '../analysis';
import { patternAt, patternCount } from '../ranking/rankedList';
import type { Verdict } from './confirmVerdict';

export interface PatternConfirmation {
  verdict: Verdict;
  reason: string;
  pValue: number;
  forced: { runs: number; failed: number; forcedOk: number };
  opposite?: { runs: number; failed: number; forcedOk: number };
  control?: { runs: number; failed: number };
  /** a forced failing run's trace (Reproduce) */
  failingTrace?: string;
  /** the plan that forces the pattern's order */
  plan?: string;
}

export type ConfirmedPattern = RankedPattern & { confirmation?: PatternConfirmation };

/** Most patterns described for a reordered list (a hostile workspace may have 100,000s). */
export const CONFIRMED_LIST_CAP = 5000;

function place(p: ConfirmedPattern): number {
  const v = p.confirmation?.verdict;
  return v === 'confirmed' ? 0 : v === undefined ? 1 : 2;
}

/**
 * A result whose list is reordered by the verdicts (keyed by RankedPattern.key). Without any
 * verdict the result is returned as it is.
 */
export function withConfirmations(result: AnalysisResult, verdicts: ReadonlyMap<string, PatternConfirmation>): AnalysisResult {
  if (verdicts.size === 0) return result;
  const n = Math.min(patternCount(result), CONFIRMED_LIST_CAP);
  const rows: ConfirmedPattern[] = [];
  for (let k = 0; k < n; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    const c = verdicts.get(p.key);
    rows.push(c ? { ...p, confirmation: c } : { ...p });
  }
  // stable: within a place, the ranked order; patterns without evidence stay after those with
  const order = rows.map((p, k) => ({ p, k })).sort((a, b) => {
    const ea = a.p.evidence === false ? 1 : 0;
    const eb = b.p.evidence === false ? 1 : 0;
    return ea - eb || place(a.p) - place(b.p) || a.k - b.k;
  });
  const out = order.map((o) => o.p);
  // ties over the new order: consecutive members of one old tie group that kept no verdict
  let tie = 0;
  for (let k = 0; k < out.length; ) {
    let end = k + 1;
    if (!out[k].confirmation) while (end < out.length && !out[end].confirmation && out[end].tie === out[k].tie && out[end].group === out[k].group) end++;
    tie++;
    for (let j = k; j < end; j++) out[j] = { ...out[j], tie, tieSize: end - k };
    k = end;
  }
  const { ranking: _ranking, ...rest } = result;
  return {
    ...rest,
    patterns: out,
    ...(patternCount(result) > n ? { message: [result.message, `confirmation: only the first ${n} of ${patternCount(result)} patterns are listed`].filter(Boolean).join('\n') } : {}),
  };
}
