/**
 * Entry of Braid's Node.js recorder, loaded into the user's process with
 * `NODE_OPTIONS=--import <dist/braid-node-hook.mjs>` by `braid record` (docs/recorder-node.md).
 * Reads the options file named by BRAID_NODE_OPTIONS, installs the runtime (`globalThis.__braid`),
 * instruments CommonJS files (`Module.prototype._compile`), ES modules (loader hooks,
 * `module.register`) and the modules test runners compile with `node:vm` (vmModules.ts), jitters timers, and reports uncaught exceptions and non-zero exits as
 * failures. Bundled on its own (scripts/build.mjs): it never loads the server bundle.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire, register } from 'node:module';
import { isMainThread, threadId } from 'node:worker_threads';
import { BraidRuntime, NodeRecorderOptions, WorkerLink } from './runtime';
import { fileMatcher, relativeName } from './match';
import { instrument } from './transform';
import { instrumentVmModules } from './vmModules';
import { instrumentedKey, type InstrumentedSources } from './instrumentedSources';
import { instrumentBoundaries } from './boundaries';

/** The mark on a workerData that the main thread's Worker wrapper made (the user's value is `data`). */
const WORKER_MARK = '__braidWorker';

interface WorkerEnvelope {
  [WORKER_MARK]: { link: WorkerLink; out: string; options: NodeRecorderOptions };
  data: unknown;
}

type WorkerThreadsModule = { workerData: unknown; parentPort: { postMessage(...a: unknown[]): void } | null; Worker: new (...a: any[]) => object };

/** In a worker thread started by a recorded main thread: the recorder's options, and the user's workerData put back. */
function workerOptions(req: NodeRequire): NodeRecorderOptions | undefined {
  const wt = req('node:worker_threads') as WorkerThreadsModule;
  const wd = wt.workerData as WorkerEnvelope | undefined;
  const mark = wd !== null && typeof wd === 'object' ? wd[WORKER_MARK] : undefined;
  if (!mark) return undefined;
  wt.workerData = wd!.data;
  (req('node:module') as { syncBuiltinESMExports(): void }).syncBuiltinESMExports();
  return { ...mark.options, out: `${mark.out}@w${threadId}`, worker: mark.link };
}

/**
 * The main thread's Worker: a subclass that hands the new thread what its recorder needs (shared
 * counters, the SharedArrayBuffers' numbers, the options) inside workerData; the worker's hook
 * takes it out again before the user's code runs (workerOptions).
 */
/** The worker's script is a file the recorder instruments (not `eval` code, not node_modules unless included). */
function userScript(filename: unknown, options: Record<string, unknown> | undefined, matches: (file: string) => boolean): boolean {
  if (options?.eval) return false;
  let file: string | undefined;
  try {
    if (filename instanceof URL) file = fileURLToPath(filename);
    else if (typeof filename === 'string') file = filename.startsWith('file:') ? fileURLToPath(filename) : path.resolve(filename);
  } catch {
    return false;
  }
  return file !== undefined && matches(file);
}

function wrapWorkers(rt: BraidRuntime, o: NodeRecorderOptions, req: NodeRequire, matches: (file: string) => boolean): void {
  const wt = req('node:worker_threads') as WorkerThreadsModule;
  const Original = wt.Worker;
  class Worker extends Original {
    constructor(filename: unknown, options?: { workerData?: unknown } & Record<string, unknown>) {
      // only a worker that runs the user's code is recorded: a library's worker (esbuild's, which tsx
      // starts and then waits for synchronously) and Node's own keep their workerData untouched
      if (!userScript(filename, options, matches)) {
        super(filename, options);
        return;
      }
      const { link, out } = rt.linkWorker(options?.workerData);
      const envelope: WorkerEnvelope = { [WORKER_MARK]: { link, out, options: { ...o, worker: undefined } }, data: options?.workerData };
      super(filename, { ...(options ?? {}), workerData: envelope });
      // the worker's messages: its postMessage (SND) happens before the 'message' listeners here (RCV)
      const self = this as unknown as { threadId: number; emit(event: string | symbol, ...a: unknown[]): boolean; postMessage(...a: unknown[]): void };
      const channel = self.threadId * 2 + 1;
      const emit = self.emit;
      // what the main thread did before starting the worker happens before the worker's code (message 0)
      rt.sendMessage(self.threadId * 2, 0);
      // and the main thread's postMessage (SND) happens before the worker's handling of it (RCV)
      const post = self.postMessage;
      let sent = 0;
      self.postMessage = function (this: unknown, ...a: unknown[]) {
        rt.sendMessage(self.threadId * 2, ++sent);
        return post.apply(this, a);
      };
      let received = 0;
      self.emit = function (this: unknown, event: string | symbol, ...a: unknown[]) {
        if (event === 'message') rt.receiveMessage(channel, ++received);
        return emit.call(this, event, ...a);
      };
    }
  }
  wt.Worker = Worker;
  (req('node:module') as { syncBuiltinESMExports(): void }).syncBuiltinESMExports();
}

