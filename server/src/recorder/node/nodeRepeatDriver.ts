/**
 * The process that runs many runs of one JS/TS test (nodeRepetitions.ts; docs/recorder-node.md
 * "Repetitions in one process"), bundled on its own as dist/braid-node-repeat.cjs. Its main thread
 * reads one run per stdin line (`{"out","execution","seed","noise"}`) and runs it as a **worker
 * thread of its own**: a new V8 context with a fresh module graph (CommonJS cache and ES-module map
 * alike), globals, node:test harness and timers, so no module state of one repetition reaches the
 * next — while Node itself, its built-in modules and the process stay warm. The worker loads Braid's
 * hook with the run's options (as a process of the per-process path gets them through
 * BRAID_NODE_OPTIONS), the TypeScript loader (tsx's CommonJS hooks, which its `--import tsx`
 * installs in the main thread only), then the test file, as `node --test` runs it in a child process:
 * same `process.argv[1]`, same `--test-name-pattern`, same TAP output, exit code 1 on a failed test.
 * A mocha command (mochaRepetitions.ts) is run in its worker by mocha's own CLI code (`runMocha`).
 *
 * **Started ahead:** the worker of the next run is started while the current one runs, and does
 * everything that does not depend on the run before the run line arrives — the thread's start,
 * tsx's registration, loading node:test or mocha, compiling and evaluating Braid's hook bundle up to
 * the point where the hook reads its options (`globalThis.__braidRepetition`, read once when the
 * hook starts: a getter here that waits for the run; `takeRun`). So a repetition's cost is the
 * test's own. Its output before it has a run is held back and goes to its run's log; a worker that
 * ends before it gets a run (an error while it prepares) ends the run it is given with that error;
 * the worker still waiting when stdin ends is terminated.
 *
 * Each worker's output is passed on as it comes; when the worker has exited and its output streams
 * have ended, a marker line `@@braid-repetition@@{"execution","exit","ahead"}` follows on stdout and
 * on stderr (the session reads both streams up to their marker; `ahead`: the worker was ready
 * before its run line came). An uncaught error that ends the worker is printed as Node prints it
 * (its stack), so the output reads as a process' would.
 */
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, MessageChannel, type MessagePort, parentPort, receiveMessageOnPort, Worker, workerData } from 'node:worker_threads';
import type { NodeRecorderOptions } from './runtime';
import { isInstrumentedMessage, type InstrumentedMessage, type InstrumentedSources } from './instrumentedSources';

/** The marker the session waits for (the Java launcher's, repeatedRuns.ts REPETITION_MARK). */
const MARK = '@@braid-repetition@@';

/** What the session hands the driver (a JSON file named by its first argument). */
export interface NodeRepeatConfig {
  /** the test file (absolute; for mocha the first spec file it runs) */
  file: string;
  /** load it with require() (CommonJS for Node), else import(); for mocha: every spec file is CommonJS */
  commonJs: boolean;
  /** register tsx's CommonJS hooks in each worker first (the command had `--import tsx`) */
  tsx: boolean;
  /** the worker's own Node options: node:test's (`--test-name-pattern=…`) */
  execArgv: string[];
  /** dist/braid-node-hook.mjs */
  hook: string;
  /** the hook's options, without the run's own (out, execution, seed, noise) */
  options: NodeRecorderOptions;
  /** a mocha command: mocha's package folder and the options its CLI loaded (mochaRepetitions.ts), run by its CLI's main */
  mocha?: { dir: string; args: Record<string, unknown> };
  /** start the next run's worker while one runs (default); false: each worker starts when its run line comes (bench/nodeLensTime.ts' before) */
  ahead?: boolean;
}

interface RunLine {
  out: string;
  execution: string;
  seed: string;
  noise: number;
  /** `all`: wide noise (runtime.ts NodeRecorderOptions.noiseAt), adaptive exposure's wide level */
  noiseAt?: 'all';
  /** PCT for the event loop (runtime.ts NodeRecorderOptions.pct): --noise-mode pct or adaptive exposure's PCT level */
  pct?: { depth: number; steps: number };
}

/** The message that gives a waiting worker its run: the run, and the sources instrumented since the worker started. */
interface RunMessage {
  run: RunLine;
  sources: [string, string][];
}

