/**
 * Options of `braid record` and their command-line parsing.
 */
import { DEFAULT_PCT_DEPTH, MAX_PCT_DEPTH, PctOptions } from './pctNoise';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NoisePlan } from '../../engine/noise/noisePlan';
import { NoisePlanError, parseNoisePlan } from '../../engine/noise/noisePlanFile';
import { deriveNodeName, recorderFor } from '../node/nodeRunner';
import { outputPattern } from './outputPattern';
import { deniedIncludeNotes } from '../java/jdkDenied';

/** Where uniform noise goes (`braid record --noise-at`). */
export type NoiseAt = 'accesses' | 'sync' | 'all';

export interface RecordOptions {
  /** command to run (program and arguments), e.g. ['java', '-cp', 'out', 'bank.Bank'] */
  command: string[];
  /** number of runs (executions) to record */
  runs: number;
  /** noise probability p at each instrumented point (0 = off) */
  noise: number;
  /**
   * where the uniform noise goes (`--noise-at`, agent option noiseAt, docs/noise.md): `accesses`
   * (default: field/array accesses, library calls, thread start, hand-offs), `sync` (only before
   * monitor enter and `Lock.lock`, at park/unpark; wait/notify/await/signal and unlock hold the lock,
   * so they get none), or `all` (both)
   */
  noiseAt?: NoiseAt;
  /** packages or classes to instrument (empty = all application classes) */
  include: string[];
  exclude: string[];
  /** folder of the traces */
  outDir: string;
  /**
   * `outDir` is the default `.braid/traces/<name>-<time>`: a recording never shares it; when it
   * exists (a second recording started in the same second), the recording takes `<outDir>-2`,
   * `-3`, … (made with an exclusive mkdir, docs/recorder.md)
   */
  freshOutDir?: boolean;
  /** per-run time limit in seconds; the process tree is killed after it */
  timeoutSeconds: number;
  /** a run whose output (stdout or stderr) matches this fails */
  failOnOutput?: RegExp;
  /** runs in parallel */
  jobs: number;
  /** base noise seed; run k uses seed + k */
  seed: number;
  /** name used in execution ids and file names (default: derived from the command) */
  name: string;
  /** working directory of the command */
  cwd: string;
  /** extra environment for the command */
  env?: Record<string, string>;
  /** agent jar (default: next to the CLI bundle) */
  agentJar?: string;
  /** extra raw agent options, key=value */
  agentOptions?: string[];
  /**
   * `--shard K/N`: record only the K-th of N equal parts of the runs (run
   * indices, execution ids and seeds as in the whole recording), so N
   * machines record one recording between them.
   */
  shard?: { index: number; count: number };
  /** noise plan (`--plan FILE`, docs/noise.md): noise only at its points; `noise` is then 0 */
  plan?: { file: string; plan: NoisePlan };
  /** false: runs with noise and an outcome but no trace kept (agent option record=false; for pinpoint's many runs) */
  record?: boolean;
  /** the agent appends its catalogue of instrumented points to this file (agent option points=FILE) */
  pointsFile?: string;
  /** steps run before the recording (the editor's compile step); informative here, kept in recording.json so a fix check can rebuild */
  prepare?: { command: string[]; cwd: string }[];
  /**
   * one JVM per run even for a JUnit console launcher command, whose runs are otherwise repetitions
   * in one JVM (`--fresh-jvm`, repeatedRuns.ts): for tests whose static state must start fresh;
   * for the Node.js recorder one process per run even for a `node --test` command, whose runs are
   * otherwise repetitions in one process (`--fresh-process`, node/nodeRepetitions.ts)
   */
  freshJvm?: boolean;
  /**
   * repetitions in one JVM: every jar stays shared by the repetitions (`--shared-libraries`); by
   * default the jars holding included classes (the libraries under test) are loaded afresh for each
   * repetition with the project's class folders (repeatedRuns.ts, libraryJars.ts)
   */
  sharedLibraries?: boolean;
  /** notes for the user about the options given (e.g. --noise ignored because of --plan) */
  notes?: string[];
  /**
   * which recorder runs the command (`--recorder`; default by recorderFor: a Node.js command, or
   * include globs naming JS/TS files, get the Node.js recorder, docs/recorder-node.md); absent = java
   */
  recorder?: 'java' | 'node';
  /**
   * schedule-based noise (`--noise-mode pct`, docs/noise.md "PCT", pctNoise.ts): the Java agent's
   * PCT scheduler instead of uniform noise (`noise` is then 0)
   */
  pct?: PctOptions;
  /**
   * `braid record --noise-mode adaptive` (docs/noise.md "Adaptive exposure"): the runs' noise widens
   * while they do not fail (adaptiveExposure.ts, deciding when a level's 20th run finishes); read by the
   * command, not by recordRuns (which takes the exposure as its RecordControl)
   */
  adaptive?: boolean;
}

