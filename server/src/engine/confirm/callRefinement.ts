/**
 * Forcing per library call (issue 28, docs/confirm.md "Lines with several library calls"). Locations
 * are kept per line (the thesis), so a line that makes several library calls on one object — a
 * for-each's values(), iterator(), hasNext(), next() — is one location (`mixedCalls`), and a pattern
 * over it can neither be told from the same accesses between two passes of the loop (the instance is
 * then in passing runs too: no statistical evidence) nor be forced at the right call (the hold lands
 * at the first call of the line).
 *
 * The same runs analyzed with locations per call (AnalysisOptions.callLocations) split such a
 * pattern into its call-level refinements, each with its own statistics and a single call per access.
 * A refinement with evidence is forced at its calls, and its verdict is the verdict of the line-level
 * pattern it refines (the per-call key without its "#call" parts): `braid analyze --confirm` tries
 * them when no line-level candidate was confirmed (cli/analyzeConfirm.ts).
 */
import type { AnalysisResult, RankedPattern } from '../analysis';
import { patternAt, patternCount } from '../ranking/rankedList';
import { hasEvidence } from '../ranking/rootCauseOrder';
import { CONFIRMED_LIST_CAP } from './confirmedRanking';

/** The key a per-call pattern has with locations per line: "…@A.java:55#java.util.Iterator.next|…" → "…@A.java:55|…". */
export function lineKey(key: string): string {
  return key.replace(/(:\d+)#[^|]*/g, '$1');
}

/** Some listed pattern (of the first CONFIRMED_LIST_CAP) has an access on a line with several library calls. */
export function hasMixedCalls(result: AnalysisResult): boolean {
  const n = Math.min(patternCount(result), CONFIRMED_LIST_CAP);
  for (let k = 0; k < n; k++) if (patternAt<RankedPattern>(result, k)!.accesses.some((a) => a.mixedCalls)) return true;
  return false;
}

export interface CallRefinedCandidate {
  /**
   * the per-call pattern to force (its accesses name one call each; `exactCall` on those at a line of
   * several calls: forcingPlan.ts), `rank` = the line-level pattern's position
   */
  pattern: Omit<RankedPattern, 'accesses'> & { accesses: (RankedPattern['accesses'][number] & { exactCall?: boolean })[] };
  /** the key of the line-level pattern it refines: the verdict goes there */
  lineKey: string;
  /** its position in the per-call ranking (1-based) */
  callRank: number;
}

/**
 * The per-call patterns worth forcing, in the per-call ranking's order: those with evidence that
 * refine a listed line-level pattern with an access on a line of several library calls (a refinement
 * of a pattern without such an access is the same pattern, already judged), for the first `max`
 * such line-level patterns met in that order — each with all of its refinements with evidence (they
 * hold at different calls of the line, and a hold that cannot be met at one call may be at another)
 * — except those whose line-level pattern `skip` names (already confirmed).
 */
export function callRefinedCandidates(
  lines: AnalysisResult,
  calls: AnalysisResult,
  max: number,
  skip: (lineKey: string) => boolean = () => false,
): CallRefinedCandidate[] {
  const listed = new Map<string, { rank: number; mixed: boolean[] }>();
  const n = Math.min(patternCount(lines), CONFIRMED_LIST_CAP);
  for (let k = 0; k < n; k++) {
    const p = patternAt<RankedPattern>(lines, k)!;
    if (!listed.has(p.key)) listed.set(p.key, { rank: k + 1, mixed: p.accesses.map((a) => a.mixedCalls === true) });
  }
  const out: CallRefinedCandidate[] = [];
  const chosen = new Set<string>();
  const m = Math.min(patternCount(calls), CONFIRMED_LIST_CAP);
  for (let k = 0; k < m; k++) {
    const p = patternAt<RankedPattern>(calls, k)!;
    // evidence as the ranking defines it, also when it is not shown (--grouping off)
    if (!hasEvidence(p.failed, p.passed, calls.executions.failed, calls.executions.passed)) continue;
    const key = lineKey(p.key);
    const at = listed.get(key);
    if (!at?.mixed.some(Boolean) || skip(key)) continue;
    if (!chosen.has(key)) {
      if (chosen.size >= max) continue;
      chosen.add(key);
    }
    out.push(refinement(p, at.rank, at.mixed, k + 1));
  }
  return out;
}

/** A per-call pattern as the candidate that refines a line-level pattern (at `rank`, its accesses' mixedCalls `mixed`). */
function refinement(p: RankedPattern, rank: number, mixed: readonly boolean[], callRank: number, evidence = true): CallRefinedCandidate {
  const accesses = p.accesses.map((a, j) => (mixed[j] && a.call ? { ...a, exactCall: true } : a));
  return { pattern: { ...p, rank, evidence, accesses }, lineKey: lineKey(p.key), callRank };
}

/**
 * The refinements with evidence of one line-level pattern (`braid confirm --pattern`, the editor's
 * Confirm), in the per-call ranking's order, at most `max`; none when no access of it is on a line of
 * several library calls. A line-level pattern without evidence (forced because the user chose it, or
 * listed first when nothing has evidence: micrometer-promcollect's scrape over a list most runs make
 * while another thread adds) has refinements without evidence too: they are taken in the same order.
 */
export function refinementsOf(pattern: Pick<RankedPattern, 'key' | 'rank' | 'evidence'> & { accesses: readonly { mixedCalls?: boolean }[] }, calls: AnalysisResult, max = 3): CallRefinedCandidate[] {
  const mixed = pattern.accesses.map((a) => a.mixedCalls === true);
  if (!mixed.some(Boolean)) return [];
  const out: CallRefinedCandidate[] = [];
  const m = Math.min(patternCount(calls), CONFIRMED_LIST_CAP);
  for (let k = 0; k < m && out.length < max; k++) {
    const p = patternAt<RankedPattern>(calls, k)!;
    if (lineKey(p.key) !== pattern.key) continue;
    const evidence = hasEvidence(p.failed, p.passed, calls.executions.failed, calls.executions.passed);
    if (!evidence && pattern.evidence !== false) continue;
    out.push(refinement(p, pattern.rank, mixed, k + 1, evidence));
  }
  return out;
}

/** "Collection.iterator → HashMap.remove → Iterator.next": the calls a per-call pattern is forced at (– for a field access). */
export function callsText(p: Pick<RankedPattern, 'accesses'>): string {
  return p.accesses.map((a) => (a.call ? a.call.split('.').slice(-2).join('.') : '–')).join(' → ');
}
