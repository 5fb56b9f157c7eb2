/**
 * "Could not check" (issue 39, item 1: no verdict without runs): Confirm and Check the Fix compare
 * groups of finished runs; when a group they compare has none — the command failed, the build is
 * broken, the include list matches nothing, a Node.js program ran under the Java agent, the
 * recording was stopped — or no forced run reached any of the pattern's accesses, there is nothing
 * to compare, and the answer is `could not check` with why and what to do, never a verdict
 * (docs/confirm.md, "Could not check"). The CLI exits with COULD_NOT_CHECK_EXIT.
 */
import type { ForcingReport } from '../trace/traceFormat';

export const COULD_NOT_CHECK = 'could not check';
export type CouldNotCheckVerdict = typeof COULD_NOT_CHECK;

/** `braid confirm`'s exit code for could not check (0 confirmed/fixed, 1 a verdict against, 2 usage, 3 a write failure). */
export const COULD_NOT_CHECK_EXIT = 4;

export interface CouldNotCheck {
  /** why, in plain words: "the command failed: command not found" */
  why: string;
  /** what to do about it */
  hint: string;
}

/** What a group's recording says about runs that did not finish (recordRuns' RecordSummary). */
export interface GroupRecording {
  total: number;
  interrupted: boolean;
  notReached?: { reason: string; hint: string; runs: number; testDidNotRun?: boolean };
  writeFailure?: Error;
}

const GROUP_WORDS = { forced: 'forced', opposite: 'opposite-order', control: 'unforced', after: 'noise' } as const;
export type CheckedGroup = keyof typeof GROUP_WORDS;

/** Why a group has no finished run, from its recording. */
export function noRunsIn(group: CheckedGroup, r: GroupRecording | undefined, aborted = false): CouldNotCheck {
  const none = `no ${GROUP_WORDS[group]} run finished`;
  if (r?.writeFailure) return { why: `${none}: ${r.writeFailure.message}`, hint: 'free disk space (or fix the folder named) and run it again' };
  if (r?.notReached?.testDidNotRun) return { why: `the test did not run: ${r.notReached.reason} (${none})`, hint: r.notReached.hint };
  if (r?.notReached) return { why: `the command failed: ${r.notReached.reason} (${none})`, hint: `${r.notReached.hint}; for Check the Fix, build the fixed program first` };
  if (aborted || r?.interrupted) return { why: `stopped before any ${GROUP_WORDS[group]} run finished`, hint: 'run it again and let it finish' };
  return { why: none, hint: 'check the command, the include list and the time limit (--timeout), then run it again' };
}

/**
 * True when a forced run reached none of the pattern's accesses: no forcing report (the agent saw
 * no point of the plan), or every wait of it unmet and never reached ("no thread reached …").
 */
export function reachedNoAccess(f: ForcingReport | undefined): boolean {
  if (!f) return true;
  if (f.ok) return false;
  if (f.waits.some((w) => w.met > 0 || w.timedOut > 0 || w.lock > 0 || w.skipped > 0)) return false;
  const reasons = (f.reason ?? '').split(/; (?=wait \d+: )/).filter((s) => s.length > 0);
  return reasons.length > 0 && reasons.every((s) => /^wait \d+: no thread reached /.test(s));
}

/**
 * No forced run reached the pattern's accesses (`where`: the accesses in words). `include`: given when
 * some run had no forcing report at all — the agent instrumented no class of the plan.
 */
export function accessesNotReached(runs: number, where: string, include?: readonly string[]): CouldNotCheck {
  const none = include ? `: no included class was instrumented${include.length ? ` (--include ${include.join(' ')})` : ''}, the agent wrote no forcing report` : '';
  return {
    why: `no forced run reached the pattern's accesses (${where}) in ${runs} run${runs === 1 ? '' : 's'}${none}`,
    hint: include
      ? 'set the include list to the packages of the code under test (--include, braid.record.include); if the fix moved the classes, name their new package'
      : 'check that the command runs the code of the pattern (the failing test, not another one) and that --include names its classes; if the fix removed that code, record the program again (braid record) and compare the failure rates',
  };
}
