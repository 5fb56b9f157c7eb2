/**
 * One recorded run: starts the command with the agent in JAVA_TOOL_OPTIONS, enforces the time
 * limit, captures the output, decides the outcome and completes the trace file(s).
 */
import { createWriteStream, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnGroup, stopGroup } from './processTree';
import { finalizeTrace, findOutputMatch, HeaderInfo, readRunReports, TraceOutcome, TraceWriteError } from './traceFinalizer';
import { DEFAULT_PCT_STEPS, pctAgentOptions, PctOptions, PctReport } from './pctNoise';
import { uncaughtDetail } from './uncaughtOutcome';
import { ForcingReport } from '../../engine/trace/traceFormat';
import { finalTracePath, inProgressPath, inProgressTraceFiles } from './inProgressTraces';
import { keepsNoTrace, NoiseAt, RecordOptions } from './recordOptions';
import { countDroppedEvents } from './droppedEvents';
import { JvmNoticeFilter } from '../java/jvmNoticeFilter';
import { AgentWriteFailureWatch, RecordWriteError, writeFailure } from './writeFailure';
import { parseFailureOutput } from '../../engine/runFailure';
import { parseJsFailureOutput } from '../../engine/jsFailureOutput';
import { movePreloadsToNodeOptions, nodeOptionsWithHook, nodeRecorderOptions } from '../node/nodeRunner';
import { mergeRunWorkerTraces, removeRunFiles } from './runFiles';

export interface RunSpec {
  index: number;
  execution: string;
  seed: string;
  tracePath: string;
  logPath: string;
  /** this run's uniform noise when it differs from the recording's (adaptive exposure, adaptiveExposure.ts) */
  noise?: number;
  noiseAt?: NoiseAt;
  /** this run is scheduled by PCT though the recording started with noise (adaptive exposure's last level; `noise` is 0) */
  pct?: PctOptions;
  /** --noise-mode pct or a PCT level: the run length the agent assumes (pctNoise.ts PctRunLength) */
  pctSteps?: number;
}

export interface RunResult extends TraceOutcome {
  index: number;
  execution: string;
  seed: string;
  /** trace files of this run (more than one when several JVMs of the run recorded events) */
  traces: string[];
  logPath: string;
  durationMs: number;
  exitCode: number | null;
  signal: string | null;
  /** true when the run was stopped by an abort (Ctrl-C); its traces are deleted */
  aborted: boolean;
  /** true when no JVM of the run recorded any event */
  empty: boolean;
  /**
   * what the run's forcing plan achieved (the agent's `forcing` trace line, docs/noise.md "Forcing
   * plans"; several JVMs' lines merged), when the plan had a force section and the run recorded
   */
  forcing?: ForcingReport;
  /** --noise-mode pct: the agent's report of the run's schedule (its JVMs' `pct` lines summed) */
  pct?: PctReport;
  /**
   * repetitions in one JVM (repeatedRuns.ts): why the project's classes could not be loaded afresh
   * for each repetition, so that this run was recorded again in a JVM of its own, and so are the next
   */
  fallback?: string;
  /**
   * repetitions in one JVM: why the library jars under test could not be loaded afresh for each
   * repetition, so that this run was recorded again with them shared (the project's folders still
   * fresh), and so are the next
   */
  librariesShared?: string;
  /**
   * the test did not run (java/testDidNotRun.ts): why, naming the selector — no test matched it, its
   * discovery failed, it was skipped. Not a failing run: no trace is kept, recordRuns leaves it out
   */
  notRun?: string;
}

const MAX_OUTPUT_CHARS = 1 << 20;

/** The command could not be started (not found, not executable): no run happened. */
export class CommandStartError extends Error {}

/**
 * Quotes one JAVA_TOOL_OPTIONS word the way HotSpot splits that variable: whitespace separates
 * words, and inside a word '…' or "…" quote everything up to the same quote (no backslash escapes).
 * So a `"` is written as '"', a `'` as "'", and other runs that need it in double quotes.
 */
