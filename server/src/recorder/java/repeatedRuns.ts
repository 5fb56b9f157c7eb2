/**
 * Many runs of one JUnit test in one JVM (issue 29, point 2; docs/recorder.md "Repetitions in one
 * JVM"). A run of a JUnit test through the console launcher costs about a second of JVM and JUnit
 * start-up; here Braid's RepeatLauncher (server/java-agent/launcher, dist/braid-launcher.jar) runs
 * the selected test again and again in one JVM, and each repetition is still a separate run: the
 * agent (option repeat) writes each repetition to its own trace segment — own file, execution id,
 * header and noise seed, definitions written again — and the launcher reports each repetition's
 * outcome on stdout. This module turns that into ordinary runs (RunResult, a finished trace with its
 * outcome line and a log per run), so everything downstream sees N normal runs. A repetition in
 * which no test ran (outcome `norun`: nothing matched, discovery failed, skipped) is not a failing
 * run: its trace is deleted and RunResult.notRun says why (testDidNotRun.ts; recordRuns leaves it out).
 *
 * The runner drives the JVM through its stdin, one line per run (`run<TAB>trace<TAB>execution<TAB>seed`),
 * so a recording still decides before each run whether to go on (`braid test --runs auto`). A
 * repetition that leaves non-daemon threads running, or fails in a way that poisons the JVM
 * (OutOfMemoryError, a linkage error of a shared class), ends the JVM: the next run starts a fresh one.
 * `--fresh-jvm` (RecordOptions.freshJvm) keeps one JVM per run.
 *
 * Fresh static state (issue 41, point 3): the class path's folders — the project's own classes, main
 * and test — and the jars of the libraries under test (a jar holding a class the include list names,
 * libraryJars.ts; not with `--shared-libraries`) are not on the JVM's class path; each repetition
 * loads them in a new class loader (`--fresh-classes`), while the JDK, JUnit and the other jars stay
 * shared and warm. When a run shows a library jar cannot be loaded afresh (a shared jar or the system
 * class loader uses its classes), the jars stay shared from that run on (`RepeatSession.librariesShared`
 * says why; that run is recorded again) and the folders are still fresh. Where that cannot work
 * — the test's JVM options load an agent of their own, or a run shows the project's code needs the
 * system class loader (a native library, a framework that loads the project's classes by itself) —
 * each run is a JVM of its own (`RepeatSession.fallback` says why; that run is recorded again).
 *
 * Used when the command is the JUnit console launcher command Braid builds for a test
 * (`java -jar junit-platform-console-standalone*.jar … --class-path CP --select-method C#m`, see
 * testCommand.ts), the launcher jar is there, and the recording keeps its traces. A noise or forcing
 * plan (`--plan`, Confirm by Forcing, Check the Fix) works per repetition too: the agent forces each
 * repetition afresh — its waits, holds and counts start over at each segment (Forcing.beginSegment) —
 * and ends each segment with that repetition's own `{"forcing":…}` report, so a confirmation counts
 * per repetition exactly as it counts per JVM run (docs/confirm.md "Cost").
 */
