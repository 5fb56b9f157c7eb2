/**
 * Programmatic API of the recorder (used by `braid record` and the language server): runs the
 * command N times, up to `jobs` at once, and reports each finished run.
 */
import { PctOptions, PctRunLength } from './pctNoise';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { findAgentJar } from '../java/agentJar';
import { NoiseAt, RecordOptions, shardRange } from './recordOptions';
import { RunResult, runOnce, RunSpec } from './runOnce';
import { lockTraceFolder } from './recordingLock';
import { RecordWriteError } from './writeFailure';
import { writeRecordingManifest } from './recordingManifest';
import { NotReached, notReachedRun } from './notReached';
import { RepeatSession, repeatPlanFor } from '../java/repeatedRuns';
import { findNodeHook } from '../node/nodeRunner';
import { NodeRepeatSession, nodeRepeatPlanFor } from '../node/nodeRepetitions';

export interface RecordProgress {
  type: 'run';
  run: RunResult;
  done: number;
  total: number;
  passed: number;
  failed: number;
  /** something the user should know from this run on (repeatedRuns.ts: each run is a JVM of its own now, and why) */
  note?: string;
}

export interface RecordSummary {
  outDir: string;
  total: number;
  passed: number;
  failed: number;
  /** runs whose JVMs recorded no event (check --include) */
  empty: number;
  /**
   * JVMs started when the runs were repetitions in one JVM (repeatedRuns.ts: a JUnit console
   * launcher command without --fresh-jvm); absent when each run was a JVM of its own
   */
  jvms?: number;
  /**
   * repetitions in one JVM: whether each repetition loaded the project's classes afresh (fresh static
   * state), why not when it could not (each run then a JVM of its own), and the failures of the runs
   * that were the first of their JVM against those of the later ones
   */
  repetitions?: RepetitionFigures;
  /**
   * the Node.js recorder: the processes that ran the runs as repetitions (node/nodeRepetitions.ts,
   * a `node --test` command without --fresh-process), or why each run was a process of its own
   */
  nodeRepetitions?: { processes: number; because?: string };
  interrupted: boolean;
  /** `beforeRun` said to start no further run (e.g. `braid test --runs auto` had its evidence) */
  stoppedEarly?: boolean;
  /**
   * the recording stopped because a file could not be written (a full disk…): the runs finished
   * before are kept and listed, the unfinished runs' files are deleted
   */
  writeFailure?: RecordWriteError;
  runs: RunResult[];
  traces: string[];
  durationMs: number;
  /**
   * runs that never reached the program (notReached.ts: main class not found, command missing, no
   * included class loaded) or in which the test did not run (`testDidNotRun`: no test matched the
   * selector, its discovery failed, it was skipped): not counted, their traces deleted (their logs
   * kept), their execution ids in `executions`; `stopped` when the recording stopped because its
   * first runs all ended like this
   */
  notReached?: NotReached & { runs: number; stopped: boolean; executions: string[] };
}

export interface RepetitionFigures {
  /** every repetition loaded the project's classes in a class loader of its own */
  freshStatic: boolean;
  /** why runs were JVMs of their own (static state could not be made fresh in one JVM) */
  sharedBecause?: string;
  /** the jars of the libraries under test (file names) that every repetition loaded afresh too (absent: none) */
  freshLibraries?: string[];
  /** why those jars were shared by the repetitions after all (a run showed they cannot be loaded afresh) */
  librariesSharedBecause?: string;
  firstRuns: number;
  firstFailed: number;
  laterRuns: number;
  laterFailed: number;
}

/**
 * The note when failures come only from the first run of a JVM (a JVM's start-up: class loading, a
 * cold JIT, a static initializer shared by the repetitions), or undefined.
 */
export function firstRunOnlyNote(f: RepetitionFigures): string | undefined {
  if (f.firstFailed === 0 || f.laterFailed > 0 || f.laterRuns < 5) return undefined;
  return `the failures came only in the first run of a JVM (${f.firstFailed} of ${f.firstRuns} first runs failed, 0 of ${f.laterRuns} later runs): the bug needs a fresh JVM (class loading, a cold JIT${f.freshStatic ? '' : ', static state'}); record with --fresh-jvm`;
}

/**
 * The note when runs after a JVM's first fail far more than first runs (a JVM's first run fails less
 * than half as often, later runs at least 9 in 10, at least 10 later runs), or undefined: a repetition
 * left state behind that the next ones inherit — a library's static field (the project's own classes
 * are loaded afresh per repetition; libraries are shared), a file, a system property. The recording
 * then ranks the leaked state, not the race (metrics-shareddefault of the real corpus: 996 of 1000
 * repetitions failed because SharedMetricRegistries' default, set by the first, was still set).
 */
