/**
 * braid/confirm (issue 28, docs/confirm.md): the editor's Confirm and Check the Fix. Forces a ranked
 * pattern's interleaving with the recording's command (recording.json next to the traces), or the
 * command given; checkFix first reruns the recording's preparation steps (the compile step of the
 * test lens), then forces the pattern on the new build and records it again with the recording's
 * noise. It runs the user's program, so it needs a trusted workspace; the command and its folder
 * must be inside the workspace folder. Progress goes to the work-done token; $/cancelRequest stops it.
 * When a group had no finished run, or no forced run reached the pattern's accesses, the answer is
 * `couldNotCheck` (why, what to do) and no verdict is kept on the pattern (issue 39).
 */
import { withCheckOfUse } from '../engine/confirm/checkOfUse';
import { withFailingRunFacts } from '../engine/confirm/failingRunFacts';
import path from 'node:path';
import { firstErrors } from './buildOutput';
import { CancellationToken, Connection, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { AnalysisResult } from '../engine/analysis';
import { ConfirmOptions, confirmPattern, ConfirmProgress, patternConfirmation } from '../recorder/runs/confirmRuns';
import { confirmWithCalls, patternToForce } from '../recorder/runs/confirmPerCall';
import { forceCauseWithin } from '../recorder/runs/confirmWithin';
import { checkFix, recordingNoiseOf } from '../recorder/runs/fixCheck';
import { launchOf, manifestFailOnOutput, RecordingManifest } from '../recorder/runs/recordingManifest';
import { isInsideFolder, manifestOfTraces } from '../recorder/runs/manifestUse';
import { sanitizeName, deriveName } from '../recorder/runs/recordOptions';
import { fileUri } from './analysisState';
import type { SavedFixCheck } from './fixVerdicts';
import type { ConfirmCommandParams, ConfirmCommandResult, ConfirmParams, ConfirmResultDto, PatternConfirmationDto, PatternDto } from './protocol';
import { runStep } from './record';

export interface ConfirmContext {
  folder: string | undefined;
  trusted: boolean;
  /** trace files of the last analysis */
  traces: string[];
  /** the trace files of the runs with a pattern, failing first: their folder's recording.json is the one used */
  tracesOf?(key: string): string[];
  pattern(key: string): PatternDto | undefined;
  /** the analysis' ranked patterns (a check of a pattern's use, checkOfUse.ts) */
  patterns?(): readonly PatternDto[];
  /** runs of the analysis (the failure rate before a fix) */
  executions: { total: number; failed: number };
  /** the traces ranked with locations per call, for a pattern on a line of several library calls (confirmPerCall.perCallRankingOf) */
  perCallRanking?: () => Promise<AnalysisResult | undefined>;
  /** a verdict is in: keep it and refresh the views */
  verdict(key: string, c: PatternConfirmationDto): Promise<void>;
  /**
   * Check the Fix gave a verdict on the pattern `key`: keep it for its bug (shown as fixed, with its rates),
   * with the runs behind it, beside the recording it judged (`recording`: the folder whose manifest ran; fixVerdicts.ts)
   */
  fixChecked?(key: string, check: SavedFixCheck, recording: string | undefined): Promise<void>;
}

export const CONFIRM_UNTRUSTED_MESSAGE = 'Braid: confirming a pattern runs your program, so it needs a trusted workspace. Trust the workspace first.';

const bad = (message: string) => new ResponseError(-32602, message);

/**
 * The recording manifest of the traces being confirmed (manifestOfTraces): that of the folder holding
 * most runs with the pattern, else most of the analysis' traces; never the greatest `startedAt`.
 */
export async function confirmManifest(ctx: Pick<ConfirmContext, 'traces' | 'tracesOf'>, key: string | undefined): Promise<{ manifest?: RecordingManifest; file?: string; problem?: string }> {
  const runs = key !== undefined ? ctx.tracesOf?.(key) : undefined;
  return manifestOfTraces(runs?.length ? runs : ctx.traces);
}

/**
 * braid/confirmCommand: the command (and folder, preparation steps) braid/confirm would run for the
 * pattern `key`, and every other field it takes from the manifest, for the editor to show first.
 */
export async function confirmCommandFromServer(ctx: Pick<ConfirmContext, 'traces' | 'folder' | 'tracesOf'>, p?: ConfirmCommandParams): Promise<ConfirmCommandResult> {
  const { manifest: m, file, problem } = await confirmManifest(ctx, typeof p?.key === 'string' ? p.key : undefined);
  if (!m) return { prepare: [], ...(problem ? { problem } : {}) };
  return {
    command: m.command,
    cwd: m.cwd,
    prepare: m.prepare ?? [],
    include: m.include,
    exclude: m.exclude,
    timeoutSeconds: m.timeoutSeconds,
    ...(m.failOnOutput !== undefined ? { failOnOutput: m.failOnOutput } : {}),
    name: m.name,
    noise: m.noise,
    ...(file ? { manifest: file } : {}),
  };
}

export async function confirmFromServer(connection: Connection, p: ConfirmParams, token: CancellationToken, ctx: ConfirmContext): Promise<ConfirmResultDto> {
  if (!ctx.trusted) throw new ResponseError(LSPErrorCodes.RequestFailed, CONFIRM_UNTRUSTED_MESSAGE);
  const folder = ctx.folder;
  if (!folder) throw bad('Confirming a pattern needs an open workspace folder.');
  if (!p || typeof p.key !== 'string') throw bad('braid/confirm needs "key": the pattern key (PatternDto.key)');
  const mode = p.mode ?? 'confirm';
  if (mode !== 'confirm' && mode !== 'checkFix') throw bad(`braid/confirm: "mode" must be "confirm" or "checkFix", got ${JSON.stringify(p.mode)}`);
  const runs = p.runs ?? 20;
  if (!Number.isInteger(runs) || runs < 2 || runs > 1000) throw bad(`braid/confirm: "runs" must be an integer from 2 to 1000, got ${JSON.stringify(p.runs)}`);
  const picked = ctx.pattern(p.key);
  if (!picked) throw bad('braid/confirm: no pattern with this key in the current analysis (the traces changed?); pick it again in Ranked Patterns');
  // an order pattern whose read is a use guarded by a check the traces show: forced with the check (checkOfUse.ts)
  // a first hold inside a lock the other access needs: not forced rather than refuted (lockedHold.ts)
  const traceFiles = ctx.tracesOf?.(p.key) ?? ctx.traces;
  // the threads of the failing runs' instance: not main's setup instance before it (threadRoles.ts)
  const pattern = await withFailingRunFacts(withCheckOfUse(picked, ctx.patterns?.() ?? []), traceFiles);
  if (p.command !== undefined && (!Array.isArray(p.command) || !p.command.length || !p.command.every((x) => typeof x === 'string' && x.length > 0))) {
    throw bad('braid/confirm: "command" must be the program and its arguments, e.g. ["java", "-cp", "out", "bank.Bank"]');
  }
  const inside = (dir: string) => !path.relative(folder, dir).startsWith('..') && !path.isAbsolute(path.relative(folder, dir));
  const chosen = await confirmManifest(ctx, p.key);
  // a manifest with a bad field is not used; without a command of the user's there is nothing to run
  if (chosen.problem && !p.command) throw new ResponseError(LSPErrorCodes.RequestFailed, `Braid: ${chosen.problem}. Record the runs again, or run \`braid confirm <traces> -- <command>\` in a terminal.`);
  const manifest = chosen.manifest;
  const command = p.command ?? manifest?.command;
  if (!command) {
    throw new ResponseError(
      LSPErrorCodes.RequestFailed,
      'Braid: the traces do not say how to run the program (no recording.json: they were recorded before Braid kept it, or copied). Record them again with Braid (Record Runs or the test code lens), or run `braid confirm <traces> -- <command>` in a terminal.',
    );
  }
  const cwd = p.command ? folder : (manifest?.cwd ?? folder);
  // links followed: a folder of the workspace that links out of it is outside (manifestUse.isInsideFolder)
  if (!inside(cwd) || !(await isInsideFolder(folder, cwd))) throw bad(`braid/confirm: the recording ran in ${cwd}, outside the workspace folder ${folder}; give "command" to run it here`);
  const prepare = (mode === 'checkFix' ? (p.prepare ?? manifest?.prepare ?? []) : []).map((s) => {
    if (!s || !Array.isArray(s.command) || !s.command.length || !s.command.every((x) => typeof x === 'string')) throw bad('braid/confirm: each "prepare" step needs "command"');
    const dir = path.resolve(folder, s.cwd ?? '.');
    if (!inside(dir)) throw bad(`braid/confirm: the preparation step's folder ${dir} is outside the workspace folder ${folder}`);
    return { command: s.command, cwd: dir };
  });
  const o: ConfirmOptions = {
    command,
    cwd,
    include: manifest?.include ?? [],
    exclude: manifest?.exclude ?? [],
    runs,
    noise: 0,
    timeoutSeconds: manifest?.timeoutSeconds ?? 60,
    jobs: 2,
    seed: Date.now() % 1_000_000_000,
    name: sanitizeName(manifest?.name || deriveName(command)),
    outRoot: path.join(folder, '.braid', 'confirm'),
    ...(manifest?.failOnOutput ? { failOnOutput: manifestFailOnOutput(manifest)! } : {}),
    ...launchOf(manifest),
  };
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  const progress = connection.window.attachWorkDoneProgress(p.workDoneToken);
  const title = mode === 'checkFix' ? 'Braid: checking the fix' : `Braid: confirming ${pattern.id} ${pattern.kind}`;
  progress.begin(title, 0, `Starting ${path.basename(command[0])}…`, true);
  const total = mode === 'checkFix' ? 2 * runs : 3 * runs;
  // runs done per group: the groups take turns (two looks, confirmRuns.ts), each counts on
  const done = new Map<string, number>();
  const onProgress = (pr: ConfirmProgress | { group: 'after'; done: number; total: number; failed: number }) => {
    done.set(pr.group, pr.done);
    const sum = [...done.values()].reduce((a, b) => a + b, 0);
    const words = { forced: 'forced', opposite: 'opposite order', control: 'unforced', 'same delay': 'the same delay', after: 'with noise' }[pr.group];
    progress.report(Math.min(99, Math.round((sum / total) * 100)), `${words}: ${pr.done}/${pr.total} runs, ${pr.failed} failed${'forcedOk' in pr && pr.forcedOk !== undefined ? `, forced in ${pr.forcedOk}` : ''}`);
  };
  const started = Date.now();
  const perCallRanking = ctx.perCallRanking;
  try {
    for (const step of prepare) {
      if (abort.signal.aborted) break;
      progress.report(0, `Preparing: ${path.basename(step.command[0])}…`);
      const r = await runStep(step.command, step.cwd, abort.signal);
      if (r.code !== 0 && !abort.signal.aborted) {
        // the compiler's first errors, without colour codes (buildOutput.ts)
        const tail = firstErrors(r.output);
        throw new ResponseError(LSPErrorCodes.RequestFailed, `Building the fixed program failed (${path.basename(step.command[0])} exit ${r.code}): ${tail || r.error || 'no output'}`);
      }
    }
    connection.console.info(`${title}: ${command.join(' ')} (${runs} runs per group)`);
    if (mode === 'checkFix') {
      // on a line of several library calls: the refinement per call that confirmed it (or the best one)
      const forced = await patternToForce(pattern, perCallRanking, pattern.confirmation?.forcedKey);
      if (forced.calls) connection.console.info(`${title}: forcing at the calls ${forced.calls}`);
      const f = await checkFix(forced.pattern, { runs: ctx.executions.total, failed: ctx.executions.failed }, { ...o, ...recordingNoiseOf(manifest) }, onProgress, abort.signal);
      connection.console.info(`${title}: ${f.verdict} — ${f.reason}`);
      const after = { runs: f.after?.runs ?? 0, failed: f.after?.failed ?? 0 };
      const fix = { verdict: f.verdict, reason: f.reason, before: f.before, after, pValue: f.pValue };
      const common = { key: p.key, mode, fix, command, runs: f.forced.runs + after.runs, seconds: (Date.now() - started) / 1000 };
      if (f.couldNotCheck) return { ...common, couldNotCheck: f.couldNotCheck };
      if (!abort.signal.aborted && (f.verdict === 'fixed' || f.verdict === 'not fixed') && f.after) {
        const check: SavedFixCheck = {
          verdict: f.verdict,
          before: { runs: f.before.runs, failed: f.before.failed },
          after,
          forced: { runs: f.forced.runs, failed: f.forced.failed, forcedOk: f.forced.forcedOk },
          pValue: f.pValue,
          reason: f.reason,
          command,
          runsFolder: path.relative(folder, f.after.folder).split(path.sep).join('/'),
          at: new Date().toISOString(),
        };
        await ctx.fixChecked?.(p.key, check, chosen.file ? path.dirname(chosen.file) : undefined);
      }
      const confirmation: PatternConfirmationDto = { verdict: f.forced.failed > 0 ? 'confirmed' : 'refuted', reason: f.forced.reason, pValue: 1, forced: { runs: f.forced.runs, failed: f.forced.failed, forcedOk: f.forced.forcedOk }, at: new Date().toISOString() };
      return { ...common, confirmation };
    }
    let groups = 0;
    const c = await confirmWithCalls(
      pattern,
      (q, offset) => {
        // each refinement forced per call is three more groups: the bar starts again
        if (groups++ > 0) {
          done.clear();
          progress.report(0, `Forcing per library call (${groups - 1})…`);
        }
        return confirmPattern(q, { ...o, seed: o.seed + offset }, onProgress, abort.signal);
      },
      perCallRanking,
      { signal: abort.signal },
    );
    connection.console.info(`${title}: ${c.verdict} — ${c.reason} (${c.runsSpent} runs, ${c.seconds.toFixed(1)} s; ${c.folder})`);
    // no verdict without runs: nothing is kept on the pattern, the editor says why and what to do
    if (c.couldNotCheck) return { key: p.key, mode, couldNotCheck: c.couldNotCheck, command, runs: c.runsSpent, seconds: c.seconds };
    // a confirmed combination over two variables: the smaller listed pattern within it, forced alone
    // (causeWithin.ts, as braid confirm does); its verdict is kept on it, and the superset rule lists a
    // confirmed one first
    let within = '';
    const withinRun = await forceCauseWithin(ctx.patterns?.() ?? [], pattern, c, {
      traceFiles: (q) => ctx.tracesOf?.(q.key) ?? ctx.traces,
      forceOne: (x, offset) => confirmPattern(x, { ...o, seed: o.seed + offset }, onProgress, abort.signal),
      perCallRanking,
      signal: abort.signal,
      onStart: (q) => {
        done.clear();
        progress.report(0, `Forcing ${q.id} ${q.kind} within it alone…`);
      },
    });
    const withinRuns = withinRun?.runsSpent ?? 0;
    if (withinRun) {
      // every part forced keeps its verdict; the reason names the confirmed one, or else says none was
      for (const { pattern: q, confirmation: w } of withinRun.tried) {
        connection.console.info(`${title}: within it, ${q.id} ${q.kind}: ${w.verdict} — ${w.reason}`);
        if (!w.couldNotCheck && !w.interrupted) await ctx.verdict(q.key, { ...patternConfirmation(w), ...(w.perCall ? { forcedKey: w.perCall.key } : {}), at: new Date().toISOString() });
      }
      const { pattern: q, confirmation: w } = withinRun;
      const parts = withinRun.tried.map((t) => `${t.pattern.id} ${t.pattern.kind}`).join(' and ');
      if (!w.couldNotCheck && !w.interrupted) {
        within =
          w.verdict === 'confirmed'
            ? `; within it, ${q.id} ${q.kind} forced alone is confirmed too (forced ${w.forced.failed}/${w.forced.runs} failed): its order is the cause, the other accesses are incidental`
            : `; within it, ${parts} forced alone ${withinRun.tried.length > 1 ? 'are' : 'is'} not confirmed (${w.verdict}): the order of the whole pattern is what was confirmed`;
      }
    }
    const confirmation: PatternConfirmationDto = { ...patternConfirmation(c), reason: c.reason + within, ...(c.perCall ? { forcedKey: c.perCall.key } : {}), at: new Date().toISOString() };
    if (!c.interrupted) await ctx.verdict(p.key, confirmation);
    return {
      key: p.key,
      mode,
      confirmation,
      ...(c.failingRun ? { failingRun: { execution: c.failingRun.execution, uri: fileUri(path.resolve(c.failingRun.trace)) } } : {}),
      planUri: fileUri(c.plan),
      command,
      runs: c.runsSpent + withinRuns,
      seconds: (Date.now() - started) / 1000,
    };
  } catch (err) {
    if (err instanceof ResponseError) throw err;
    throw new ResponseError(LSPErrorCodes.RequestFailed, `${mode === 'checkFix' ? 'Checking the fix' : 'Confirming the pattern'} failed: ${(err as Error).message}`);
  } finally {
    progress.done();
    sub.dispose();
  }
}