/** The runs keep no trace: `record: false`, or the agent option record=false given with --agent-option. */
export function keepsNoTrace(o: RecordOptions): boolean {
  return o.record === false || (o.agentOptions ?? []).some((a) => /^record=false$/.test(a.trim()));
}

/** Reads and checks a plan file for `--plan` (relative to cwd); a bad plan is a usage error naming the file and field. */
export function loadPlanOption(file: string, cwd: string): { file: string; plan: NoisePlan } {
  const abs = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--plan ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a plan file' : (e as Error).message}`);
  }
  try {
    return { file: abs, plan: parseNoisePlan(text, file) };
  } catch (e) {
    if (e instanceof NoisePlanError) throw new UsageError(`--plan ${e.message}`);
    throw e;
  }
}

/** The run indices [from, to) of a shard (all runs without one). */
export function shardRange(o: Pick<RecordOptions, 'runs' | 'shard'>): { from: number; to: number } {
  if (!o.shard) return { from: 0, to: o.runs };
  const { index, count } = o.shard;
  return { from: Math.floor(((index - 1) * o.runs) / count), to: Math.floor((index * o.runs) / count) };
}

export const RECORD_USAGE = `braid record --runs N [options] -- <command...>
  Runs <command> N times with the Braid Java agent (through JAVA_TOOL_OPTIONS, so it also works
  under Maven and Gradle), one trace per run, each ending with its pass/fail outcome.
  --runs N              number of runs (default 100)
  --noise P             noise probability at each instrumented point, 0..1 (default 0.1; 0 = off)
  --noise-at WHERE      where that noise goes: accesses (default: field and array accesses, library
                        calls, thread start, hand-offs), sync (before synchronized blocks and
                        Lock.lock, at park/unpark, when the thread holds no lock) or all (both);
                        Node.js: all = wide noise (timers up to twice their delay late, awaits and
                        fs calls up to 8 ms; docs/recorder-node.md "Noise")
  --noise-mode MODE     uniform (default: the noise above), pct (a random priority per thread,
                        d - 1 priority change points per run, lower threads wait at each
                        instrumented point; decided by event counts and the seed, not by time;
                        Node.js: PCT for the event loop) or adaptive (the noise above to start,
                        widened after 20 runs of a level with fewer than 1 failure in 20: sync
                        points, both at twice the noise, both at 0.3, then pct; each run's trace
                        header says its noise, recording.json the levels)
  --pct-depth D         pct: the bug depth d (default 3)
  --include PKG...      packages/classes to record (default: all application classes);
                        JDK classes only when named, e.g. --include java.util.ArrayList
  --exclude PKG...      packages/classes not to record
  --out DIR             trace folder (default .braid/traces/<name>-<time>)
  --timeout S           per-run time limit in seconds; the process tree is killed (default 60)
  --fail-on-output RE   a run whose output matches the regular expression RE fails
  --jobs J              runs in parallel (default 1; "auto" = number of cores)
  --seed S              base noise seed (run k uses S+k; default random)
  --name NAME           name of the executions (default: the main class or tool name)
  --agent-option K=V    extra agent option (repeatable)
  --shard K/N           record only the K-th of N parts of the --runs runs (same execution ids and
                        seeds as one recording: give every shard the same --runs, --seed and --name)
  --fresh-jvm           one JVM per run; without it, a JUnit console launcher command (java -jar
                        junit-platform-console-standalone.jar … --select-method C#m) runs its runs
                        as repetitions in one JVM, each loading the project's class folders and the
                        jars holding --include'd classes afresh (their static state starts fresh)
  --shared-libraries    repetitions in one JVM: every jar stays shared (only the project's class
                        folders are loaded afresh per repetition)
  --fresh-process       one Node.js process per run; without it, a node --test command of one
                        file runs its runs as repetitions in one process, each in a worker thread
                        with a fresh module graph (docs/recorder-node.md)
  --plan FILE           noise plan (docs/noise.md, e.g. written by braid pinpoint): noise only at
                        its points, with their probability and kind; --noise is then ignored
  --recorder java|node  the recorder (default: node for node, npm, npx, tsx, mocha, jest, vitest… or
                        include globs naming .js/.ts files, docs/recorder-node.md; java otherwise)
  A run fails on a non-zero exit code, a timeout, matching output, or an uncaught exception in
  any thread. Ctrl-C stops; finished traces are kept.`;

export class UsageError extends Error {}