interface WorkerInput {
  config: NodeRepeatConfig;
  /** the sources earlier repetitions instrumented (instrumentedSources.ts) when the worker started */
  instrumented: Map<string, string>;
  /** [0]: 0 while the worker waits for its run, 1 when a RunMessage is on `port` */
  wake: Int32Array;
  port: MessagePort;
}

function streamEnd(s: NodeJS.ReadableStream | null | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!s) return resolve();
    s.once('end', () => resolve());
    s.once('error', () => resolve());
  });
}

/** A worker started for the next run. */
interface Prepared {
  w: Worker;
  wake: Int32Array;
  port: MessagePort;
  /** the number of kept sources the worker was started with */
  known: number;
  /** its output while it has no run */
  held: { err: boolean; data: Buffer }[];
  assigned: boolean;
  /** it said it waits for its run */
  ready: boolean;
  error?: unknown;
  exit: Promise<number>;
  ended: Promise<unknown>;
}

async function driver(): Promise<void> {
  const config = JSON.parse(readFileSync(process.argv[2], 'utf8')) as NodeRepeatConfig;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  // what the workers instrumented, for the next ones (a key names the source's hash: an edited file is a new key)
  const instrumented = new Map<string, string>();
  const order: [string, string][] = [];
  const prepare = (): Prepared => {
    const wake = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    const input: WorkerInput = { config, instrumented, wake, port: port2 };
    const w = new Worker(__filename, { workerData: input, transferList: [port2], argv: [config.file], execArgv: config.execArgv, stdout: true, stderr: true });
    const p: Prepared = { w, wake, port: port1, known: order.length, held: [], assigned: false, ready: false, exit: new Promise<number>((resolve) => w.once('exit', resolve)), ended: Promise.all([streamEnd(w.stdout), streamEnd(w.stderr)]) };
    w.stdout.on('data', (d: Buffer) => (p.assigned ? process.stdout.write(d) : p.held.push({ err: false, data: d })));
    w.stderr.on('data', (d: Buffer) => (p.assigned ? process.stderr.write(d) : p.held.push({ err: true, data: d })));
    w.on('message', (m: unknown) => {
      if (isInstrumentedMessage(m)) {
        if (!instrumented.has(m.braidInstrumented[0])) order.push(m.braidInstrumented);
        instrumented.set(m.braidInstrumented[0], m.braidInstrumented[1]);
      } else if ((m as { braidReady?: unknown } | null)?.braidReady === true) p.ready = true;
    });
    w.on('error', (e) => (p.error = e));
    return p;
  };
  const ahead = config.ahead !== false;
  let next: Prepared | undefined = ahead ? prepare() : undefined;
  for await (const text of lines) {
    if (!text.trim()) continue;
    const run = JSON.parse(text) as RunLine;
    const p = next ?? prepare();
    next = undefined;
    const wasReady = p.ready;
    p.assigned = true;
    for (const h of p.held) (h.err ? process.stderr : process.stdout).write(h.data);
    p.held = [];
    p.port.postMessage({ run, sources: order.slice(p.known) } satisfies RunMessage);
    Atomics.store(p.wake, 0, 1);
    Atomics.notify(p.wake, 0);
    // the next run's worker starts while this one runs
    if (ahead) next = prepare();
    const exit = await p.exit;
    await p.ended;
    p.port.close();
    if (p.error !== undefined) {
      const e = p.error as { stack?: unknown };
      process.stderr.write(`${typeof e?.stack === 'string' ? e.stack : String(p.error)}\n`);
    }
    const marker = `${MARK}${JSON.stringify({ execution: run.execution, exit, ahead: wasReady })}\n`;
    process.stdout.write(marker);
    process.stderr.write(marker);
  }
  // no more runs: the worker started ahead has none
  if (next) {
    next.port.close();
    await next.w.terminate();
  }
}

/**
 * The run of this worker, waiting for it the first time (Atomics.wait: the thread has nothing else
 * to do), and the sources instrumented since the worker started.
 */
function takeRun(input: WorkerInput, instrumented: Map<string, string>): RunLine {
  parentPort?.postMessage({ braidReady: true });
  for (;;) {
    const m = receiveMessageOnPort(input.port);
    if (m) {
      const r = m.message as RunMessage;
      for (const [k, code] of r.sources) instrumented.set(k, code);
      return r.run;
    }
    Atomics.wait(input.wake, 0, 0, 1000);
  }
}

