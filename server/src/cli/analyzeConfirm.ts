/**
 * `braid analyze --confirm K` (issue 28, docs/confirm.md): after ranking, force the interleaving of
 * the top K patterns with evidence and of each GRIFFIN bug's lead pattern, within a budget of runs,
 * and list confirmed causes first (confirmedRanking.ts).
 */
import os from 'node:os';
import { AnalysisResult, patternAt, patternCount, RankedPattern } from '../engine/analysis';
import type { Bug } from '../engine/griffin/griffin';
import { listedPatterns, PatternConfirmation, reorderLines, withConfirmations } from '../engine/confirm/confirmedRanking';
import { windowCause } from '../engine/confirm/windowCause';
import { causeWithinCandidates } from '../engine/confirm/causeWithin';
import { callRefinedCandidates, callsText, hasMixedCalls } from '../engine/confirm/callRefinement';
import { DEFAULT_WAIT_MS } from '../engine/confirm/forcingPlan';
import { Confirmation, confirmPattern, patternConfirmation } from '../recorder/runs/confirmRuns';
import { withCheckOfUse } from '../engine/confirm/checkOfUse';
import { withFailingRunFacts } from '../engine/confirm/failingRunFacts';
import { findTraceFiles } from '../engine/traceDiscovery';
import { perCallRankingOf } from '../recorder/runs/confirmPerCall';
import { terminalLine, terminalText } from '../engine/outputEscaping';
import { confirmOptionsFor, interleavingText } from './confirmCommand';

export interface AnalyzeConfirmArgs {
  /** top patterns with evidence to confirm */
  top: number;
  /** runs per group */
  runs: number;
  /** most program runs in all */
  budget: number;
  /** the command after "--" (default: the recording's) */
  command: string[];
  waitMs?: number;
  /**
   * `--confirm-calls on|off` (default on): when no candidate is confirmed and a listed pattern has an
   * access on a line with several library calls, analyze the traces again with locations per call
   * and force the best refinements at their calls (engine/confirm/callRefinement.ts)
   */
  perCall?: boolean;
  /** `--confirm-whole`: no smaller pattern is forced after a confirmed combination (engine/confirm/causeWithin.ts) */
  whole?: boolean;
}

/** How `--confirm` loops: the budget, and the ranking with locations per call (undefined: none to be had). */
export type ConfirmLoopArgs = Pick<AnalyzeConfirmArgs, 'top' | 'runs' | 'budget' | 'whole'> & { perCallRanking?: () => Promise<AnalysisResult | undefined> };

export const DEFAULT_CONFIRM_RUNS = 10;

/** The patterns to force: the top K with evidence, then each bug's lead (by key, each once). */
export function confirmCandidates(result: AnalysisResult, bugs: readonly Bug[] | undefined, top: number): RankedPattern[] {
  const out: RankedPattern[] = [];
  const seen = new Set<string>();
  const n = patternCount(result);
  for (let k = 0; k < n && out.length < top; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    if (p.evidence === false || seen.has(p.key)) continue;
    seen.add(p.key);
    out.push({ ...p, rank: k + 1 });
  }
  const lead = new Set((bugs ?? []).map((b) => b.patternKeys[0]).filter((k) => k !== undefined && !seen.has(k)));
  for (let k = 0; k < n && lead.size > 0; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    if (!lead.delete(p.key)) continue;
    seen.add(p.key);
    out.push({ ...p, rank: k + 1 });
  }
  return out;
}

const MARK: Record<string, string> = { confirmed: '✓ confirmed ', 'confirms the window': '◐ window    ', refuted: '✗ refuted   ', 'not forced': '– not forced', 'could not check': '? could not check' };

/** Forces one pattern; `seedOffset` grows with the runs spent so that no two confirmations share seeds. */
export type ConfirmOne = (p: RankedPattern, seedOffset: number) => Promise<Confirmation>;

/**
 * The confirmation loop of `--confirm K` without the command line: forces the candidates in order
 * within the budget and returns the reordered ranking (bugs follow their keys into the new order).
 * When none is confirmed and `a.perCallRanking` gives the same runs ranked with locations per call,
 * the per-call refinements with evidence of K listed patterns whose lines make several library calls
 * are forced at their calls, in the per-call ranking's order, until one is confirmed
 * (callRefinedCandidates); a refinement's verdict is its line-level pattern's (a confirmed one
 * replaces an earlier verdict, any other only fills an empty place).
 * Used by the CLI and by the evaluation (bench/confirmEval.ts --reorder).
 */