/** The words after a list flag up to the next flag, commas splitting words too; returns them and the next index. */
export function takeList(argv: string[], i: number): [string[], number] {
  const out: string[] = [];
  while (i < argv.length && !argv[i].startsWith('-')) {
    for (const part of argv[i].split(',')) if (part.trim()) out.push(part.trim());
    i++;
  }
  return [out, i];
}

function number(flag: string, value: string | undefined, check: (n: number) => boolean, what: string): number {
  if (value === undefined) throw new UsageError(`${flag} needs a value (${what})`);
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`${flag} ${value}: expected ${what}`);
  return n;
}

/** Longest per-run time limit, in seconds (a day): Node's timers overflow past 2^31 - 1 ms (24.8 days) to 1 ms. */
export const MAX_TIMEOUT_SECONDS = 86_400;

/** Name of the executions, from the command: the Java main class, the jar, or the tool. */
export function deriveName(command: string[]): string {
  const tool = path.basename(command[0] ?? 'run').replace(/\.(exe|cmd|bat)$/i, '');
  if (tool === 'java') {
    const withValue = new Set(['-cp', '-classpath', '--class-path', '-p', '--module-path', '--add-modules', '--add-opens', '--add-exports']);
    for (let i = 1; i < command.length; i++) {
      const a = command[i];
      if (a === '-jar' && command[i + 1]) return path.basename(command[i + 1]).replace(/\.jar$/, '');
      if (withValue.has(a)) {
        i++;
        continue;
      }
      if (a.startsWith('-')) continue;
      return a;
    }
  }
  return tool;
}

export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'run';
}

function timestamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export function parseRecordArgs(argv: string[], cwd = process.cwd()): RecordOptions {
  const dash = argv.indexOf('--');
  const flags = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  if (command.length === 0) throw new UsageError('no command to record: put it after "--", e.g. braid record --runs 100 -- java -cp out bank.Bank');
  let runs = 100;
  let noise = 0.1;
  let include: string[] = [];
  let exclude: string[] = [];
  let outDir: string | undefined;
  let timeoutSeconds = 60;
  let failOnOutput: RegExp | undefined;
  let jobs = 1;
  let seed = Math.floor(Math.random() * 1_000_000_000);
  let name: string | undefined;
  const agentOptions: string[] = [];
  let shard: RecordOptions['shard'];
  let seedGiven = false;
  let planFile: string | undefined;
  let noiseGiven = false;
  let noiseAt: NoiseAt | undefined;
  let freshJvm = false;
  let sharedLibraries = false;
  let recorder: 'java' | 'node' | undefined;
  let noiseMode: 'uniform' | 'pct' | 'adaptive' = 'uniform';
  let pctDepth: number | undefined;
  for (let i = 0; i < flags.length; ) {
    const flag = flags[i];
    const value = flags[i + 1];
    switch (flag) {
      case '--runs':
        runs = number(flag, value, (n) => Number.isInteger(n) && n >= 1, 'a whole number ≥ 1');
        i += 2;
        break;
      case '--noise':
        noise = number(flag, value, (n) => n >= 0 && n <= 1, 'a probability between 0 and 1');
        noiseGiven = true;
        i += 2;
        break;
      case '--noise-at':
        if (value !== 'accesses' && value !== 'sync' && value !== 'all') throw new UsageError(`--noise-at needs accesses, sync or all, got "${value ?? ''}"`);
        noiseAt = value;
        i += 2;
        break;
      case '--noise-mode':
        if (value !== 'uniform' && value !== 'pct' && value !== 'adaptive') throw new UsageError(`--noise-mode needs uniform, adaptive or pct, got "${value ?? ''}"`);
        noiseMode = value;
        i += 2;
        break;
      case '--pct-depth':
        pctDepth = number(flag, value, (n) => Number.isInteger(n) && n >= 1 && n <= MAX_PCT_DEPTH, `a whole number from 1 to ${MAX_PCT_DEPTH}`);
        i += 2;
        break;
      case '--include': {
        const [list, next] = takeList(flags, i + 1);
        if (list.length === 0) throw new UsageError('--include needs at least one package or class');
        include = include.concat(list);
        i = next;
        break;
      }
      case '--exclude': {
        const [list, next] = takeList(flags, i + 1);
        if (list.length === 0) throw new UsageError('--exclude needs at least one package or class');
        exclude = exclude.concat(list);
        i = next;
        break;
      }
      case '--out':
        if (!value) throw new UsageError('--out needs a folder');
        outDir = value;
        i += 2;
        break;
      case '--timeout':
        timeoutSeconds = number(flag, value, (n) => n > 0 && n <= MAX_TIMEOUT_SECONDS, `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
        i += 2;
        break;
      case '--fail-on-output':
        if (value === undefined) throw new UsageError('--fail-on-output needs a regular expression');
        {
          // matched in linear time (outputPattern.ts): a backtracking pattern cannot hang the runs
          const re = outputPattern(value);
          if (re instanceof Error) throw new UsageError(`--fail-on-output ${value}: ${re.message}`);
          failOnOutput = re;
        }
        i += 2;
        break;
      case '--jobs':
        jobs = value === 'auto' ? os.availableParallelism() : number(flag, value, (n) => Number.isInteger(n) && n >= 1, 'a whole number ≥ 1 or "auto"');
        i += 2;
        break;
      case '--seed':
        seed = number(flag, value, (n) => Number.isSafeInteger(n) && n >= 0, 'a whole number ≥ 0');
        seedGiven = true;
        i += 2;
        break;
      case '--name':
        if (!value) throw new UsageError('--name needs a value');
        name = value;
        i += 2;
        break;
      case '--shard': {
        const m = /^(\d+)\/(\d+)$/.exec(value ?? '');
        if (!m) throw new UsageError(`--shard needs K/N, e.g. --shard 2/4, got "${value ?? ''}"`);
        const index = Number(m[1]);
        const count = Number(m[2]);
        if (count < 1 || index < 1 || index > count) throw new UsageError(`--shard ${value}: K must be from 1 to N`);
        shard = { index, count };
        i += 2;
        break;
      }
      case '--agent-option':
        if (!value || !value.includes('=')) throw new UsageError('--agent-option needs key=value');
        agentOptions.push(value);
        i += 2;
        break;
      case '--fresh-jvm':
      case '--fresh-process':
        freshJvm = true;
        i += 1;
        break;
      case '--shared-libraries':
        sharedLibraries = true;
        i += 1;
        break;
      case '--recorder':
        if (value !== 'java' && value !== 'node') throw new UsageError(`--recorder needs java or node, got "${value ?? ''}"`);
        recorder = value;
        i += 2;
        break;
      case '--plan':
        if (!value || value.startsWith('--')) throw new UsageError('--plan needs a noise plan file (e.g. .braid/plans/<test>.json)');
        planFile = value;
        i += 2;
        break;
      default:
        throw new UsageError(`unknown option ${flag} for braid record`);
    }
  }
  if (shard && !seedGiven) throw new UsageError('--shard needs --seed S, the same on every shard, so that the runs of all shards get distinct seeds');
  const plan = planFile !== undefined ? loadPlanOption(planFile, cwd) : undefined;
  const notes: string[] = [];
  if (plan) {
    if (noiseGiven && noise > 0) notes.push(`--noise ${noise} is ignored: the plan ${planFile} decides where noise goes`);
    noise = 0;
  }
  recorder ??= recorderFor(command, include);
  // an include the Java agent never instruments (com.sun.*, sun.*, java.lang, …): said, not silently empty
  if (recorder === 'java') notes.push(...deniedIncludeNotes(include));
  if (pctDepth !== undefined && noiseMode !== 'pct') throw new UsageError('--pct-depth is for --noise-mode pct');
  // each shard would climb on its own runs' outcomes: the shards' runs would not share one noise per run index
  if (noiseMode === 'adaptive' && shard) throw new UsageError('--noise-mode adaptive and --shard: each shard would widen the noise on its own runs; use uniform or pct with shards');
  let pct: PctOptions | undefined;
  if (noiseMode === 'pct') {
    if (plan) throw new UsageError(`--noise-mode pct and --plan ${planFile}: the plan decides where noise goes; use one of them`);
    pct = { depth: pctDepth ?? DEFAULT_PCT_DEPTH };
    if (noiseGiven && noise > 0) notes.push(`--noise ${noise} is ignored: --noise-mode pct schedules the threads instead`);
    noise = 0;
  }
  const finalName = sanitizeName(name ?? (recorder === 'node' ? deriveNodeName(command) : deriveName(command)));
  return {
    command,
    runs,
    noise,
    ...(noiseAt ? { noiseAt } : {}),
    include,
    exclude,
    outDir: path.resolve(cwd, outDir ?? path.join('.braid', 'traces', `${finalName}-${timestamp()}`)),
    ...(outDir === undefined ? { freshOutDir: true } : {}),
    timeoutSeconds,
    failOnOutput,
    jobs,
    seed,
    name: finalName,
    cwd,
    agentOptions,
    ...(shard ? { shard } : {}),
    ...(plan ? { plan } : {}),
    ...(freshJvm ? { freshJvm } : {}),
    ...(sharedLibraries ? { sharedLibraries } : {}),
    ...(notes.length ? { notes } : {}),
    ...(recorder === 'node' ? { recorder } : {}),
    ...(pct ? { pct } : {}),
    ...(noiseMode === 'adaptive' ? { adaptive: true } : {}),
  };
}