async function repetition(): Promise<void> {
  const input = workerData as WorkerInput;
  const { config, instrumented } = input;
  // as a process of `node --test` runs the file: argv[1] is the test file (the hook's entry rules, the trace's program)
  process.argv.splice(1, 1);
  const g = globalThis as { __braidRepetition?: NodeRecorderOptions; __braidRepetitionCommonJs?: boolean; __braidInstrumented?: InstrumentedSources };
  // the hook reads its options once, when it starts: the run's, when it comes
  let run: RunLine | undefined;
  Object.defineProperty(g, '__braidRepetition', {
    configurable: true,
    enumerable: true,
    get() {
      run ??= takeRun(input, instrumented);
      const o: NodeRecorderOptions = { ...config.options, out: run.out, execution: run.execution, seed: run.seed, noise: run.noise, ...(run.noiseAt === 'all' ? { noiseAt: 'all' as const } : {}), ...(run.pct ? { pct: run.pct } : {}) };
      Object.defineProperty(g, '__braidRepetition', { value: o, configurable: true, enumerable: true, writable: true });
      return o;
    },
  });
  // the test file is required (tsx's CommonJS hooks compile a .ts one): the hook registers its ES-module
  // loader hooks — a loader thread of their own, the largest part of a repetition's start — only at
  // the first import(), as for a process whose entry script is CommonJS
  g.__braidRepetitionCommonJs = config.commonJs;
  g.__braidInstrumented = {
    get: (key) => instrumented.get(key),
    set: (key, code) => {
      instrumented.set(key, code);
      parentPort?.postMessage({ braidInstrumented: [key, code] } satisfies InstrumentedMessage);
    },
  };
  const req = createRequire(config.file);
  // before the run (ahead): what does not depend on it — tsx's CommonJS hooks (the hook's compile
  // wraps Module.prototype._compile, which tsx's loader calls, whichever comes first), node:test,
  // mocha's CLI, and the hook bundle's compile and evaluation up to its start
  if (config.tsx) {
    // tsx's `--import tsx` registers in the main thread only; its CommonJS API registers in this one
    const pkg = req.resolve('tsx/package.json');
    const exported = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports?: Record<string, { require?: { default?: string } }> }).exports?.['./cjs/api']?.require?.default;
    if (!exported) throw new Error(`tsx at ${path.dirname(pkg)} has no CommonJS API (tsx/cjs/api): record with --fresh-process`);
    (req(path.join(path.dirname(pkg), exported)) as { register(): unknown }).register();
  }
  let mochaMain: ((argv: string[], args: Record<string, unknown>) => void) | undefined;
  if (config.mocha) {
    // as the hook has it in a mocha process: mocha loads the spec files with import() (chosen when
    // mocha is loaded), so an ES-module spec's imports go through the loader hooks
    if ((process.features as { require_module?: boolean }).require_module) {
      Object.defineProperty(process.features, 'require_module', { value: false, configurable: true, enumerable: true });
    }
    mochaMain = (createRequire(path.join(config.mocha.dir, 'package.json'))(path.join(config.mocha.dir, 'lib', 'cli', 'cli.js')) as { main: typeof mochaMain }).main;
  } else req('node:test');
  await import(pathToFileURL(config.hook).href);
  // the hook has read its run (a hook that did not start leaves the run unread: it is taken here)
  void g.__braidRepetition;
  if (mochaMain) {
    // the program as in the mocha process npx starts (node_modules/.bin/mocha: the trace header's program
    // is then the execution's name, as there) — set after the hook has started, which took the spec for
    // the entry (its ES-module hooks are registered at the first import() for CommonJS specs, not in
    // every repetition)
    process.argv[1] = path.join(path.dirname(config.mocha!.dir), '.bin', 'mocha');
    // as mocha's bin runs its CLI in its own process (no Node option: mochaRepetitions.ts): the exit
    // code the failures' count, set on exit
    mochaMain([], config.mocha!.args);
  } else if (config.commonJs) req(config.file);
  else await import(pathToFileURL(config.file).href);
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
