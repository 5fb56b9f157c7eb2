/**
 * Many runs of one JS/TS test in one Node process (issue 42 item 5; docs/recorder-node.md
 * "Repetitions in one process"), as repeatedRuns.ts runs a JUnit test's runs in one JVM. A recorded
 * `node --test` run costs two processes' start-up, the TypeScript loader's twice, and the test
 * runner's; the test itself takes milliseconds. Here one process (nodeRepeatDriver.ts,
 * dist/braid-node-repeat.cjs) stays up and runs each repetition in a worker thread of its own: a new
 * V8 context with a fresh module graph — the CommonJS cache and the ES-module map are per thread —
 * so module state never leaks from one repetition into the next (the Java side's class loader per
 * repetition), without any cache busting that a library's own `import()` could miss.
 *
 * Each repetition is an ordinary run: its own trace file, execution id, noise seed and noise, the
 * hook's options exactly as a process of the per-process path gets them, its verdict from its exit
 * code and output read as runOnce.ts reads a process' (same header fields, failure lines, outcome
 * line). Which commands: `node [--import tsx] --test [--test-name-pattern=P] <one file>` — the
 * command the lens, the Testing view and `braid test` build for a node:test test — with a CommonJS
 * file, or an ES module without a TypeScript loader; and the lens' mocha command for one spec file
 * (mochaRepetitions.ts: each worker runs it with mocha's programmatic API). Any other command
 * (vitest, jest, npm, another preload, a `.mts` or `"type": "module"` TypeScript file, whose tsx hooks
 * would start a loader thread per repetition) is one process per run, and `nodeRepeatPlanFor` says why.
 *
 * A repetition that does not end within the time limit: the process is killed (the run is a
 * timeout), and the next run starts a new one. A process that ends without finishing its repetition
 * (a crash of Node itself): that run is recorded again as a process of its own, and so are the next
 * ones (`fallback`). `--fresh-process` (RecordOptions.freshJvm, shared with `--fresh-jvm`) keeps one
 * process per run.
 */
import { createWriteStream, existsSync, promises as fs, readFileSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DEFAULT_PCT_STEPS } from '../runs/pctNoise';
import type { ChildProcess } from 'node:child_process';
import { spawnGroup, stopGroup } from '../runs/processTree';
import { HeaderInfo, readRunReports, TraceOutcome, TraceWriteError } from '../runs/traceFinalizer';
import { uncaughtDetail } from '../runs/uncaughtOutcome';
import { inProgressPath, inProgressTraceFiles } from '../runs/inProgressTraces';
import { keepsNoTrace, RecordOptions } from '../runs/recordOptions';
import { CommandStartError, finishTraces, RunResult, runOnce, RunSpec } from '../runs/runOnce';
import { mergeRunWorkerTraces, removeRunFiles } from '../runs/runFiles';
import { AgentWriteFailureWatch, RecordWriteError, writeFailure } from '../runs/writeFailure';
import { parseFailureOutput } from '../../engine/runFailure';
import { parseJsFailureOutput } from '../../engine/jsFailureOutput';
import { JS_SOURCE_FILE } from '../../engine/jsSourceFile';
import { nodeRecorderOptions } from './nodeRunner';
import { installedFrom } from './jsTestCommand';
import type { NodeRepeatConfig } from './nodeRepeatDriver';
import { MarkerSplitter } from '../runs/repetitionMarkers';
import { mochaRepeatCommandFor, type MochaRepeatCommand } from './mochaRepetitions';
import { loadsAsCommonJs } from './moduleFormat';

/** The driver's marker after each repetition (nodeRepeatDriver.ts). */
export { REPETITION_MARK as NODE_REPETITION_MARK } from '../runs/repetitionMarkers';
const MAX_OUTPUT_CHARS = 1 << 20;

/**
 * BRAID_NODE_REPEAT_AHEAD=0: each repetition's worker starts when its run line comes, not while the
 * run before it runs — for bench/nodeLensTime.ts' paired figure of what starting ahead saves.
 */
const aheadOff = () => process.env.BRAID_NODE_REPEAT_AHEAD === '0';

/** How a `node --test` command runs as repetitions: the test file and what each worker needs. */
export interface NodeRepeatCommand {
  /** the program that starts the driver (the command's `node`) */
  node: string;
  file: string;
  commonJs: boolean;
  tsx: boolean;
  execArgv: string[];
  /** a mocha spec (mochaRepetitions.ts): each repetition runs it with mocha's programmatic API; absent: node:test */
  mocha?: MochaRepeatCommand;
}