/**
 * The entry script is CommonJS (`.cjs`, or `.js`/no extension whose nearest package.json is not
 * `"type": "module"`): its ES modules can only come through import(), which the transform routes
 * through the runtime (`__braid.imp`).
 */
export function commonJsEntry(main: string | undefined): boolean {
  if (!main) return false;
  if (/\.c[jt]s$/.test(main)) return true;
  if (path.extname(main) !== '.js' && path.extname(main) !== '') return false;
  for (let dir = path.dirname(path.resolve(main)); ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: string };
      return pkg.type !== 'module';
    } catch {
      // no (readable) package.json here: look further up
    }
    if (path.dirname(dir) === dir) return true;
  }
}

/** The entry script is a test runner's bin that loads the spec files with import() from its own code (mocha). */
export function importsSpecFiles(main: string | undefined): boolean {
  return !!main && /[\\/]node_modules[\\/](?:mocha[\\/]|\.bin[\\/]_?mocha$)/.test(main);
}

/**
 * A file Module.prototype._compile is given, instrumented: as an ES module when Node says it is one
 * (`format` 'module': require() of an ES module, Node 20.19+), as CommonJS otherwise — and as an ES
 * module after all when Node detects the format from the syntax (no `format`, no "type") and the file
 * only parses as one.
 */
export function instrumentCommonJsOrModule(content: string, file: string, format: unknown): string {
  if (format === 'module') return instrument(content, { file, module: true }).code;
  try {
    return instrument(content, { file, module: false }).code;
  } catch (e) {
    if (format === undefined && /'import' and 'export' may appear only with 'sourceType: module'|Cannot use keyword 'await' outside an async function/.test((e as Error).message)) {
      return instrument(content, { file, module: true }).code;
    }
    throw e;
  }
}

/**
 * A file outside the include list in a forcing run (boundaries.ts): its awaits as suspension points of
 * forcing, nothing recorded; as a CommonJS script, or as an ES module when Node says so or it only
 * parses as one. The file as it is when it has no await or cannot be parsed.
 */
export function boundariesOf(content: string, file: string, format: unknown): string {
  try {
    return instrumentBoundaries(content, { file, module: format === 'module' })?.code ?? content;
  } catch {
    if (format !== undefined) return content;
    try {
      return instrumentBoundaries(content, { file, module: true })?.code ?? content;
    } catch {
      return content;
    }
  }
}

/** Braid's own files (the folder of the hook and its loader): never given boundaries. */
function braidOwnFile(file: string, loader: string | undefined): boolean {
  for (const f of [loader, process.env.BRAID_NODE_HOOK]) if (f && file.startsWith(path.dirname(path.resolve(f)) + path.sep)) return true;
  return false;
}

/**
 * Forcing runs (docs/recorder-node.md "Forcing"): setTimeout, setInterval, setImmediate,
 * process.nextTick and queueMicrotask pass their callback through the runtime's gate, so that forcing
 * can hold a callback task before it starts. The functions keep their own properties
 * (`setTimeout[util.promisify.custom]`).
 */
function gateCallbacks(rt: BraidRuntime): void {
  const g = globalThis as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) {
    const original = g[name];
    if (typeof original !== 'function') continue;
    const gated = function (this: unknown, cb: unknown, ...rest: unknown[]) {
      return original.call(this, rt.gate(cb), ...rest);
    };
    Object.defineProperties(gated, Object.getOwnPropertyDescriptors(original));
    g[name] = gated;
  }
  const tick = process.nextTick;
  process.nextTick = function (this: unknown, cb: (...a: unknown[]) => void, ...rest: unknown[]) {
    return tick.call(this, rt.gate(cb), ...rest);
  } as typeof process.nextTick;
}