export function quoteToolOption(word: string): string {
  if (/^[^\s"']+$/.test(word)) return word;
  return word
    .split(/(["'])/)
    .filter((p) => p.length > 0)
    .map((p) => (p === '"' ? `'"'` : p === "'" ? `"'"` : /[\s]/.test(p) ? `"${p}"` : p))
    .join('');
}

/** The agent's options, one `key=value` per line (the agent reads them from a file, see agentArgument). */
export function agentOptionLines(spec: RunSpec, o: RecordOptions): string[] {
  const opts = [
    // the agent writes `<trace>.part` (never analyzed), renamed once the outcome is appended (docs/recorder.md)
    `out=${inProgressPath(spec.tracePath)}`,
    `execution=${spec.execution}`,
    `noise=${o.plan || o.pct || spec.pct ? 0 : (spec.noise ?? o.noise)}`,
    `seed=${spec.seed}`,
  ];
  // schedule-based noise (docs/noise.md "PCT"): the agent's scheduler instead of uniform noise, for
  // the recording (--noise-mode pct) or from adaptive exposure's PCT level on (the run's own)
  const pct = o.plan ? undefined : (o.pct ?? spec.pct);
  if (pct) opts.push(...pctAgentOptions(pct, spec.pctSteps ?? pct.steps ?? DEFAULT_PCT_STEPS));
  // where uniform noise goes (docs/noise.md); the agent's default is accesses
  const noiseAt = spec.noiseAt ?? o.noiseAt;
  if (noiseAt && noiseAt !== 'accesses' && !o.plan && !spec.pct) opts.push(`noiseAt=${noiseAt}`);
  // noise plan (docs/noise.md): noise only at its points
  if (o.plan) opts.push(`plan=${o.plan.file}`);
  // catalogue of instrumented points, appended by every JVM of the run
  if (o.pointsFile) opts.push(`points=${o.pointsFile}`);
  // noise and outcome only: the agent writes the file only for an uncaught exception, deleted below
  if (o.record === false) opts.push('record=false');
  if (o.include.length) opts.push(`include=${o.include.join(';')}`);
  if (o.exclude.length) opts.push(`exclude=${o.exclude.join(';')}`);
  for (const extra of o.agentOptions ?? []) {
    if (/^gzip(=|$)/.test(extra) && !/^gzip=false$/.test(extra)) throw new Error('agent option gzip is for the agent used directly (java -javaagent:…=out=run.trace.jsonl,gzip); braid record writes plain .trace.jsonl files');
    opts.push(extra);
  }
  for (const v of opts) {
    if (/[\r\n\0]/.test(v)) throw new Error(`agent option ${JSON.stringify(v)} must not contain a line break or NUL (check the output folder, --include and --agent-option)`);
  }
  return opts;
}

/**
 * The -javaagent word for JAVA_TOOL_OPTIONS. The options (trace path, include list…, which may
 * hold any character) go through an options file, `-javaagent:<jar>=@<file>`; the jar and file
 * paths are quoted for HotSpot's splitting (quoteToolOption).
 */
export function agentArgument(jar: string, optionsFile: string): string {
  if (/[\0\r\n=]/.test(jar)) throw new Error(`the agent jar path ${JSON.stringify(jar)} must not contain '=' or a line break (the JVM splits -javaagent at the first '='); move braid-agent.jar or set BRAID_AGENT_JAR`);
  if (/[\0\r\n]/.test(optionsFile)) throw new Error(`the temporary folder ${JSON.stringify(os.tmpdir())} must not contain a line break`);
  return quoteToolOption(`-javaagent:${jar}=@${optionsFile}`);
}

/**
 * Records one run. A file of the run that cannot be written (a full disk, a quota, an I/O error, a
 * read-only file system: the agent's trace, the log, the outcome line) throws a RecordWriteError
 * naming it, after deleting the run's traces and log (docs/recorder.md, "Robustness").
 */
export async function runOnce(spec: RunSpec, o: RecordOptions, jar: string, signal?: AbortSignal): Promise<RunResult> {
  try {
    return await runOnceFiles(spec, o, jar, signal);
  } catch (e) {
    const failure = e instanceof RecordWriteError ? e : e instanceof TraceWriteError ? writeFailure(e.file, e.cause) : writeFailure(String((e as NodeJS.ErrnoException)?.path ?? spec.tracePath), e);
    if (!failure) throw e;
    // nothing of the unfinished run stays: no `.part`, no trace without its outcome, no log of a run that is not listed
    await removeRunFiles(spec.tracePath).catch(() => {});
    await fs.rm(spec.logPath, { force: true }).catch(() => {});
    throw failure;
  }
}

/** --noise-mode pct (or a PCT level) for the Node.js recorder: the depth and the run length assumed, as the agent's options say them */
function nodePct(o: RecordOptions, spec: RunSpec): { depth: number; steps: number } | undefined {
  const pct = o.plan ? undefined : (o.pct ?? spec.pct);
  return pct ? { depth: pct.depth, steps: Math.max(1, Math.round(spec.pctSteps ?? pct.steps ?? DEFAULT_PCT_STEPS)) } : undefined;
}

async function runOnceFiles(spec: RunSpec, o: RecordOptions, jar: string, signal?: AbortSignal): Promise<RunResult> {
  await removeRunFiles(spec.tracePath);
  const started = Date.now();
  if (o.recorder === 'node') {
    // the Node.js recorder (docs/recorder-node.md): `jar` is its hook, its options a JSON file
    const nodeOptions = path.join(os.tmpdir(), `braid-${process.pid}-${randomBytes(6).toString('hex')}.node-options.json`);
    const options = nodeRecorderOptions(jar, { out: inProgressPath(spec.tracePath), execution: spec.execution, seed: spec.seed }, { ...o, noise: o.plan || o.pct || spec.pct ? 0 : (spec.noise ?? o.noise), noiseAt: spec.noiseAt ?? o.noiseAt, pct: nodePct(o, spec) });
    await fs.writeFile(nodeOptions, JSON.stringify(options), 'utf8');
    try {
      // a TS loader on node's command line goes before the hook, so that the hook sees its output
      const moved = movePreloadsToNodeOptions(o.command);
      const inherited = [process.env.NODE_OPTIONS, ...moved.preload].filter(Boolean).join(' ') || undefined;
      return await runWithAgent(spec, { ...o, command: moved.command }, jar, signal, started, { NODE_OPTIONS: nodeOptionsWithHook(jar, inherited), BRAID_NODE_OPTIONS: nodeOptions });
    } finally {
      await fs.rm(nodeOptions, { force: true });
    }
  }
  const inherited = process.env.JAVA_TOOL_OPTIONS;
  const optionsFile = path.join(os.tmpdir(), `braid-${process.pid}-${randomBytes(6).toString('hex')}.agent-options`);
  await fs.writeFile(optionsFile, agentOptionLines(spec, o).join('\n') + '\n', 'utf8');
  try {
    return await runWithAgent(spec, o, jar, signal, started, { JAVA_TOOL_OPTIONS: [inherited, agentArgument(jar, optionsFile)].filter(Boolean).join(' ') });
  } finally {
    await fs.rm(optionsFile, { force: true });
  }
}

async function runWithAgent(spec: RunSpec, o: RecordOptions, jar: string, signal: AbortSignal | undefined, started: number, recorderEnv: Record<string, string>): Promise<RunResult> {
  const startedAt = new Date(started).toISOString();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...o.env,
    ...recorderEnv,
    BRAID_EXECUTION: spec.execution,
    // the agent's watchdog stops the JVM when this process dies (SIGKILL, crash)
    BRAID_RECORDER_PID: String(process.pid),
  };
  // a recorded `node --test` is a run of its own, not a child of a test runner that started Braid
  // (node:test's children report to their parent instead of printing TAP and exiting 1 on failure)
  if (o.recorder === 'node' && o.env?.NODE_TEST_CONTEXT === undefined) delete env.NODE_TEST_CONTEXT;
  const log = createWriteStream(spec.logPath);
  let logError: Error | undefined;
  log.on('error', (e) => (logError ??= e));
  let output = '';
  let timedOut = false;
  let aborted = false;

  const child = spawnGroup(o.command, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  // The JVM's "Picked up JAVA_TOOL_OPTIONS" notices are the runner's doing: not part of the output.
  // the agent's notice that it could not write its trace (a full disk): the trace is incomplete
  const agentFailure = new AgentWriteFailureWatch();
  const take = (text: string) => {
    if (!text) return;
    agentFailure.push(text);
    log.write(text);
    if (output.length < MAX_OUTPUT_CHARS) output += text;
  };
  const filters = [new JvmNoticeFilter(), new JvmNoticeFilter()];
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (text: string) => take(filters[0].push(text)));
  child.stderr?.on('data', (text: string) => take(filters[1].push(text)));

  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, sig: null, error }));
    child.once('close', (code, sig) => resolve({ code, sig }));
  });
  const timer = setTimeout(() => {
    timedOut = true;
    void stopGroup(child);
  }, o.timeoutSeconds * 1000);
  const onAbort = () => {
    aborted = true;
    void stopGroup(child, 500);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();

  const { code, sig, error } = await exited;
  clearTimeout(timer);
  for (const f of filters) take(f.end());
  signal?.removeEventListener('abort', onAbort);
  if (!timedOut && !aborted) await stopGroup(child, 0); // leftover processes of the group
  await new Promise<void>((resolve) => log.end(resolve));
  const durationMs = Date.now() - started;

  const base = { index: spec.index, execution: spec.execution, seed: spec.seed, logPath: spec.logPath, durationMs, exitCode: code, signal: sig };
  if (error) {
    const message = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `command not found: ${o.command[0]}` : error.message;
    throw new CommandStartError(`cannot start ${o.command.join(' ')}: ${message}`);
  }
  if (aborted) {
    await removeRunFiles(spec.tracePath);
    return { ...base, outcome: 'fail', reason: 'killed', detail: 'stopped by the user', traces: [], aborted: true, empty: true };
  }

  if (logError) throw new TraceWriteError(spec.logPath, logError);
  agentFailure.end();
  if (agentFailure.failure) throw agentFailure.failure;
  // a Node.js process' worker threads wrote traces of their own: one trace per process
  if (o.recorder === 'node') {
    const blocked = await mergeRunWorkerTraces(spec.tracePath);
    if (blocked) return { ...base, ...blocked, traces: [], aborted: false, empty: false };
  }
  const traces = await inProgressTraceFiles(inProgressPath(spec.tracePath));
  const empty = traces.length === 0;
  const { uncaught, forcing, pct: pctReport } = await readRunReports(traces);
  const pct = pctReport ? { pct: pctReport } : {};

  let outcome: TraceOutcome;
  let dropped = 0;
  if (timedOut) for (const t of traces) dropped += await countDroppedEvents(t);
  if (timedOut && dropped > 0 && o.recorder !== 'node') {
    // The agent only drops events after a bounded wait for its trace writer: the recorder, not the program, held this run up.
    outcome = { outcome: 'fail', reason: 'recorder-blocked', detail: `recorder blocked: its trace writer fell behind (${dropped} events dropped) and the run did not exit within ${o.timeoutSeconds} s` };
  } else if (timedOut) outcome = { outcome: 'fail', reason: 'timeout', detail: `no exit within ${o.timeoutSeconds} s; process tree killed` };
  else if (sig) outcome = { outcome: 'fail', reason: 'killed', detail: `terminated by signal ${sig}` };
  else if (uncaught.length > 0) {
    const u = uncaught[0];
    // the program exited 0: its test framework did not see the exception (a worker thread's), say so
    outcome = { outcome: 'fail', reason: 'exception', detail: uncaughtDetail(u, code === 0) };
  } else if (code !== 0) {
    // the test framework's own report (JUnit, TestNG, Maven, Gradle, an uncaught exception's trace): the real failure
    // a Node.js run: its test runner's report (node:test TAP, mocha, jest, vitest) or a JS error and its frames first
    const said = (o.recorder === 'node' ? parseJsFailureOutput(output, o.cwd) : undefined) ?? parseFailureOutput(output);
    outcome = { outcome: 'fail', reason: 'exit-code', detail: `exit code ${code}`, ...(said ? { message: said.message, ...(said.location ? { location: said.location } : {}) } : {}) };
  }
  else if (o.failOnOutput && o.failOnOutput.test(output)) {
    const m = o.failOnOutput.exec(output);
    outcome = { outcome: 'fail', reason: 'output-match', detail: `output matched /${o.failOnOutput.source}/: ${m?.[0].slice(0, 200)}` };
  } else outcome = { outcome: 'pass', reason: 'ok' };

  const header: HeaderInfo = {
    execution: spec.execution,
    program: o.name,
    noise: o.plan || o.pct || spec.pct ? 0 : (spec.noise ?? o.noise),
    ...(!o.plan && !spec.pct && (spec.noiseAt ?? o.noiseAt ?? 'accesses') !== 'accesses' ? { noiseAt: (spec.noiseAt ?? o.noiseAt) as 'sync' | 'all' } : {}),
    ...(!o.plan && (o.pct || spec.pct) ? { noiseMode: 'pct' as const } : {}),
    seed: spec.seed,
    include: o.include,
    exclude: o.exclude,
    startedAt,
    ...(o.plan ? { plan: { name: o.plan.plan.name, file: o.plan.file } } : {}),
  };
  if (keepsNoTrace(o)) {
    // No trace is kept: the agent wrote a file only to report uncaught exceptions (read above).
    for (const t of traces) await fs.rm(t, { force: true });
    return { ...base, ...outcome, traces: [], aborted: false, empty: false, ...(forcing ? { forcing } : {}), ...pct };
  }
  const finished = await finishTraces(empty ? [inProgressPath(spec.tracePath)] : traces, outcome, header, o.failOnOutput, empty);
  return { ...base, ...outcome, traces: finished, aborted: false, empty, ...(forcing ? { forcing } : {}), ...pct };
}

/**
 * Completes a run's in-progress traces: the outcome line (with the failure point of an output match:
 * the index of the matching OUT event of each trace), then the final name. Returns the final paths.
 * Shared by one JVM per run and by repetitions in one JVM (repeatedRuns.ts).
 */
export async function finishTraces(traces: readonly string[], outcome: TraceOutcome, header: HeaderInfo, failOnOutput: RegExp | undefined, empty: boolean): Promise<string[]> {
  const finished: string[] = [];
  for (const t of traces) {
    const failAt = outcome.outcome === 'fail' && failOnOutput && !empty ? await findOutputMatch(t, failOnOutput) : undefined;
    await finalizeTrace(t, failAt === undefined ? outcome : { ...outcome, failAt }, header);
    const final = finalTracePath(t);
    await fs.rename(t, final);
    finished.push(final);
  }
  return finished;
}
