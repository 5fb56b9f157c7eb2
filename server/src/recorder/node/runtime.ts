/**
 * The runtime of Braid's Node.js recorder (docs/recorder-node.md): `globalThis.__braid`, which the
 * instrumented code (transform.ts) calls, writes the run's trace (docs/trace-format.md).
 *
 * Threads are asynchronous tasks: the main module's code is task "main"; every call of an
 * instrumented async function starts a task of its own (unless it is awaited at once,
 * `await f(x)`), and so does every callback of a non-promise async resource (a timer, an
 * immediate, a nextTick, an I/O or network callback). An `await` continuation stays in the task
 * that awaited; a `then`/`catch`/`finally` callback the user's code registers is a task of its
 * own, after both the `then` call and the promise's resolution (async_hooks' init → before). Happens-before
 * edges are SND/RCV pairs: a task's creation (its creator's SND, its first RCV), a resource's
 * creation → its callback, a promise's resolution → the reaction that runs after it.
 *
 * Everything here runs inside the user's process: it must not depend on the server bundle, and
 * its hot paths (every recorded access) allocate little: ids are interned in Maps and arrays.
 */
import { createHook, executionAsyncResource } from 'node:async_hooks';
import fs from 'node:fs';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import * as workerThreads from 'node:worker_threads';
import { isJsSourceFile } from '../../engine/jsSourceFile';
import { ForceLocation, NodeForceSpec, NodeForcing } from './forcing';
import { relativeName } from './match';
import { PortEnd, wrapMessageChannels } from './messageChannels';

const threadIdOf = (): number => workerThreads.threadId;
const workerDataOf = (): unknown => workerThreads.workerData;

export interface NodeRecorderOptions {
  /** trace file (the `.part` path); a further process of the run writes `<out>~<pid>` */
  out: string;
  execution: string;
  noise: number;
  /**
   * `all` (`--noise-at all`, adaptive exposure's wide level for Node.js): the same points get delays
   * at the event loop's scale (wideDelay: a timer up to twice its own delay late, an await or an fs
   * call's start or callback up to 8 ms); otherwise a setImmediate or 0–3 ms (docs/recorder-node.md "Noise")
   */
  noiseAt?: 'accesses' | 'sync' | 'all';
  seed: string;
  include: string[];
  exclude: string[];
  /** runtime dependencies recorded without an include glob (runtimeDependencies.ts) */
  packages?: string[];
  /** the npm workspace above the working folder (workspacePackages.ts): its packages' files are recorded without an include glob, named relative to its root */
  workspace?: { root: string; packages: string[] };
  /** the working folder: trace file names are relative to it */
  root: string;
  program?: string;
  /** the ESM loader bundle (dist/braid-node-loader.mjs) */
  loader?: string;
  /** false: noise and outcome only, no events (pinpoint's runs) */
  record?: boolean;
  /** a worker thread's runtime (docs/recorder-node.md, "Worker threads"): set by the main thread's Worker wrapper */
  worker?: WorkerLink;
  /** noise plan (docs/noise.md, `--plan`): noise only at its points (JS point ids `js:<file>:<line>#<k>`) */
  plan?: { noise: PlanNoise; points: { id: string; probability: number; noise?: PlanNoise; threads?: string[] }[] };
  /** a forcing plan's `force` section (docs/noise.md "Forcing plans"; forcing.ts): `braid confirm`, Check the Fix */
  force?: NodeForceSpec;
  /**
   * forcing runs: the file where the runs of a group learn the last suspension point before each plan
   * access (forcing.ts "boundaries"; read when the run starts, appended to when it ends)
   */
  forceLearn?: string;
  /**
   * forcing runs: false — only the included files' awaits are suspension points (before issue 40's
   * boundaries outside the include list; `BRAID_NODE_FORCE_OUTSIDE=0`); else every other JavaScript
   * file's awaits are too (boundaries.ts), nothing of them recorded
   */
  forceOutside?: boolean;
  /**
   * forcing runs: false — a learned place holds at any of its passes where the access followed half
   * of them (before the per-pass learning; `BRAID_NODE_LEARN_PASS=0`); else at its k-th pass in a run
   * only where the access followed the earlier runs' k-th passes (forcing.ts NodeForcingOptions.byPass)
   */
  forceByPass?: boolean;
  /**
   * forcing runs: false — another task's access meets a wait even when it happens before the held
   * point (the same request's earlier access; before session 15, `BRAID_NODE_FORCE_HB=0`); else it
   * must not (forcing.ts NodeForcingOptions.hb)
   */
  forceHb?: boolean;
  /** the point catalogue (`braid pinpoint`): each await point reached is appended as a JSON line */
  points?: string;
  /** a worker thread's trace stops growing at this many bytes: later events are dropped and counted (default MAX_WORKER_TRACE_BYTES) */
  maxWorkerTraceBytes?: number;
  /**
   * `--noise-mode pct` (docs/noise.md "PCT for the event loop"): a random priority per task and per
   * file-system request, `depth - 1` change points among the first `steps` scheduling points; a ready
   * callback, await continuation or fs call start is held while a request of higher priority is in flight
   */
  pct?: { depth: number; steps: number };
}

/**
 * The most a worker thread's trace file holds (docs/recorder-node.md, "Limits"): a worker in an
 * endless loop wrote 402 MB in 10 s. Past it the worker's events are dropped and counted
 * (`{"dropped":N}` lines, as the Java agent's bounded queue does), so the run ends with a trace of
 * bounded size that says it is incomplete.
 */
export const MAX_WORKER_TRACE_BYTES = 256 * 2 ** 20;
/** a capped worker writes its count of dropped events every this many events or milliseconds (a run stopped by a timeout keeps the count) */
const DROPPED_LINE_EVERY = 1_000_000;
const DROPPED_LINE_MS = 500;

/** A plan's kind of noise (engine/noise/noisePlan.ts NoiseKind) as the runtime makes it at an await. */
export type PlanNoise = { kind: 'yield' } | { kind: 'sleep'; ms: number } | { kind: 'busy'; micros: number };

/**
 * The stable id of a JavaScript point (docs/noise.md "Point ids"): the file as the trace names it,
 * the line, and the point's place among the instrumented points of that line (`#0` first).
 */
export function jsPointId(file: string, line: number, ordinal: number): string {
  return `js:${file}:${line}#${ordinal}`;
}

/**
 * What a worker thread's runtime gets from the main thread (through the Worker's workerData): the
 * counters shared by every thread of the process (event index, SharedArrayBuffer numbers) and the
 * ids of the SharedArrayBuffers in the user's workerData, in the order sharedBuffersIn finds them.
 */
export interface WorkerLink {
  counters: SharedArrayBuffer;
  sabs: number[];
}

/** Happens-before tokens of messages between threads (workerTraces.ts keeps them): channel · 2^24 + message number. */
export const SHARED_TOKEN_BASE = 2 ** 40;
function messageToken(channel: number, seq: number): number {
  return SHARED_TOKEN_BASE + channel * 16777216 + (seq % 16777216);
}

/**
 * Happens-before tokens of Atomics operations: one per element of a SharedArrayBuffer — its buffer's
 * number · 2^32 + the element's byte position (every view of the buffer, every thread) — in the shared
 * namespace (above the message tokens).
 */
const ATOMIC_TOKEN_BASE = 2 ** 50;

/** Object ids of the shared namespace (never renumbered when a worker's trace is merged): views of a SharedArrayBuffer, file paths. */
export const SHARED_OBJECT_BASE = 2 ** 51;
const SAB_STRIDE = 2 ** 32;
const PATH_BASE = 2 ** 52;