/** Why a command's runs are processes of their own; `program`: it runs a program, not a test (nothing to say to the user) */
export interface NotRepeated {
  because: string;
  program?: boolean;
}

export { loadsAsCommonJs } from './moduleFormat';

/**
 * The repeated form of `command` run in `cwd`, or why it runs as one process per run: only
 * `node [--import tsx] --test [--test-name-pattern=P]… <one JS/TS file>` and `[npx [--no] --] mocha …`
 * with no Node option (mochaRepetitions.ts, which reads mocha's options with mocha's loader in a
 * process in `cwd` with `env`).
 */
export async function nodeRepeatCommandFor(command: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ command: NodeRepeatCommand } | NotRepeated> {
  const program = path.basename(command[0] ?? '').replace(/\.exe$/i, '');
  const mocha = await mochaRepeatCommandFor(command, cwd, env);
  if (mocha && 'because' in mocha) return mocha;
  // the driver is started by the node on PATH, as npx starts mocha's bin
  if (mocha) return { command: { node: 'node', file: mocha.files[0], commonJs: mocha.commonJs, tsx: false, execArgv: [], mocha } };
  if (program !== 'node' && program !== 'nodejs') return { because: `the command runs ${program || 'nothing'}, not node --test or mocha (vitest, jest and npm start their own processes)` };
  let test = false;
  let tsx = false;
  let file: string | undefined;
  const execArgv: string[] = [];
  for (let i = 1; i < command.length; i++) {
    const a = command[i];
    if (!a.startsWith('-')) {
      if (file !== undefined) return { because: 'the command names more than one file' };
      file = a;
      continue;
    }
    if (file !== undefined) return { because: `an option after the test file (${a})` };
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = () => (inline !== undefined ? inline : command[++i]);
    if (flag === '--test' && inline === undefined) test = true;
    else if (flag === '--test-name-pattern') {
      const v = value();
      if (v === undefined) return { because: '--test-name-pattern has no value' };
      execArgv.push(`--test-name-pattern=${v}`);
    } else if (flag === '--import') {
      const v = value();
      if (v !== 'tsx') return { because: `the preload --import ${v ?? ''} (only tsx is run in each repetition's thread)` };
      tsx = true;
    } else return { because: `the node option ${a} (only --import tsx, --test and --test-name-pattern are run in each repetition's thread)` };
  }
  if (!test) return { because: 'not a node --test command', program: true };
  if (file === undefined) return { because: 'node --test without a test file' };
  const abs = path.resolve(cwd, file);
  if (!JS_SOURCE_FILE.test(abs) || !existsSync(abs)) return { because: `the test file ${file} is not a JavaScript or TypeScript file there` };
  const commonJs = loadsAsCommonJs(abs);
  if (tsx && !commonJs) return { because: `${file} is an ES module for Node: tsx's ES-module hooks would start a loader thread for each repetition, which costs about what a process does` };
  if (tsx && !installedFrom(cwd, 'tsx')) return { because: `tsx is not installed in ${cwd}` };
  if (!tsx && /\.[mc]?tsx?$/.test(abs)) return { because: `${file} is TypeScript and the command names no loader` };
  return { command: { node: command[0], file: abs, commonJs, tsx, execArgv } };
}

/** The driver bundle next to the hook (dist/braid-node-repeat.cjs), when it exists. */
export function findRepeatDriver(hook: string): string | undefined {
  const p = path.join(path.dirname(hook), 'braid-node-repeat.cjs');
  return existsSync(p) ? p : undefined;
}

/**
 * How the Node.js recording `o` runs: as repetitions in one process (`command`), or one process per
 * run and why (`because`); undefined when one process per run is asked for or needs no saying
 * (`--fresh-process`, runs that keep no trace, a noise or forcing plan, a point catalogue).
 */
export async function nodeRepeatPlanFor(o: RecordOptions, hook: string): Promise<{ command: NodeRepeatCommand; driver: string } | NotRepeated | undefined> {
  if (o.recorder !== 'node' || o.freshJvm || keepsNoTrace(o) || o.plan || o.pointsFile) return undefined;
  const r = await nodeRepeatCommandFor(o.command, o.cwd, { ...process.env, ...o.env });
  if ('because' in r) return r;
  const driver = findRepeatDriver(hook);
  if (!driver) return { because: `${path.join(path.dirname(hook), 'braid-node-repeat.cjs')} is missing (npm run build)` };
  return { command: r.command, driver };
}

