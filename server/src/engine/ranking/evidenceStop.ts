/**
 * When to stop recording (`braid test --runs auto`, issue 29 point 3): record in rounds, analyze
 * the runs after each round, and stop as soon as the evidence is in — the leading pattern (the
 * first listed **cause** row with evidence: rootCauseOrder.hasEvidence; a symptom or harness row
 * never leads, issue 39 item 3) has a one-sided Fisher p below
 * `pValue` (10⁻⁶) and the first `top` (3) listed patterns were the same (by key, in any order) in
 * the last `stableRounds` (2) analyses — or at the budget (`maxRuns` runs, `maxSeconds` seconds).
 * Issue 40, item 5: the evidence waits for every bug — each GRIFFIN bug with evidence (its lead
 * pattern's p < 0.05) must have its lead settled (p < `bugPValue`, the same lead in the last two
 * rounds; a bug seen only a few times gets more runs, within the budget), and failing runs that no
 * bug with evidence explains hold it too while they are at least `unexplainedShare` (1 in 50) of
 * the failing runs and too few for a pattern of their own to have evidence (p ≈ (failed/runs)^u ≥
 * 0.05): a second bug seen in one or two runs is not a GRIFFIN bug with evidence yet, and without
 * this the recording stopped before it became one; more failing runs that no bug explains are the
 * known bug's own, caught by other patterns (the lost update of test/fixtures/maven/inventory: 13 of
 * 34 failing runs, which held every recording to the 200-run budget). When no pattern separates
 * failing from passing runs, the run budget does not end the recording: the time budget does (at
 * most `noSeparationMaxRuns` runs), and the report says why nothing separates (noSeparationWhy).
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
  /** each GRIFFIN bug with evidence: its lead pattern's p-value must be below this (default 1e-3) */
  bugPValue?: number;
  /**
   * when no pattern separates failing from passing runs, `maxRuns` does not stop the recording: the
   * time budget does, or this many runs (default 5 × maxRuns)
   */
  noSeparationMaxRuns?: number;
  /**
   * failing runs that no GRIFFIN bug with evidence explains hold the recording while they are at
   * least this share of the failing runs (default 0.02: a bug behind fewer than 1 in 50 failing runs is not
   * waited for; 1: never, the rule before)
   */
  unexplainedShare?: number;
}

export const DEFAULT_EVIDENCE_STOP: EvidenceStopRule = { pValue: 1e-6, top: 3, stableRounds: 2, roundRuns: 10, maxRuns: 200, maxSeconds: 300 };
export const DEFAULT_BUG_P_VALUE = 1e-3;
/** a bug whose lead has p ≥ this has no evidence (it does not hold the recording) */
export const BUG_EVIDENCE_P = 0.05;
export const DEFAULT_UNEXPLAINED_SHARE = 0.02;

/** The most runs of a recording whose patterns do not separate (the run budget's extension). */
export function noSeparationMaxRuns(rule: Pick<EvidenceStopRule, 'maxRuns' | 'noSeparationMaxRuns'>): number {
  return Math.max(rule.maxRuns, rule.noSeparationMaxRuns ?? 5 * rule.maxRuns);
}

/** A GRIFFIN bug as the stop rule reads it: its lead pattern (key) and that pattern's Fisher p. */
export interface BugLead {
  lead: string;
  pValue: number;
  /** failing runs the bug explains */
  failingRuns: number;
}

/** What the rule reads from one analysis (one round). */
export interface EvidenceSnapshot {
  runs: number;
  failed: number;
  passed: number;
  /** the first listed cause pattern with evidence (never a symptom or harness row) */
  lead?: { key: string; pValue: number; failed: number; passed: number; id: string; variable?: string };
  /** keys of the first `top` listed patterns, in order */
  top: string[];
  /** the GRIFFIN bugs of this analysis (when computed): each one's lead and its p-value */
  bugs?: BugLead[];
  /** failing runs that no GRIFFIN bug with evidence explains (when the bugs were computed) */
  unexplained?: number;
  /** the best pattern when none has evidence: why nothing separates (noSeparationWhy) */
  best?: { id: string; failed: number; passed: number; pValue: number; inNearlyEveryPassingRun: boolean };
}

/** Why a recording stopped: evidence, one of the budgets, or (`--runs N`) the runs asked for. */
export type StopReason = 'evidence' | 'max-runs' | 'max-seconds';

export function evidenceSnapshot(result: AnalysisResult, top = DEFAULT_EVIDENCE_STOP.top, bugs?: readonly { patternKeys: readonly string[]; failingRuns?: readonly string[]; evidence: { pValue: number; failingRuns: number } }[]): EvidenceSnapshot {
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
  // nothing separates: the pattern closest to it, to say why (the first listed pattern seen in a failing run)
  let best: EvidenceSnapshot['best'];
  if (!lead && e.failed > 0 && e.passed > 0) {
    for (let k = 0; k < rows.length && k < 50; k++) {
      const p = rows.describe(k);
      if (p.failed === 0) continue;
      best = { id: p.id, failed: p.failed, passed: p.passed, pValue: p.pValue, inNearlyEveryPassingRun: p.passed >= 0.9 * e.passed };
      break;
    }
  }
  const bugLeads = bugs?.flatMap((b) => (b.patternKeys[0] !== undefined ? [{ lead: b.patternKeys[0], pValue: b.evidence.pValue, failingRuns: b.evidence.failingRuns }] : []));
  let unexplained: number | undefined;
  if (bugs) {
    const explained = new Set<string>();
    for (const b of bugs) if (b.evidence.pValue < BUG_EVIDENCE_P) for (const r of b.failingRuns ?? []) explained.add(r);
    unexplained = Math.max(0, e.failed - explained.size);
  }
  return {
    runs: e.total,
    failed: e.failed,
    passed: e.passed,
    ...(lead ? { lead } : {}),
    top: keys,
    ...(bugLeads ? { bugs: bugLeads } : {}),
    ...(unexplained !== undefined ? { unexplained } : {}),
    ...(best ? { best } : {}),
  };
}

