/**
 * find_root_cause's answer: an analysis of a recording cut to what an agent needs, evidence first
 * (the runs, the best causes with their failing/passing counts and p-values, GRIFFIN's first bug and
 * its fix strategies), every recorded string one bounded line (recordedText.ts), the whole at most
 * MAX_RESULT_BYTES of JSON — the recording resource holds the rest.
 */
import path from 'node:path';
import { AnalysisResult, patternAt, patternCount, RankedPattern } from '../engine/analysis';
import type { Bug } from '../engine/griffin/griffin';
import { patternSentence } from '../engine/report/patternSentence';
import { plainHeadline } from '../engine/outputEscaping';
import { DATA_NOTE, fitJson, recordedText } from './recordedText';

export interface Digest {
  note: string;
  recording: string;
  resource: string;
  status: 'cause-found' | 'no-evidence' | 'never-failed' | 'always-failed' | 'no-runs';
  runs: { total: number; failed: number; passed: number };
  recorded?: { command: string; seconds: number; stopped: string };
  causes: DigestCause[];
  bug?: { headline: string; kind: string; failingRuns: number; totalFailing: number; pValue: number; weak?: string; suspiciousMethods: { method: string; where: string }[]; fix: string[] };
  bugs: number;
  totalPatterns: number;
  message?: string;
  next: string;
  trimmed?: boolean;
}

interface DigestCause {
  pattern: number;
  key: string;
  kind: string;
  category: string;
  failed: number;
  passed: number;
  pValue: number;
  evidence: boolean;
  sentence: string;
  accesses: { thread: number; threadName?: string; type: 'R' | 'W'; variable: string; where: string; method: string }[];
  accessesLeftOut?: number;
  confirmation?: string;
}

/** The most causes listed. */
export const MAX_CAUSES = 3;

const where = (file: string, line: number) => `${recordedText(path.basename(file), 80)}:${line}`;
const round = (p: number) => (p === 0 ? 0 : Number(p.toPrecision(3)));

export function describeCause(p: RankedPattern, position: number): DigestCause {
  const conf = (p as { confirmation?: { verdict: string } }).confirmation;
  return {
    pattern: position,
    key: recordedText(p.key, 300),
    kind: p.kind,
    category: p.category,
    failed: p.failed,
    passed: p.passed,
    pValue: round(p.pValue),
    evidence: p.evidence !== false,
    sentence: recordedText(plainHeadline(patternSentence(p.accesses)), 300),
    accesses: p.accesses.map((a) => ({
      thread: a.thread,
      ...(a.threadName ? { threadName: recordedText(a.threadName, 40) } : {}),
      type: a.type,
      variable: recordedText(a.call ?? a.variable, 100),
      where: where(a.file, a.line),
      method: recordedText(a.method, 120),
    })),
    ...(conf ? { confirmation: conf.verdict } : {}),
  };
}

export function analysisDigest(
  result: AnalysisResult,
  bugs: readonly Bug[] | undefined,
  handle: { recording: string; resource: string },
  recorded?: Digest['recorded'],
): Digest {
  const { total, failed, passed } = result.executions;
  const n = patternCount(result);
  const causes: DigestCause[] = [];
  for (let k = 0; k < n && causes.length < MAX_CAUSES; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    if (p.group !== 'cause' || p.evidence === false) continue;
    causes.push(describeCause(p, k + 1));
  }
  const status: Digest['status'] = total === 0 ? 'no-runs' : failed === 0 ? 'never-failed' : passed === 0 ? 'always-failed' : causes.length ? 'cause-found' : 'no-evidence';
  const b = bugs?.[0];
  const digest: Digest = {
    note: DATA_NOTE,
    recording: handle.recording,
    resource: handle.resource,
    status,
    runs: { total, failed, passed },
    ...(recorded ? { recorded: { ...recorded, command: recordedText(recorded.command, 300) } } : {}),
    causes,
    ...(b
      ? {
          bug: {
            headline: recordedText(plainHeadline(b.advice.headline), 400),
            kind: b.kind,
            failingRuns: b.evidence.failingRuns,
            totalFailing: b.evidence.totalFailing,
            pValue: round(b.evidence.pValue),
            ...(b.evidence.weak ? { weak: b.evidence.inEveryRun ? 'its pattern is in every failing run and in passing runs too' : 'rests on one or two failing runs' } : {}),
            suspiciousMethods: b.suspiciousMethods.slice(0, 4).map((m) => ({ method: recordedText(m.method, 120), where: where(m.file, m.line) })),
            fix: b.advice.steps.slice(0, 3).map((s) => recordedText(plainHeadline(s), 300)),
          },
        }
      : {}),
    bugs: bugs?.length ?? 0,
    totalPatterns: n,
    ...(result.message || result.confidence ? { message: recordedText([result.message, result.confidence].filter(Boolean).join(' '), 400) } : {}),
    next: nextStep(status, handle.recording),
  };
  const fit = fitJson(digest, [
    (d) => shrinkAccesses(d, 4),
    (d) => d.causes.length > 1 && d.causes.pop() !== undefined,
    (d) => (d.bug ? d.bug.fix.length > 1 && d.bug.fix.pop() !== undefined : false),
    (d) => (d.bug ? d.bug.suspiciousMethods.length > 1 && d.bug.suspiciousMethods.pop() !== undefined : false),
    (d) => shrinkAccesses(d, 1),
    (d) => d.message !== undefined && delete d.message,
    (d) => d.bug !== undefined && delete d.bug,
  ]);
  if (fit.trimmed) digest.trimmed = true;
  return digest;
}

/** Cuts each cause to `keep` accesses (the first ones); false when none had more. */
function shrinkAccesses(d: Digest, keep: number): boolean {
  let cut = false;
  for (let k = d.causes.length - 1; k >= 0; k--) {
    const c = d.causes[k];
    if (c.accesses.length > keep) {
      c.accessesLeftOut = (c.accessesLeftOut ?? 0) + c.accesses.length - keep;
      c.accesses = c.accesses.slice(0, keep);
      cut = true;
      break;
    }
  }
  return cut;
}

function nextStep(status: Digest['status'], recording: string): string {
  switch (status) {
    case 'cause-found':
      return `Prove it before fixing: confirm {recording: "${recording}", pattern: 1}. After editing the code: check_fix {recording: "${recording}", pattern: 1}.`;
    case 'no-evidence':
      return 'No pattern separates failing from passing runs yet: record more runs (find_root_cause with a larger maxRuns).';
    case 'never-failed':
      return 'The program never failed: nothing to explain yet. Record with more noise (noise 0.3) or more runs.';
    case 'always-failed':
      return 'Every run failed: the analysis needs passing runs too. Check that the program can pass, or use less noise (noise 0.02).';
    default:
      return 'No run was recorded: check the command and the include list.';
  }
}
