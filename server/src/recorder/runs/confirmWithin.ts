/**
 * The cause within a confirmed combination, forced (engine/confirm/causeWithin.ts): after a pattern
 * was confirmed, the smaller listed patterns within it are forced alone, in turn, until one is
 * confirmed — each with the check of its use and the failing runs' facts, at its calls when its lines
 * make several (confirmWithCalls) — on seeds after those spent before. Shared by `braid confirm` and the editor's Confirm.
 */
import { CheckCandidate, withCheckOfUse } from '../../engine/confirm/checkOfUse';
import { withFailingRunFacts } from '../../engine/confirm/failingRunFacts';
import { causeWithinCandidates } from '../../engine/confirm/causeWithin';
import type { AnalysisResult, RankedPattern } from '../../engine/analysis';
import type { ForcedPattern } from '../../engine/confirm/forcingPlan';
import type { Confirmation } from './confirmRuns';
import { confirmWithCalls, ForceOne, PerCallResult } from './confirmPerCall';

type Listed = ForcedPattern & Pick<RankedPattern, 'key' | 'accesses'> & CheckCandidate;

/** One pattern within a confirmed combination, forced alone. */
export interface WithinRun<T> {
  pattern: T;
  rank: number;
  confirmation: PerCallResult;
}

/**
 * Forces the patterns within `pattern` (confirmed as `c`) in turn (causeWithinCandidates: one per set
 * of variables kept), until one is confirmed; undefined when the list has none, or when the
 * confirmation was stopped. The result names the confirmed one — the cause — or else the first forced;
 * `tried` is every part forced, in the order they were. `onStart` is told which pattern before its runs begin.
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
): Promise<(WithinRun<T> & { tried: WithinRun<T>[]; runsSpent: number; seconds: number }) | undefined> {
  if (c.verdict !== 'confirmed' || c.interrupted || o.signal?.aborted) return undefined;
  const tries: WithinRun<T>[] = [];
  // seeds after those the first confirmation and the earlier parts spent
  let spent = c.runsSpent;
  for (const q of causeWithinCandidates(listed, pattern)) {
    if (o.signal?.aborted) break;
    const rank = listed.indexOf(q) + 1;
    o.onStart?.(q, rank);
    const qp = await withFailingRunFacts(withCheckOfUse({ ...q, rank }, listed), o.traceFiles(q));
    const offset = spent;
    const w = await confirmWithCalls(qp, (x, k) => o.forceOne(x, offset + k), o.perCallRanking, { signal: o.signal });
    spent += w.runsSpent;
    tries.push({ pattern: q, rank, confirmation: { ...w, pattern: { ...w.pattern, rank } } });
    if (w.verdict === 'confirmed' || w.interrupted) break;
  }
  if (!tries.length) return undefined;
  const named = tries.find((t) => t.confirmation.verdict === 'confirmed') ?? tries[0];
  return {
    ...named,
    tried: tries,
    runsSpent: tries.reduce((n, t) => n + t.confirmation.runsSpent, 0),
    seconds: tries.reduce((n, t) => n + t.confirmation.seconds, 0),
  };
}
