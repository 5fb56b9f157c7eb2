/**
 * braid/record: runs the Java recorder from the editor (the client sends it
 * only in trusted workspaces), streaming pass/fail counts as
 * braid/recordProgress notifications; $/cancelRequest stops the runs (the
 * finished traces are kept).
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { CancellationToken, Connection, ResponseError } from 'vscode-languageserver';
import { parseRecordArgs, RecordOptions, UsageError } from '../recorder/runs/recordOptions';
import { recordRuns } from '../recorder/runs/recordCommand';
import { withTraceFolder } from '../recorder/runs/recordRuns';
import { droppedRuns } from '../recorder/runs/notReached';
import { writeCodeStamp } from './codeStamp';
import { firstErrors, plainOutput } from './buildOutput';
import { testNotFoundMessage } from './testNotFound';
import { runBuildStep, runStep } from '../recorder/runs/prepareStep';
import { classPathProblem } from '../recorder/java/testCommand';
import { applySurefireSettings, SurefireSettingsError } from '../recorder/java/surefireSettings';
import { EvidenceRounds } from '../recorder/runs/evidenceRounds';
import { adaptiveExposureFor } from '../recorder/runs/adaptiveExposure';
import { neverFailedAdvice, nextText } from '../recorder/runs/neverFailedAdvice';
import { DEFAULT_EVIDENCE_STOP, evidenceLine, EvidenceStopRule } from '../engine/ranking/evidenceStop';
import { RecordParams, RecordProgressNotification, RecordProgressParams, RecordResult } from './protocol';

/** one preparation step (e.g. javac), run to its end (recorder/runs/prepareStep.ts) */
export { runStep };

export interface RecordContext {
  folder: string | undefined;
  outDir: string;
  /** the client says the workspace is trusted (recording runs the user's program) */
  trusted: boolean;
  afterRun(): void;
  /** the traces of a recording in `outDir` finished so far (each run's trace is complete once
   * reported); `undefined` when the recording ended. The analysis skips the unfinished ones. */
  recording?(outDir: string, finished: ReadonlySet<string> | undefined): void;
}

export function recordArgv(p: RecordParams, outDir: string | undefined): string[] {
  // runs "auto": the budget; the rounds stop earlier when the evidence is in
  const argv: string[] = ['--runs', String(p.runs === 'auto' ? (p.maxRuns ?? DEFAULT_EVIDENCE_STOP.maxRuns) : p.runs)];
  if (p.noise !== undefined) argv.push('--noise', String(p.noise));
  if (p.noiseAt !== undefined && p.noiseAt !== 'accesses') argv.push('--noise-at', p.noiseAt);
  if (p.noiseMode === 'pct') argv.push('--noise-mode', 'pct');
  if (p.include?.length) argv.push('--include', ...p.include);
  if (p.timeoutSeconds !== undefined) argv.push('--timeout', String(p.timeoutSeconds));
  if (p.jobs !== undefined) argv.push('--jobs', String(p.jobs));
  if (p.freshJvm === true) argv.push('--fresh-jvm');
  if (p.sharedLibraries === true) argv.push('--shared-libraries');
  if (outDir) argv.push('--out', outDir);
  if (p.name) argv.push('--name', p.name);
  if (p.plan) argv.push('--plan', p.plan);
  argv.push('--', ...p.command);
  return argv;
}

export const RECORD_UNTRUSTED_MESSAGE = 'Braid: recording runs your program, so it needs a trusted workspace. Trust the workspace first.';