function start(): void {
  const file = process.env.BRAID_NODE_OPTIONS;
  const g = globalThis as unknown as { __braid?: BraidRuntime };
  if (g.__braid) return;
  const req = createRequire(path.join(process.cwd(), 'braid-hook.js'));
  let o: NodeRecorderOptions;
  // a repetition of nodeRepeatDriver.ts (a worker thread running one run of a test): recorded as a process' main thread
  const repeated = isMainThread ? undefined : (g as { __braidRepetition?: NodeRecorderOptions }).__braidRepetition;
  const isMain = isMainThread || repeated !== undefined;
  if (repeated) o = repeated;
  else if (!isMainThread) {
    const w = workerOptions(req);
    if (!w) return;
    o = w;
  } else {
    if (!file) return;
    try {
      o = JSON.parse(readFileSync(file, 'utf8')) as NodeRecorderOptions;
    } catch (e) {
      process.stderr.write(`Braid recorder: cannot read its options ${file}: ${(e as Error).message}\n`);
      return;
    }
  }
  const rt = new BraidRuntime(o);
  g.__braid = rt;
  const filter = { root: o.root, include: o.include, exclude: o.exclude, packages: o.packages ?? [], ...(o.workspace ? { workspace: o.workspace } : {}) };
  const nameOf = (file: string) => relativeName(o.root, file, o.workspace?.root);
  const matches = fileMatcher(filter);
  if (isMain && rt.recording) wrapWorkers(rt, o, req, matches);
  // forcing runs: the files the include list leaves out get their awaits as suspension points (boundaries.ts)
  const boundaries = !!o.force && rt.recording && o.forceOutside !== false;

  // CommonJS: the source of every user file required
  const Module = createRequire(path.join(o.root, 'braid-hook.js'))('node:module') as { prototype: { _compile(content: string, filename: string): unknown } };
  const compile = Module.prototype._compile;
  const cached = repeated ? (g as { __braidInstrumented?: InstrumentedSources }).__braidInstrumented : undefined;
  // `format` (Node 20.19+, 22.12+): 'module' when an ES module is loaded by require(); that module is
  // instrumented as one (the modules it imports are loaded without the loader hooks: not instrumented)
  Module.prototype._compile = function (content: string, filename: string, ...rest: unknown[]) {
    if (typeof content === 'string' && matches(filename)) {
      const file = nameOf(filename);
      const format = rest[0];
      try {
        // a repetition: the same source instrumented by an earlier repetition of the process (instrumentedSources.ts)
        const key = cached ? instrumentedKey(file, format, content) : undefined;
        const hit = key !== undefined ? cached!.get(key) : undefined;
        if (hit !== undefined) content = hit;
        else {
          content = instrumentCommonJsOrModule(content, file, format);
          if (key !== undefined) cached!.set(key, content);
        }
      } catch (e) {
        process.stderr.write(`Braid recorder: ${file} is not instrumented: ${(e as Error).message}\n`);
      }
    } else if (boundaries && typeof content === 'string' && !braidOwnFile(filename, o.loader)) content = boundariesOf(content, nameOf(filename), rest[0]);
    return (compile as (this: unknown, ...a: unknown[]) => unknown).call(this, content, filename, ...rest);
  };
  // vitest and jest run the user's modules through node:vm (vmModules.ts)
  instrumentVmModules(req('node:vm'), matches, nameOf, rt);
  (req('node:module') as { syncBuiltinESMExports(): void }).syncBuiltinESMExports();
  // ES modules: loader hooks on the loader thread (a thread of its own, some 50 ms to start): at
  // once, unless the entry script is CommonJS — then at its first instrumented import()
  const registerEsm = () => {
    try {
      // the entry script: Node runs it with its ES-module loader because of Braid's --import (loader.ts)
      const entry = isMain && process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : undefined;
      const loader = o.loader ?? path.join(path.dirname(process.env.BRAID_NODE_HOOK ?? ''), 'braid-node-loader.mjs');
      // a forcing run: the files outside the include list get boundaries, Braid's own folder excepted
      register(pathToFileURL(loader).href, { data: { ...filter, ...(entry ? { entry } : {}), ...(boundaries ? { boundaries: path.dirname(path.resolve(loader)) } : {}) } });
    } catch (e) {
      process.stderr.write(`Braid recorder: ES modules are not instrumented: ${(e as Error).message}\n`);
    }
  };
  // mocha's CommonJS bin loads the spec files from its own code, where no instrumented import()
  // routes through the runtime: the hooks at once. And mocha loads them with import(), as it does on
  // a Node without require(esm): Node's require() of an ES module (20.19+) loads the modules it
  // imports without the module.register hooks, so an ES-module spec's imports — the code under
  // test — would not be instrumented (docs/recorder-node.md "Test runners")
  const mocha = isMain && importsSpecFiles(process.argv[1]);
  if (mocha && (process.features as { require_module?: boolean }).require_module) {
    Object.defineProperty(process.features, 'require_module', { value: false, configurable: true, enumerable: true });
  }
  // a repetition requires its test file (nodeRepeatDriver.ts says so): a CommonJS entry whatever its extension
  const cjsEntry = repeated ? (g as { __braidRepetitionCommonJs?: boolean }).__braidRepetitionCommonJs === true : commonJsEntry(process.argv[1]);
  if (isMain && cjsEntry && !mocha) rt.esmHooks = registerEsm;
  else registerEsm();

  // timer jitter (noise): a timer fires up to 3 ms late with probability p
  if (o.noise > 0) {
    const original = globalThis.setTimeout;
    const jittered = function (this: unknown, cb: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) {
      const j = rt.jitter(Number(ms) || 0);
      return (original as (...a: unknown[]) => unknown).call(this, cb, j ? (Number(ms) || 0) + j : ms, ...args);
    };
    Object.defineProperties(jittered, Object.getOwnPropertyDescriptors(original));
    globalThis.setTimeout = jittered as unknown as typeof setTimeout;
  }

  // PCT for the event loop (docs/noise.md): a timer's callback is a scheduling point when it is due
  if (o.pct && !o.plan && !o.force) {
    const original = globalThis.setTimeout;
    const scheduled = function (this: unknown, cb: (...a: unknown[]) => void, ...rest: unknown[]) {
      return (original as (...a: unknown[]) => unknown).call(this, typeof cb === 'function' ? rt.pctCallback(cb) : cb, ...rest);
    };
    Object.defineProperties(scheduled, Object.getOwnPropertyDescriptors(original));
    globalThis.setTimeout = scheduled as unknown as typeof setTimeout;
  }

  // forcing runs: a timer's, an immediate's, a nextTick's and a microtask's callback may be held
  // before it starts (runtime `gate`; EventEmitter listeners, fs and then callbacks are gated where
  // the instrumented code passes them)
  if (o.force && rt.recording) gateCallbacks(rt);

  if (rt.recording) rt.installHooks();
  if (!isMain) {
    // a worker: its trace is flushed before each message it posts (the main thread may end it at
    // once, worker.terminate()) and when it exits; the process' outcome is the main thread's
    const port = (req('node:worker_threads') as WorkerThreadsModule).parentPort;
    if (port) {
      rt.listenPort(port, threadId * 2);
      const post = port.postMessage;
      const channel = threadId * 2 + 1;
      let sent = 0;
      port.postMessage = function (this: unknown, ...a: unknown[]) {
        rt.sendMessage(channel, ++sent);
        rt.flush(true);
        return post.apply(this, a);
      };
    }
    process.on('exit', () => rt.close());
    return;
  }
  // a watchdog, as the Java agent's: when the recorder (braid, the language server) is gone, the run
  // is over — a test runner that outlives it (node:test ignores SIGTERM while a test runs) stops too
  const recorderPid = Number(process.env.BRAID_RECORDER_PID);
  if (Number.isInteger(recorderPid) && recorderPid > 1 && recorderPid !== process.pid) {
    const watchdog = setInterval(() => {
      try {
        process.kill(recorderPid, 0);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') return;
        rt.close();
        process.kill(process.pid, 'SIGKILL');
      }
    }, 1000);
    watchdog.unref();
  }
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const e = err as { name?: string; message?: string } | undefined;
    rt.failure('uncaught', `${origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception'}: ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`, err);
  });
  process.on('exit', (code) => {
    if (code !== 0) rt.failure('exit', `exit code ${code}`);
    rt.close();
  });
  // (a worker thread gets no signals)
  if (isMainThread) {
    process.once('SIGTERM', () => {
      rt.close();
      process.kill(process.pid, 'SIGTERM');
    });
  }
}

start();