export async function confirmAndReorder(
  result: AnalysisResult,
  bugs: Bug[] | undefined,
  a: ConfirmLoopArgs,
  confirmOne: ConfirmOne,
  signal?: AbortSignal,
  onStart?: (p: RankedPattern) => void,
): Promise<{ result: AnalysisResult; bugs?: Bug[]; lines: string[]; verdicts: Map<string, PatternConfirmation>; spent: number }> {
  const candidates = confirmCandidates(result, bugs, a.top);
  const verdicts = new Map<string, PatternConfirmation>();
  const lines: string[] = [];
  let spent = 0;
  let skipped = 0;
  let forced = 0;
  const started = Date.now();
  // one forcing within the budget (three sets of runs: forced, opposite, unforced); undefined: left out
  const force = async (p: RankedPattern) => {
    if (spent + 3 * a.runs > a.budget) {
      skipped++;
      return undefined;
    }
    onStart?.(p);
    const c = await confirmOne(p, spent);
    spent += c.runsSpent;
    forced++;
    return c;
  };
  // could not check (issue 39): no verdict is kept; a command that never ran stops the loop (the next would not either)
  let commandFailed = false;
  const listed = listedPatterns(result);
  const queued = new Set(candidates.map((p) => p.key));
  // a part forced alone after a confirmed combination → that combination (its next part is forced when this one is not confirmed)
  const withinOf = new Map<string, RankedPattern>();
  // candidates grows while it is walked: a window's cause not tried yet is forced next (issue 40)
  for (const p of candidates) {
    if (signal?.aborted) break;
    const c = await force(p);
    if (!c) continue;
    if (c.couldNotCheck) {
      lines.push(`  ${MARK[c.verdict]}  #${p.rank} ${p.id} ${p.kind}  ${interleavingText(p)}`, `                  ${c.reason}; what to do: ${c.couldNotCheck.hint}`);
      if (c.forced.runs === 0) {
        commandFailed = true;
        break;
      }
      continue;
    }
    const v = patternConfirmation(c);
    let because = '';
    if (c.verdict === 'confirms the window') {
      const k = windowCause(listed.map((q) => (verdicts.has(q.key) ? { ...q, confirmation: verdicts.get(q.key) } : q)), p);
      if (k >= 0) {
        v.windowOf = listed[k].key;
        because = `; the window's cause: #${k + 1} ${listed[k].id} ${listed[k].kind}${verdicts.get(listed[k].key)?.verdict === 'confirmed' ? ' (confirmed)' : queued.has(listed[k].key) ? '' : ' — tried next, within the budget'}`;
        if (!queued.has(listed[k].key)) {
          queued.add(listed[k].key);
          candidates.push({ ...listed[k], rank: k + 1 });
        }
      }
    }
    // a part of a confirmed combination not confirmed alone: the combination's next part (on other variables), next
    const whole = withinOf.get(p.key);
    if (whole && c.verdict !== 'confirmed') {
      const parts = causeWithinCandidates(listed, whole);
      if (!parts.some((q) => verdicts.get(q.key)?.verdict === 'confirmed')) {
        const q = parts.find((x) => !queued.has(x.key) && x.key !== p.key);
        if (q) {
          const k = listed.indexOf(q);
          because += `; the next part of #${whole.rank} ${whole.id} ${whole.kind}: #${k + 1} ${q.id} ${q.kind} — tried next, within the budget`;
          queued.add(q.key);
          withinOf.set(q.key, whole);
          candidates.push({ ...q, rank: k + 1 });
        }
      }
    }
    if (c.verdict === 'confirmed' && !a.whole) {
      // a confirmed combination: the smaller listed patterns within it, forced alone next, one part at a time (its other accesses may be incidental)
      const parts = causeWithinCandidates(listed, p);
      // one confirmed already names the cause; else the first part not tried yet (others were, or are queued)
      const q = parts.find((x) => verdicts.get(x.key)?.verdict === 'confirmed') ?? parts.find((x) => !queued.has(x.key)) ?? parts[0];
      if (q) {
        const k = listed.indexOf(q);
        const had = verdicts.get(q.key)?.verdict;
        because = `; within it: #${k + 1} ${q.id} ${q.kind}${had ? ` (${had})` : queued.has(q.key) ? '' : ' — tried next, within the budget'}`;
        if (!queued.has(q.key)) {
          queued.add(q.key);
          withinOf.set(q.key, p);
          candidates.push({ ...q, rank: k + 1 });
        }
      }
    }
    verdicts.set(p.key, v);
    lines.push(`  ${MARK[c.verdict]}  #${p.rank} ${p.id} ${p.kind}  ${interleavingText(p)}`, `                  ${c.reason}${because}`);
  }
  const confirmedOne = () => [...verdicts.values()].some((v) => v.verdict === 'confirmed');
  if (a.perCallRanking && !commandFailed && !confirmedOne() && !signal?.aborted && spent + 3 * a.runs <= a.budget && hasMixedCalls(result)) {
    const perCall = await a.perCallRanking();
    const refined = perCall ? callRefinedCandidates(result, perCall, a.top, (k) => verdicts.get(k)?.verdict === 'confirmed') : [];
    if (refined.length) lines.push(`  per library call (a line of these patterns makes several calls; the runs ranked with locations per call):`);
    for (const { pattern: p, lineKey, callRank } of refined) {
      if (signal?.aborted) break;
      const c = await force(p);
      if (!c) continue;
      if (c.couldNotCheck) {
        lines.push(`  ${MARK[c.verdict]}  #${p.rank} ${p.id} ${p.kind}  ${interleavingText(p)}`, `                  ${c.reason}; what to do: ${c.couldNotCheck.hint}`);
        if (c.forced.runs === 0) break;
        continue;
      }
      const at = `forced at the calls ${callsText(p)} (#${callRank} with locations per call, ${p.failed} failing / ${p.passed} passing runs)`;
      const v = { ...patternConfirmation(c), reason: `${at}: ${c.reason}`, forcedKey: p.key };
      if (c.verdict === 'confirmed' || !verdicts.has(lineKey)) verdicts.set(lineKey, v);
      lines.push(`  ${MARK[c.verdict]}  #${p.rank} ${p.id} ${p.kind}  ${interleavingText(p)}`, `                  ${v.reason}`);
      if (c.verdict === 'confirmed') break;
    }
  }
  const head = `Confirmation by forcing — ${forced} pattern(s) forced, ${spent} runs in ${((Date.now() - started) / 1000).toFixed(0)} s${skipped ? `; ${skipped} left out (budget of ${a.budget} runs; --confirm-budget)` : ''}`;
  const next = withConfirmations(result, verdicts);
  const moves = verdicts.size ? reorderLines(listed, next.patterns as RankedPattern[]) : [];
  if (moves.length) lines.push('  the list after confirmation:', ...moves.map((m) => `    ${m}`));
  // bugs name their patterns by index into the list: follow the keys into the new order
  const index = new Map<string, number>();
  next.patterns.forEach((p, k) => index.set(p.key, k));
  const remapped = bugs?.map((b) => ({ ...b, patterns: b.patternKeys.map((key) => index.get(key)).filter((k): k is number => k !== undefined) }));
  return { result: next, bugs: remapped, lines: ['', head, ...lines], verdicts, spent };
}