interface Driver {
  child: ChildProcess;
  configFile: string;
  exited: Promise<{ code: number | null; sig: NodeJS.Signals | null; error?: Error }>;
  exit?: { code: number | null; sig: NodeJS.Signals | null; error?: Error };
  /** output outside a repetition (the driver's own start-up, a crash): goes to the next run's log */
  preamble: string;
}

interface Current {
  spec: RunSpec;
  log: WriteStream;
  logError?: Error;
  output: string;
  watch: AgentWriteFailureWatch;
  /** the markers seen on stdout and stderr; the worker's exit code; whether its worker was ready before the run came */
  markers: number;
  exit?: number;
  ahead?: boolean;
  done: () => void;
}

/**
 * One job's process of repetitions: `run(spec)` records one run in it, starting the process when
 * there is none; `close()` ends it. Not for concurrent use (one per job).
 */
export class NodeRepeatSession {
  private driver?: Driver;
  private current?: Current;
  /** processes started so far */
  processes = 0;
  /** repetitions whose worker had started and was waiting when their run came (nodeRepeatDriver.ts: started ahead) */
  aheadRuns = 0;
  /** how the last process of repetitions ended (code 0: on its own, once its stdin ended; a signal: stopped) */
  lastExit?: { code: number | null; sig: NodeJS.Signals | null };
  /** why the runs are processes of their own from some run on (the process of repetitions ended without finishing one) */
  fallback?: string;

  constructor(
    private readonly o: RecordOptions,
    private readonly hook: string,
    private readonly plan: { command: NodeRepeatCommand; driver: string },
    private readonly signal?: AbortSignal,
  ) {}

