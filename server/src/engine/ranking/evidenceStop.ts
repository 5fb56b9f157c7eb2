/**
 * When to stop recording (`braid test --runs auto`, issue 29 point 3): record in rounds, analyze
 * the runs after each round, and stop as soon as the evidence is in — the leading pattern (the
 * first listed **cause** row with evidence: rootCauseOrder.hasEvidence; a symptom or harness row
 * never leads, issue 39 item 3) has a one-sided Fisher p below
 * `pValue` (10⁻⁶) and the first `top` (3) listed patterns were the same (by key, in any order) in
 * the last `stableRounds` (2) analyses — or at the budget (`maxRuns` runs, `maxSeconds` seconds).
 * Pure: the caller records and analyzes; this module reads the results and decides.
 */
import type { AnalysisResult } from '../analysis';
import { rankedRows } from './rankedList';

export interface EvidenceStopRule {
  /** the lead pattern's Fisher p-value must be below this */
  pValue: number;
  /** the first `top` listed patterns' keys … */
  top: number;
  /** … must be the same in this many consecutive analyses (the last rounds) */
  stableRounds: number;
  /** runs per round (the analysis after each) */
  roundRuns: number;
  /** budget: most runs */
  maxRuns: number;
  /** budget: most seconds of recording (no run starts after it) */
  maxSeconds: number;
}

export const DEFAULT_EVIDENCE_STOP: EvidenceStopRule = { pValue: 1e-6, top: 3, stableRounds: 2, roundRuns: 10, maxRuns: 200, maxSeconds: 300 };

/** What the rule reads from one analysis (one round). */
export interface EvidenceSnapshot {
  runs: number;
  failed: number;
  passed: number;
  /** the first listed cause pattern with evidence (never a symptom or harness row) */
  lead?: { key: string; pValue: number; failed: number; passed: number; id: string; variable?: string };
  /** keys of the first `top` listed patterns, in order */
  top: string[];
}

/** Why a recording stopped: evidence, one of the budgets, or (`--runs N`) the runs asked for. */
export type StopReason = 'evidence' | 'max-runs' | 'max-seconds';

export function evidenceSnapshot(result: AnalysisResult, top = DEFAULT_EVIDENCE_STOP.top): EvidenceSnapshot {
  const e = result.executions;
  const rows = rankedRows(result);
  const keys: string[] = [];
  let lead: EvidenceSnapshot['lead'];
  for (let k = 0; k < Math.min(top, rows.length); k++) keys.push(rows.describe(k).key);
  // rows with evidence come first, causes before harness and symptom rows: the lead is the first
  // cause row with evidence; a race after the failure point (symptom) or in test code only
  // (harness) that reaches the threshold first must not stop the recording (issue 39 item 3)
  for (let k = 0; k < rows.length && rows.hasEvidence(k); k++) {
    if (rows.group(k) !== 'cause') continue;
    const p = rows.describe(k);
    if (p.failed > 0) lead = { key: p.key, pValue: p.pValue, failed: p.failed, passed: p.passed, id: p.id, variable: p.accesses[0]?.variable };
    break;
  }
  return { runs: e.total, failed: e.failed, passed: e.passed, ...(lead ? { lead } : {}), top: keys };
}

/**
 * True when the last `rule.stableRounds` snapshots list the same first patterns (none empty), in
 * any order: a lead pattern and its longer form (P1 RW and P7 RWW of one lost update) trade places
 * as their counts grow, which does not change the answer.
 */
export function topStable(history: readonly EvidenceSnapshot[], rule: Pick<EvidenceStopRule, 'stableRounds'> = DEFAULT_EVIDENCE_STOP): boolean {
  const n = Math.max(1, rule.stableRounds);
  if (history.length < n) return false;
  const last = history.slice(-n);
  const first = [...last[0].top].sort();
  if (!first.length) return false;
  return last.every((s) => {
    const keys = [...s.top].sort();
    return keys.length === first.length && keys.every((k, j) => k === first[j]);
  });
}

/** The evidence part of the rule: the lead's p-value below the threshold and the top stable. */
export function evidenceIsIn(history: readonly EvidenceSnapshot[], rule: Pick<EvidenceStopRule, 'pValue' | 'stableRounds'> = DEFAULT_EVIDENCE_STOP): boolean {
  const last = history[history.length - 1];
  return !!last?.lead && last.lead.pValue < rule.pValue && topStable(history, rule);
}

/**
 * Why to stop after the analyses in `history` (the last is the current one) at `elapsedSeconds`,
 * or undefined to record another round. Evidence wins over a budget reached at the same time.
 */
export function stopReason(history: readonly EvidenceSnapshot[], elapsedSeconds: number, rule: EvidenceStopRule = DEFAULT_EVIDENCE_STOP): StopReason | undefined {
  if (evidenceIsIn(history, rule)) return 'evidence';
  const runs = history[history.length - 1]?.runs ?? 0;
  if (runs >= rule.maxRuns) return 'max-runs';
  if (elapsedSeconds >= rule.maxSeconds) return 'max-seconds';
  return undefined;
}

/** The run count at which the round after `runs` ends (never past the budget). */
export function nextRoundEnd(runs: number, rule: Pick<EvidenceStopRule, 'roundRuns' | 'maxRuns'> = DEFAULT_EVIDENCE_STOP): number {
  return Math.min(rule.maxRuns, runs + Math.max(1, rule.roundRuns));
}

/** A p-value as the reports print it (2 significant digits; 1e-300 and below as "< 1e-300"). */
export function formatPValue(p: number): string {
  if (p <= 1e-300) return '< 1e-300';
  if (p >= 0.001) return String(Number(p.toPrecision(2)));
  return p.toExponential(1).replace(/\.0e/, 'e');
}

/** One line about the evidence so far, for progress output: `lead P1 on bank.Account.balance, p = 3.1e-7 (top 3 stable)`. */
export function evidenceLine(history: readonly EvidenceSnapshot[], rule: EvidenceStopRule = DEFAULT_EVIDENCE_STOP): string {
  const s = history[history.length - 1];
  if (!s) return 'no analysis yet';
  if (!s.failed) return 'no failing run yet';
  if (!s.lead) return 'no cause pattern with evidence yet';
  const stable = topStable(history, rule);
  return `lead ${s.lead.id}${s.lead.variable ? ` on ${s.lead.variable}` : ''} (${s.lead.failed} failed, ${s.lead.passed} passed), p = ${formatPValue(s.lead.pValue)}${s.lead.pValue < rule.pValue ? '' : ` (needs < ${formatPValue(rule.pValue)})`}${stable ? `, top ${rule.top} stable` : ''}`;
}