export async function confirmInAnalysis(
  inputs: string[],
  result: AnalysisResult,
  bugs: Bug[] | undefined,
  a: AnalyzeConfirmArgs,
  signal?: AbortSignal,
): Promise<{ result: AnalysisResult; bugs?: Bug[]; lines: string[] }> {
  const resolved = await confirmOptionsFor(inputs, {
    command: a.command,
    runs: a.runs,
    waitMs: a.waitMs ?? DEFAULT_WAIT_MS,
    jobs: Math.max(1, Math.min(2, os.availableParallelism())),
    seed: 1000,
  }, (line) => process.stderr.write(`braid analyze --confirm: ${terminalLine(line)}\n`));
  if (typeof resolved === 'string') return { result, bugs, lines: [`Confirmation skipped: ${resolved}`] };
  const o = resolved.options;
  // the same traces with locations per call (trace files only: summaries keep lines)
  const perCallRanking = a.perCall === false ? undefined : perCallRankingOf(inputs, result.options, (m) => process.stderr.write(`braid analyze --confirm: ${terminalText(m)}\n`));
  const traceFiles = (await findTraceFiles(inputs)).files;
  const c = await confirmAndReorder(
    result,
    bugs,
    { ...a, perCallRanking },
    async (p, offset) => confirmPattern(await withFailingRunFacts(withCheckOfUse(p, result.patterns), traceFiles), { ...o, seed: o.seed + offset }, undefined, signal),
    signal,
    (p) => process.stderr.write(`braid analyze --confirm: forcing #${p.rank} ${p.id} ${p.kind}…\n`),
  );
  return { result: c.result, bugs: c.bugs, lines: c.lines };
}