/** The SharedArrayBuffers of a workerData value (plain objects and arrays, depth ≤ 4), in a fixed order. */
export function sharedBuffersIn(v: unknown, out: SharedArrayBuffer[] = [], depth = 0): SharedArrayBuffer[] {
  if (v === null || typeof v !== 'object' || depth > 4 || out.length > 64) return out;
  if (v instanceof SharedArrayBuffer) out.push(v);
  else if (ArrayBuffer.isView(v)) {
    if (v.buffer instanceof SharedArrayBuffer) out.push(v.buffer);
  } else if (Array.isArray(v)) for (const x of v) sharedBuffersIn(x, out, depth + 1);
  else if (Object.getPrototypeOf(v) === Object.prototype) for (const k of Object.keys(v)) sharedBuffersIn((v as Record<string, unknown>)[k], out, depth + 1);
  return out;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < text.length; k++) {
    h ^= text.charCodeAt(k);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const RECORDER = { name: 'braid-node-recorder', version: '0.1.0' };
/** where `--noise P` puts its delays without a plan (the header's `recorder.options.noisePoints`): recorded awaits, timers, fs callbacks */
const NOISE_POINTS = ['await', 'timer', 'fs-callback'];
/** wide noise (`noiseAt: all`): the longest delay of an await, an fs call's start or its callback, ms */
export const WIDE_DELAY_MS = 8;
/** wide noise: the longest a timer fires late, ms (twice its own delay up to this) */
export const WIDE_TIMER_MS = 20;
/**
 * PCT for the event loop: the async resources that are requests in flight — a held callback waits
 * while one of a higher priority has not completed (timers are not: a timer not due is a task that is
 * not enabled, as a sleeping thread is for PCT)
 */
const PCT_IO = new Set(['FSREQCALLBACK', 'FSREQPROMISE', 'FILEHANDLECLOSEREQ', 'GETADDRINFOREQWRAP', 'GETNAMEINFOREQWRAP', 'QUERYWRAP', 'TCPCONNECTWRAP', 'PIPECONNECTWRAP', 'SHUTDOWNWRAP', 'WRITEWRAP', 'ZLIB']);
/**
 * PCT: the longest a callback is held, ms — a safety bound for a request that does not complete (a
 * socket's connect to nothing), never what orders the callbacks; a hold it ends is counted (`endedByStall`)
 */
export const PCT_MAX_HOLD_MS = 200;
/** the setTimeout before the hook schedules timers (hook.ts): PCT's own poll is no scheduling point */
const REAL_SET_TIMEOUT = globalThis.setTimeout;
/** A callback held by PCT: its priority, and the task, stack, kind and token to run it with. */
interface PctHeld {
  prio: number;
  task: Task;
  stack: number;
  type: string;
  tok: number;
  since: number;
  run: () => void;
}

/** A task: a thread of the trace, numbered when it records its first event. */
class Task {
  tid = 0;
  /** the token of its last SND (0: none) */
  lastTok = 0;
  /** it recorded an event since its last SND */
  dirty = false;
  /** tokens to receive before its next event */
  pending: number[] | null = null;
  /** tokens received */
  got: Set<number> | null = null;
  /**
   * the latest turn of the event loop (`BraidRuntime.turn`) in which it recorded an event or was
   * given a token to receive: a promise reaction made in this task by code that is not recorded
   * continues in it only when the task has done nothing in a turn after the one the reaction was made
   * in (`before`, an unrecorded async function's continuation)
   */
  turn = 0;
  /** forcing (forcing.ts): per plan access, the task's latest performance and its object */
  forceLast: number[] | null = null;
  forceObj: number[] | null = null;
  forceSite = -1;
  forceAfter = 0;
  forceNth = 0;
  forcePending = -1;
  /** forcing's happens-before (forcing.ts `received`): the tokens received that carry a plan performance */
  forceRecv: number[] | null = null;
  forceRecvBase = 0;
  /**
   * a callback task whose name lacks its function (`then`, an anonymous timer callback): the stack
   * node it started on (its callback's frame is the first one above it), named at its first event
   * (`BraidRuntime.tid`); -1: named
   */
  base = -1;
  /** PCT for the event loop: its priority (NaN: not drawn yet; below 0: lowered at a change point) */
  prio = Number.NaN;
  constructor(
    public name: string,
    readonly kind: number,
  ) {}
}

/**
 * A flow of a task's own that continues apart from it (an unrecorded async function's continuation
 * after the task went on, `before`): named as the task (a main or worker thread's with
 * `continuation`), numbered apart.
 */
function continuationOf(t: Task): Task {
  const c = new Task(t.kind === 0 ? `${t.name} continuation` : t.name, t.kind === 0 ? 2 : t.kind);
  c.base = t.base;
  return c;
}

const KTASK = Symbol('braid.task');
const KSTACK = Symbol('braid.stack');
const KTOK = Symbol('braid.tok');
const KTRIG = Symbol('braid.trigger');
const KTHEN = Symbol('braid.then');
const KTYPE = Symbol('braid.type');
/** a promise reaction made by a recorded `await` (the continuation of the task that awaits) */
const KAWAIT = Symbol('braid.await');
/** the turn of the event loop in which a promise reaction was made by code that is not recorded (Task.turn) */
const KTURN = Symbol('braid.turn');
/** PCT for the event loop: the priority of a request in flight (or of a held callback), which its callback's task inherits */
const KPRIO = Symbol('braid.prio');

/** A callback task's kind by its async resource's type (async_hooks): what the user's code called. */
const CALLBACK_KINDS: Record<string, string> = {
  Timeout: 'setTimeout',
  Immediate: 'setImmediate',
  TickObject: 'nextTick',
  Microtask: 'queueMicrotask',
  FSREQCALLBACK: 'fs callback',
  FSREQPROMISE: 'fs callback',
  TCPWRAP: 'socket',
  TCPSERVERWRAP: 'server',
  TCPCONNECTWRAP: 'connect',
  HTTPINCOMINGMESSAGE: 'HTTP request',
  HTTPCLIENTREQUEST: 'HTTP response',
  PIPEWRAP: 'pipe',
  PROCESSWRAP: 'child process',
  SIGNALWRAP: 'signal',
  WRITEWRAP: 'write',
  SHUTDOWNWRAP: 'shutdown',
  GETADDRINFOREQWRAP: 'dns lookup',
  ZLIB: 'zlib',
};

/**
 * A callback task's name (issue 42 item 6): its kind and the callback's function when the resource
 * holds it — `setTimeout flush`, `setImmediate`, `nextTick onEnd`, `socket` — not the resource's
 * constructor (`Object` for a nextTick).
 */
export function callbackTaskName(type: string | undefined, resource: { constructor?: { name?: string }; _onTimeout?: unknown; _onImmediate?: unknown; callback?: unknown }): string {
  const ctor = resource.constructor?.name;
  const kind = (type !== undefined ? CALLBACK_KINDS[type] : undefined) ?? (ctor && ctor !== 'Object' ? ctor : (type ?? 'callback'));
  const fn = resource._onTimeout ?? resource._onImmediate ?? resource.callback;
  const name = typeof fn === 'function' ? (fn as { name?: string }).name : undefined;
  return name && name !== 'bound ' ? `${kind} ${name.replace(/^bound /, '')}` : kind;
}

/**
 * Thrown by a gated callback's first function entry when forcing holds the callback before it starts
 * (`gate`): the gate catches it and re-queues the callback, which has done nothing yet.
 */
const HELD: unique symbol = Symbol('braid.held');
/** The source of an instrumented plain function starts with its frame entry (transform.ts wrapFunction). */
const INSTRUMENTED_FN = /^[^{]*\{\s*(?:const __bsc\d+ = __braid\.ns\(\); )?const __bp = __braid\.fe\(/;
/** EventEmitter calls that add a listener (its second argument), and those that remove one. */
const LISTEN_CALLS = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener']);
const UNLISTEN_CALLS = new Set(['off', 'removeListener']);

/** Access kinds of collection methods: true = write. */
const WRITES = new Set(['set', 'add', 'delete', 'clear', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);
const KEYED = new Set(['get', 'has', 'set', 'add', 'delete']);
/** collectionKind's answers */
const NOT_COLLECTION = 0;
const MAP = 1;
const SET = 2;
const EMITTER_CALLS = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener', 'off', 'removeListener', 'removeAllListeners', 'emit']);
/** File-system functions that take a second path, which they write (the destination). */
const FS_TWO_PATHS = new Set(['rename', 'copyFile', 'cp', 'link', 'symlink']);
/** File-system functions that change the path (the others read it). */
const FS_WRITES = new Set(['unlink', 'rm', 'rmdir', 'rename', 'writeFile', 'appendFile', 'mkdir', 'mkdtemp', 'copyFile', 'cp', 'truncate', 'symlink', 'link', 'chmod', 'chown', 'utimes', 'lchown', 'lutimes', 'createWriteStream']);

/**
 * xorshift32 from a run's seed, mixed first by MurmurHash3's finalizer so that consecutive seeds (a
 * batch: seed, seed + 1, …) start far apart. Unmixed, the first draw of every run of a batch was the
 * same to two digits, so every run made the same first noise decision (a batch of 30 runs of a
 * race never failed where the next batch failed 8 of 10).
 */
export function xorshift(seed: number): () => number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  let x = h || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

/** `Function.prototype.call`, taken once: a function with a `call` property of its own is still called as itself. */
const callOf = Function.prototype.call;

export class BraidRuntime {
  // ---- trace output ----
  private fd = -1;
  private path: string;
  private buf: string[] = [];
  private i = 0;
  /** once a worker thread runs: [0] the next event index, [1] the next SharedArrayBuffer number, shared by all threads */
  private counters: Int32Array | null = null;
  private sabIds = new WeakMap<SharedArrayBuffer, number>();
  private opened = false;
  private failedWrite = false;
  readonly recording: boolean;
  /** bytes written to the trace file; the cap (a worker's trace only) past which events are dropped */
  private written = 0;
  private readonly cap: number;
  private capped = false;
  /** events dropped since the last `{"dropped":N}` line, and when that line was written */
  private dropped = 0;
  private droppedAt = 0;

  // ---- interning ----
  private siteLine: number[] = [];
  private siteFn: string[] = [];
  private siteFile: number[] = [];
  private files: string[] = [];
  private harnessFile: boolean[] = [];
  private siteLoc: number[] = [];
  private nextLoc = 0;
  private varNames: string[] = [];
  private varId: number[] = [];
  private nextVar = 0;
  private varByName = new Map<string, number>();
  private callLoc = new Map<number, number>();
  private callNames: string[] = [];
  private callIndex = new Map<string, number>();
  /** stack nodes: 0 is the empty stack; node k = parent + site */
  private nodeParent: number[] = [0];
  private nodeSite: number[] = [-1];
  private nodeDefined: boolean[] = [true];
  private nodeByKey = new Map<number, number>();
  private objIds = new WeakMap<object, number>();
  private nextObj = 1;
  private keyIds = new Map<unknown, number>();
  /** the property names the recorded modules name as `o.name` (transform.ts dotFieldNames) */
  private fieldNames = new Set<string>();
  private nextTid = 1;
  private nextTok = 1;
  private nextScope = 1;
  /** per site: its place among the sites of its line (the point id's `#k`), its planned point (-1: none), written to the catalogue */
  private siteOrdinal: number[] = [];
  private sitePlan: number[] = [];
  private siteCatalogued: boolean[] = [];
  /** the plan's points by id (null: no plan), and each point's noise and allowed tasks */
  private planOf: Map<string, number> | null = null;
  private planPoints: { probability: number; noise: PlanNoise; threads: Set<string> | null }[] = [];
  /** per site: the caller's stack node and the access's node of its last access (a monomorphic cache of node()) */
  private siteParent: number[] = [];
  private siteNode: number[] = [];
  /** per site: the collection type and method of its last call, their loc and var ids (a monomorphic cache) */
  private siteCallType: (string | undefined)[] = [];
  private siteCallMethod: (string | undefined)[] = [];
  private siteCallLoc: number[] = [];
  private siteCallVar: number[] = [];
  /** per site: the constructor and var id of its last property access (a monomorphic cache) */
  private siteCtor: unknown[] = [];
  private siteVar: number[] = [];
  /** the key of a site's cached variable ('' for elements and plain fields' keys) */
  private siteKey: (string | symbol | undefined)[] = [];

  // ---- current context ----
  task: Task;
  stack = 0;
  /** `await f(x)`: the next async function call runs in the current task */
  il = 0;
  /** inside a `then`/`catch`/`finally` call of the user's code (pt): the promise made now runs its callback as a task of its own */
  private thenCall = false;
  private savedTask: Task[] = [];
  private savedStack: number[] = [];
  /** the turns of the event loop so far: one more at each async_hooks `before` (a callback or promise job starting) */
  private turn = 0;
  private hookTask: Task[] = [];
  private hookStack: number[] = [];
  private resolved = new Map<number, number>();
  private resolvedOld = new Map<number, number>();

  // ---- forcing (forcing.ts) ----
  private readonly fz: NodeForcing | null;
  /** var id → its name (what the forcing plan's accesses name) */
  private varNameOf: string[] = [];
  /** the hold of the async function entered last (`hf`), awaited by its body */
  hp: Promise<void> | null = null;
  private reported = false;
  /** gated callbacks (`gate`): the depth+1 of the gate whose first function entry is still to come (0: none) */
  private probe = 0;
  private gateDepth = 0;
  /** per gate depth: the entry site of its callback (-1: not entered) */
  private gateSites: number[] = [];
  /** the hold that the first function entry of a gated callback got, with the task and stack it was to run in */
  private gateHold: Promise<void> | null = null;
  private gateTask: Task | null = null;
  private gateStack = 0;
  /** which pass of its place the held callback's start was (ForcedTask.forceNth) */
  private gateNth = 0;
  /** per entry site: the plan's accesses that callbacks entering there performed synchronously in this run */
  private learned = new Map<number, number>();
  /** per callback: its gated wrapper (plain callbacks, promise reactions); per function: whether it is instrumented */
  private gatedPlain = new WeakMap<object, (...a: unknown[]) => unknown>();
  private gatedReaction = new WeakMap<object, (...a: unknown[]) => unknown>();
  private instrumentedFn = new WeakMap<object, boolean>();

  // ---- noise ----
  private readonly p: number;
  /** wide noise (`noiseAt: all`): delays at the event loop's scale */
  private readonly wide: boolean;
  private readonly rnd: () => number;
  /** the noise at fs calls: a generator of its own, so that the awaits' and timers' noise of a seed stays what it was */
  private readonly ioRnd: () => number;

  // ---- PCT for the event loop (docs/noise.md) ----
  private readonly pctOn: boolean;
  private readonly pctRnd: () => number;
  /** scheduling points so far, the change points (ascending step numbers) and the next one's index */
  private pctSteps = 0;
  private pctChanges: number[] = [];
  private pctNextChange = 0;
  /** requests in flight: async id → priority */
  private pctPending = new Map<number, number>();
  /** the priority of the fs request being started (NaN: the current task's) */
  private pctReqPrio = Number.NaN;
  private pctHeld: PctHeld[] = [];
  private pctPoll: ReturnType<typeof setTimeout> | null = null;
  private pctReported = false;
  private pctReport = { steps: 0, threads: 0, waits: 0, endedByStepBound: 0, endedByStall: 0, changes: 0, unscheduled: 0 };

  constructor(readonly o: NodeRecorderOptions) {
    this.path = o.out;
    this.recording = o.record !== false;
    this.p = o.noise;
    this.wide = o.noiseAt === 'all' && o.noise > 0 && !o.plan;
    const worker = o.worker;
    this.cap = worker ? (o.maxWorkerTraceBytes !== undefined && o.maxWorkerTraceBytes >= 0 ? o.maxWorkerTraceBytes : MAX_WORKER_TRACE_BYTES) : Number.POSITIVE_INFINITY;
    // a worker's noise has a seed of its own (the run's seed and the thread's number)
    this.rnd = xorshift((Number.parseInt(o.seed, 10) || 0) + (worker ? threadIdOf() * 7919 : 0));
    this.ioRnd = xorshift(((Number.parseInt(o.seed, 10) || 0) + (worker ? threadIdOf() * 7919 : 0)) ^ 0x5bd1e995);
    this.task = new Task(worker ? `worker ${threadIdOf()}` : 'main', 0);
    this.pctOn = !!o.pct && !o.plan && !o.force;
    this.pctRnd = xorshift(((Number.parseInt(o.seed, 10) || 0) + (worker ? threadIdOf() * 7919 : 0)) ^ 0x27d4eb2f);
    if (this.pctOn) {
      const steps = Math.max(1, Math.round(o.pct!.steps));
      for (let k = 1; k < Math.max(1, o.pct!.depth); k++) this.pctChanges.push(1 + Math.floor(this.pctRnd() * steps));
      this.pctChanges.sort((a, b) => a - b);
    }
    this.fz = o.force && this.recording ? new NodeForcing(o.force, { byPass: o.forceByPass !== false, hb: o.forceHb !== false }) : null;
    if (this.fz !== null && o.forceLearn) {
      // what the group's earlier runs learned: where each access was last holdable before it
      try {
        this.fz.loadBoundaries(fs.readFileSync(o.forceLearn, 'utf8'));
      } catch {
        // the group's first run
      }
    }
    if (o.plan) {
      this.planOf = new Map();
      for (const p of o.plan.points) {
        this.planOf.set(p.id, this.planPoints.length);
        this.planPoints.push({ probability: p.probability, noise: p.noise ?? o.plan.noise, threads: p.threads?.length ? new Set(p.threads) : null });
      }
    }
    if (worker) {
      // the worker's code comes after what the main thread did before starting it (hook.ts: message 0)
      this.receive(this.task, messageToken(threadIdOf() * 2, 0));
      this.counters = new Int32Array(worker.counters);
      const mine = sharedBuffersIn(workerDataOf());
      worker.sabs.forEach((id, k) => {
        if (mine[k]) this.sabIds.set(mine[k], id);
      });
    }
  }

  /** The next event index: the process-wide counter once a worker thread runs. */
  private ix(): number {
    return this.counters === null ? this.i++ : Atomics.add(this.counters, 0, 1);
  }

  /**
   * A worker thread is starting (the main thread's Worker wrapper, hook.ts): from now on every
   * thread takes its event indexes from one shared counter, so that the traces of the threads
   * merge into one order (workerTraces.ts). Returns what the worker's runtime needs, and the path
   * its trace goes to (`<this trace>@w<threadId>`, merged when the run ends).
   */
  linkWorker(workerData: unknown): { link: WorkerLink; out: string } {
    if (this.counters === null) {
      this.counters = new Int32Array(new SharedArrayBuffer(8));
      this.counters[0] = this.i;
    }
    if (!this.opened && this.recording) this.open();
    const sabs = sharedBuffersIn(workerData).map((b) => this.sabId(b));
    return { link: { counters: this.counters.buffer as SharedArrayBuffer, sabs }, out: this.path };
  }

  /** The process-wide number of a SharedArrayBuffer (0 when no counters are shared yet: a number of this thread). */
  private sabId(b: SharedArrayBuffer): number {
    let id = this.sabIds.get(b);
    if (id === undefined) {
      if (this.counters === null) {
        this.counters = new Int32Array(new SharedArrayBuffer(8));
        this.counters[0] = this.i;
      }
      id = Atomics.add(this.counters, 1, 1) + 1;
      this.sabIds.set(b, id);
    }
    return id;
  }

  // ================= trace writing =================

  private open(): void {
    this.opened = true;
    let flags = 'wx';
    if (this.o.worker) flags = 'w'; // a worker's own file, merged into the thread's process trace
    try {
      this.fd = fs.openSync(this.path, flags);
    } catch {
      // another process of the run has the main trace: this one writes `<trace>~<pid>`
      this.path = `${this.o.out}~${process.pid}`;
      flags = 'w';
      try {
        this.fd = fs.openSync(this.path, flags);
      } catch (e) {
        this.writeFailed(e);
        return;
      }
    }
    const execution = this.path === this.o.out ? this.o.execution : `${this.o.execution}~${process.pid}`;
    const header = {
      braid: 'trace',
      version: 1,
      execution,
      ...(this.programName() ? { program: this.programName() } : {}),
      recorder: { ...RECORDER, options: { noise: this.o.noise, ...(this.o.noise > 0 && this.planOf === null ? { noisePoints: NOISE_POINTS } : {}), ...(this.wide ? { noiseAt: 'all', noiseDelays: 'wide' } : {}), ...(this.pctOn ? { noiseMode: 'pct', pctDepth: this.o.pct!.depth, pctSteps: this.o.pct!.steps } : {}), seed: this.o.seed, include: this.o.include, exclude: this.o.exclude, ...(this.o.packages?.length && !this.o.include.length ? { packages: this.o.packages } : {}), ...(this.o.workspace && !this.o.include.length ? { workspace: this.o.workspace.packages.map((d) => this.relative(d)) } : {}) } },
      startedAt: new Date().toISOString(),
    };
    this.buf.unshift(JSON.stringify(header));
  }

  /**
   * The header's `program`: the entry script as the locations name it (`main.mjs`, `src/app.ts`),
   * the driver rule's entry (engine/testDriver.ts); else the execution's name (`node-test`).
   */
  private programName(): string | undefined {
    const main = process.argv[1];
    if (main && isJsSourceFile(main)) {
      const rel = this.relative(path.resolve(main));
      if (!path.isAbsolute(rel)) return rel;
    }
    return this.o.program;
  }

  private writeFailed(e: unknown): void {
    if (this.failedWrite) return;
    this.failedWrite = true;
    this.fd = -1;
    try {
      // runOnce's AgentWriteFailureWatch reads this notice
      fs.writeSync(2, `Braid recorder: cannot write the trace ${this.path}: ${(e as Error).message}\n`);
    } catch {
      // nothing more to do
    }
  }

  private line(text: string): void {
    if (!this.opened) this.open();
    this.buf.push(text);
    if (this.buf.length >= 2048) this.flush();
  }

  /**
   * Writes the buffered lines. A worker's trace past its cap (MAX_WORKER_TRACE_BYTES) takes no more
   * lines: their events are counted as dropped, and the count is written as a `{"dropped":N}` line
   * every DROPPED_LINE_EVERY events or DROPPED_LINE_MS, and when `report` (before a message is
   * posted, at exit).
   */
  flush(report = false): void {
    if (this.fd < 0) {
      this.buf.length = 0;
      return;
    }
    let data = this.buf.length ? this.buf.join('\n') + '\n' : '';
    if (!this.capped && data) {
      const bytes = Buffer.byteLength(data);
      if (this.written + bytes > this.cap) this.capped = true;
      else this.written += bytes;
    }
    if (this.capped) {
      for (const l of this.buf) if (l.charCodeAt(0) === 91 /* [ */) this.dropped++;
      const now = Date.now();
      data = this.dropped > 0 && (report || this.dropped >= DROPPED_LINE_EVERY || now - this.droppedAt >= DROPPED_LINE_MS) ? `{"dropped":${this.dropped}}\n` : '';
      if (data) {
        this.dropped = 0;
        this.droppedAt = now;
      }
    }
    this.buf.length = 0;
    if (!data) return;
    try {
      fs.writeSync(this.fd, data);
    } catch (e) {
      this.writeFailed(e);
    }
  }

  /** The thread id of the current task, numbered (and defined, its pending tokens received) on its first event. */
  /**
   * A callback task named at its first event by its callback's function, the first frame above the
   * stack it started on: the transform's name of an anonymous callback says what it is (`then
   * callback of fetchUser`, `setTimeout callback in poll`), a named one follows the task's kind
   * (`then onUser`).
   */
  private nameByCallback(t: Task): void {
    let n = this.stack;
    while (n !== 0 && this.nodeParent[n] !== t.base) n = this.nodeParent[n];
    t.base = -1;
    if (n === 0) return;
    const fn = this.siteFn[this.nodeSite[n]];
    if (fn === undefined || fn.endsWith('<anonymous>')) return;
    t.name = / callback (?:of|in) |^[^ ]+ callback$| listener of /.test(fn) ? fn : `${t.name} ${fn}`;
  }

  private tid(): number {
    const t = this.task;
    if (t.tid === 0) {
      if (t.base >= 0) this.nameByCallback(t);
      t.tid = this.nextTid++;
      this.line(`{"def":"thread","id":${t.tid},"name":${JSON.stringify(t.kind === 0 ? t.name : `${t.name} #${t.tid}`)}}`);
    }
    if (t.pending !== null) {
      const toks = t.pending;
      t.pending = null;
      for (const tok of toks) {
        // a hand-off token is received once; an Atomics token again at each acquire (new stores since)
        if (tok < ATOMIC_TOKEN_BASE) {
          if (t.got === null) t.got = new Set();
          if (t.got.has(tok)) continue;
          t.got.add(tok);
        }
        this.line(`[${this.ix()},${t.tid},"RCV",${tok}]`);
      }
    }
    t.dirty = true;
    t.turn = this.turn;
    return t.tid;
  }

  /** A happens-before token of the current task's events so far (its SND written when needed); 0: nothing to order. */
  private snd(): number {
    const t = this.task;
    if (t.pending !== null) {
      // tokens received since: a task that recorded nothing passes its one token on as it is
      if (t.tid === 0 && t.pending.length === 1) return t.pending[0];
    } else {
      if (t.tid === 0) return 0;
      if (!t.dirty) return t.lastTok;
    }
    const tid = this.tid();
    const tok = this.nextTok++;
    this.line(`[${this.ix()},${tid},"SND",${tok}]`);
    t.lastTok = tok;
    t.dirty = false;
    // forcing: what the task did so far happens before whatever receives the token (forcing.ts "happens-before")
    if (this.fz !== null) this.fz.sent(t, tok);
    return tok;
  }

  /**
   * A message between threads (a worker's postMessage to the main thread): the sender's SND and the
   * receiver's RCV use one token, made from the channel and the message's number on it (both
   * sides count), in the namespace every thread shares (never renumbered by the merge).
   */
  sendMessage(channel: number, seq: number): void {
    if (!this.recording) return;
    const tid = this.tid();
    this.line(`[${this.ix()},${tid},"SND",${messageToken(channel, seq)}]`);
    this.task.dirty = false;
  }

  /** the ends of the MessageChannels made in this thread (messageChannels.ts), once one is made */
  ports: WeakMap<object, PortEnd> | null = null;

  /** a worker's port from the main thread (parentPort): each delivery on it receives the next message of `inChannel` */
  private inPort: object | null = null;
  private inChannel = 0;
  private inCount = 0;

  /** In a worker: the main thread's messages arrive on `port`, channel `channel` (hook.ts). */
  listenPort(port: object, channel: number): void {
    this.inPort = port;
    this.inChannel = channel;
  }

  /** The current task received message `seq` of `channel` (its RCV comes before its next event). */
  receiveMessage(channel: number, seq: number): void {
    if (this.recording) this.receive(this.task, messageToken(channel, seq));
  }

  private receive(t: Task, tok: number): void {
    if (tok === 0 || tok === t.lastTok) return;
    if (t.got !== null && t.got.has(tok)) return;
    if (t.pending === null) t.pending = [tok];
    else if (t.pending.includes(tok)) return;
    else t.pending.push(tok);
    t.turn = this.turn;
    if (this.fz !== null) this.fz.received(t, tok);
  }

  /** between a recorded `await`'s operand and its suspension: the promise reactions made now are its continuation (KAWAIT) */
  private awaiting = false;

  // ================= interning =================

  /** Registers a module's sites and variables; returns their base ids. */
  mod(file: string, locs: (number | string)[], vars: string[], mapped: string | null, fields?: string[]): [number, number] {
    if (fields !== undefined) for (const f of fields) this.fieldNames.add(f);
    let name = file;
    if (mapped) {
      let m = mapped;
      if (m.startsWith('file://')) m = new URL(m).pathname;
      const abs = path.isAbsolute(m) ? m : path.resolve(this.o.root, path.dirname(file), m);
      name = this.relative(abs);
    }
    const fileIndex = this.files.length;
    this.files.push(name);
    this.harnessFile.push(/(^|\/)(test|tests|__tests__)\/|\.(test|spec)\.[cm]?[jt]sx?$/.test(name));
    const siteBase = this.siteLine.length;
    const onLine = new Map<number, number>();
    for (let k = 0; k < locs.length; k += 2) {
      const line = locs[k] as number;
      const ordinal = onLine.get(line) ?? 0;
      onLine.set(line, ordinal + 1);
      this.siteOrdinal.push(ordinal);
      this.sitePlan.push(this.planOf === null ? -1 : (this.planOf.get(jsPointId(name, line, ordinal)) ?? -1));
      this.siteCatalogued.push(false);
      this.siteLine.push(locs[k] as number);
      this.siteFn.push(locs[k + 1] as string);
      this.siteFile.push(fileIndex);
      this.siteLoc.push(-1);
      this.siteCtor.push(undefined);
      this.siteVar.push(-1);
      this.siteKey.push(undefined);
      this.siteParent.push(-1);
      this.siteNode.push(0);
      this.siteCallType.push(undefined);
      this.siteCallMethod.push(undefined);
      this.siteCallLoc.push(-1);
      this.siteCallVar.push(-1);
    }
    const varBase = this.varNames.length;
    for (const v of vars) {
      this.varNames.push(`${name}:${v}`);
      this.varId.push(-1);
    }
    return [siteBase, varBase];
  }

  relative(abs: string): string {
    return relativeName(this.o.root, abs, this.o.workspace?.root);
  }

  private loc(site: number): number {
    let id = this.siteLoc[site];
    if (id < 0) {
      id = this.siteLoc[site] = this.nextLoc++;
      const f = this.siteFile[site];
      this.line(`{"def":"loc","id":${id},"file":${JSON.stringify(this.files[f])},"line":${this.siteLine[site]},"method":${JSON.stringify(this.siteFn[site])}${this.harnessFile[f] ? ',"harness":true' : ''}}`);
    }
    return id;
  }

  private callSiteLoc(site: number, call: string): number {
    let c = this.callIndex.get(call);
    if (c === undefined) {
      c = this.callNames.length;
      this.callNames.push(call);
      this.callIndex.set(call, c);
    }
    const key = site * 256 + c;
    let id = this.callLoc.get(key);
    if (id === undefined) {
      id = this.nextLoc++;
      this.callLoc.set(key, id);
      const f = this.siteFile[site];
      this.line(`{"def":"loc","id":${id},"file":${JSON.stringify(this.files[f])},"line":${this.siteLine[site]},"method":${JSON.stringify(this.siteFn[site])},"call":${JSON.stringify(call)}${this.harnessFile[f] ? ',"harness":true' : ''}}`);
    }
    return id;
  }

  private namedVar(name: string): number {
    let id = this.varByName.get(name);
    if (id === undefined) {
      id = this.nextVar++;
      this.varByName.set(name, id);
      this.varNameOf[id] = name;
      this.line(`{"def":"var","id":${id},"name":${JSON.stringify(name)}}`);
    }
    return id;
  }

  private declaredVar(v: number): number {
    let id = this.varId[v];
    if (id < 0) id = this.varId[v] = this.namedVar(this.varNames[v]);
    return id;
  }

  /** the stack node = `parent` + `site` (interned) */
  private node(parent: number, site: number): number {
    const key = parent * 2097152 + site;
    let id = this.nodeByKey.get(key);
    if (id === undefined) {
      id = this.nodeParent.length;
      this.nodeParent.push(parent);
      this.nodeSite.push(site);
      this.nodeDefined.push(false);
      this.nodeByKey.set(key, id);
    }
    return id;
  }

  /** the stack id of an access at `site` in the current function (written when first used) */
  private stackAt(site: number, loc: number): number {
    const parent = this.nodeParent[this.stack];
    let n: number;
    if (this.siteParent[site] === parent) n = this.siteNode[site];
    else {
      n = this.node(parent, site);
      this.siteParent[site] = parent;
      this.siteNode[site] = n;
    }
    if (!this.nodeDefined[n]) this.defineNode(n, loc);
    return n;
  }

  private defineNode(n: number, topLoc?: number): void {
    const parent = this.nodeParent[n];
    if (parent !== 0 && !this.nodeDefined[parent]) this.defineNode(parent);
    const loc = topLoc ?? this.loc(this.nodeSite[n]);
    this.nodeDefined[n] = true;
    this.line(parent === 0 ? `{"def":"stack","id":${n},"frames":[${loc}]}` : `{"def":"stack","id":${n},"parent":${parent},"frame":${loc}}`);
  }

  private obj(o: object): number {
    let id = this.objIds.get(o);
    if (id === undefined) {
      // a view of a SharedArrayBuffer: one object in every thread (its buffer and offset)
      if (ArrayBuffer.isView(o) && o.buffer instanceof SharedArrayBuffer) id = SHARED_OBJECT_BASE + this.sabId(o.buffer) * SAB_STRIDE + o.byteOffset;
      else id = this.nextObj++;
      this.objIds.set(o, id);
    }
    return id;
  }

  /** a file path's object: the same number in every thread (the shared namespace) */
  private pathId(resolved: string): number {
    let id = this.keyIds.get(`fs\0${resolved}`);
    if (id === undefined) {
      id = PATH_BASE + fnv1a(resolved);
      this.keyIds.set(`fs\0${resolved}`, id);
    }
    return id;
  }

  private keyId(k: unknown): number {
    let id = this.keyIds.get(k);
    if (id === undefined) {
      id = this.keyIds.size + 1;
      this.keyIds.set(k, id);
    }
    return id;
  }

  private value(v: unknown): string {
    switch (typeof v) {
      case 'number':
        return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
      case 'boolean':
        return v ? 'true' : 'false';
      case 'string':
        return JSON.stringify(v.length > 64 ? v.slice(0, 64) + '…' : v);
      case 'undefined':
        return '"undefined"';
      case 'bigint':
        return JSON.stringify(`${v}n`);
      case 'symbol': {
        // its description (`Symbol(open)`), not null: opossum's states are symbols, and the ranking reads
        // null as an empty value and equal values as a write of the value already there
        const s = (v as symbol).toString();
        return JSON.stringify(s.length > 64 ? s.slice(0, 64) + '…' : s);
      }
      case 'object':
        if (v === null) return 'null';
        return JSON.stringify(`${(v as object).constructor?.name ?? 'Object'}@${this.obj(v as object)}`);
      case 'function':
        return JSON.stringify(`function ${(v as { name?: string }).name || '<anonymous>'}`);
      default:
        return 'null';
    }
  }

  private access(kind: 'R' | 'W', varId: number, site: number, loc: number, obj: number, elem: number, value: unknown): void {
    const t = this.tid();
    const st = this.stackAt(site, loc);
    this.line(`[${this.ix()},${t},"${kind}",${varId},${loc},${st},${obj},${elem},${this.value(value)}]`);
    if (this.fz !== null && !this.fz.stopped) this.forced(kind, varId, loc, site, undefined, elem < 0 ? obj : obj * 65599 + elem);
  }

  /** A recorded access meets the forcing plan: the performance of the plan's accesses it matches (forcing.ts). */
  private forced(kind: 'R' | 'W', varId: number, loc: number, site: number, call: string | undefined, obj: number): void {
    const fz = this.fz!;
    const key = (loc * 2097152 + varId) * 2 + (kind === 'W' ? 1 : 0);
    let m = fz.maskOf(key);
    if (m === undefined) m = fz.computeMask(key, kind === 'W', this.varNameOf[varId], { ...this.siteLocation(site), ...(call !== undefined ? { call } : {}) });
    if (m !== 0) fz.performed(this.task, m, obj);
  }

  /** Where a site is, as the trace names it. */
  private siteLocation(site: number): ForceLocation {
    return { file: this.files[this.siteFile[site]], line: this.siteLine[site], method: this.siteFn[site] };
  }

  /** Forcing at a suspension point (an await, an async function's start) of the current task: its hold, or null. */
  private suspendAt(site: number): Promise<void> | null {
    const fz = this.fz!;
    const at = () => this.siteLocation(site);
    return fz.suspend(this.task, fz.upcomingAt(site, at), site, at);
  }

  /** forcing is on: async function bodies start with `if (__braid.F && __braid.hf(S)) await __braid.hp` (transform.ts) */
  get F(): boolean {
    return this.fz !== null && !this.fz.stopped;
  }

  /** the start of an async function's body (forcing runs only): true when the task is held (`hp` resolves when it goes on) */
  hf = (site: number): boolean => {
    const p = this.suspendAt(site);
    this.hp = p;
    // `await __braid.hp` follows: a recorded await
    if (p !== null) this.awaiting = true;
    return p !== null;
  };

  // ================= callbacks held before they start (forcing runs) =================

  /**
   * The callback a timer, an immediate, a nextTick, a microtask, an fs call, an EventEmitter listener or
   * a then/catch/finally (`reaction`) is given, in forcing runs: a wrapper that lets forcing hold the
   * callback before it starts (docs/recorder-node.md "Forcing"). Only a callback that is an
   * instrumented plain function is wrapped — its first statement is the runtime's function entry
   * (`fe`), so nothing of it has run when that entry decides to hold it; anything else is returned as
   * it is. The same callback gets the same wrapper (a listener removed by its function is found).
   */
  gate<F>(cb: F, reaction = false): F {
    if (this.fz === null || this.fz.stopped || typeof cb !== 'function') return cb;
    const cache = reaction ? this.gatedReaction : this.gatedPlain;
    const known = cache.get(cb);
    if (known !== undefined) return known as F;
    let inst = this.instrumentedFn.get(cb);
    if (inst === undefined) {
      inst = INSTRUMENTED_FN.test(Function.prototype.toString.call(cb));
      this.instrumentedFn.set(cb, inst);
    }
    if (!inst) return cb;
    const rt = this;
    const fn = cb as unknown as (...a: unknown[]) => unknown;
    const g = function (this: unknown, ...args: unknown[]): unknown {
      return rt.runGated(fn, this, args, reaction);
    };
    Object.defineProperty(g, 'name', { value: fn.name, configurable: true });
    cache.set(cb, g);
    this.instrumentedFn.set(g, false);
    return g as unknown as F;
  }

  /** The gated wrapper of a listener, if it has one (`off(fn)` removes what `on(fn)` added). */
  private gatedListener(fn: unknown): unknown {
    return typeof fn === 'function' ? (this.gatedPlain.get(fn) ?? fn) : fn;
  }

  /**
   * Runs a gated callback: its first function entry (`fe` → `enterGated`) may hold it; then it has
   * done nothing, and it runs when the hold is over, in the task and stack it was to run in (a
   * reaction's result is the promise of that later run; a plain callback's error is thrown as an
   * uncaught exception, as it would have been). Otherwise what it performed of the plan's accesses is
   * learned for its entry site: a later callback entering there may reach them again.
   */
  private runGated(cb: (...a: unknown[]) => unknown, self: unknown, args: unknown[], reaction: boolean): unknown {
    const fz = this.fz!;
    if (fz.stopped) return cb.apply(self, args);
    const d = this.gateDepth++;
    this.gateSites[d] = -1;
    this.probe = d + 1;
    const before = fz.clock;
    // the callback's start is a boundary of its task only while it runs (a listener runs inside `emit`:
    // what the emitting task does after it did not follow the listener's start, and is not held by its hold)
    const t0 = this.task;
    const site0 = t0.forceSite;
    const after0 = t0.forceAfter;
    const nth0 = t0.forceNth;
    // a wait the task's hold met, to be counted when the task makes its access: not the callback's to
    // miss (a listener's start inside `emit` is no boundary of the emitting flow); back after it
    const pending0 = t0.forcePending;
    t0.forcePending = -1;
    let r: unknown;
    try {
      r = cb.apply(self, args);
    } catch (e) {
      if (e !== HELD) throw e;
      const hold = this.gateHold!;
      const task = this.gateTask!;
      const stack = this.gateStack;
      const gsite = this.gateSites[d];
      const gnth = this.gateNth;
      this.gateHold = null;
      this.gateTask = null;
      const run = (): unknown => {
        const t = this.task;
        const st = this.stack;
        this.task = task;
        this.stack = stack;
        // its accesses follow its start; a wait met by its hold is counted when it makes the access
        const site1 = task.forceSite;
        const after1 = task.forceAfter;
        const nth1 = task.forceNth;
        task.forceSite = gsite;
        task.forceAfter = 0;
        task.forceNth = gnth;
        try {
          return cb.apply(self, args);
        } finally {
          fz.leaveCallback(task, site1, after1, nth1);
          this.task = t;
          this.stack = st;
        }
      };
      if (reaction) return hold.then(run);
      void hold.then(() => {
        try {
          run();
        } catch (err) {
          process.nextTick(() => {
            throw err;
          });
        }
      });
      return undefined;
    } finally {
      this.probe = 0;
      this.gateDepth--;
      // returned, held, or thrown: the task's boundary is again its own
      fz.leaveCallback(t0, site0, after0, nth0);
      if (pending0 >= 0) t0.forcePending = pending0;
    }
    const site = this.gateSites[d];
    if (site >= 0 && !fz.stopped) {
      const m = fz.performedSince(before);
      if (m !== 0) this.learned.set(site, (this.learned.get(site) ?? 0) | m);
    }
    return r;
  }

  /** The first function entry of a gated callback (at `site`): throws HELD when forcing holds it there. */
  private enterGated(site: number): void {
    this.gateSites[this.probe - 1] = site;
    this.probe = 0;
    const fz = this.fz!;
    if (fz.stopped) return;
    const at = () => this.siteLocation(site);
    const upcoming = fz.upcomingAt(site, at) | (this.learned.get(site) ?? 0);
    const hold = fz.suspend(this.task, upcoming, site, at);
    if (hold === null) return;
    this.gateHold = hold;
    this.gateTask = this.task;
    this.gateNth = this.task.forceNth;
    this.gateStack = this.stack;
    throw HELD;
  }

  // ================= accesses (called by the instrumented code) =================

  /**
   * The variable of a field (`Class.key`, `Class.#key`, `Class[Symbol(desc)]`) or of an element
   * (`Class[]`), cached per site by the object's prototype (a class's static fields: by the class).
   */
  private propVar(o: object, key: string | symbol, site: number, computed: boolean): number {
    const by = typeof o === 'function' ? o : Object.getPrototypeOf(o);
    if (this.siteCtor[site] === by && this.siteVar[site] >= 0 && this.siteKey[site] === key) return this.siteVar[site];
    const cname = this.className(o, by);
    const id = this.namedVar(typeof key === 'symbol' ? `${cname}[${key.toString()}]` : computed ? `${cname}[]` : `${cname}.${key}`);
    this.siteCtor[site] = by;
    this.siteVar[site] = id;
    this.siteKey[site] = key;
    return id;
  }

  /** prototypes assigned to a function's `prototype` (`Foo.prototype = []`): the function's name */
  private protoNames = new WeakMap<object, string>();

  /**
   * The class an object's fields are named after: its constructor's name — unless its prototype was
   * assigned to a function's `prototype` (`Foo.prototype = []`, whose inherited constructor is Array,
   * or `Object.create(EventEmitter.prototype)`): then that function's; a class's own (static) fields
   * are named after the class.
   */
  private className(o: object, proto: unknown): string {
    if (typeof o === 'function') return (o as { name?: string }).name || 'Function';
    const ctor = (o as { constructor?: unknown }).constructor;
    if (typeof ctor === 'function' && ctor.prototype === proto && ctor.name) return ctor.name;
    const assigned = proto !== null && typeof proto === 'object' ? this.protoNames.get(proto) : undefined;
    if (assigned !== undefined) return assigned;
    return typeof ctor === 'function' && ctor.name ? ctor.name : 'Object';
  }

  /** `Foo.prototype = v`: objects made by `new Foo()` have their fields named after Foo */
  private noteProto(o: unknown, key: string, v: unknown): void {
    if (key === 'prototype' && typeof o === 'function' && v !== null && typeof v === 'object' && (o as { name?: string }).name) this.protoNames.set(v, (o as { name: string }).name);
  }

  /** an array or an object whose prototype is one (`Foo.prototype = []`, a class extending Array): a collection */
  private arrayLike(o: object): boolean {
    return Array.isArray(o) || o instanceof Array;
  }

  private recordProp(kind: 'R' | 'W', o: unknown, key: string, site: number, value: unknown): void {
    if (!this.recording || (typeof o !== 'object' && typeof o !== 'function') || o === null) return;
    if (kind === 'R' && typeof value === 'function') return; // a method looked up, not state
    if (key === 'length' && this.arrayLike(o)) return this.recordCall(o, 'Array', 'length', site, -1, value, kind);
    if (key === 'size') {
      const c = this.collectionKind(o);
      if (c !== NOT_COLLECTION) return this.recordCall(o, c === MAP ? 'Map' : 'Set', 'size', site, -1, value, kind);
    }
    const loc = this.loc(site);
    this.access(kind, this.propVar(o, key, site, false), site, loc, this.obj(o), -1, value);
  }

  private recordElem(kind: 'R' | 'W', o: unknown, k: unknown, site: number, value: unknown): void {
    if (!this.recording || (typeof o !== 'object' && typeof o !== 'function') || o === null) return;
    if (kind === 'R' && typeof value === 'function') return;
    // a symbol-keyed field (`this[kState]`): a field of its own, named by the symbol
    if (typeof k === 'symbol') return this.access(kind, this.propVar(o, k, site, true), site, this.loc(site), this.obj(o), -1, value);
    if (typeof k !== 'number' && typeof k !== 'string') return;
    // a key that the recorded code also writes as `o.key`: that field (genpool-clear: `this._list[this._startPosition]`
    // reads DoublyLinkedList.head, which insertBeginning writes as `this.head`), not a dictionary's entry
    if (typeof k === 'string' && this.fieldNames.has(k)) return this.recordProp(kind, o, k, site, value);
    const isIndex = typeof k === 'number' ? Number.isInteger(k) && k >= 0 : false;
    const loc = this.loc(site);
    this.access(kind, this.propVar(o, '', site, true), site, loc, this.obj(o), isIndex ? (k as number) : 1e9 + this.keyId(k), value);
  }

  private recordCall(o: object, type: string, method: string, site: number, key: number, value: unknown, kind?: 'R' | 'W'): void {
    let loc: number;
    let v: number;
    if (this.siteCallType[site] === type && this.siteCallMethod[site] === method) {
      loc = this.siteCallLoc[site];
      v = this.siteCallVar[site];
    } else {
      loc = this.callSiteLoc(site, `${type}.${method}`);
      v = this.namedVar(type);
      this.siteCallType[site] = type;
      this.siteCallMethod[site] = method;
      this.siteCallLoc[site] = loc;
      this.siteCallVar[site] = v;
    }
    const k = kind ?? (WRITES.has(method) ? 'W' : 'R');
    const id = this.obj(o);
    // a keyed call on a Map or Set is an access of the key's part of the collection (docs/recorder-node.md)
    const obj = key > 0 ? id * 1048576 + key : id;
    const t = this.tid();
    const st = this.stackAt(site, loc);
    this.line(`[${this.ix()},${t},"${k}",${v},${loc},${st},${obj},-1,${value === undefined ? 'null' : this.value(value)}]`);
    if (this.fz !== null && !this.fz.stopped) this.forced(k, v, loc, site, `${type}.${method}`, obj);
  }

  /** `o.k` */
  gp = (o: any, k: string, site: number): any => {
    const v = o[k];
    this.recordProp('R', o, k, site, v);
    return v;
  };
  /** `o[k]` */
  gc = (o: any, k: any, site: number): any => {
    const v = o[k];
    this.recordElem('R', o, k, site, v);
    return v;
  };
  /** `o.k = v` */
  sp = (o: any, k: string, v: any, site: number): any => {
    if (k === 'prototype') this.noteProto(o, k, v);
    this.recordProp('W', o, k, site, v);
    o[k] = v;
    return v;
  };
  /** `o[k] = v` */
  sc = (o: any, k: any, v: any, site: number): any => {
    this.recordElem('W', o, k, site, v);
    o[k] = v;
    return v;
  };
  /** `o.k++` and friends */
  up = (o: any, k: string, d: number, post: number, site: number): any => {
    const old = o[k];
    this.recordProp('R', o, k, site, old);
    const nv = +old + d;
    this.recordProp('W', o, k, site, nv);
    o[k] = nv;
    return post ? +old : nv;
  };
  uc = (o: any, k: any, d: number, post: number, site: number): any => {
    const old = o[k];
    this.recordElem('R', o, k, site, old);
    const nv = +old + d;
    this.recordElem('W', o, k, site, nv);
    o[k] = nv;
    return post ? +old : nv;
  };
  /** `delete o.k` */
  dp = (o: any, k: string, site: number): boolean => {
    this.recordProp('W', o, k, site, undefined);
    return delete o[k];
  };
  dc = (o: any, k: any, site: number): boolean => {
    this.recordElem('W', o, k, site, undefined);
    return delete o[k];
  };

  private collection(o: any, m: string, site: number, key: unknown, hasKey: boolean): void {
    if (!this.recording) return;
    // the value of a keyed call is its key (cheap, and shows which entry the tasks raced on)
    const c = typeof o === 'object' && o !== null ? this.collectionKind(o) : NOT_COLLECTION;
    if (c === MAP) this.recordCall(o, 'Map', m, site, hasKey && KEYED.has(m) ? this.keyId(key) : -1, hasKey && KEYED.has(m) ? key : undefined);
    else if (c === SET) this.recordCall(o, 'Set', m, site, hasKey && KEYED.has(m) ? this.keyId(key) : -1, hasKey && KEYED.has(m) ? key : undefined);
    else if (c === NOT_COLLECTION && this.arrayLike(o)) this.recordCall(o, 'Array', m, site, -1, undefined);
    else if (ArrayBuffer.isView(o) && !(o instanceof DataView)) this.recordCall(o, 'TypedArray', m, site, -1, undefined);
    else if (o instanceof EventEmitter && EMITTER_CALLS.has(m) && hasKey && (typeof key === 'string' || typeof key === 'symbol')) {
      // the event's listener list: on/once/off write it, emit reads it (a listener registered after the emit)
      this.recordCall(o, 'EventEmitter', m, site, this.keyId(key), typeof key === 'symbol' ? key.toString() : key, m === 'emit' ? 'R' : 'W');
    }
  }
  /** per constructor of another realm (jest's test context has its own Map and Set): whether it makes Maps or Sets */
  private realmKinds = new WeakMap<object, number>();

  /**
   * MAP, SET or NOT_COLLECTION: `instanceof` first; an object of another realm (a node:vm context, jest's test
   * environment) by its constructor's kind, found once from its tag (`[object Map]`).
   */
  private collectionKind(o: object): number {
    if (o instanceof Map) return MAP;
    if (o instanceof Set) return SET;
    const ctor = (o as { constructor?: unknown }).constructor;
    if (typeof ctor !== 'function') return NOT_COLLECTION;
    let k = this.realmKinds.get(ctor);
    if (k === undefined) {
      const tag = Object.prototype.toString.call(o);
      k = tag === '[object Map]' ? MAP : tag === '[object Set]' ? SET : NOT_COLLECTION;
      this.realmKinds.set(ctor, k);
    }
    return k;
  }

  /**
   * A file-system function imported by name (transform: `unlink(p)` → `fsf(unlink, "unlink", S)(p)`):
   * the call is an access of its path — R for stat, readFile, readdir, …; W for unlink, rm, rmdir,
   * writeFile, mkdir, rename, … (docs/recorder-node.md "What is recorded")
   */
  fsf = (fn: any, method: string, site: number): any => {
    if (typeof fn !== 'function' || !this.recording) return fn;
    return (...args: any[]) => {
      const last = args.length - 1;
      // forcing runs: the fs callback may be held before it starts; noise: it may run late, and the
      // call may start late (after a setImmediate: another call made after it may reach the thread pool first)
      let startLate = false;
      if (this.pctOn) return this.pctFsCall(fn, method, site, args);
      if (last > 0 && typeof args[last] === 'function') {
        if (this.fz !== null) args[last] = this.gate(args[last]);
        else if (this.p > 0 && this.planOf === null) {
          args[last] = this.lateCompletion(args[last]);
          startLate = this.ioRnd() < this.p;
        }
      }
      // wide noise: the start waits a setImmediate or up to WIDE_DELAY_MS
      const startDelay = startLate && this.wide ? this.wideDelay(this.ioRnd) : -1;
      if (args.length > 0) this.fsAccess(method, site, args[0]);
      // rename, copyFile, cp, link, symlink: the second path is written too
      if (args.length > 1 && FS_TWO_PATHS.has(method.replace(/Sync$/, ''))) this.fsAccess(method, site, args[1], 'W');
      if (startLate) {
        if (startDelay >= 0) setTimeout(() => fn(...args), startDelay);
        else setImmediate(() => fn(...args));
        return undefined;
      }
      return fn(...args);
    };
  };

  /**
   * Noise at an I/O completion (docs/recorder-node.md "Noise"): with probability p the callback the
   * recorded code gave an fs call runs after the call completes and then a `setImmediate` or a 0–2 ms
   * timer, so that what the program does meanwhile — another I/O's callback, a timer, the awaiting
   * caller's next turn — may come first (sonic-reopen: the open's callback after the rotation's
   * reopen()). Chosen when the call is made, from the run's seeded generator; its task is still the fs
   * callback's.
   */
  private lateCompletion(cb: (...a: unknown[]) => unknown): (...a: unknown[]) => unknown {
    if (this.ioRnd() >= this.p) return cb;
    const delay = this.wide ? this.wideDelay(this.ioRnd) : this.ioRnd() < 0.5 ? -1 : Math.floor(this.ioRnd() * 3);
    return function (this: unknown, ...r: unknown[]) {
      const self = this;
      const run = () => cb.apply(self, r);
      const h: any = delay < 0 ? setImmediate(run) : setTimeout(run, delay);
      // the callback's task keeps its kind (an fs callback), not the timer's
      if (h !== null && typeof h === 'object') h[KTYPE] = 'FSREQCALLBACK';
    };
  }

  /**
   * PCT: an fs call in recorded code. The request gets a priority of its own (the thread pool runs
   * requests side by side, as threads); its start is a scheduling point — held while a request of
   * higher priority is in flight — and so is its callback, which runs with its task's priority.
   */
  private pctFsCall(fn: (...a: any[]) => any, method: string, site: number, args: any[]): any {
    const last = args.length - 1;
    if (last > 0 && typeof args[last] === 'function') args[last] = this.pctCallback(args[last]);
    if (args.length > 0) this.fsAccess(method, site, args[0]);
    if (args.length > 1 && FS_TWO_PATHS.has(method.replace(/Sync$/, ''))) this.fsAccess(method, site, args[1], 'W');
    const prio = this.pctRnd();
    this.pctReport.threads++;
    const start = () => {
      const outer = this.pctReqPrio;
      this.pctReqPrio = prio;
      try {
        return fn(...args);
      } finally {
        this.pctReqPrio = outer;
      }
    };
    // a promise-returning call (fs.promises) starts now: its caller awaits what it returns
    if (last < 0 || typeof args[last] !== 'function' || !this.pctWaits(prio)) return start();
    this.pctHold(prio, 'Immediate', start);
    return undefined;
  }

  /** PCT: a callback (fs, timer) that, when it is called, waits while a request of higher priority than its task's is in flight. */
  pctCallback(cb: (...a: unknown[]) => unknown): (...a: unknown[]) => unknown {
    const rt = this;
    return function (this: unknown, ...r: unknown[]) {
      const prio = rt.pctPrio(rt.task);
      if (!rt.pctWaits(prio)) return cb.apply(this, r);
      const self = this;
      const res: any = executionAsyncResource();
      const type: string = (res !== null && typeof res === 'object' && res[KTYPE]) || 'Immediate';
      // a timer cleared while its callback was held does not run: it would not have, had it fired late
      rt.pctHold(prio, type, type === 'Timeout' ? () => res._onTimeout !== null && cb.apply(self, r) : () => cb.apply(self, r));
      return undefined;
    };
  }

  /** PCT: the task's priority, drawn at its first scheduling point. */
  private pctPrio(t: Task): number {
    if (t.prio !== t.prio) {
      t.prio = this.pctRnd();
      this.pctReport.threads++;
    }
    return t.prio;
  }

  /**
   * PCT: a scheduling point of the current task (a ready callback, an await continuation, an fs call's
   * start with the request's priority): counts the step, lowers the task's priority at a change
   * point, and says whether it must wait — a request of higher priority in flight, or a held callback
   * of higher priority.
   */
  private pctWaits(prio: number): boolean {
    const step = ++this.pctSteps;
    if (this.pctNextChange < this.pctChanges.length && this.pctChanges[this.pctNextChange] <= step) {
      while (this.pctNextChange < this.pctChanges.length && this.pctChanges[this.pctNextChange] <= step) this.pctNextChange++;
      // below every drawn priority (0..1) and every earlier change
      this.task.prio = -step;
      prio = -step;
      this.pctReport.changes++;
    }
    return this.pctHigher(prio);
  }

  private pctHigher(prio: number): boolean {
    for (const q of this.pctPending.values()) if (q > prio) return true;
    for (let k = 0; k < this.pctHeld.length; k++) if (this.pctHeld[k].prio > prio) return true;
    return false;
  }

  /** PCT: holds `run` (in the current task) until no request of higher priority is in flight. */
  private pctHold(prio: number, type: string, run: () => void): void {
    this.pctReport.waits++;
    this.pctHeld.push({ prio, task: this.task, stack: this.stack, type, tok: this.snd(), since: performance.now(), run });
    this.pctArm();
  }

  private pctArm(): void {
    if (this.pctPoll !== null) return;
    // a poll of the requests in flight (their completion is seen in the async hooks' `after`)
    this.pctPoll = REAL_SET_TIMEOUT(this.pctTick, 1);
    (this.pctPoll as any)[KTOK] = undefined;
  }

  /** PCT: releases the held callback of highest priority once nothing of higher priority is in flight (or it was held PCT_MAX_HOLD_MS). */
  private pctTick = (): void => {
    this.pctPoll = null;
    if (this.pctHeld.length === 0) return;
    let best = 0;
    for (let k = 1; k < this.pctHeld.length; k++) if (this.pctHeld[k].prio > this.pctHeld[best].prio) best = k;
    const h = this.pctHeld[best];
    let inFlight = false;
    for (const q of this.pctPending.values()) if (q > h.prio) inFlight = true;
    if (inFlight && performance.now() - h.since < PCT_MAX_HOLD_MS) {
      this.pctArm();
      return;
    }
    if (inFlight) this.pctReport.endedByStall++;
    this.pctHeld.splice(best, 1);
    // run in a callback of its own: the held task's, with the token it had (not the poll's)
    const im: any = setImmediate(h.run);
    im[KPRIO] = h.prio;
    im[KTASK] = h.task;
    im[KSTACK] = h.stack;
    im[KTYPE] = h.type;
    im[KTOK] = h.tok !== 0 ? h.tok : undefined;
    if (this.pctHeld.length > 0) this.pctArm();
  };

  private fsAccess(method: string, site: number, p: unknown, kind?: 'R' | 'W'): void {
    let file: string;
    if (typeof p === 'string') file = p;
    else if (p instanceof URL && p.protocol === 'file:') file = decodeURIComponent(p.pathname);
    else if (Buffer.isBuffer(p)) file = p.toString();
    else return;
    const resolved = path.resolve(file);
    const loc = this.callSiteLoc(site, `fs.${method}`);
    const k = kind ?? (FS_WRITES.has(method.replace(/Sync$/, '')) ? 'W' : 'R');
    const t = this.tid();
    const st = this.stackAt(site, loc);
    const fileVar = this.namedVar('file');
    this.line(`[${this.ix()},${t},"${k}",${fileVar},${loc},${st},${this.pathId(resolved)},-1,${this.value(resolved)}]`);
    if (this.fz !== null && !this.fz.stopped) this.forced(k, fileVar, loc, site, `fs.${method}`, this.pathId(resolved));
  }

  /**
   * `Atomics.op(view, i, …)` (transform: ATOMIC_OPS): on a view of a SharedArrayBuffer, an access of
   * the element and a happens-before token of it — a store (or notify) releases what the thread did
   * before (SND after its W), a load (or a wait, which loads the element) acquires it (RCV before the
   * thread's next event), a read-modify-write does both (RCV, R, W, SND). So a plain write published by an
   * `Atomics.store` of a flag is ordered before the reads of a thread that `Atomics.load`s the flag and
   * sees it set (the fix of sabstatus), and is not a race. Every earlier store of the element counts
   * (an over-approximation of the order that seq-cst atomics give: a load that reads thread C's store
   * is ordered after thread A's earlier store too). Anything else (an unshared buffer, waitAsync, a
   * bad argument) is the plain call.
   */
  at = (op: string, site: number, a: any, i: any, ...rest: any[]): any => {
    const fn = (Atomics as any)[op] as (...x: any[]) => any;
    if (!this.recording || !ArrayBuffer.isView(a) || !(a.buffer instanceof SharedArrayBuffer) || typeof i !== 'number' || !Number.isInteger(i) || i < 0) return fn(a, i, ...rest);
    const view = a as unknown as { buffer: SharedArrayBuffer; byteOffset: number; BYTES_PER_ELEMENT: number };
    const tok = ATOMIC_TOKEN_BASE + this.sabId(view.buffer) * SAB_STRIDE + view.byteOffset + i * view.BYTES_PER_ELEMENT;
    if (op === 'notify') {
      this.atomicSend(tok);
      return fn(a, i, ...rest);
    }
    const loc = this.loc(site);
    const v = this.propVar(a, '', site, true);
    const o = this.obj(a);
    switch (op) {
      case 'load': {
        const r = fn(a, i);
        this.access('R', v, site, loc, o, i, r);
        this.acquire(tok);
        return r;
      }
      case 'store': {
        this.access('W', v, site, loc, o, i, rest[0]);
        this.atomicSend(tok);
        return fn(a, i, ...rest);
      }
      case 'wait': {
        // blocks (a worker) until notified: an atomic load of the element ('not-equal' too), so it
        // acquires what the notifying or storing threads did before
        const r = fn(a, i, ...rest);
        this.access('R', v, site, loc, o, i, r === 'not-equal' ? undefined : rest[0]);
        this.acquire(tok);
        return r;
      }
      default: {
        // add, sub, and, or, xor, exchange, compareExchange: the old value is read, a new one written
        this.acquire(tok);
        const r = fn(a, i, ...rest);
        this.access('R', v, site, loc, o, i, r);
        this.access('W', v, site, loc, o, i, op === 'compareExchange' ? (r === rest[0] ? rest[1] : r) : op === 'exchange' ? rest[0] : undefined);
        this.atomicSend(tok);
        return r;
      }
    }
  };

  /** RCV of an Atomics token before the current task's next event (every time: stores may have come since). */
  private acquire(tok: number): void {
    (this.task.pending ??= []).push(tok);
  }

  /** SND of an Atomics token: the current task's events so far happen before a later acquire of the element. */
  private atomicSend(tok: number): void {
    const tid = this.tid();
    this.line(`[${this.ix()},${tid},"SND",${tok}]`);
  }

  /** `this.#x` read (transform: `__braid.pg(this.#x, this, "#x", S)`): the value read */
  pg = (v: any, o: any, k: string, site: number): any => {
    this.recordProp('R', o, k, site, v);
    return v;
  };
  /** `this.#x = v` (transform: `this.#x = __braid.pw(this, "#x", v, S)`): the value written */
  pw = (o: any, k: string, v: any, site: number): any => {
    this.recordProp('W', o, k, site, v);
    return v;
  };
  /** `this.#x++` and friends (transform: `(__braid.pu(this, "#x", d, S, this.#x), this.#x++)`) */
  pu = (o: any, k: string, d: number, site: number, old: any): void => {
    this.recordProp('R', o, k, site, old);
    this.recordProp('W', o, k, site, +old + d);
  };

  /**
   * `o.k(…)` where the module assigns `o.k = …` somewhere (transform `assignedFieldNames`): the call reads
   * the field when it is the object's own property (a hook or callback kept in a field), not a method
   * found on its prototype; `this` is `o`, as in the call. One per arity, as mc*: no array per call.
   */
  fc0 = (o: any, k: string, site: number): any => {
    const fn = this.fieldCall(o, k, site);
    return typeof fn === 'function' ? callOf.call(fn, o) : o[k]();
  };
  fc1 = (o: any, k: string, site: number, a: any): any => {
    const fn = this.fieldCall(o, k, site);
    return typeof fn === 'function' ? callOf.call(fn, o, a) : o[k](a);
  };
  fc2 = (o: any, k: string, site: number, a: any, b: any): any => {
    const fn = this.fieldCall(o, k, site);
    return typeof fn === 'function' ? callOf.call(fn, o, a, b) : o[k](a, b);
  };
  fcN = (o: any, k: string, site: number, ...args: any[]): any => {
    const fn = this.fieldCall(o, k, site);
    return typeof fn === 'function' ? Reflect.apply(fn, o, args) : o[k](...args);
  };
  /** The field's value, read once (a getter runs once, as in the call); a read of it when it is an own function. */
  private fieldCall(o: any, k: string, site: number): unknown {
    const fn = o[k];
    // (recordProp leaves out reads of functions: a method looked up; this one is the field's state)
    if (this.recording && typeof fn === 'function' && Object.prototype.hasOwnProperty.call(o, k)) this.access('R', this.propVar(o, k, site, false), site, this.loc(site), this.obj(o), -1, fn);
    return fn;
  }

  /** `o.m()` of a collection method */
  mc0 = (o: any, m: string, site: number): any => {
    this.collection(o, m, site, undefined, false);
    return o[m]();
  };
  mc1 = (o: any, m: string, site: number, a: any): any => {
    this.collection(o, m, site, a, true);
    return o[m](a);
  };
  mc2 = (o: any, m: string, site: number, a: any, b: any): any => {
    this.collection(o, m, site, a, true);
    if (this.fz !== null && typeof b === 'function' && o instanceof EventEmitter) b = this.listener(m, b);
    return o[m](a, b);
  };
  mcN = (o: any, m: string, site: number, ...args: any[]): any => {
    this.collection(o, m, site, args[0], args.length > 0);
    if (this.fz !== null && typeof args[1] === 'function' && o instanceof EventEmitter) args[1] = this.listener(m, args[1]);
    return o[m](...args);
  };

  /** Forcing runs: the listener an EventEmitter call gets — gated when added, its gated wrapper when removed. */
  private listener(m: string, fn: unknown): unknown {
    if (LISTEN_CALLS.has(m)) return this.gate(fn);
    if (UNLISTEN_CALLS.has(m)) return this.gatedListener(fn);
    return fn;
  }

  /** read of a shared variable */
  rv = (v: any, site: number, varIndex: number, scope: number): any => {
    if (this.recording) this.access('R', this.declaredVar(varIndex), site, this.loc(site), scope, -1, v);
    return v;
  };
  /** write of a shared variable (the value assigned) */
  wv = (v: any, site: number, varIndex: number, scope: number): any => {
    if (this.recording) this.access('W', this.declaredVar(varIndex), site, this.loc(site), scope, -1, v);
    return v;
  };
  /** `x++`: read and write */
  vu = (v: any, d: number, site: number, varIndex: number, scope: number): void => {
    if (!this.recording) return;
    const id = this.declaredVar(varIndex);
    const loc = this.loc(site);
    this.access('R', id, site, loc, scope, -1, v);
    this.access('W', id, site, loc, scope, -1, +v + d);
  };
  /** a new closure scope (the `obj` of its variables' accesses) */
  ns = (): number => this.nextScope++;

  // ================= frames and tasks =================

  /** function entry: pushes the frame, returns the caller's stack */
  fe = (site: number): number => {
    if (this.probe !== 0) this.enterGated(site);
    const saved = this.stack;
    this.stack = this.node(saved, site);
    return saved;
  };
  /** function exit */
  fx = (saved: number): void => {
    this.stack = saved;
  };
  /** async function entry: a task of its own (unless awaited at once), and the frame */
  as = (site: number): number => {
    this.savedTask.push(this.task);
    this.savedStack.push(this.stack);
    const inline = this.il;
    this.il = 0;
    if (!inline) {
      const tok = this.snd();
      const t = new Task(`async ${this.siteFn[site]}`, 1);
      this.task = t;
      this.receive(t, tok);
    }
    this.stack = this.node(this.stack, site);
    return 0;
  };
  /** async function: back to the caller's task when its body suspends (or ends) */
  ae = (_unused: number): void => {
    this.awaiting = false;
    this.task = this.savedTask.pop() ?? this.task;
    this.stack = this.savedStack.pop() ?? 0;
  };

  /** registers the ES-module hooks when they were put off (hook.ts: a CommonJS entry script) */
  esmHooks: (() => void) | null = null;
  /** `import(x)` in a CommonJS file: the ES-module hooks first, then the import */
  imp = (f: () => Promise<unknown>): Promise<unknown> => {
    const register = this.esmHooks;
    if (register !== null) {
      this.esmHooks = null;
      register();
    }
    return f();
  };

  /** `p.then(f)`, `p.catch(f)`, `p.finally(f)` in the user's code: the callback is a task of its own */
  pt = (p: any, m: string, ...args: any[]): any => {
    const outer = this.thenCall;
    this.thenCall = true;
    if (this.fz !== null) for (let k = 0; k < args.length; k++) args[k] = this.gate(args[k], true);
    try {
      return p[m](...args);
    } finally {
      this.thenCall = outer;
    }
  };

  /**
   * `await v`: the noise point; with probability p the continuation is delayed (setImmediate or a
   * short timer). The promise reactions made from here to the suspension are this await's
   * continuation (KAWAIT: it stays in the task whatever the task received meanwhile).
   */
  aw = (v: any, site: number): any => {
    const r = this.awaitOperand(v, site);
    this.awaiting = true;
    return r;
  };

  /**
   * `await e` in a module outside the include list (forcing runs only, boundaries.ts): a suspension
   * point of the task — forcing counts the pass and may hold the task here — and nothing else (no
   * noise, nothing recorded). A held task's continuation stays in its task (KAWAIT, as `aw`'s), where
   * the wait its hold met is counted once it performs the access.
   */
  ab = (v: any, site: number): any => {
    const fz = this.fz;
    if (fz === null || fz.stopped) return v;
    const at = () => this.siteLocation(site);
    if (fz.learnedAt(site, at) === 0) {
      fz.suspend(this.task, fz.upcomingAt(site, at), site, at);
      return v;
    }
    // a learned place: the continuation runs as a flow split off now (`ac`), held here when a wait applies
    const c = continuationOf(this.task);
    fz.split(this.task, c);
    let q = this.splitAt.get(site);
    if (q === undefined) this.splitAt.set(site, (q = []));
    q.push(c);
    const held = fz.suspend(c, fz.upcomingAt(site, at), site, at);
    if (held === null) return v;
    if (v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function') v.then(undefined, () => {});
    return held.then(() => v);
  };

  /**
   * The continuation of such an await, first thing: the await is its task's boundary again
   * (boundaries.ts); at a learned place the continuation runs as the flow split off there (`ab`),
   * until the callback it runs in ends (async_hooks `after` restores the task).
   */
  ac = (v: any, site: number): any => {
    const fz = this.fz;
    if (fz === null || fz.stopped) return v;
    const q = this.splitAt.get(site);
    if (q !== undefined && q.length > 0) this.task = q.shift()!;
    fz.resume(this.task, site);
    return v;
  };

  /** per learned await outside the include list: the flows split off there whose continuation has not started (`ab`, `ac`) */
  private splitAt = new Map<number, Task[]>();

  private awaitOperand(v: any, site: number): any {
    this.il = 0;
    if (this.fz !== null && !this.fz.stopped) {
      // forcing: the task may be held here, before what it does after the await
      const held = this.suspendAt(site);
      if (held !== null) {
        // a promise that rejects while the task is held is still the awaited one (no unhandled rejection)
        if (v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function') v.then(undefined, () => {});
        return held.then(() => v);
      }
    }
    if (this.o.points !== undefined && !this.siteCatalogued[site]) this.catalogue(site);
    if (this.pctOn) {
      // PCT: the continuation is a scheduling point when the awaited value is ready
      const task = this.task;
      return new Promise((res, rej) => {
        const go = (f: () => void) => {
          const prio = this.pctPrio(task);
          if (!this.pctWaits(prio)) f();
          else {
            const outer = this.task;
            this.task = task;
            try {
              this.pctHold(prio, 'Immediate', f);
            } finally {
              this.task = outer;
            }
          }
        };
        Promise.resolve(v).then(
          (x) => go(() => res(x)),
          (e) => go(() => rej(e)),
        );
      });
    }
    let delay: number;
    if (this.planOf !== null) {
      // a plan: noise only at its points, each with its probability and kind
      const k = this.sitePlan[site];
      if (k < 0) return v;
      const pp = this.planPoints[k];
      // a callback task not named yet (it records nothing before this await) gets its trace name first
      if (pp.threads !== null && this.task.base >= 0) this.nameByCallback(this.task);
      if (pp.threads !== null && !pp.threads.has(this.task.name) && !pp.threads.has(`${this.task.name} #${this.task.tid}`)) return v;
      if (this.rnd() >= pp.probability) return v;
      const n = pp.noise;
      if (n.kind === 'busy') {
        const until = performance.now() + n.micros / 1000;
        while (performance.now() < until) {
          // spin: the event loop (and this thread) is held
        }
        return v;
      }
      delay = n.kind === 'yield' ? -1 : n.ms < 1 ? Math.round(n.ms) : 1 + Math.floor(this.rnd() * n.ms);
    } else {
      if (this.p <= 0 || this.rnd() >= this.p) return v;
      delay = this.wide ? this.wideDelay(this.rnd) : this.rnd() < 0.5 ? -1 : Math.floor(this.rnd() * 3);
    }
    const later = (f: () => void) => (delay < 0 ? setImmediate(f) : setTimeout(f, delay));
    if (v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function') {
      return new Promise((res, rej) => {
        Promise.resolve(v).then(
          (x) => later(() => res(x)),
          (e) => later(() => rej(e)),
        );
      });
    }
    return new Promise((res) => later(() => res(v)));
  }

  /** Appends the await point of `site` to the point catalogue (pinpoint's candidates). */
  private catalogue(site: number): void {
    this.siteCatalogued[site] = true;
    const file = this.files[this.siteFile[site]];
    const line = this.siteLine[site];
    const point = { id: jsPointId(file, line, this.siteOrdinal[site]), file, line, method: this.siteFn[site], kind: 'await' };
    try {
      fs.appendFileSync(this.o.points!, JSON.stringify(point) + '\n');
    } catch {
      // no catalogue: pinpoint says no point was reached
    }
  }

  /**
   * extra delay of a timer of `ms` (timer jitter), ms: 0–3; wide noise, up to twice the timer's own
   * delay (at least 3, at most WIDE_TIMER_MS) — a timer on a busy event loop runs late by about as
   * long as the callbacks it waits behind, which is the time scale of what the program does meanwhile
   */
  jitter(ms = 0): number {
    if (this.p <= 0 || this.rnd() >= this.p) return 0;
    if (!this.wide) return Math.floor(this.rnd() * 4);
    const most = Math.min(WIDE_TIMER_MS, Math.max(3, 2 * (Number.isFinite(ms) && ms > 0 ? ms : 0)));
    return Math.floor(this.rnd() * (most + 1));
  }

  /**
   * A wide delay (noiseAt all): a setImmediate (-1) one time in four, else a timer of 0 to
   * WIDE_DELAY_MS ms — long enough for another I/O round trip or a short timer of the program to come
   * first, which one setImmediate or 0–2 ms rarely is under a recorder's overhead
   */
  private wideDelay(rnd: () => number): number {
    return rnd() < 0.25 ? -1 : Math.floor(rnd() * (WIDE_DELAY_MS + 1));
  }

  // ================= async_hooks =================

  installHooks(): void {
    // MessageChannel messages: a postMessage on one port happens before the other port's 'message' handling
    wrapMessageChannels(this);
    const KT = KTASK;
    const KS = KSTACK;
    const KK = KTOK;
    const KR = KTRIG;
    const hook = createHook({
      init: (_id: number, type: string, trigger: number, resource: any) => {
        void _id;
        if (resource === null || typeof resource !== 'object') return;
        resource[KT] = this.task;
        resource[KS] = this.stack;
        const tok = this.snd();
        if (tok !== 0) resource[KK] = tok;
        // a promise's reaction runs after `trigger`'s resolution: in this task (an await's
        // continuation, the runtime's and libraries' own promises), or in a task of its own when it
        // is the callback of a then/catch/finally the user's code called
        if (this.pctOn && PCT_IO.has(type)) {
          // a request in flight: the fs call's own priority, else its task's; its callback goes on with it
          const prio = this.pctReqPrio === this.pctReqPrio ? this.pctReqPrio : this.pctPrio(this.task);
          resource[KPRIO] = prio;
          this.pctPending.set(_id, prio);
        }
        if (type === 'PROMISE') {
          resource[KR] = trigger;
          if (this.thenCall) resource[KTHEN] = true;
          else if (this.awaiting) resource[KAWAIT] = true;
          else resource[KTURN] = this.turn;
        } else resource[KTYPE] = type;
      },
      before: (_id: number) => {
        this.turn++;
        this.hookTask.push(this.task);
        this.hookStack.push(this.stack);
        const r: any = executionAsyncResource();
        if (r === null || typeof r !== 'object') return;
        // a message from the main thread to this worker: after the main thread's postMessage
        if (r === this.inPort) this.receiveMessage(this.inChannel, ++this.inCount);
        const creator: Task | undefined = r[KT];
        if (creator === undefined) return;
        const trig = r[KR];
        if (trig !== undefined) {
          // an await continuation stays in its creator's task; a then callback is a task of its own;
          // a reaction made by code that is not recorded (an async function of the user's that the
          // recorded code called, a library's promise) stays in its creator's task unless that task has
          // recorded an event or received a token in a later turn of the event loop: then it is a flow
          // of its own that started when it was made — the event loop running the task's later turn
          // first orders nothing (lru-abort: the fetchMethod's end is not after the abort that the
          // fetch's await saw; fastq-resume: the job's end is not after the driver's resume)
          this.task = r[KTHEN] === true ? new Task('then', 2) : r[KAWAIT] === true || creator.turn <= r[KTURN] ? creator : continuationOf(creator);
          this.stack = r[KS] ?? 0;
          if (r[KTHEN] === true) this.task.base = this.stack;
          const tok = this.resolved.get(trig) ?? this.resolvedOld.get(trig);
          if (tok !== undefined) this.receive(this.task, tok);
        } else {
          // a callback of a timer, an immediate, I/O…: a task of its own
          const t = new Task(callbackTaskName(r[KTYPE], r), 2);
          this.task = t;
          this.stack = r[KS] ?? 0;
          // an anonymous callback (`setTimeout(() => …)`): named by its function at its first event
          if (t.name.indexOf(' ') < 0) t.base = this.stack;
        }
        // PCT: a request's callback goes on with the request's priority, a flow's continuation with its
        // task's (the same thread for PCT); a timer's, an immediate's or a then callback is a thread of its own
        if (this.pctOn && this.task.prio !== this.task.prio) {
          if (typeof r[KPRIO] === 'number') this.task.prio = r[KPRIO];
          else if (trig !== undefined && r[KTHEN] !== true && creator.prio === creator.prio) this.task.prio = creator.prio;
        }
        const tok = r[KK];
        if (tok !== undefined && this.task !== creator) this.receive(this.task, tok);
        // a MessageChannel's message (the delivery's task): after its postMessage on the other port (messageChannels.ts)
        if (this.ports !== null) {
          const end = this.ports.get(r);
          if (end !== undefined && end.peer !== null && end.received < end.peer.sent) this.receiveMessage(end.peer.out, ++end.received);
        }
      },
      after: (_id: number) => {
        if (this.pctOn) this.pctPending.delete(_id);
        this.awaiting = false;
        this.task = this.hookTask.pop() ?? this.task;
        this.stack = this.hookStack.pop() ?? 0;
      },
      promiseResolve: (id: number) => {
        const tok = this.snd();
        if (tok === 0) return;
        if (this.resolved.size >= 100_000) {
          this.resolvedOld = this.resolved;
          this.resolved = new Map();
        }
        this.resolved.set(id, tok);
      },
    });
    hook.enable();
  }

  // ================= failures =================

  failure(kind: 'uncaught' | 'exit', detail: string, err?: unknown): void {
    // an exit code of a process that recorded nothing (npm, the node --test runner) makes no trace of its own
    if (kind === 'exit' && (!this.recording || !this.opened)) return;
    const t = this.tid();
    this.line(`[${this.ix()},${t},"FAIL",null,null,${JSON.stringify(kind)},${JSON.stringify(detail.slice(0, 500))}]`);
    if (kind === 'uncaught') {
      const e = err as { name?: string; message?: string; stack?: string; constructor?: { name?: string } } | undefined;
      const frames = typeof e?.stack === 'string' ? e.stack.split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 20).map((l) => l.trim().replace(/^at /, '')) : [];
      const exception = (e && typeof e === 'object' ? (e.constructor?.name ?? e.name) : undefined) ?? typeof err;
      const message = e && typeof e === 'object' ? String(e.message ?? '') : String(err);
      this.line(JSON.stringify({ uncaught: { thread: t, exception, message, frames } }));
    }
    this.flush();
  }

  close(): void {
    // PCT: the run's schedule (docs/trace-format.md "PCT report"; the run length of the next run is learned from it)
    if (this.pctOn && this.opened && !this.pctReported) {
      this.pctReported = true;
      this.pctReport.steps = this.pctSteps;
      this.line(JSON.stringify({ pct: this.pctReport }));
    }
    // the forcing report of a process that took part (docs/trace-format.md "Forcing report")
    if (this.fz !== null && !this.reported && (this.opened || this.fz.touched())) {
      this.reported = true;
      const report = this.fz.reportLine();
      this.fz.stop();
      this.line(report);
      if (this.o.forceLearn) {
        const learned = this.fz.boundaryLines((site) => this.siteLocation(site));
        // one append per run (whole lines: the group's parallel runs append to the same file)
        if (learned) {
          try {
            fs.appendFileSync(this.o.forceLearn, learned);
          } catch {
            // not learned: the next run holds where it could before
          }
        }
      }
    }
    this.flush(true);
    if (this.fd >= 0) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // closed
      }
      this.fd = -1;
    }
  }
}
