/**
 * Check the fix (issue 28, docs/confirm.md): after an edit, force the pattern's interleaving on the
 * new build and record the program with the original noise again; compare with the recording
 * before the fix.
 *
 *   fixed       forced runs no longer fail (the interleaving cannot be forced any more, or it is
 *               forced and passes) and the noise runs fail significantly less than before
 *   not fixed   forced runs still fail, or the noise runs still fail (less often is not fixed: a
 *               wrong fix that narrows the window, issue 42)
 *   could not check  no forced run or no noise run finished (the build is broken, the command
 *               failed, the include list matches nothing…), or no forced run reached the pattern's
 *               accesses: never `fixed` from zero runs (issue 39)
 *
 * An edit moves lines, so the forcing plan matches the pattern's accesses by method, variable and
 * access type (`line: 0`), not by line.
 */
import path from 'node:path';
import { failsMoreOften } from '../../engine/confirm/confirmVerdict';
import { CouldNotCheck, noRunsIn } from '../../engine/confirm/couldNotCheck';
import type { ForcedPattern } from '../../engine/confirm/forcingPlan';
import { ConfirmOptions, confirmPattern, Confirmation, ConfirmProgress, confirmRunOptions } from './confirmRuns';
import { recordRuns, RecordSummary } from './recordRuns';
import { CommandStartError } from './runOnce';
import { NoiseAt, RecordOptions, sanitizeName } from './recordOptions';
import type { PctOptions } from './pctNoise';
import type { RecordingManifest } from './recordingManifest';

export interface FixCheck {
  verdict: 'fixed' | 'not fixed' | 'could not check';
  /** why it could not check, and what to do */
  couldNotCheck?: CouldNotCheck;
  /** the interleaving forced on the new build */
  forced: Confirmation['forced'] & { reason: string };
  before: { runs: number; failed: number };
  /** the noise runs after the fix; absent when they were not recorded (could not check before them) */
  after?: { runs: number; failed: number; folder: string };
  /** one-sided Fisher p that the runs before failed more often than after */
  pValue: number;
  reason: string;
}

export interface FixCheckOptions extends ConfirmOptions {
  /** noise of the re-recording (the original recording's: recordingNoiseOf) */
  recordNoise: number;
  /** where the recording's noise went (`--noise-at`), when not at the accesses */
  recordNoiseAt?: NoiseAt;
  /** the recording was scheduled by PCT (`--noise-mode pct`; its `noise` is 0): so are the runs after the fix */
  recordPct?: PctOptions;
  /** noise runs after the fix (default: runs) */
  afterRuns?: number;
}

/**
 * The noise of the runs after the fix: the recording's, as its manifest says — its last noise level
 * (adaptive exposure may have widened it), where that noise went, and PCT's scheduler for a recording
 * made with `--noise-mode pct` (whose `noise` is 0: without the scheduler the runs after the fix would
 * run with no noise at all and fail less whatever the fix). A noise the user gives replaces the level
 * (and PCT) but keeps where it goes.
 */
export function recordingNoiseOf(
  m: Pick<RecordingManifest, 'noise' | 'noiseAt' | 'pct'> | undefined,
  given?: number,
): Pick<FixCheckOptions, 'recordNoise' | 'recordNoiseAt' | 'recordPct'> {
  const at = m?.noiseAt ? { recordNoiseAt: m.noiseAt } : {};
  if (given !== undefined) return { recordNoise: given, ...at };
  return { recordNoise: m?.noise ?? 0.1, ...at, ...(m?.pct ? { recordPct: { depth: m.pct.depth } } : {}) };
}

/** The options of the runs after the fix (recordRuns): the recording's command and noise, into `outDir`. */
export function afterRunOptions(o: FixCheckOptions, outDir: string, runs: number): RecordOptions {
  return {
    ...confirmRunOptions(o, outDir, `${sanitizeName(o.name)}-after`, o.seed + 300_000),
    runs,
    noise: o.recordNoise,
    ...(o.recordNoiseAt ? { noiseAt: o.recordNoiseAt } : {}),
    ...(o.recordPct ? { pct: o.recordPct } : {}),
  };
}