export async function recordRunsFromServer(connection: Connection, p: RecordParams, token: CancellationToken, ctx: RecordContext): Promise<RecordResult> {
  if (!ctx.trusted) throw new ResponseError(-32803, RECORD_UNTRUSTED_MESSAGE);
  if (!ctx.folder) throw new ResponseError(-32602, 'Recording needs an open workspace folder.');
  if (!p || !Array.isArray(p.command) || p.command.length === 0 || !p.command.every((x) => typeof x === 'string')) {
    throw new ResponseError(-32602, 'braid/record needs "command": the program and its arguments, e.g. ["java", "-cp", "out", "bank.Bank"]');
  }
  if (p.runs !== 'auto' && (!Number.isInteger(p.runs) || p.runs < 1)) throw new ResponseError(-32602, 'braid/record needs "runs" ≥ 1 or "auto"');
  const auto = p.runs === 'auto';
  if (p.noiseAt !== undefined && p.noiseAt !== 'accesses' && p.noiseAt !== 'sync' && p.noiseAt !== 'all') throw new ResponseError(-32602, 'braid/record: "noiseAt" must be "accesses", "sync" or "all"');
  if (p.noiseMode !== undefined && p.noiseMode !== 'uniform' && p.noiseMode !== 'adaptive' && p.noiseMode !== 'pct') throw new ResponseError(-32602, 'braid/record: "noiseMode" must be "adaptive", "uniform" or "pct"');
  if (p.maxRuns !== undefined && (!Number.isInteger(p.maxRuns) || p.maxRuns < 1)) throw new ResponseError(-32602, 'braid/record: "maxRuns" must be a whole number ≥ 1');
  if (p.maxSeconds !== undefined && (typeof p.maxSeconds !== 'number' || !(p.maxSeconds > 0))) throw new ResponseError(-32602, 'braid/record: "maxSeconds" must be a number of seconds > 0');
  const rule: EvidenceStopRule = { ...DEFAULT_EVIDENCE_STOP, ...(p.maxRuns !== undefined ? { maxRuns: p.maxRuns } : {}), ...(p.maxSeconds !== undefined ? { maxSeconds: p.maxSeconds } : {}) };
  const total = auto ? rule.maxRuns : (p.runs as number);
  const inFolder = (dir: string) => {
    const abs = path.resolve(ctx.folder!, dir);
    if (path.relative(ctx.folder!, abs).startsWith('..')) throw new ResponseError(-32602, `braid/record: "${dir}" is outside the workspace folder ${ctx.folder}`);
    return abs;
  };
  const cwd = p.cwd ? inFolder(p.cwd) : undefined;
  if (p.plan !== undefined && (typeof p.plan !== 'string' || !p.plan)) throw new ResponseError(-32602, 'braid/record: "plan" must be the path of a noise plan file');
  // a noise plan (docs/noise.md) from the workspace: an absolute path for the recorder
  if (p.plan) p = { ...p, plan: inFolder(p.plan) };
  // …and really there: a plan file that is a symbolic link leading out of the folder is not used (plan files follow the traces' rules)
  if (p.plan && !insideReally(ctx.folder, p.plan)) throw new ResponseError(-32602, `braid/record: the noise plan ${p.plan} is a symbolic link to a file outside the workspace folder; not used`);
  const prepare = (p.prepare ?? []).map((s) => {
    if (!s || !Array.isArray(s.command) || !s.command.length || !s.command.every((x) => typeof x === 'string')) {
      throw new ResponseError(-32602, 'braid/record: each "prepare" step needs "command": the program and its arguments');
    }
    const o = s.orElse;
    const orElse =
      o && Array.isArray(o.command) && o.command.length && o.command.every((x) => typeof x === 'string') && typeof o.classPathFile === 'string'
        ? { command: o.command, classPathFile: inFolder(o.classPathFile) }
        : undefined;
    // Maven: surefire's settings to read from the step's effective POM (PrepareStep.surefire, recorder/java/testCommand.ts)
    const sf = (s as { surefire?: { effectivePom?: unknown; module?: unknown } }).surefire;
    const surefire = orElse && sf && typeof sf.effectivePom === 'string' && typeof sf.module === 'string' ? { effectivePom: inFolder(sf.effectivePom), module: inFolder(sf.module) } : undefined;
    // Maven: the full step recorded for a fix check when this one reuses the class path (PrepareStep.rerun)
    const rerun = orElse && Array.isArray(s.rerun) && s.rerun.length && s.rerun.every((x) => typeof x === 'string') ? s.rerun : undefined;
    // Maven: the stamp written after a successful build, and why the build need not run (PrepareStep.stamp, .upToDate; mavenClassPathCache.ts)
    const st = s.stamp as { file?: unknown; build?: unknown } | undefined;
    const stamp = orElse && st && typeof st.file === 'string' && typeof st.build === 'string' ? { file: inFolder(st.file), build: st.build } : undefined;
    const upToDate = stamp && typeof s.upToDate === 'string' ? s.upToDate : undefined;
    return { command: s.command, cwd: inFolder(s.cwd ?? '.'), ...(orElse ? { orElse } : {}), ...(surefire ? { surefire } : {}), ...(rerun ? { rerun } : {}), ...(stamp ? { stamp } : {}), ...(upToDate ? { upToDate } : {}) };
  });
  let options: RecordOptions;
  try {
    // the default folder is .braid/traces/<name>-<time>; a custom braid.record.outDir gets the same sub-folder
    const custom = ctx.outDir && path.normalize(ctx.outDir) !== path.normalize('.braid/traces');
    const first = parseRecordArgs(recordArgv(p, undefined), ctx.folder);
    const out = custom ? path.resolve(ctx.folder, ctx.outDir, path.basename(first.outDir)) : undefined;
    options = out ? parseRecordArgs(recordArgv(p, out), ctx.folder) : first;
    // execution ids name the runs in the views and the Tracer: each recording gets its own
    // (<name>-<time>[-N]-NNNN, withTraceFolder), so recording the same program again does not repeat
    // earlier ids; the sub-folder under a custom braid.record.outDir is made here too (a fresh one)
    options = { ...options, freshOutDir: true, name: path.basename(first.outDir), ...(cwd ? { cwd } : {}), ...(prepare.length ? { prepare: prepare.map((s) => ({ command: s.rerun ?? s.command, cwd: s.cwd })) } : {}) };
  } catch (err) {
    if (err instanceof UsageError) throw new ResponseError(-32602, err.message);
    throw err;
  }
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  const notify = (x: RecordProgressParams) => void connection.sendNotification(RecordProgressNotification, x);
  connection.console.info(`Recording ${auto ? `until the evidence is in (at most ${rule.maxRuns} runs, ${rule.maxSeconds} s)` : `${total} runs`} of: ${p.command.join(' ')} → ${options.outDir}`);
  notify({ done: 0, total, failed: 0, passed: 0, message: `Starting ${p.command[0]}…` });
  for (const step of prepare) {
    if (abort.signal.aborted) break;
    notify({ done: 0, total, failed: 0, passed: 0, message: step.upToDate ? 'Preparing: build skipped (nothing changed)' : `Preparing: ${path.basename(step.command[0])}…` });
    connection.console.info(step.upToDate ? `Preparing: build skipped, ${step.upToDate}` : `Preparing: ${step.command.join(' ')} (in ${step.cwd})`);
    const r = await runBuildStep(step, abort.signal);
    if (step.orElse && !abort.signal.aborted) {
      // Maven: the test class path resolved once, or each run through the build tool (recorder/java/testCommand.ts)
      const problem = r.code !== 0 ? `exit ${r.code}: ${firstErrors(r.output, 5) || r.error || ''}` : classPathProblem(step.orElse.classPathFile);
      let why = problem && `Could not resolve the test class path once (${problem})`;
      if (!why && step.surefire) {
        // surefire's argLine, system properties, environment and working directory, from Maven's effective POM
        try {
          const { run, settings } = applySurefireSettings({ command: options.command, cwd: options.cwd, env: options.env }, step.surefire);
          options = { ...options, command: run.command, cwd: run.cwd, ...(run.env ? { env: run.env } : {}) };
          if (settings.applied.length) connection.console.info(`Surefire's configuration applied to the runs: ${settings.applied.join('; ')}`);
          for (const n of settings.notes) connection.console.warn(`Note: ${n}`);
        } catch (e) {
          if (!(e instanceof SurefireSettingsError)) throw e;
          why = `Could not read surefire's configuration (${e.message})`;
        }
      }
      if (why) {
        connection.console.warn(`${why}; each run starts ${step.orElse.command[0]} instead`);
        const kept: { command: string[]; cwd: string }[] = (options.prepare ?? []).filter((s: { command: string[] }) => s.command !== (step.rerun ?? step.command));
        options = { ...options, command: step.orElse.command, prepare: kept.length ? kept : undefined };
      }
      continue;
    }
    if (r.code !== 0 && !abort.signal.aborted) {
      sub.dispose();
      // the compiler's first errors, without colour codes (buildOutput.ts)
      const tail = firstErrors(r.output);
      connection.console.error(`Preparing failed (exit ${r.code}): ${step.command.join(' ')}\n${plainOutput(r.output)}`);
      throw new ResponseError(-32603, `Preparing the test failed (${path.basename(step.command[0])} exit ${r.code}): ${tail || r.error || 'no output'}`);
    }
  }
  if (abort.signal.aborted) {
    sub.dispose();
    return { runs: 0, failed: 0, passed: 0, outDir: options.outDir, cancelled: true };
  }
  // the code this recording runs (codeStamp.ts): once a file its accesses point to changes, it is a recording of older code
  try {
    options = await withTraceFolder(options);
  } catch (err) {
    sub.dispose();
    throw new ResponseError(-32603, `Recording failed: ${(err as Error).message}`);
  }
  const stampProblem = await writeCodeStamp(ctx.folder, options.outDir);
  if (stampProblem) connection.console.warn(`Braid: ${stampProblem}; this recording will count as one of the current code`);
  // notes on the options (an include the agent never records, --noise ignored with a plan…), as braid record prints them
  for (const n of options.notes ?? []) connection.console.warn(`Braid: ${n}`);
  const finished = new Set<string>();
  ctx.recording?.(options.outDir, finished);
  // runs "auto": analyzed after each round of 10, stopped when the evidence is in (recorder/runs/evidenceRounds.ts)
  let evidence: string | undefined;
  let last = { done: 0, failed: 0, passed: 0 };
  // noise mode adaptive (default): the noise widens while runs do not fail (recorder/runs/adaptiveExposure.ts);
  // with a fixed number of runs too, deciding when a level's 20th run finishes (a run count asked
  // for wants failing runs; a recording of 20 runs or fewer never gets to a step)
  const exposure = adaptiveExposureFor(
    options,
    p.noiseMode,
    auto
      ? undefined
      : (_step, text) => {
          connection.console.info(`Braid: ${text}`);
          notify({ done: last.done, total, failed: last.failed, passed: last.passed, message: text, exposure: text });
        },
  );
  const rounds = auto
    ? new EvidenceRounds(
        rule,
        (history, done, steps) => {
          evidence = evidenceLine(history, rule);
          connection.console.info(`${done} runs: ${evidence}`);
          // adaptive exposure's steps since the last round (taken when a level's 20th run finished); the notification says the last
          const lines = exposure ? steps.map((s) => exposure.stepLine(s)) : [];
          for (const l of lines) connection.console.info(`Braid: ${l}`);
          const widened = lines.length ? lines[lines.length - 1] : undefined;
          notify({ done, total, failed: last.failed, passed: last.passed, message: widened ?? evidence, evidence, ...(widened ? { exposure: widened } : {}) });
        },
        exposure,
      )
    : undefined;
  try {
    const summary = await recordRuns(
      options,
      (pr) => {
        for (const t of pr.run.traces) finished.add(path.resolve(t));
        if (rounds) rounds.runFinished(pr);
        else exposure?.runFinished(pr);
        last = { done: pr.done, failed: pr.failed, passed: pr.passed };
        notify({ done: pr.done, total: pr.total, failed: pr.failed, passed: pr.passed, message: `${pr.run.execution}: ${pr.run.outcome}`, ...(evidence ? { evidence } : {}) });
        ctx.afterRun();
      },
      abort.signal,
      rounds ?? exposure,
    );
    ctx.recording?.(options.outDir, undefined);
    ctx.afterRun();
    const nr = summary.notReached;
    if (nr?.stopped && summary.total === 0 && nr.testDidNotRun) {
      // the test did not run (testDidNotRun.ts): the launcher's reason names the selector; not a failing run
      connection.console.error(`The test did not run: ${nr.reason}. Output of the run:\n${plainOutput(nr.output)}`);
      // a test that does not exist: the test framework's own words, short (testNotFound.ts), as for a run that never reached the program
      const notFound = testNotFoundMessage(`${nr.reason}\n${nr.output}`);
      if (notFound) throw new ResponseError(-32603, `The test was not found: ${notFound}. Nothing was recorded.`, { notReached: true, testDidNotRun: true, testNotFound: true });
      throw new ResponseError(-32603, `The test did not run: ${nr.reason}. Nothing was recorded (no failing run).`, { notReached: true, testDidNotRun: true });
    }
    if (nr?.stopped && summary.total === 0) {
      // the program never ran: an error with its output, not an empty result (notReached.ts)
      connection.console.error(`The command never reached the program: ${nr.reason}. Output of the run:\n${plainOutput(nr.output)}`);
      // a test that does not exist: the test framework's own words (testNotFound.ts)
      const notFound = testNotFoundMessage(nr.output);
      if (notFound) throw new ResponseError(-32603, `The test was not found: ${notFound}. Nothing was recorded.`, { notReached: true, testNotFound: true });
      const tail = plainOutput(nr.output).trim().split('\n').slice(0, 6).join('\n');
      throw new ResponseError(-32603, `The command never reached the program: ${nr.reason} — ${nr.hint}. Nothing was recorded.${tail ? `\n${tail}` : ''}`, { notReached: true });
    }
    if (nr) connection.console.warn(`${nr.runs} run(s) ${nr.testDidNotRun ? 'in which the test did not run' : 'never reached the program'} (${nr.reason}): ${droppedRuns(nr.executions)}; not counted, their traces not kept`);
    connection.console.info(`Recorded ${summary.total} runs (${summary.failed} failed, ${summary.passed} passed) in ${(summary.durationMs / 1000).toFixed(1)} s${summary.empty ? `; ${summary.empty} recorded no events (check the include list)` : ''}`);
    if (summary.empty > 0) {
      void connection.window.showWarningMessage(`Braid: ${summary.empty} of ${summary.total} runs recorded no shared-memory events. Set "braid.record.include" to your packages.`);
    }
    let stop: Pick<RecordResult, 'stopped' | 'leadPValue'> = {};
    if (rounds && !abort.signal.aborted && summary.total > 0) {
      const end = await rounds.finish(summary.durationMs / 1000);
      const lead = rounds.history[rounds.history.length - 1]?.lead;
      stop = { stopped: end.reason, leadPValue: lead?.pValue ?? null };
      connection.console.info(`Stopped: ${end.reason} — ${evidenceLine(rounds.history, rule)}`);
    }
    // no run failed: what was tried (adaptive exposure's levels, or the one noise) and what to try next
    const advice =
      summary.total > 0 && summary.failed === 0 && !abort.signal.aborted
        ? neverFailedAdvice({ runs: summary.total, recorder: options.recorder ?? 'java', noise: options.noise, noiseAt: options.noiseAt, pct: !!options.pct, plan: !!options.plan, exposure, where: 'editor' })
        : undefined;
    const tried = advice ? { tried: advice.tried, ...(advice.next.length ? { next: nextText(advice.next) } : {}) } : {};
    return { runs: summary.total, failed: summary.failed, passed: summary.passed, outDir: summary.outDir, cancelled: abort.signal.aborted, ...stop, ...tried };
  } catch (err) {
    if (err instanceof ResponseError) throw err;
    throw new ResponseError(-32603, `Recording failed: ${(err as Error).message}`);
  } finally {
    ctx.recording?.(options.outDir, undefined);
    sub.dispose();
  }
}

/** True when `file` (links followed) is inside `folder` (links followed); a missing file counts as inside (the recorder says it is missing). */
function insideReally(folder: string, file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    return (err as { code?: string }).code === 'ENOENT' && !isBrokenLink(file);
  }
  let root: string;
  try {
    root = realpathSync(folder);
  } catch {
    root = path.resolve(folder);
  }
  const rel = path.relative(root, real);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function isBrokenLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