/**
 * The GRIFFIN bugs with evidence (lead p < 0.05) of the last analysis whose lead is not settled yet:
 * p ≥ `bugPValue`, or another lead in the analysis before (the lead of a bug seen a few times moves).
 * Empty when the analyses carry no bugs.
 */
export function unsettledBugs(history: readonly EvidenceSnapshot[], rule: Pick<EvidenceStopRule, 'bugPValue'> = DEFAULT_EVIDENCE_STOP): BugLead[] {
  const last = history[history.length - 1];
  const before = history[history.length - 2];
  const threshold = rule.bugPValue ?? DEFAULT_BUG_P_VALUE;
  return (last?.bugs ?? []).filter((b) => b.pValue < BUG_EVIDENCE_P && (b.pValue >= threshold || !before?.bugs?.some((o) => o.lead === b.lead)));
}

/**
 * The failing runs of the last analysis that no GRIFFIN bug with evidence explains, when they hold
 * the recording: at least `unexplainedShare` of the failing runs (a bug seen only once or twice is
 * no bug with evidence yet). 0 when they do not, or when the analysis carries no bugs.
 */
export function unexplainedRuns(history: readonly EvidenceSnapshot[], rule: Pick<EvidenceStopRule, 'unexplainedShare'> = DEFAULT_EVIDENCE_STOP): number {
  const last = history[history.length - 1];
  const u = last?.unexplained ?? 0;
  if (!last || u === 0 || last.runs === 0) return 0;
  if (u < (rule.unexplainedShare ?? DEFAULT_UNEXPLAINED_SHARE) * last.failed) return 0;
  // so many that a pattern of their own would have evidence already (in u failing runs and no passing
  // run: p ≈ (failed/runs)^u < 0.05): they are no bug waiting for runs — failing runs of the bug that
  // has evidence whose window another pattern caught — and more runs would not make one
  return (last.failed / last.runs) ** u < BUG_EVIDENCE_P ? 0 : u;
}

/** Failing and passing runs, and no cause pattern with evidence: nothing separates them (yet). */
export function noSeparation(s: EvidenceSnapshot | undefined): boolean {
  return !!s && s.failed > 0 && s.passed > 0 && !s.lead;
}

/** Why no pattern separates failing from passing runs, in words (the report of such a recording). */
export function noSeparationWhy(s: EvidenceSnapshot): string {
  const b = s.best;
  const closest = b
    ? `the closest pattern, ${b.id}, is in ${b.failed} of ${s.failed} failing and ${b.passed} of ${s.passed} passing runs (p = ${formatPValue(b.pValue)}${b.inNearlyEveryPassingRun ? ', in nearly every passing run' : ''})`
    : 'no recorded pattern appears in a failing run';
  return `${closest}: the failing runs show no interleaving of recorded accesses that the passing runs lack. Likely the race is in code that is not instrumented (a JDK or library collection such as HashMap: add it with --include), or the failure does not come from the order of shared-memory accesses (a timeout, I/O, randomness)`;
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
  // the evidence waits for every bug with evidence to have its lead settled (issue 40 item 5)
  if (evidenceIsIn(history, rule) && unsettledBugs(history, rule).length === 0 && unexplainedRuns(history, rule) === 0) return 'evidence';
  const last = history[history.length - 1];
  const runs = last?.runs ?? 0;
  // nothing separates: the time budget ends the recording, not the run budget (at most noSeparationMaxRuns)
  if (runs >= (noSeparation(last) ? noSeparationMaxRuns(rule) : rule.maxRuns)) return 'max-runs';
  if (elapsedSeconds >= rule.maxSeconds) return 'max-seconds';
  return undefined;
}

/**
 * The run count at which the round after `runs` ends (never past the budget; past `maxRuns`, when
 * nothing separates, rounds of a tenth of the runs so far, up to noSeparationMaxRuns).
 */
export function nextRoundEnd(runs: number, rule: Pick<EvidenceStopRule, 'roundRuns' | 'maxRuns' | 'noSeparationMaxRuns'> = DEFAULT_EVIDENCE_STOP): number {
  if (runs >= rule.maxRuns) return Math.min(noSeparationMaxRuns(rule), runs + Math.max(1, rule.roundRuns, Math.floor(runs / 10)));
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
  const unsettled = s.bugs ? unsettledBugs(history, rule).length : 0;
  // failing runs no bug explains: said once they are what holds the recording (the lead's p is in)
  const unexplained = s.lead.pValue < rule.pValue ? unexplainedRuns(history, rule) : 0;
  return `lead ${s.lead.id}${s.lead.variable ? ` on ${s.lead.variable}` : ''} (${s.lead.failed} failed, ${s.lead.passed} passed), p = ${formatPValue(s.lead.pValue)}${s.lead.pValue < rule.pValue ? '' : ` (needs < ${formatPValue(rule.pValue)})`}${stable ? `, top ${rule.top} stable` : ''}${
    unsettled ? `; ${unsettled} bug${unsettled === 1 ? '' : 's'} of ${s.bugs!.length} not settled yet` : ''
  }${unexplained ? `; ${unexplained} failing run${unexplained === 1 ? '' : 's'} no bug explains yet` : ''}`;
}
