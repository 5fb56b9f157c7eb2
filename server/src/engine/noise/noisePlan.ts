/**
 * Noise plans (seed 004): which instrumented points get noise, with what
 * probability and of which kind — and no noise anywhere else. A plan is a
 * JSON file (`.braid/plans/<name>.json`), read by `braid record --plan FILE`
 * and by the Java agent (option `plan=FILE`), written by `braid pinpoint`.
 * The format is documented in docs/noise.md.
 *
 * Point ids are stable as long as the class file does not change:
 * `<internal class name>.<method name><descriptor>@<bytecode offset>`,
 * e.g. `bank/Bank.transfer(II)V@12` — the offset of the instrumented
 * instruction in the original (uninstrumented) method.
 */

export const NOISE_PLAN_VERSION = 1;

/** What the agent does at a point when its coin comes up. */
export type NoiseKind =
  /** Thread.yield() */
  | { kind: 'yield' }
  /** park for a random time in [1, ms] milliseconds (uniform) */
  | { kind: 'sleep'; ms: number }
  /** spin (busy wait) for `micros` microseconds */
  | { kind: 'busy'; micros: number };

/** Kinds of instrumented points. */
export type PointKind = 'read' | 'write' | 'lock' | 'unlock' | 'sync' | 'start' | 'call' | 'wait' | 'notify' | 'park' | 'unpark' | 'await' | 'signal' | 'invoke';

/** One instrumented point, as listed by the agent's point catalogue (option `points=FILE`). */
export interface InstrumentedPoint {
  /** stable id, see above */
  id: string;
  /** source file as trace locations name it (`loc.file`): package path + source file name, e.g. "bank/Bank.java" */
  file: string;
  line: number;
  /** dotted class name + "." + method name, e.g. "bank.Bank.transfer" (as trace locations name methods) */
  method: string;
  kind: PointKind;
}

export interface PlannedPoint {
  /** stable point id */
  id: string;
  /** 0..1: probability that noise is injected each time a thread reaches the point */
  probability: number;
  /** overrides the plan's default noise */
  noise?: NoiseKind;
  /**
   * only threads with one of these names get the point's noise (default: every thread) — for code
   * that several threads run, where noise in all of them delays them alike (a Braid extension of
   * the seed's points, docs/noise.md)
   */
  threads?: string[];
  /** for people reading the plan (not used by the agent) */
  file?: string;
  line?: number;
  method?: string;
}

/**
 * One access of a forcing plan's pattern, named as the trace names it (docs/noise.md "Forcing plans"):
 * an access of the run matches when its location (`loc.file`, `loc.line`, `loc.method`), its variable
 * (`var.name`) and its type are these — or when it is at the location of one of `points`.
 */
export interface ForceAccess {
  /** thread role in the pattern (1 = the thread of the pattern's first access); ≥ 1 */
  role: number;
  /** RW: a read or a write */
  type: 'R' | 'W' | 'RW';
  /** as the trace names it, e.g. "bank.Account.balance", "java.util.HashMap" (a library call) */
  variable: string;
  /** as trace locations name it, e.g. "bank/Account.java" */
  file: string;
  /** source line; 0: any line of the method (after an edit moved lines) */
  line: number;
  /** dotted class + "." + method, e.g. "bank.Account.deposit" */
  method: string;
  /** optional point ids (docs/noise.md "Point ids"): their locations match too */
  points?: string[];
  /** matches the variable at any location (file, line and method are then only for people reading the plan) */
  anywhere?: boolean;
  /**
   * a library access (docs/recorder.md "Library calls"): the call that makes it, as trace locations
   * name it (`loc.call`, e.g. "java.util.Iterator.next"); other calls at the same line do not match
   */
  call?: string;
  /**
   * the threads that may take part in this access — perform it for a wait, or be held at it — by
   * name, `*` standing for a number (`pool-*-thread-*` names `pool-1-thread-12`); other threads' accesses
   * are neither held nor counted. Java only (the Node.js recorder ignores it). `braid confirm` writes the
   * threads of the instance the failing runs had (engine/confirm/threadRoles.ts)
   */
  threads?: string[];
  /**
   * the call sites the thread's stack must have for this access to match, nearest first (the call
   * in the accessing method's caller first, as a trace's stack lists it below the access; `line` 0: any
   * line of that method), at most 8;
   * other performances are neither held nor counted. Java only (the Node.js recorder ignores it).
   * `braid confirm` writes the callers of the instance the failing runs had
   * (engine/confirm/instanceCallers.ts)
   */
  callers?: { file: string; line: number; method: string }[];
  /**
   * a library call's access (`call`): its performance counts when the call begins, not when it returns —
   * a wait for it ends once the other thread is inside the call (two calls of a method that is not
   * thread-safe made to overlap). Java only. `braid confirm` sets it on the awaited call of a pattern of
   * two calls of one library method, one per thread (forcingPlan.ts isLibraryOverlap)
   */
  atStart?: boolean;
  /**
   * a library call's access (`call`; not with atStart): its performance counts at its thread's next
   * recorded access after the call began — inside a callback the call makes, or after a lazy call
   * (`stream()`) returned, in its traversal. Java only. `braid confirm` sets it on an awaited call that
   * calls back or traverses (forcingPlan.ts callsBack, callbackWaits)
   */
  atNext?: boolean;
}