  private async start(spec: RunSpec): Promise<Driver> {
    const configFile = path.join(os.tmpdir(), `braid-${process.pid}-${randomBytes(6).toString('hex')}.node-repeat.json`);
    const c = this.plan.command;
    // the run's own fields (out, execution, seed, noise) come with each run
    const options = nodeRecorderOptions(this.hook, { out: '', execution: '', seed: spec.seed }, { ...this.o, noise: this.o.noise, noiseAt: undefined, pct: undefined });
    const config: NodeRepeatConfig = { file: c.file, commonJs: c.commonJs, tsx: c.tsx, execArgv: c.execArgv, hook: this.hook, options, ...(c.mocha ? { mocha: { dir: c.mocha.dir, args: c.mocha.args } } : {}), ...(aheadOff() ? { ahead: false } : {}) };
    await fs.writeFile(configFile, JSON.stringify(config), 'utf8');
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.o.env, BRAID_RECORDER_PID: String(process.pid) };
    // as runOnce: a recorded node:test run reports on its own, not to a test runner that started Braid
    if (this.o.env?.NODE_TEST_CONTEXT === undefined) delete env.NODE_TEST_CONTEXT;
    delete env.BRAID_NODE_OPTIONS;
    const child = spawnGroup([c.node, this.plan.driver, configFile], { cwd: this.o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.processes++;
    const d: Driver = {
      child,
      configFile,
      preamble: '',
      exited: new Promise((resolve) => {
        child.once('error', (error) => resolve({ code: null, sig: null, error }));
        child.once('close', (code, sig) => resolve({ code, sig }));
      }),
    };
    void d.exited.then((e) => {
      d.exit = e;
      this.lastExit = { code: e.code, sig: e.sig };
      void fs.rm(configFile, { force: true }).catch(() => {});
      if (this.driver === d) this.current?.done();
    });
    child.stdin?.on('error', () => {});
    const text = (t: string) => {
      if (!t) return;
      const cur = this.driver === d ? this.current : undefined;
      if (!cur) {
        if (d.preamble.length < MAX_OUTPUT_CHARS) d.preamble += t;
        return;
      }
      cur.watch.push(t);
      cur.log.write(t);
      if (cur.output.length < MAX_OUTPUT_CHARS) cur.output += t;
    };
    const marker = (json: string) => {
      const cur = this.current;
      let m: { execution?: unknown; exit?: unknown; ahead?: unknown };
      try {
        m = JSON.parse(json) as typeof m;
      } catch {
        return;
      }
      if (!cur || m.execution !== cur.spec.execution) return;
      if (typeof m.exit === 'number') cur.exit = m.exit;
      if (m.ahead === true) cur.ahead = true;
      if (++cur.markers === 2) cur.done();
    };
    for (const stream of [child.stdout, child.stderr]) {
      const lines = new MarkerSplitter(text, marker);
      stream?.setEncoding('utf8');
      stream?.on('data', (t: string) => lines.push(t));
      stream?.on('end', () => lines.end());
    }
    return d;
  }

  /** Records one run (a repetition in the current process, or the first of a new one; a process of its own after a fallback). */
  async run(spec: RunSpec): Promise<RunResult> {
    if (this.fallback !== undefined) return { ...(await runOnce(spec, this.o, this.hook, this.signal)), fallback: this.fallback };
    try {
      const r = await this.runFiles(spec);
      if (r) return r;
    } catch (e) {
      const failure = e instanceof RecordWriteError ? e : e instanceof TraceWriteError ? writeFailure(e.file, e.cause) : writeFailure(String((e as NodeJS.ErrnoException)?.path ?? spec.tracePath), e);
      if (!failure) throw e;
      await this.kill();
      await removeRunFiles(spec.tracePath).catch(() => {});
      await fs.rm(spec.logPath, { force: true }).catch(() => {});
      throw failure;
    }
    // the process ended without finishing the repetition: recorded again as a process of its own, and so are the next runs
    return { ...(await runOnce(spec, this.o, this.hook, this.signal)), fallback: this.fallback };
  }

  /** One repetition; undefined when the process ended without finishing it (then `fallback` says why). */
  private async runFiles(spec: RunSpec): Promise<RunResult | undefined> {
    await removeRunFiles(spec.tracePath).catch(() => {});
    if (this.driver?.exit) await this.retire();
    const started = Date.now();
    const d = (this.driver ??= await this.start(spec));
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const log = createWriteStream(spec.logPath);
    const cur: Current = { spec, log, output: '', watch: new AgentWriteFailureWatch(), markers: 0, done };
    log.on('error', (e) => (cur.logError ??= e));
    this.current = cur;
    if (d.preamble) {
      cur.log.write(d.preamble);
      cur.output += d.preamble;
      d.preamble = '';
    }
    let timedOut = false;
    let aborted = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stopGroup(d.child, 500);
    }, this.o.timeoutSeconds * 1000);
    const onAbort = () => {
      aborted = true;
      void stopGroup(d.child, 500);
    };
    this.signal?.addEventListener('abort', onAbort, { once: true });
    if (this.signal?.aborted) onAbort();
    // --noise-mode pct or adaptive exposure's PCT level: PCT for the event loop (runtime.ts), noise 0
    const pctOptions = this.o.pct ?? spec.pct;
    const pct = pctOptions ? { pct: { depth: pctOptions.depth, steps: Math.max(1, Math.round(spec.pctSteps ?? pctOptions.steps ?? DEFAULT_PCT_STEPS)) } } : {};
    const noise = pctOptions ? 0 : (spec.noise ?? this.o.noise);
    // wide noise (--noise-at all, adaptive exposure's wide level for Node.js: runtime.ts noiseAt)
    const wide = (spec.noiseAt ?? this.o.noiseAt) === 'all' ? { noiseAt: 'all' } : {};
    if (d.exit) done();
    else d.child.stdin?.write(JSON.stringify({ out: inProgressPath(spec.tracePath), execution: spec.execution, seed: spec.seed, noise, ...wide, ...pct }) + '\n');
    await finished;
    clearTimeout(timer);
    this.signal?.removeEventListener('abort', onAbort);
    if (cur.markers < 2 && !d.exit) await d.exited;
    this.current = undefined;
    await new Promise<void>((resolve) => log.end(resolve));
    const durationMs = Date.now() - started;
    const base = { index: spec.index, execution: spec.execution, seed: spec.seed, logPath: spec.logPath, durationMs, exitCode: cur.exit ?? d.exit?.code ?? null, signal: cur.markers < 2 ? (d.exit?.sig ?? null) : null };
    if (d.exit?.error) {
      const message = (d.exit.error as NodeJS.ErrnoException).code === 'ENOENT' ? `command not found: ${this.plan.command.node}` : d.exit.error.message;
      throw new CommandStartError(`cannot start ${this.plan.command.node}: ${message}`);
    }
    if (aborted) {
      await removeRunFiles(spec.tracePath).catch(() => {});
      return { ...base, outcome: 'fail', reason: 'killed', detail: 'stopped by the user', traces: [], aborted: true, empty: true };
    }
    if (cur.markers < 2 && !timedOut) {
      // Node itself went down (not the program: the worker's errors end the worker only)
      this.fallback = `the process of repetitions ended without finishing run ${spec.index} (${d.exit?.sig ? `signal ${d.exit.sig}` : `exit code ${d.exit?.code}`}): ${cur.output.trim().split('\n').slice(-1)[0]?.slice(0, 200) ?? ''}`;
      await this.retire();
      await removeRunFiles(spec.tracePath).catch(() => {});
      return undefined;
    }
    if (cur.logError) throw new TraceWriteError(spec.logPath, cur.logError);
    cur.watch.end();
    if (cur.watch.failure) throw cur.watch.failure;
    const blocked = await mergeRunWorkerTraces(spec.tracePath);
    if (blocked) return { ...base, ...blocked, traces: [], aborted: false, empty: false };
    const traces = await inProgressTraceFiles(inProgressPath(spec.tracePath));
    const empty = traces.length === 0;
    const { uncaught, forcing, pct: pctReport } = await readRunReports(traces);
    const o = this.o;
    const code = cur.exit ?? null;
    // the outcome exactly as runOnce.ts decides a Node.js process' (its exit code is the worker's)
    let outcome: TraceOutcome;
    if (timedOut) outcome = { outcome: 'fail', reason: 'timeout', detail: `no exit within ${o.timeoutSeconds} s; process tree killed` };
    else if (uncaught.length > 0) outcome = { outcome: 'fail', reason: 'exception', detail: uncaughtDetail(uncaught[0], code === 0) };
    else if (code !== 0) {
      const said = parseJsFailureOutput(cur.output, o.cwd) ?? parseFailureOutput(cur.output);
      outcome = { outcome: 'fail', reason: 'exit-code', detail: `exit code ${code}`, ...(said ? { message: said.message, ...(said.location ? { location: said.location } : {}) } : {}) };
    } else if (o.failOnOutput && o.failOnOutput.test(cur.output)) {
      const m = o.failOnOutput.exec(cur.output);
      outcome = { outcome: 'fail', reason: 'output-match', detail: `output matched /${o.failOnOutput.source}/: ${m?.[0].slice(0, 200)}` };
    } else outcome = { outcome: 'pass', reason: 'ok' };
    const header: HeaderInfo = {
      execution: spec.execution,
      program: o.name,
      noise,
      ...(!pctOptions && (spec.noiseAt ?? o.noiseAt ?? 'accesses') !== 'accesses' ? { noiseAt: (spec.noiseAt ?? o.noiseAt) as 'sync' | 'all' } : {}),
      ...(pctOptions ? { noiseMode: 'pct' as const } : {}),
      seed: spec.seed,
      include: o.include,
      exclude: o.exclude,
      startedAt: new Date(started).toISOString(),
    };
    if (cur.ahead) this.aheadRuns++;
    const finishedTraces = await finishTraces(empty ? [inProgressPath(spec.tracePath)] : traces, outcome, header, o.failOnOutput, empty);
    // after a timeout the process is gone: the next run starts a new one
    if (timedOut) await this.retire();
    return { ...base, ...outcome, traces: finishedTraces, aborted: false, empty, ...(forcing ? { forcing } : {}), ...(pctReport ? { pct: pctReport } : {}) };
  }

  private async retire(): Promise<void> {
    const d = this.driver;
    this.driver = undefined;
    if (!d) return;
    d.child.stdin?.end();
    if (!d.exit) {
      const t = setTimeout(() => void stopGroup(d.child, 500), 5000);
      await d.exited;
      clearTimeout(t);
    }
    await stopGroup(d.child, 0);
  }

  private async kill(): Promise<void> {
    const d = this.driver;
    this.driver = undefined;
    if (d && !d.exit) await stopGroup(d.child, 500);
  }

  /** Ends the process (no more runs). */
  async close(): Promise<void> {
    await this.retire();
  }
}