export function leakedStateNote(f: RepetitionFigures): string | undefined {
  if (f.laterRuns < 10 || f.firstRuns === 0 || f.laterFailed * 10 < f.laterRuns * 9) return undefined;
  if (f.firstFailed * 2 * f.laterRuns >= f.laterFailed * f.firstRuns) return undefined;
  const fresh = f.freshLibraries?.length ? `the project's classes and ${f.freshLibraries.join(', ')} are` : `only the project's own classes are`;
  const include = f.freshLibraries?.length ? '' : ' (--include its package: the jars of included libraries are loaded afresh too)';
  return `the runs after a JVM's first failed far more than first runs (${f.laterFailed} of ${f.laterRuns} later runs, ${f.firstFailed} of ${f.firstRuns} first runs): a repetition likely leaves state that the next ones inherit (a library's static field — ${fresh} loaded afresh per repetition — a file, a system property), so the failures may not be the race; record with --fresh-jvm${include}, or reset that state in the test's setup`;
}

export function runSpec(o: RecordOptions, index: number): RunSpec {
  const width = Math.max(4, String(o.runs - 1).length);
  const execution = `${o.name}-${String(index).padStart(width, '0')}`;
  return {
    index,
    execution,
    seed: String(o.seed + index),
    tracePath: path.join(o.outDir, `${execution}.trace.jsonl`),
    logPath: path.join(o.outDir, `${execution}.log`),
  };
}

/**
 * The options with their trace folder made (makeTraceFolder). In a default folder
 * (`.braid/traces/<name>-<time>[-N]`) the runs' execution ids take the folder's name
 * (`<name>-<time>[-N]-0000`): every recording's ids are its own, so the recordings of one program
 * analyzed together (`braid analyze .braid/traces`, the editor) never share an id — a shared id
 * would leave one of the two runs out of the analysis. A shard (`--shard`) keeps `<name>-NNNN`.
 */
export async function withTraceFolder<T extends RecordOptions>(o: T): Promise<T> {
  const outDir = await makeTraceFolder(o);
  // a shard keeps the ids its runs have in the whole recording (every shard gets the same --name)
  return { ...o, outDir, freshOutDir: false, ...(o.freshOutDir && !o.shard ? { name: path.basename(outDir) } : {}) };
}

/** Most `-N` suffixes tried for a default trace folder taken by other recordings. */
const MAX_FRESH_SUFFIX = 1000;

/**
 * Makes the trace folder and returns it. A default folder (`freshOutDir`, `.braid/traces/<name>-<time>`)
 * is never shared: when it exists — another recording started in the same second — the first of
 * `<outDir>-2`, `-3`, … that does not exist is made, each with an exclusive mkdir (fails if it
 * exists), so two recorders never get the same one.
 */
