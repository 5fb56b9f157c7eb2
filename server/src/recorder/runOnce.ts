/**
 * One recorded run: starts the command with the agent in JAVA_TOOL_OPTIONS, enforces the time
 * limit, captures the output, decides the outcome and completes the trace file(s).
 */
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { spawnGroup, stopGroup } from './processTree';
import { finalizeTrace, HeaderInfo, readUncaught, TraceOutcome, TraceWriteError } from './traceFinalizer';
import { finalTracePath, inProgressPath, inProgressTraceFiles } from './inProgressTraces';
import { RecordOptions } from './recordOptions';

export interface RunSpec {
  index: number;
  execution: string;
  seed: string;
  tracePath: string;
  logPath: string;
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
}

const MAX_OUTPUT_CHARS = 1 << 20;

export function agentArgument(jar: string, spec: RunSpec, o: RecordOptions): string {
  const opts = [
    `out=${spec.tracePath}`,
    `execution=${spec.execution}`,
    `noise=${o.noise}`,
    `seed=${spec.seed}`,
  ];
  if (o.include.length) opts.push(`include=${o.include.join(';')}`);
  if (o.exclude.length) opts.push(`exclude=${o.exclude.join(';')}`);
  for (const extra of o.agentOptions ?? []) opts.push(extra);
  for (const v of opts) {
    if (v.includes(',')) throw new Error(`agent option "${v}" must not contain a comma`);
  }
  const arg = `-javaagent:${jar}=${opts.join(',')}`;
  return /\s/.test(arg) ? `"${arg.replace(/"/g, '\\"')}"` : arg;
}

/** Trace files of a run: the main one and those of further JVMs (`<name>~<pid>.trace.jsonl`). */
export async function runTraceFiles(tracePath: string): Promise<string[]> {
  const dir = path.dirname(tracePath);
  const base = path.basename(tracePath, '.trace.jsonl');
  let names: string[] = [];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n === `${base}.trace.jsonl` || (n.startsWith(`${base}~`) && n.endsWith('.trace.jsonl')))
    .sort()
    .map((n) => path.join(dir, n));
}

async function removeRunFiles(spec: RunSpec): Promise<void> {
  for (const f of await runTraceFiles(spec.tracePath)) await fs.rm(f, { force: true });
  for (const f of await inProgressTraceFiles(inProgressPath(spec.tracePath))) await fs.rm(f, { force: true });
}

export async function runOnce(spec: RunSpec, o: RecordOptions, jar: string, signal?: AbortSignal): Promise<RunResult> {
  await removeRunFiles(spec);
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const inherited = process.env.JAVA_TOOL_OPTIONS;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...o.env,
    // the agent writes `<trace>.part` (never analyzed), renamed once the outcome is appended (docs/recorder.md)
    JAVA_TOOL_OPTIONS: [inherited, agentArgument(jar, { ...spec, tracePath: inProgressPath(spec.tracePath) }, o)].filter(Boolean).join(' '),
    BRAID_EXECUTION: spec.execution,
    // the agent's watchdog stops the JVM when this process dies (SIGKILL, crash)
    BRAID_RECORDER_PID: String(process.pid),
  };
  const log = createWriteStream(spec.logPath);
  let logError: Error | undefined;
  log.on('error', (e) => (logError ??= e));
  let output = '';
  let timedOut = false;
  let aborted = false;

  const child = spawnGroup(o.command, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const onData = (data: Buffer) => {
    log.write(data);
    if (output.length < MAX_OUTPUT_CHARS) output += data.toString('utf8');
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

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
  signal?.removeEventListener('abort', onAbort);
  if (!timedOut && !aborted) await stopGroup(child, 0); // leftover processes of the group
  await new Promise<void>((resolve) => log.end(resolve));
  const durationMs = Date.now() - started;

  const base = { index: spec.index, execution: spec.execution, seed: spec.seed, logPath: spec.logPath, durationMs, exitCode: code, signal: sig };
  if (error) {
    const message = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `command not found: ${o.command[0]}` : error.message;
    throw new Error(`cannot start ${o.command.join(' ')}: ${message}`);
  }
  if (aborted) {
    await removeRunFiles(spec);
    return { ...base, outcome: 'fail', reason: 'killed', detail: 'stopped by the user', traces: [], aborted: true, empty: true };
  }

  if (logError) throw new TraceWriteError(spec.logPath, logError);
  let traces = await inProgressTraceFiles(inProgressPath(spec.tracePath));
  const empty = traces.length === 0;
  const uncaught = [];
  for (const t of traces) uncaught.push(...(await readUncaught(t).catch(() => [])));

  let outcome: TraceOutcome;
  if (timedOut) outcome = { outcome: 'fail', reason: 'timeout', detail: `no exit within ${o.timeoutSeconds} s; process tree killed` };
  else if (sig) outcome = { outcome: 'fail', reason: 'killed', detail: `terminated by signal ${sig}` };
  else if (uncaught.length > 0) {
    const u = uncaught[0];
    outcome = { outcome: 'fail', reason: 'exception', detail: `${u.exception ?? 'exception'}${u.message && u.message !== 'null' ? `: ${u.message}` : ''} in thread ${u.thread ?? '?'}` };
  } else if (code !== 0) outcome = { outcome: 'fail', reason: 'exit-code', detail: `exit code ${code}` };
  else if (o.failOnOutput && o.failOnOutput.test(output)) {
    const m = o.failOnOutput.exec(output);
    outcome = { outcome: 'fail', reason: 'output-match', detail: `output matched /${o.failOnOutput.source}/: ${m?.[0].slice(0, 200)}` };
  } else outcome = { outcome: 'pass', reason: 'ok' };

  const header: HeaderInfo = {
    execution: spec.execution,
    program: o.name,
    noise: o.noise,
    seed: spec.seed,
    include: o.include,
    exclude: o.exclude,
    startedAt,
  };
  if (empty) traces = [inProgressPath(spec.tracePath)];
  const finished: string[] = [];
  for (const t of traces) {
    await finalizeTrace(t, outcome, header);
    const final = finalTracePath(t);
    await fs.rename(t, final);
    finished.push(final);
  }
  return { ...base, ...outcome, traces: finished, aborted: false, empty };
}
