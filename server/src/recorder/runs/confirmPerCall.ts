/**
 * Confirming one pattern whose lines make several library calls (`braid confirm --pattern`, the
 * editor's Confirm; docs/confirm.md "Lines with several library calls"). A line-level pattern over a
 * for-each line is held at the line's first call (`values()`), where the other thread's change lands
 * before the loop starts: forced that way, datasource's root cause is refuted. When the line-level
 * forcing is not confirmed, the same runs are ranked with locations per call and the pattern's
 * refinements with evidence are forced at their calls, best first, until one is confirmed; a
 * confirmed refinement is the pattern's verdict (its plan reproduces the failure), otherwise the
 * line-level verdict stands, with what the refinements gave in its reason.
 */
import { AnalysisOptions, AnalysisResult, analyzeTraceFiles } from '../../engine/analysis';
import { callsText, refinementsOf } from '../../engine/confirm/callRefinement';
import type { ForcedPattern } from '../../engine/confirm/forcingPlan';
import type { Confirmation } from './confirmRuns';

/**
 * The same traces ranked again with locations per library call (trace files only: summaries keep
 * lines); undefined, and `warn` told why, when that fails — the line-level verdict then stands.
 */
export function perCallRankingOf(inputs: readonly string[], options: Partial<AnalysisOptions>, warn: (message: string) => void): () => Promise<AnalysisResult | undefined> {
  return async () => {
    try {
      return await analyzeTraceFiles([...inputs], { ...options, callLocations: true });
    } catch (e) {
      warn(`ranking per library call failed: ${(e as Error).message}`);
      return undefined;
    }
  };
}

/** Forces one pattern; `seedOffset` grows with the runs spent so that no two forcings share seeds. */
export type ForceOne = (p: ForcedPattern, seedOffset: number) => Promise<Confirmation>;

export interface PerCallResult extends Confirmation {
  /** the refinement whose forcing gave the verdict (confirmed at its calls), when one did */
  perCall?: { key: string; calls: string; callRank: number; failed: number; passed: number };
  /** the refinements forced (each with its verdict), in order */
  refinements?: { key: string; calls: string; verdict: Confirmation['verdict'] }[];
}

/**
 * The pattern Check the Fix forces: on a line of several library calls, the refinement per call that
 * confirmed it (`forcedKey`, kept with its verdict) or else the best one with evidence — forced at its
 * lines, the hold would land at the line's first call, before the interleaving the fix is about;
 * otherwise the pattern itself.
 */
export async function patternToForce(
  pattern: ForcedPattern,
  perCallRanking: (() => Promise<AnalysisResult | undefined>) | undefined,
  forcedKey?: string,
): Promise<{ pattern: ForcedPattern; calls?: string }> {
  if (!perCallRanking || !pattern.accesses.some((a) => a.mixedCalls)) return { pattern };
  const calls = await perCallRanking();
  const candidates = calls ? refinementsOf(pattern, calls, 20) : [];
  const pick = candidates.find((c) => c.pattern.key === forcedKey) ?? candidates[0];
  return pick ? { pattern: pick.pattern, calls: callsText(pick.pattern) } : { pattern };
}

export async function confirmWithCalls(
  pattern: ForcedPattern,
  forceOne: ForceOne,
  perCallRanking: (() => Promise<AnalysisResult | undefined>) | undefined,
  o: { maxRefinements?: number; signal?: AbortSignal } = {},
): Promise<PerCallResult> {
  const line = await forceOne(pattern, 0);
  // could not check (no runs, or none reached the pattern's lines): forcing at its calls would not either
  if (line.verdict === 'confirmed' || line.couldNotCheck || line.interrupted || o.signal?.aborted || !perCallRanking || !pattern.accesses.some((a) => a.mixedCalls)) return line;
  const calls = await perCallRanking();
  const candidates = calls ? refinementsOf(pattern, calls, o.maxRefinements ?? 3) : [];
  if (!candidates.length) return line;
  let spent = line.runsSpent;
  let seconds = line.seconds;
  const tried: NonNullable<PerCallResult['refinements']> = [];
  for (const { pattern: p, callRank } of candidates) {
    if (o.signal?.aborted) break;
    const c = await forceOne(p, spent);
    spent += c.runsSpent;
    seconds += c.seconds;
    const calls = callsText(p);
    tried.push({ key: p.key, calls, verdict: c.verdict });
    if (c.verdict === 'confirmed') {
      return {
        ...c,
        pattern: { ...c.pattern, key: pattern.key },
        reason: `forced at the calls ${calls} (#${callRank} with locations per call, ${p.failed} failing / ${p.passed} passing runs): ${c.reason}`,
        perCall: { key: p.key, calls, callRank, failed: p.failed, passed: p.passed },
        refinements: tried,
        runsSpent: spent,
        seconds,
      };
    }
    if (c.interrupted) break;
  }
  const why = tried.map((t) => `${t.calls}: ${t.verdict}`).join('; ');
  return { ...line, reason: `${line.reason}; forced per library call: ${why}`, refinements: tried, runsSpent: spent, seconds, interrupted: line.interrupted || o.signal?.aborted || undefined };
}