export async function checkFix(
  p: ForcedPattern,
  before: { runs: number; failed: number },
  o: FixCheckOptions,
  onProgress?: (p: ConfirmProgress | { group: 'after'; done: number; total: number; failed: number }) => void,
  signal?: AbortSignal,
): Promise<FixCheck> {
  const forcedRun = await confirmPattern(p, { ...o, anyLine: true, skipOpposite: true, controlRuns: 0 }, onProgress, signal);
  const f = forcedRun.forced;
  const unchecked = (c: CouldNotCheck, after?: FixCheck['after']): FixCheck => ({
    verdict: 'could not check',
    couldNotCheck: c,
    forced: { ...f, reason: forcedRun.reason },
    before,
    ...(after ? { after } : {}),
    pValue: 1,
    reason: `could not check: ${c.why}`,
  });
  if (before.runs === 0) return unchecked({ why: 'the recording before the fix has no runs', hint: 'give the traces recorded before the fix (--baseline)' });
  if (forcedRun.couldNotCheck) return unchecked(forcedRun.couldNotCheck);
  const afterRuns = o.afterRuns ?? o.runs;
  const outDir = path.join(forcedRun.folder, 'after');
  let failed = 0;
  let done = 0;
  let summary: RecordSummary;
  try {
    summary = await recordRuns(
      afterRunOptions(o, outDir, afterRuns),
      (pr) => {
        done++;
        if (pr.run.outcome === 'fail') failed++;
        onProgress?.({ group: 'after', done, total: afterRuns, failed });
      },
      signal,
    );
  } catch (e) {
    // a command that cannot start is no run (could not check); anything else (a full disk: the CLI's exit 3) is an error
    if (!(e instanceof CommandStartError)) throw e;
    return unchecked({ why: `the command failed: ${(e as Error).message} (no noise run finished)`, hint: 'check the program name, the PATH and the working folder' });
  }
  if (summary.writeFailure) throw summary.writeFailure;
  const after = { runs: summary.total, failed: summary.failed, folder: outDir };
  // zero noise runs after the fix are never accepted (issue 39)
  if (after.runs === 0) return unchecked(noRunsIn('after', summary, signal?.aborted), after);
  const pValue = failsMoreOften(before, after);
  const rate = (k: number, n: number) => `${k} of ${n}${n ? ` (${Math.round((100 * k) / n)} %)` : ''}`;
  const rates = `with noise the runs failed ${rate(before.failed, before.runs)} before, ${rate(after.failed, after.runs)} now`;
  const notForced = forcedRun.verdict === 'not forced';
  let verdict: FixCheck['verdict'];
  let reason: string;
  if (!notForced && f.failed > 0) {
    verdict = 'not fixed';
    reason = `still fails ${f.failed} of ${f.runs} runs when the interleaving is forced; ${rates}`;
  } else if (after.failed > 0 && (pValue >= 0.05 || after.failed * before.runs >= before.failed * after.runs)) {
    verdict = 'not fixed';
    reason = `the failure rate did not drop: ${rates}`;
  } else if (after.failed > 0) {
    // fewer failures is not a fix: a wrong fix that narrows the window (the balance read again after
    // an await, another await before the write) still fails — never called fixed (issue 42)
    verdict = 'not fixed';
    reason = `the program still fails with noise, less often: ${rates}; the pattern's interleaving ${notForced ? 'can no longer be forced' : `no longer fails when forced (${f.forcedOk} of ${f.runs} runs)`} — another interleaving of the same failure, or another bug`;
  } else {
    verdict = 'fixed';
    const how = notForced
      ? `the interleaving can no longer happen (${firstReason(forcedRun.reason)})`
      : `the interleaving still happens (forced in ${f.forcedOk} of ${f.runs} runs) but no run fails`;
    reason = `${how}; ${rates}`;
  }
  return { verdict, forced: { ...f, reason: forcedRun.reason }, before, after, pValue, reason };
}

/**
 * The first reason of a not-forced verdict in words: "thread t1 is blocked on shop.Shop (monitor)
 * held by t2 while it waits at Shop.java:23" out of "the interleaving could be forced in 0 of 10
 * runs: wait 0: …; wait 1: …".
 */
export function firstReason(reason: string): string {
  const body = reason.replace(/^the interleaving could be forced in \d+ of \d+ runs: /, '');
  const first = body.split(/; wait \d+: /)[0].replace(/^wait \d+: /, '');
  return first.replace(/ \((once|\d+ times)\)$/, '');
}
