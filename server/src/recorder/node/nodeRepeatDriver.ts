/**
 * The process that runs many runs of one JS/TS test (nodeRepetitions.ts; docs/recorder-node.md
 * "Repetitions in one process"), bundled on its own as dist/braid-node-repeat.cjs. Its main thread
 * reads one run per stdin line (`{"out","execution","seed","noise"}`) and runs it as a **worker
 * thread of its own**: a new V8 context with a fresh module graph (CommonJS cache and ES-module map
 * alike), globals, node:test harness and timers, so no module state of one repetition reaches the
 * next — while Node itself, its built-in modules and the process stay warm. The worker loads Braid's
 * hook with the run's options (as a process of the per-process path gets them through
 * BRAID_NODE_OPTIONS), then the TypeScript loader (tsx's CommonJS hooks, which its `--import tsx`
 * installs in the main thread only), then the test file, as `node --test` runs it in a child process:
 * same `process.argv[1]`, same `--test-name-pattern`, same TAP output, exit code 1 on a failed test.
 * A mocha spec (mochaRepetitions.ts) is run in its worker with mocha's programmatic API (`runMocha`).
 *
 * Each worker's output is passed on as it comes; when the worker has exited and its output streams
 * have ended, a marker line `@@braid-repetition@@{"execution","exit"}` follows on stdout and on stderr
 * (the session reads both streams up to their marker). An uncaught error that ends the worker is
 * printed as Node prints it (its stack), so the output reads as a process' would.
 */
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { NodeRecorderOptions } from './runtime';
import { isInstrumentedMessage, type InstrumentedMessage, type InstrumentedSources } from './instrumentedSources';

/** The marker the session waits for (the Java launcher's, repeatedRuns.ts REPETITION_MARK). */
const MARK = '@@braid-repetition@@';

/** What the session hands the driver (a JSON file named by its first argument). */
export interface NodeRepeatConfig {
  /** the test file (absolute) */
  file: string;
  /** load it with require() (CommonJS for Node), else import() */
  commonJs: boolean;
  /** register tsx's CommonJS hooks in each worker first (the command had `--import tsx`) */
  tsx: boolean;
  /** the worker's own Node options: node:test's (`--test-name-pattern=…`) */
  execArgv: string[];
  /** dist/braid-node-hook.mjs */
  hook: string;
  /** the hook's options, without the run's own (out, execution, seed, noise) */
  options: NodeRecorderOptions;
  /** a mocha spec: mocha's entry module (resolved from the working folder) and the command's --grep */
  mocha?: { main: string; grep?: string };
}

interface RunLine {
  out: string;
  execution: string;
  seed: string;
  noise: number;
}

interface WorkerInput {
  config: NodeRepeatConfig;
  run: RunLine;
  /** the sources earlier repetitions instrumented (instrumentedSources.ts) */
  instrumented: Map<string, string>;
}

function streamEnd(s: NodeJS.ReadableStream | null | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!s) return resolve();
    s.once('end', () => resolve());
    s.once('error', () => resolve());
  });
}

async function driver(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2], 'utf8')) as NodeRepeatConfig;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  // what the workers instrumented, for the next ones (a key names the source's hash: an edited file is a new key)
  const instrumented = new Map<string, string>();
  for await (const text of lines) {
    if (!text.trim()) continue;
    const run = JSON.parse(text) as RunLine;
    const w = new Worker(__filename, { workerData: { config, run, instrumented } satisfies WorkerInput, argv: [config.file], execArgv: config.execArgv, stdout: true, stderr: true });
    w.stdout.on('data', (d: Buffer) => process.stdout.write(d));
    w.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    w.on('message', (m: unknown) => {
      if (isInstrumentedMessage(m)) instrumented.set(m.braidInstrumented[0], m.braidInstrumented[1]);
    });
    const ended = Promise.all([streamEnd(w.stdout), streamEnd(w.stderr)]);
    let error: unknown;
    w.on('error', (e) => (error = e));
    const exit = await new Promise<number>((resolve) => w.once('exit', resolve));
    await ended;
    if (error !== undefined) {
      const e = error as { stack?: unknown };
      process.stderr.write(`${typeof e?.stack === 'string' ? e.stack : String(error)}\n`);
    }
    const marker = `${MARK}${JSON.stringify({ execution: run.execution, exit })}\n`;
    process.stdout.write(marker);
    process.stderr.write(marker);
  }
}