import { createWriteStream, existsSync, promises as fs, readFileSync, WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { spawnGroup, stopGroup } from '../runs/processTree';
import { HeaderInfo, readRunReports, TraceOutcome, TraceWriteError } from '../runs/traceFinalizer';
import { uncaughtDetail } from '../runs/uncaughtOutcome';
import { inProgressPath, inProgressTraceFiles } from '../runs/inProgressTraces';
import { keepsNoTrace, RecordOptions } from '../runs/recordOptions';
import { agentArgument, agentOptionLines, CommandStartError, finishTraces, RunResult, RunSpec } from '../runs/runOnce';
import { countDroppedEvents } from '../runs/droppedEvents';
import { JvmNoticeFilter } from './jvmNoticeFilter';
import { AgentWriteFailureWatch, RecordWriteError, writeFailure } from '../runs/writeFailure';
import { boundedText, ownFrame, parseFailureOutput } from '../../engine/runFailure';
import { MarkerSplitter } from '../runs/repetitionMarkers';
import { libraryJarsUnderTest } from './libraryJars';

/** What the launcher prints after each repetition (on stdout; a short copy on stderr). */
export { REPETITION_MARK } from '../runs/repetitionMarkers';
export const LAUNCHER_MAIN = 'dev.braid.launcher.RepeatLauncher';
const MAX_OUTPUT_CHARS = 1 << 20;

/** How to run a recording's command as repetitions in one JVM. */
export interface RepeatPlan {
  /** the JVM that runs the RepeatLauncher on the test's class path (the project's folders in `--fresh-classes`) */
  command: string[];
  /** `program` of the traces' headers: what a JVM of the original command writes (the console launcher's jar) */
  program: string;
  /** the project's class folders each repetition loads afresh (absent: none, or `sharedBecause`) */
  freshClasses?: string[];
  /** the jars of the libraries under test each repetition loads afresh with the folders (absent: none) */
  freshLibraries?: string[];
  /** the launcher with the folders loaded afresh and every jar shared: when the library jars cannot be loaded afresh */
  librariesSharedCommand?: string[];
  /** the launcher with every class path entry on the JVM's class path: one JVM per run when static state cannot be made fresh */
  sharedCommand: string[];
  /** why static state cannot be made fresh in one JVM: each run is a JVM of its own (`sharedCommand`) */
  sharedBecause?: string;
}

/** A class path entry that is a folder of classes (not a jar or zip): the project's own classes. */
function isClassFolder(entry: string): boolean {
  return !/\.(jar|zip)$/i.test(entry);
}

/** JVM options that load an agent besides Braid's: its transformations may hold on to the first loader's classes. */
const AGENT_OPTION = /^-(javaagent|agentpath|agentlib)[:=]/;

/**
 * The runner JVM's compiler: C1 only (`-XX:TieredStopAtLevel=1`). A recorded repetition is short
 * and instrumented code is large: C2's compilations of it cost more than they win back within a
 * recording — on test/fixtures/maven/inventory, 70 repetitions took 3.5–4.3 s of CPU (JVM and Braid)
 * against 7.0–9.0 s with the full tiered compiler, at the same failing rate (docs/recorder.md
 * "Repetitions in one JVM"). Put before the test's own JVM options, so an argLine that sets the
 * compiler wins (HotSpot takes the last); `BRAID_FULL_JIT=1` keeps the JVM's default.
 */
export function runnerJitOptions(env: NodeJS.ProcessEnv = process.env): string[] {
  return env.BRAID_FULL_JIT === '1' ? [] : ['-XX:TieredStopAtLevel=1'];
}

/** dist/braid-launcher.jar next to the agent jar (BRAID_LAUNCHER_JAR overrides), when it exists. */
export function findLauncherJar(agentJar: string): string | undefined {
  const explicit = process.env.BRAID_LAUNCHER_JAR;
  if (explicit) return existsSync(explicit) ? path.resolve(explicit) : undefined;
  const p = path.join(path.dirname(agentJar), 'braid-launcher.jar');
  return existsSync(p) ? p : undefined;
}

/** What the code under test is, to choose the library jars loaded afresh per repetition (libraryJars.ts). */
export interface CodeUnderTest {
  include: readonly string[];
  exclude: readonly string[];
  /** every jar stays shared (`--shared-libraries`) */
  sharedLibraries?: boolean;
}

/**
 * The repeated form of a JUnit console launcher command, or undefined when `command` is not one
 * this runner understands (then each run is a JVM of its own, as before): `java [JVM options] -jar
 * <junit-platform-console-standalone*.jar> [--disable-banner] [--disable-ansi-colors] [--details=X]
 * [--fail-if-no-tests] --class-path CP… (--select-method C#m | --select-class C)…`. A class path
 * given as an argument file (`@file`, the Maven plan: the test class path `dependency:build-classpath`
 * wrote) is read now, relative to `cwd`: one class path on one line (an unreadable file, or one with
 * several words — picocli would split them — keeps one JVM per run). Any other option keeps one JVM
 * per run. With `code`, the jars holding included classes are loaded afresh too (libraryJars.ts).
 */
export async function repeatCommandFor(command: readonly string[], launcherJar: string, cwd = process.cwd(), code?: CodeUnderTest): Promise<RepeatPlan | undefined> {
  if (!command.length || !/^java(\.exe)?$/.test(path.basename(command[0]))) return undefined;
  const jarAt = command.indexOf('-jar');
  if (jarAt < 1 || jarAt + 1 >= command.length) return undefined;
  const jvmOptions = command.slice(1, jarAt);
  // JVM options only (no class path of their own, no main class or module)
  if (jvmOptions.some((a) => !a.startsWith('-') || /^(-cp|-classpath|--class-path|-p|--module-path|-m|--module)$/.test(a))) return undefined;
  const consoleJar = command[jarAt + 1];
  if (!/junit-platform-console-standalone[^/\\]*\.jar$/.test(consoleJar)) return undefined;
  const classPath: string[] = [];
  const select: string[] = [];
  const rest = command.slice(jarAt + 2);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const eq = a.indexOf('=');
    const [flag, inline] = a.startsWith('--') && eq > 0 ? [a.slice(0, eq), a.slice(eq + 1)] : [a, undefined];
    const value = (): string | undefined => (inline !== undefined ? inline : rest[++i]);
    if (flag === '--disable-banner' || flag === '--disable-ansi-colors' || flag === '--fail-if-no-tests') continue;
    if (flag === '--details') {
      if (inline === undefined) i++;
      continue;
    }
    if (flag === '--class-path' || flag === '-cp' || flag === '--classpath') {
      const v = value();
      if (!v) return undefined;
      if (v.startsWith('@')) {
        const fromFile = classPathFile(path.resolve(cwd, v.slice(1)));
        if (fromFile === undefined) return undefined;
        classPath.push(fromFile);
      } else classPath.push(v);
      continue;
    }
    if (flag === '--select-method' || flag === '-m' || flag === '--select-class' || flag === '-c') {
      const v = value();
      if (!v) return undefined;
      select.push(flag === '-m' || flag === '--select-method' ? '--select-method' : '--select-class', v);
      continue;
    }
    return undefined;
  }
  if (!select.length) return undefined;
  const entries = classPath.flatMap((c) => c.split(path.delimiter)).filter((e) => e !== '');
  const folders = entries.filter(isClassFolder);
  const jars = entries.filter((e) => !isClassFolder(e));
  // the console launcher's jar first, as `java -jar` has it: its classes (JUnit, and the JUnit 4 that
  // Debian's jar bundles) win over the test class path's copies — an old junit:junit there (4.11) would
  // otherwise meet a vintage engine that needs 4.12
  const launch = (cp: string[], extra: string[]) => [command[0], ...runnerJitOptions(), ...jvmOptions, '-cp', [consoleJar, launcherJar, ...cp].join(path.delimiter), LAUNCHER_MAIN, ...extra, ...select];
  const sharedCommand = launch(classPath, []);
  const agent = jvmOptions.find((a) => AGENT_OPTION.test(a));
  if (agent) return { command: sharedCommand, program: consoleJar, sharedCommand, sharedBecause: `the test's JVM options load an agent (${agent.split(/[=:]/)[0]})` };
  const libraries = code && !code.sharedLibraries ? await libraryJarsUnderTest(jars, code.include, code.exclude) : [];
  if (!folders.length && !libraries.length) return { command: sharedCommand, program: consoleJar, sharedCommand };
  const foldersOnly = launch(jars, ['--fresh-classes', folders.join(path.delimiter)]);
  if (!libraries.length) return { command: foldersOnly, program: consoleJar, freshClasses: folders, sharedCommand };
  // the fresh loader's entries in class path order (a class in two entries resolves as before)
  const fresh = entries.filter((e) => isClassFolder(e) || libraries.includes(e));
  return {
    command: launch(
      jars.filter((j) => !libraries.includes(j)),
      ['--fresh-classes', fresh.join(path.delimiter)],
    ),
    program: consoleJar,
    ...(folders.length ? { freshClasses: folders } : {}),
    freshLibraries: libraries,
    librariesSharedCommand: folders.length ? foldersOnly : sharedCommand,
    sharedCommand,
  };
}