/**
 * A constraint of a forcing plan: a thread about to perform `accesses[at]` is held until another
 * thread has performed `accesses[for]` (on the same object when `sameObject`; with `since`, after
 * the held thread's own latest `accesses[since]`, and only once it has performed that), for at most
 * `waitMs`.
 */
export interface ForceWait {
  /** index into `accesses`: the access that waits */
  at: number;
  /** index into `accesses`: the awaited access, of another role than `at` */
  for: number;
  /** index into `accesses`, of the same role as `at` (≠ at): only performances of `for` after this thread's latest `since` count */
  since?: number;
  /** only a performance on the same object counts (same object and field, same array and index, same static field) */
  sameObject: boolean;
  /**
   * with `sameObject`: a keyed library call (`get`, `put`, `containsKey`, `remove`, … whose first
   * argument is a plain value: a String, boxed primitive, enum or UUID) matches only a performance on
   * the same key, on any map or set — a `get` checks one key, and only a `put` of that key acts on it
   */
  sameKey?: boolean;
  /** not needed for the run's forcing to count as met (`ok`) */
  optional?: boolean;
  /**
   * with `since`: accesses (of another role) another thread must have performed after this thread's
   * `since` performance for the wait to apply — the window must already hold them (W1(x) W2(x) W2(y)
   * W1(y): the thread that wrote x second is not the window's thread)
   */
  needs?: number[];
  /**
   * only a performance of `for` after the thread reached the wait counts — or the one after which its
   * thread is now held at a wait for this very access since that performance (inside the window it
   * opened, waiting for this thread); not with `since`. For a window opened by a call that a loop
   * repeats (a for-each's hasNext()): an older performance is likely from a pass that is over
   */
  fresh?: boolean;
  /**
   * an access of the awaited role (another than `for`): the awaited performance counts only when its
   * thread made this access before it and it is not itself a performance of this access — a symmetric
   * pattern's threads serialised: the other thread's next
   * access of the variable after its own access of the pattern (forcingPlan.ts serialForcing). Not with
   * `beforeLock` or `ready`. Java only
   */
  afterOwn?: number;
  /**
   * held until another thread is held at a wait whose `at` is this wait's `for` — ready at the access
   * that must come next — not until it performed it; only optional waits, not with `since` or `fresh`.
   * The thread that opens a loop's window waits for the other thread to arrive
   */
  ready?: boolean;
  /**
   * hold the thread of `at` before it acquires the lock taken at this place (a `synchronized` block's
   * monitorenter, a `Lock.lock()` / `lockInterruptibly()` call), not at `at` itself: the held access is
   * made under a lock the awaited access needs, so a hold inside it keeps the other thread out. Held
   * until another thread performs `for` after it arrived (any object); the access `at` inside the lock
   * is not held and meets the wait when that performance was on its object. Not with `since`, `fresh`
   * or `ready`. Java agent only (the Node recorder refuses it). With `within` ("pkg.Class.method", as
   * traces name methods), only a thread inside that method (a frame of its call stack) is held there: a
   * lock helper called from several places (metrics-rescale's `lockForRegularUsage`, called by `update`
   * and by `getSnapshot`) holds only the callers of the pattern's role; the others go on
   */
  beforeLock?: { file: string; line: number; method: string; within?: string };
}

/** The `force` section of a noise plan: force one interleaving of a pattern's accesses (docs/noise.md "Forcing plans"). */
export interface ForceSpec {
  /** the order the waits encode (informative for the agent; copied into the trace's forcing line) */
  order: 'pattern' | 'opposite';
  /** longest hold, ms: > 0, ≤ 60,000 */
  waitMs: number;
  /** after the last wait (highest index, optional or not) has been met this many times, forcing stops for the rest of the run (≥ 1) */
  times: number;
  /** after this many holds of one wait that ended unmet (timed out, or ended for a lock), that wait is disabled (default 5) */
  maxTimeouts?: number;
  /** informative: the pattern forced (copied into the trace's forcing line) */
  pattern?: { key?: string; id?: string; rank?: number; [more: string]: unknown };
  /** the pattern's accesses in execution order (at most 16) */
  accesses: ForceAccess[];
  /** the constraints (at most 16) */
  waits: ForceWait[];
}

/** Most accesses and waits of a force section. */
export const MAX_FORCE_ACCESSES = 16;
export const MAX_FORCE_WAITS = 16;

export interface NoisePlan {
  format: 'braid-noise-plan';
  version: typeof NOISE_PLAN_VERSION;
  /** what the plan is for (test or program name), shown in the Runs view */
  name: string;
  /** the command the plan was found for (informative) */
  command?: string[];
  /** default noise of the points */
  noise: NoiseKind;
  points: PlannedPoint[];
  /**
   * the trigger points `braid pinpoint` found (informative for the agent; the
   * editor reads them for its trigger-point decorations and hover)
   */
  triggers?: import('./triggerPoints').TriggerPoint[];
  /** force one interleaving of a pattern's accesses (docs/noise.md "Forcing plans"); `points` may then be empty */
  force?: ForceSpec;
  /** how it was made: "braid pinpoint", date, runs spent, … (informative) */
  origin?: { tool: string; created: string; runs?: number; strength?: import('./triggerPoints').PinpointResult['strength'] };
}