async function repetition(): Promise<void> {
  const { config, run, instrumented } = workerData as WorkerInput;
  // as a process of `node --test` runs the file: argv[1] is the test file (the hook's entry rules, the trace's program)
  process.argv.splice(1, 1);
  (globalThis as { __braidRepetition?: NodeRecorderOptions }).__braidRepetition = { ...config.options, out: run.out, execution: run.execution, seed: run.seed, noise: run.noise };
  // the test file is required (tsx's CommonJS hooks compile a .ts one): the hook registers its ES-module
  // loader hooks — a loader thread of their own, the largest part of a repetition's start — only at
  // the first import(), as for a process whose entry script is CommonJS
  (globalThis as { __braidRepetitionCommonJs?: boolean }).__braidRepetitionCommonJs = config.commonJs;
  const sources: InstrumentedSources = {
    get: (key) => instrumented.get(key),
    set: (key, code) => {
      instrumented.set(key, code);
      parentPort?.postMessage({ braidInstrumented: [key, code] } satisfies InstrumentedMessage);
    },
  };
  (globalThis as { __braidInstrumented?: InstrumentedSources }).__braidInstrumented = sources;
  await import(pathToFileURL(config.hook).href);
  const req = createRequire(config.file);
  if (config.tsx) {
    // tsx's `--import tsx` registers in the main thread only; its CommonJS API registers in this one
    const pkg = req.resolve('tsx/package.json');
    const exported = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports?: Record<string, { require?: { default?: string } }> }).exports?.['./cjs/api']?.require?.default;
    if (!exported) throw new Error(`tsx at ${path.dirname(pkg)} has no CommonJS API (tsx/cjs/api): record with --fresh-process`);
    (req(path.join(path.dirname(pkg), exported)) as { register(): unknown }).register();
  }
  if (config.mocha) await runMocha(config.mocha, config.file, config.commonJs);
  else if (config.commonJs) req(config.file);
  else await import(pathToFileURL(config.file).href);
}

interface MochaInstance {
  addFile(file: string): void;
  loadFilesAsync(): Promise<void>;
  run(done: (failures: number) => void): unknown;
}

/**
 * One mocha run of the spec in this worker, with mocha's programmatic API as its CLI runs it: a
 * fresh Mocha (mocha's defaults, the command's --grep), the spec required — a CommonJS one through
 * Node's CommonJS loader, where the hook instruments it and the kept sources apply — or imported (an
 * ES module: mocha's import() as the hook has it do in a mocha process, process.features.require_module
 * false, so the spec's own imports go through the loader hooks), then run; the exit code is the
 * number of failures (at most 255), as mocha's CLI sets it.
 */
async function runMocha(m: { main: string; grep?: string }, file: string, commonJs: boolean): Promise<void> {
  if (!commonJs && (process.features as { require_module?: boolean }).require_module) {
    Object.defineProperty(process.features, 'require_module', { value: false, configurable: true, enumerable: true });
  }
  const Mocha = createRequire(m.main)(m.main) as new (o: { grep?: string }) => MochaInstance;
  // the program as in the mocha process npx starts (node_modules/.bin/mocha: the trace header's program
  // is then the execution's name, as there) — set after the hook has started, which took the spec for
  // the entry (its ES-module hooks are registered at the first import() for a CommonJS spec, not in
  // every repetition)
  process.argv[1] = path.join(path.dirname(path.dirname(m.main)), '.bin', 'mocha');
  const mocha = new Mocha(m.grep !== undefined ? { grep: m.grep } : {});
  mocha.addFile(file);
  // run() requires a CommonJS spec itself; loadFilesAsync tells it the files are loaded
  if (!commonJs) await mocha.loadFilesAsync();
  mocha.run((failures) => {
    process.exitCode = Math.min(failures, 255);
  });
}

if (isMainThread) {
  driver().catch((e) => {
    process.stderr.write(`Braid repetitions: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(70);
  });
} else {
  repetition().catch((e) => {
    // as an uncaught error of the program: Node prints it, the hook's monitor records it, exit code 1
    setImmediate(() => {
      throw e;
    });
  });
}
