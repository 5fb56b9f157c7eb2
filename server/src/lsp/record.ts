/**
 * braid/record: runs the Java recorder from the editor (the client sends it
 * only in trusted workspaces), streaming pass/fail counts as
 * braid/recordProgress notifications; $/cancelRequest stops the runs (the
 * finished traces are kept).
 */
import path from 'node:path';
import { CancellationToken, Connection, ResponseError } from 'vscode-languageserver';
import { parseRecordArgs, UsageError } from '../recorder/recordOptions';
import { recordRuns } from '../recorder/recordCommand';
import { RecordParams, RecordProgressNotification, RecordProgressParams, RecordResult } from './protocol';

export interface RecordContext {
  folder: string | undefined;
  outDir: string;
  afterRun(): void;
  /** the traces of a recording in `outDir` finished so far (each run's trace is complete once
   * reported); `undefined` when the recording ended. The analysis skips the unfinished ones. */
  recording?(outDir: string, finished: ReadonlySet<string> | undefined): void;
}

export function recordArgv(p: RecordParams, outDir: string | undefined): string[] {
  const argv: string[] = ['--runs', String(p.runs)];
  if (p.noise !== undefined) argv.push('--noise', String(p.noise));
  if (p.include?.length) argv.push('--include', ...p.include);
  if (p.timeoutSeconds !== undefined) argv.push('--timeout', String(p.timeoutSeconds));
  if (p.jobs !== undefined) argv.push('--jobs', String(p.jobs));
  if (outDir) argv.push('--out', outDir);
  argv.push('--', ...p.command);
  return argv;
}

export async function recordRunsFromServer(connection: Connection, p: RecordParams, token: CancellationToken, ctx: RecordContext): Promise<RecordResult> {
  if (!ctx.folder) throw new ResponseError(-32602, 'Recording needs an open workspace folder.');
  if (!p || !Array.isArray(p.command) || p.command.length === 0 || !p.command.every((x) => typeof x === 'string')) {
    throw new ResponseError(-32602, 'braid/record needs "command": the program and its arguments, e.g. ["java", "-cp", "out", "bank.Bank"]');
  }
  if (!Number.isInteger(p.runs) || p.runs < 1) throw new ResponseError(-32602, 'braid/record needs "runs" ≥ 1');
  let options;
  try {
    // the default folder is .braid/traces/<name>-<time>; a custom braid.record.outDir gets the same sub-folder
    const custom = ctx.outDir && path.normalize(ctx.outDir) !== path.normalize('.braid/traces');
    const first = parseRecordArgs(recordArgv(p, undefined), ctx.folder);
    const out = custom ? path.resolve(ctx.folder, ctx.outDir, path.basename(first.outDir)) : undefined;
    options = out ? parseRecordArgs(recordArgv(p, out), ctx.folder) : first;
    // execution ids name the runs in the views and the Tracer: each recording gets its own
    // (<name>-<time>-NNNN), so recording the same program again does not repeat earlier ids
    options = { ...options, name: path.basename(first.outDir) };
  } catch (err) {
    if (err instanceof UsageError) throw new ResponseError(-32602, err.message);
    throw err;
  }
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  const notify = (x: RecordProgressParams) => void connection.sendNotification(RecordProgressNotification, x);
  connection.console.info(`Recording ${p.runs} runs of: ${p.command.join(' ')} → ${options.outDir}`);
  notify({ done: 0, total: p.runs, failed: 0, passed: 0, message: `Starting ${p.command[0]}…` });
  const finished = new Set<string>();
  ctx.recording?.(options.outDir, finished);
  try {
    const summary = await recordRuns(
      options,
      (pr) => {
        for (const t of pr.run.traces) finished.add(path.resolve(t));
        notify({ done: pr.done, total: pr.total, failed: pr.failed, passed: pr.passed, message: `${pr.run.execution}: ${pr.run.outcome}` });
        ctx.afterRun();
      },
      abort.signal,
    );
    ctx.recording?.(options.outDir, undefined);
    ctx.afterRun();
    connection.console.info(`Recorded ${summary.total} runs (${summary.failed} failed, ${summary.passed} passed) in ${(summary.durationMs / 1000).toFixed(1)} s${summary.empty ? `; ${summary.empty} recorded no events (check the include list)` : ''}`);
    if (summary.empty > 0) {
      void connection.window.showWarningMessage(`Braid: ${summary.empty} of ${summary.total} runs recorded no shared-memory events. Set "braid.record.include" to your packages.`);
    }
    return { runs: summary.total, failed: summary.failed, passed: summary.passed, outDir: summary.outDir, cancelled: abort.signal.aborted };
  } catch (err) {
    throw new ResponseError(-32603, `Recording failed: ${(err as Error).message}`);
  } finally {
    ctx.recording?.(options.outDir, undefined);
    sub.dispose();
  }
}