export async function makeTraceFolder(o: Pick<RecordOptions, 'outDir' | 'freshOutDir'>): Promise<string> {
  const cannot = (dir: string, e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    return new Error(
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `the trace folder ${dir} cannot be made: it (or a folder above it) is a file`
        : `the trace folder ${dir} cannot be made: ${(e as Error).message}`,
    );
  };
  if (!o.freshOutDir) {
    try {
      await fs.mkdir(o.outDir, { recursive: true });
    } catch (e) {
      throw cannot(o.outDir, e);
    }
    return o.outDir;
  }
  try {
    await fs.mkdir(path.dirname(o.outDir), { recursive: true });
  } catch (e) {
    throw cannot(o.outDir, e);
  }
  for (let k = 1; k <= MAX_FRESH_SUFFIX; k++) {
    const dir = k === 1 ? o.outDir : `${o.outDir}-${k}`;
    try {
      await fs.mkdir(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw cannot(dir, e);
    }
  }
  throw new Error(`the trace folder ${o.outDir} cannot be made: it and ${o.outDir}-2 … -${MAX_FRESH_SUFFIX} exist; use --out`);
}

/**
 * Control over a recording while it runs. `beforeRun(finished)` is awaited before each run starts,
 * with the number of runs finished so far; false starts no further run (the runs in progress in
 * other jobs finish and are kept). `braid test --runs auto` analyzes the runs so far there and
 * stops when the evidence is in (engine/ranking/evidenceStop.ts).
 */
export interface RecordControl {
  beforeRun?(finished: number): boolean | Promise<boolean>;
  /**
   * the noise run `index` starts with, when it may differ from the recording's (adaptive exposure,
   * adaptiveExposure.ts): uniform noise, or PCT scheduling (`pct`, noise 0) at the ladder's last level
   */
  runNoise?(index: number): { noise: number; noiseAt: NoiseAt; pct?: PctOptions } | undefined;
}

export async function recordRuns(
  o: RecordOptions,
  onProgress?: (p: RecordProgress) => void,
  signal?: AbortSignal,
  control?: RecordControl,
): Promise<RecordSummary> {
  // the Java agent's jar, or the Node.js recorder's hook (docs/recorder-node.md)
  const jar = o.recorder === 'node' ? findNodeHook() : findAgentJar(o.agentJar);
  o = await withTraceFolder(o);
  const unlock = await lockTraceFolder(o.outDir);
  try {
    if (o.record !== false) await writeRecordingManifest(o);
    return await recordLocked(o, jar, onProgress, signal, control);
  } finally {
    await unlock();
  }
}

async function recordLocked(o: RecordOptions, jar: string, onProgress?: (p: RecordProgress) => void, signal?: AbortSignal, control?: RecordControl): Promise<RecordSummary> {
  const started = Date.now();
  const runs: RunResult[] = [];
  // a shard records its part of the runs, with the indices (ids, seeds) they have in the whole recording
  const { from, to } = shardRange(o);
  const count = to - from;
  let next = from;
  let passed = 0;
  let failed = 0;
  let firstError: Error | undefined;
  let notReached: RecordSummary['notReached'];
  let stoppedEarly = false;
  // a write failure (full disk) also stops the runs in progress: their traces are deleted like at Ctrl-C
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) stop.abort();

  // PCT's run length, learned from the runs so far: from the start (--noise-mode pct), or from adaptive exposure's PCT level on
  let pctLength = o.pct ? new PctRunLength(o.pct.steps) : undefined;
  const more = () => !stop.signal.aborted && !firstError && !stoppedEarly && next < to;
  // a JUnit test through the console launcher: many runs in one JVM (repeatedRuns.ts), one JVM per worker
  const repeat = o.recorder === 'node' ? undefined : await repeatPlanFor(o, jar);
  let jvms = 0;
  // a node:test test: many runs in one Node process, each in a worker thread (node/nodeRepetitions.ts), one process per worker
  const nodeRepeat = o.recorder === 'node' ? await nodeRepeatPlanFor(o, jar) : undefined;
  const nodeRepeatCommand = nodeRepeat && 'command' in nodeRepeat ? nodeRepeat : undefined;
  let nodeProcesses = 0;
  let nodeFallback: string | undefined = nodeRepeat && 'because' in nodeRepeat ? nodeRepeat.because : undefined;
  let nodeNoteSaid: false | 'because' | 'fallback' = false;
  const repetitions: RepetitionFigures | undefined = repeat
    ? {
        freshStatic: (repeat.freshClasses !== undefined || repeat.freshLibraries !== undefined) && !repeat.sharedBecause,
        ...(repeat.sharedBecause ? { sharedBecause: repeat.sharedBecause } : {}),
        ...(repeat.freshLibraries?.length && !repeat.sharedBecause ? { freshLibraries: repeat.freshLibraries.map((j) => path.basename(j)) } : {}),
        firstRuns: 0,
        firstFailed: 0,
        laterRuns: 0,
        laterFailed: 0,
      }
    : undefined;
  async function worker(): Promise<void> {
    const session = repeat ? new RepeatSession(o, jar, repeat, stop.signal) : nodeRepeatCommand ? new NodeRepeatSession(o, jar, nodeRepeatCommand, stop.signal) : undefined;
    try {
      await work(session);
    } finally {
      await session?.close().catch(() => {});
      if (session instanceof NodeRepeatSession) {
        nodeProcesses += session.processes;
        nodeFallback ??= session.fallback;
      }
      if (session instanceof RepeatSession) jvms += session.jvms;
      if (session instanceof RepeatSession && repetitions) {
        if (!session.freshStatic) repetitions.freshStatic = false;
        if (session.fallback) repetitions.sharedBecause ??= session.fallback;
        if (session.librariesShared) repetitions.librariesSharedBecause ??= session.librariesShared;
        if (!session.freshLibraries) delete repetitions.freshLibraries;
        repetitions.firstRuns += session.firstRuns.runs;
        repetitions.firstFailed += session.firstRuns.failed;
        repetitions.laterRuns += session.laterRuns.runs;
        repetitions.laterFailed += session.laterRuns.failed;
      }
    }
  }
  async function work(session: RepeatSession | NodeRepeatSession | undefined): Promise<void> {
    while (more()) {
      if (control?.beforeRun) {
        let go: boolean;
        try {
          go = await control.beforeRun(runs.length);
        } catch (e) {
          firstError ??= e as Error;
          return;
        }
        if (!go) stoppedEarly = true;
        if (!more()) return;
      }
      const index = next++;
      // a plan decides the noise itself; otherwise the control may widen it (adaptive exposure)
      const level = o.plan || o.pct ? undefined : control?.runNoise?.(index);
      const spec: RunSpec = level ? { ...runSpec(o, index), noise: level.pct ? 0 : level.noise, noiseAt: level.noiseAt, ...(level.pct ? { pct: level.pct } : {}) } : runSpec(o, index);
      if (level?.pct) pctLength ??= new PctRunLength(level.pct.steps);
      // PCT: the run length its change points are drawn from, learned from the runs so far
      if (pctLength && (o.pct || spec.pct)) spec.pctSteps = pctLength.steps;
      let result: RunResult;
      try {
        result = session ? await session.run(spec) : await runOnce(spec, o, jar, stop.signal);
      } catch (e) {
        firstError ??= e as Error;
        if (e instanceof RecordWriteError) stop.abort();
        return;
      }
      if (result.aborted) continue;
      const never = await notReachedRun(result, o);
      if (never) {
        // not a failure of the program: nothing of it joins the analysis
        for (const t of result.traces) await fs.rm(t, { force: true }).catch(() => {});
        notReached = { ...(notReached ?? never), runs: (notReached?.runs ?? 0) + 1, stopped: notReached?.stopped ?? false, executions: [...(notReached?.executions ?? []), result.execution] };
        if (runs.length === 0) {
          // the first runs did not reach the program: the next ones will not either
          notReached.stopped = true;
          stop.abort();
        }
        continue;
      }
      runs.push(result);
      pctLength?.add(result.pct);
      if (result.outcome === 'pass') passed++;
      else failed++;
      let note: string | undefined;
      if (o.recorder !== 'node') {
        if (result.fallback) note = `static state cannot start fresh in one JVM: ${result.fallback}; each run is a JVM of its own from run ${result.index} on (slower)`;
        else if (result.librariesShared) {
          const jars = (repeat?.freshLibraries ?? []).map((j) => path.basename(j));
          note = `the libraries' static state cannot start fresh in one JVM: ${result.librariesShared}; ${jars.join(', ')} ${jars.length === 1 ? 'stays' : 'stay'} shared by the repetitions from run ${result.index} on (the project's classes are still loaded afresh; --fresh-jvm for a JVM per run)`;
        }
      }
      else if (result.fallback && nodeNoteSaid !== 'fallback') {
        note = `${result.fallback}; each run is a process of its own from run ${result.index} on (slower)`;
        nodeNoteSaid = 'fallback';
      } else if (nodeRepeat && 'because' in nodeRepeat && !nodeRepeat.program && !nodeNoteSaid) {
        note = `each run is a Node.js process of its own, not a repetition in one process: ${nodeRepeat.because}`;
        nodeNoteSaid = 'because';
      }
      onProgress?.({ type: 'run', run: result, done: runs.length, total: count, passed, failed, ...(note ? { note } : {}) });
    }
  }

  const jobs = Math.max(1, Math.min(o.jobs, count));
  try {
    await Promise.all(Array.from({ length: jobs }, () => worker()));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (firstError && runs.length === 0) throw firstError;
  runs.sort((a, b) => a.index - b.index);
  return {
    outDir: o.outDir,
    total: runs.length,
    passed,
    failed,
    empty: runs.filter((r) => r.empty).length,
    ...(repeat ? { jvms, repetitions } : {}),
    ...(nodeRepeat && !('program' in nodeRepeat && nodeRepeat.program) ? { nodeRepetitions: { processes: nodeProcesses, ...(nodeFallback ? { because: nodeFallback } : {}) } } : {}),
    interrupted: Boolean(signal?.aborted) || Boolean(firstError),
    ...(stoppedEarly ? { stoppedEarly } : {}),
    ...(firstError instanceof RecordWriteError ? { writeFailure: firstError } : {}),
    runs,
    traces: runs.flatMap((r) => r.traces),
    durationMs: Date.now() - started,
    ...(notReached ? { notReached } : {}),
  };
}
