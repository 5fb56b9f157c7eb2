/**
 * The cause within a confirmed combination, forced (engine/confirm/causeWithin.ts): after a pattern
 * was confirmed, the smaller listed pattern within it is forced alone — with the check of its use and
 * the failing runs' facts, at its calls when its lines make several (confirmWithCalls) — on seeds after
 * those the first confirmation spent. Shared by `braid confirm` and the editor's Confirm.
 */
import { CheckCandidate, withCheckOfUse } from '../../engine/confirm/checkOfUse';
import { withFailingRunFacts } from '../../engine/confirm/failingRunFacts';
import { causeWithinCandidate } from '../../engine/confirm/causeWithin';
import type { AnalysisResult, RankedPattern } from '../../engine/analysis';
import type { ForcedPattern } from '../../engine/confirm/forcingPlan';
import type { Confirmation } from './confirmRuns';
import { confirmWithCalls, ForceOne, PerCallResult } from './confirmPerCall';

type Listed = ForcedPattern & Pick<RankedPattern, 'key' | 'accesses'> & CheckCandidate;

/**
 * Forces the pattern within `pattern` (confirmed as `c`), when the list has one; undefined otherwise,
 * or when the confirmation was stopped. `onStart` is told which pattern before its runs begin.
 */
export async function forceCauseWithin<T extends Listed>(
  listed: readonly T[],
  pattern: Pick<RankedPattern, 'key' | 'accesses'>,
  c: Confirmation,
  o: {
    traceFiles: (q: T) => string[];
    forceOne: ForceOne;
    perCallRanking?: () => Promise<AnalysisResult | undefined>;
    signal?: AbortSignal;
    onStart?: (q: T, rank: number) => void;
  },
): Promise<{ pattern: T; rank: number; confirmation: PerCallResult } | undefined> {
  if (c.verdict !== 'confirmed' || c.interrupted || o.signal?.aborted) return undefined;
  const q = causeWithinCandidate(listed, pattern);
  if (!q) return undefined;
  const rank = listed.indexOf(q) + 1;
  o.onStart?.(q, rank);
  const qp = await withFailingRunFacts(withCheckOfUse({ ...q, rank }, listed), o.traceFiles(q));
  const w = await confirmWithCalls(qp, (x, offset) => o.forceOne(x, c.runsSpent + offset), o.perCallRanking, { signal: o.signal });
  return { pattern: q, rank, confirmation: { ...w, pattern: { ...w.pattern, rank } } };
}