/** The class path in an argument file: its one word (picocli's @file), or undefined. */
function classPathFile(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const words = text.trim().split(/\s+/);
  return words.length === 1 && words[0] !== '' && !/["'#]/.test(words[0]) ? words[0] : undefined;
}

/** The repeated form of the recording `o` with the agent `agentJar`, or undefined when its runs need a JVM each. */
export async function repeatPlanFor(o: RecordOptions, agentJar: string): Promise<RepeatPlan | undefined> {
  if (o.freshJvm || keepsNoTrace(o)) return undefined;
  const launcher = findLauncherJar(agentJar);
  return launcher ? repeatCommandFor(o.command, launcher, o.cwd, { include: o.include, exclude: o.exclude, ...(o.sharedLibraries ? { sharedLibraries: true } : {}) }) : undefined;
}

/** A repetition's report (the launcher's marker line). */
export interface RepetitionReport {
  execution: string;
  /** `norun`: no test ran (nothing matched the selector, discovery failed, skipped): not a failing run */
  outcome: 'pass' | 'fail' | 'norun';
  /** with `norun`: why, naming the selector (the JUnit launcher's own message for a discovery error) */
  notRun?: string;
  tests?: number;
  failed?: number;
  message?: string;
  /** the failure's stack frames, innermost first */
  frames?: string[];
  /** non-daemon threads the repetition left running: the JVM ends after it */
  left?: string[];
  /** why the JVM cannot run another repetition */
  poisoned?: string;
  /** why the project's classes cannot be loaded afresh for each repetition: the run is recorded again in a JVM of its own */
  isolation?: string;
  /** whose class the isolation problem names: a library jar's (then only the jars are shared), the project's, or none (absent) */
  isolationScope?: 'library' | 'project';
  /** the JVM ends after this repetition */
  last?: boolean;
}

/** The report in a marker line's JSON, or undefined when it does not parse. */
export function parseRepetitionReport(json: string): RepetitionReport | undefined {
  try {
    const v = JSON.parse(json) as RepetitionReport;
    if (!v || typeof v !== 'object' || typeof v.execution !== 'string') return undefined;
    return v;
  } catch {
    return undefined;
  }
}

interface Current {
  spec: RunSpec;
  started: number;
  startedAt: string;
  log: WriteStream;
  logError?: Error;
  output: string;
  agentFailure: AgentWriteFailureWatch;
  report?: RepetitionReport;
  errMarker: boolean;
  timedOut: boolean;
  done: () => void;
}

interface Jvm {
  child: ChildProcess;
  optionsFile: string;
  exited: Promise<{ code: number | null; sig: NodeJS.Signals | null; error?: Error }>;
  exit?: { code: number | null; sig: NodeJS.Signals | null; error?: Error };
  /** the launcher said the JVM ends after its last repetition */
  ending: boolean;
  /** output before the first repetition (JVM start-up): it goes to the first run's log */
  preamble: string;
  repetitions: number;
  /** the uniform noise the JVM's agent was started with (its options file): a run with another noise needs another JVM */
  noise: string;
  /** PCT: the run length the JVM's agent assumes (its options file), for every repetition it runs */
  pctSteps?: number;
}

/**
 * PCT draws its change points from [1, k], k the run length the agent was started with; the
 * repetitions of one JVM keep that k, so a JVM is started again once the length learned from the
 * runs so far (PctRunLength) is more than twice or less than half of it — usually once, after the
 * first PCT run has reported its length where the JVM assumed the default.
 */
export function pctLengthStale(jvmSteps: number | undefined, learned: number | undefined): boolean {
  if (jvmSteps === undefined || learned === undefined) return false;
  return learned > 2 * jvmSteps || 2 * learned < jvmSteps;
}

/** The noise a run's agent gets (its own when adaptive exposure set one, PCT at its last level, else the recording's). */
function noiseKey(spec: RunSpec, o: RecordOptions): string {
  if (spec.pct && !o.pct && !o.plan) return `pct:${spec.pct.depth}`;
  return `${spec.noise ?? o.noise}@${spec.noiseAt ?? o.noiseAt ?? 'accesses'}`;
}

/**
 * One worker's JVM of repetitions: `run(spec)` records one run in it, starting a JVM when there is
 * none (the first run, or after a JVM ended); `close()` ends it. Not for concurrent use (one per job).
 */
export class RepeatSession {
  private jvm?: Jvm;
  private current?: Current;
  /** JVMs started so far */
  jvms = 0;
  /** why each run is a JVM of its own (static state cannot be made fresh in one JVM); undefined while repetitions share a JVM */
  fallback?: string;
  /** why the library jars are shared by the repetitions after all (a run showed they cannot be loaded afresh); undefined while they are fresh */
  librariesShared?: string;
  /** runs that were the first of their JVM, and of those the failed ones; the same for the later runs */
  readonly firstRuns = { runs: 0, failed: 0 };
  readonly laterRuns = { runs: 0, failed: 0 };

  constructor(
    private readonly o: RecordOptions,
    private readonly agentJar: string,
    private readonly plan: RepeatPlan,
    private readonly signal?: AbortSignal,
  ) {
    this.fallback = plan.sharedBecause;
  }

  /** Whether each repetition loads the project's classes afresh. */
  get freshStatic(): boolean {
    return this.fallback === undefined && (this.plan.freshClasses !== undefined || this.freshLibraries !== undefined);
  }

  /** The library jars each repetition loads afresh, or undefined (none, or no longer). */
  get freshLibraries(): string[] | undefined {
    return this.fallback === undefined && this.librariesShared === undefined ? this.plan.freshLibraries : undefined;
  }

  private async start(spec: RunSpec): Promise<Jvm> {
    const optionsFile = path.join(os.tmpdir(), `braid-${process.pid}-${randomBytes(6).toString('hex')}.agent-options`);
    const lines = [...agentOptionLines(spec, this.o), 'repeat=true', `program=${this.plan.program}`];
    if (lines.some((l) => /[\r\n\0]/.test(l))) throw new Error('the console launcher path must not contain a line break');
    await fs.writeFile(optionsFile, lines.join('\n') + '\n', 'utf8');
    const inherited = process.env.JAVA_TOOL_OPTIONS;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...this.o.env,
      JAVA_TOOL_OPTIONS: [inherited, agentArgument(this.agentJar, optionsFile)].filter(Boolean).join(' '),
      BRAID_EXECUTION: spec.execution,
      BRAID_RECORDER_PID: String(process.pid),
    };
    const command = this.fallback !== undefined ? this.plan.sharedCommand : this.librariesShared !== undefined && this.plan.librariesSharedCommand ? this.plan.librariesSharedCommand : this.plan.command;
    const child = spawnGroup(command, { cwd: this.o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.jvms++;
    const jvm: Jvm = {
      child,
      optionsFile,
      ending: false,
      preamble: '',
      repetitions: 0,
      noise: noiseKey(spec, this.o),
      ...(spec.pctSteps !== undefined ? { pctSteps: spec.pctSteps } : {}),
      exited: new Promise((resolve) => {
        child.once('error', (error) => resolve({ code: null, sig: null, error }));
        child.once('close', (code, sig) => resolve({ code, sig }));
      }),
    };
    void jvm.exited.then((e) => {
      jvm.exit = e;
      void fs.rm(optionsFile, { force: true }).catch(() => {});
      if (this.jvm === jvm && this.current) this.current.done();
    });
    child.stdin?.on('error', () => {}); // the JVM may be gone when a command is written
    const text = (t: string) => {
      if (!t) return;
      const c = this.jvm === jvm ? this.current : undefined;
      if (!c) {
        if (jvm.preamble.length < MAX_OUTPUT_CHARS) jvm.preamble += t;
        return;
      }
      c.agentFailure.push(t);
      c.log.write(t);
      if (c.output.length < MAX_OUTPUT_CHARS) c.output += t;
    };
    const filters = [new JvmNoticeFilter(), new JvmNoticeFilter()];
    const out = new MarkerSplitter(text, (json) => {
      const c = this.current;
      const r = parseRepetitionReport(json);
      if (!r) return;
      if (r.last) jvm.ending = true;
      if (c && r.execution === c.spec.execution) {
        c.report = r;
        if (c.errMarker) c.done();
      }
    });
    const err = new MarkerSplitter(text, (json) => {
      const c = this.current;
      const r = parseRepetitionReport(json);
      if (c && r && r.execution === c.spec.execution) {
        c.errMarker = true;
        if (c.report) c.done();
      }
    });
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (t: string) => out.push(filters[0].push(t)));
    child.stderr?.on('data', (t: string) => err.push(filters[1].push(t)));
    child.stdout?.on('end', () => {
      out.push(filters[0].end());
      out.end();
    });
    child.stderr?.on('end', () => {
      err.push(filters[1].end());
      err.end();
    });
    return jvm;
  }

  /** Records one run (a repetition in the current JVM, or the first of a new one). */
  async run(spec: RunSpec): Promise<RunResult> {
    try {
      let r = await this.runFiles(spec);
      while (this.isolationFailed !== undefined) {
        const { why, scope } = this.isolationFailed;
        this.isolationFailed = undefined;
        await this.retire();
        for (const t of r.traces) await fs.rm(t, { force: true }).catch(() => {});
        if (this.freshLibraries && scope !== 'project') {
          // a library jar cannot be loaded afresh: recorded again with the jars shared, the project's folders still fresh
          this.librariesShared = why;
          r = { ...(await this.runFiles(spec)), librariesShared: why };
        } else {
          // the run failed only because of the repetition's own loader: recorded again, one JVM per run from now on
          this.fallback = why;
          r = { ...(await this.runFiles(spec)), fallback: why };
        }
      }
      const first = this.lastWasFirst ? this.firstRuns : this.laterRuns;
      if (!r.aborted && r.notRun === undefined) {
        first.runs++;
        if (r.outcome === 'fail') first.failed++;
      }
      return r;
    } catch (e) {
      const failure = e instanceof RecordWriteError ? e : e instanceof TraceWriteError ? writeFailure(e.file, e.cause) : writeFailure(String((e as NodeJS.ErrnoException)?.path ?? spec.tracePath), e);
      if (!failure) throw e;
      await this.kill();
      for (const f of await inProgressTraceFiles(inProgressPath(spec.tracePath))) await fs.rm(f, { force: true }).catch(() => {});
      await fs.rm(spec.logPath, { force: true }).catch(() => {});
      throw failure;
    }
  }

  /** the last run's report said the project's classes (or a library's) cannot live in a repetition's own loader */
  private isolationFailed?: { why: string; scope?: 'library' | 'project' };
  /** the last run was the first of its JVM */
  private lastWasFirst = false;

  private async runFiles(spec: RunSpec): Promise<RunResult> {
    for (const f of await inProgressTraceFiles(inProgressPath(spec.tracePath))) await fs.rm(f, { force: true });
    await fs.rm(spec.tracePath, { force: true });
    // a JVM that ends (threads left running, a poisoned JVM) or has ended: the next run gets a fresh one; one run per JVM after a fallback
    if (this.jvm && (this.jvm.ending || this.jvm.exit || this.fallback !== undefined)) await this.retire();
    // adaptive exposure widened the noise: the agent reads it at the JVM's start, so a new JVM
    if (this.jvm && this.jvm.noise !== noiseKey(spec, this.o)) await this.retire();
    // PCT: the JVM's run length is far from the one learned since (its change points would miss the run)
    if (this.jvm && pctLengthStale(this.jvm.pctSteps, spec.pctSteps)) await this.retire();
    const started = Date.now();
    const jvm = (this.jvm ??= await this.start(spec));
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const log = createWriteStream(spec.logPath);
    const c: Current = { spec, started, startedAt: new Date(started).toISOString(), log, output: '', agentFailure: new AgentWriteFailureWatch(), errMarker: false, timedOut: false, done };
    log.on('error', (e) => (c.logError ??= e));
    this.current = c;
    if (jvm.repetitions === 0 && jvm.preamble) {
      c.log.write(jvm.preamble);
      c.output += jvm.preamble;
      c.agentFailure.push(jvm.preamble);
      jvm.preamble = '';
    }
    this.lastWasFirst = jvm.repetitions === 0;
    jvm.repetitions++;
    let aborted = false;
    const timer = setTimeout(() => {
      c.timedOut = true;
      void stopGroup(jvm.child);
    }, this.o.timeoutSeconds * 1000);
    const onAbort = () => {
      aborted = true;
      void stopGroup(jvm.child, 500);
    };
    this.signal?.addEventListener('abort', onAbort, { once: true });
    if (this.signal?.aborted) onAbort();
    if (jvm.exit) done();
    else jvm.child.stdin?.write(`run\t${inProgressPath(spec.tracePath)}\t${spec.execution}\t${spec.seed}\n`);
    await finished;
    clearTimeout(timer);
    this.signal?.removeEventListener('abort', onAbort);
    // a run that ended the JVM: all of its output
    if (!c.report && jvm.exit === undefined) await jvm.exited;
    if (!c.report) await new Promise((r) => setImmediate(r));
    this.current = undefined;
    await new Promise<void>((resolve) => log.end(resolve));
    return this.finish(c, jvm, aborted);
  }

  private async finish(c: Current, jvm: Jvm, aborted: boolean): Promise<RunResult> {
    const { spec } = c;
    const o = this.o;
    const exit = c.report ? undefined : jvm.exit;
    if (exit?.error) {
      const message = (exit.error as NodeJS.ErrnoException).code === 'ENOENT' ? `command not found: ${this.plan.command[0]}` : exit.error.message;
      throw new CommandStartError(`cannot start ${this.plan.command.join(' ')}: ${message}`);
    }
    const durationMs = Date.now() - c.started;
    const base = { index: spec.index, execution: spec.execution, seed: spec.seed, logPath: spec.logPath, durationMs, exitCode: exit ? exit.code : c.report?.outcome === 'fail' ? 1 : 0, signal: exit?.sig ?? null };
    if (aborted) {
      for (const f of await inProgressTraceFiles(inProgressPath(spec.tracePath))) await fs.rm(f, { force: true });
      return { ...base, outcome: 'fail', reason: 'killed', detail: 'stopped by the user', traces: [], aborted: true, empty: true };
    }
    if (c.logError) throw new TraceWriteError(spec.logPath, c.logError);
    c.agentFailure.end();
    if (c.agentFailure.failure) throw c.agentFailure.failure;
    if (c.report?.outcome === 'norun') {
      // the test did not run (testDidNotRun.ts): not a failing run, its trace is never finished (the analysis never sees it)
      for (const f of await inProgressTraceFiles(inProgressPath(spec.tracePath))) await fs.rm(f, { force: true });
      const why = typeof c.report.notRun === 'string' && c.report.notRun ? boundedText(c.report.notRun).replace(/[.\s]+$/, '') : 'no test ran';
      return { ...base, outcome: 'fail', reason: 'exit-code', detail: `the test did not run: ${why}`, notRun: why, traces: [], aborted: false, empty: true };
    }
    const traces = await inProgressTraceFiles(inProgressPath(spec.tracePath));
    const empty = traces.length === 0;
    // the repetition's own forcing report (the agent writes one at the end of each segment)
    const { uncaught, forcing, pct } = await readRunReports(traces);
    let outcome: TraceOutcome;
    const r = c.report;
    if (r?.isolation && this.fallback === undefined) this.isolationFailed = { why: r.isolation, ...(r.isolationScope ? { scope: r.isolationScope } : {}) };
    let dropped = 0;
    if (!r && c.timedOut) for (const t of traces) dropped += await countDroppedEvents(t);
    if (!r && c.timedOut && dropped > 0) {
      outcome = { outcome: 'fail', reason: 'recorder-blocked', detail: `recorder blocked: its trace writer fell behind (${dropped} events dropped) and the run did not end within ${o.timeoutSeconds} s` };
    } else if (!r && c.timedOut) outcome = { outcome: 'fail', reason: 'timeout', detail: `no end within ${o.timeoutSeconds} s; process tree killed` };
    else if (!r && exit?.sig) outcome = { outcome: 'fail', reason: 'killed', detail: `terminated by signal ${exit.sig}` };
    else if (uncaught.length > 0) {
      const u = uncaught[0];
      // the test passed by JUnit's report: the exception (a worker thread's) is not in it, say so
      outcome = { outcome: 'fail', reason: 'exception', detail: uncaughtDetail(u, r?.outcome === 'pass') };
    } else if (r && r.outcome === 'fail') {
      const location = r.frames ? ownFrame(r.frames.filter((f) => typeof f === 'string')) : undefined;
      outcome = { outcome: 'fail', reason: 'exit-code', detail: 'the test failed', ...(r.message ? { message: boundedText(r.message) } : {}), ...(location ? { location } : {}) };
    } else if (!r && exit && exit.code !== 0) {
      const said = parseFailureOutput(c.output);
      outcome = { outcome: 'fail', reason: 'exit-code', detail: `exit code ${exit.code}`, ...(said ? { message: said.message, ...(said.location ? { location: said.location } : {}) } : {}) };
    } else if (o.failOnOutput && o.failOnOutput.test(c.output)) {
      const m = o.failOnOutput.exec(c.output);
      outcome = { outcome: 'fail', reason: 'output-match', detail: `output matched /${o.failOnOutput.source}/: ${m?.[0].slice(0, 200)}` };
    } else outcome = { outcome: 'pass', reason: 'ok' };

    const noiseAt = o.plan || spec.pct ? undefined : (spec.noiseAt ?? o.noiseAt);
    const pctRun = !o.plan && (o.pct || spec.pct);
    const header: HeaderInfo = {
      execution: spec.execution,
      program: o.name,
      noise: o.plan || pctRun ? 0 : (spec.noise ?? o.noise),
      ...(noiseAt && noiseAt !== 'accesses' ? { noiseAt } : {}),
      ...(pctRun ? { noiseMode: 'pct' as const } : {}),
      seed: spec.seed,
      include: o.include,
      exclude: o.exclude,
      startedAt: c.startedAt,
      ...(o.plan ? { plan: { name: o.plan.plan.name, file: o.plan.file } } : {}),
    };
    const finishedTraces = await finishTraces(empty ? [inProgressPath(spec.tracePath)] : traces, outcome, header, o.failOnOutput, empty);
    return { ...base, ...outcome, traces: finishedTraces, aborted: false, empty, ...(forcing ? { forcing } : {}), ...(pct ? { pct } : {}) };
  }

  /** Waits for a JVM that ends on its own (briefly), else stops it. */
  private async retire(): Promise<void> {
    const jvm = this.jvm;
    this.jvm = undefined;
    if (!jvm) return;
    jvm.child.stdin?.end();
    if (!jvm.exit) {
      const t = setTimeout(() => void stopGroup(jvm.child, 500), 5000);
      await jvm.exited;
      clearTimeout(t);
    }
    await stopGroup(jvm.child, 0); // leftover processes of the group
  }

  private async kill(): Promise<void> {
    const jvm = this.jvm;
    this.jvm = undefined;
    if (jvm && !jvm.exit) await stopGroup(jvm.child, 500);
  }

  /** Ends the JVM (no more runs). */
  async close(): Promise<void> {
    await this.retire();
  }
}
