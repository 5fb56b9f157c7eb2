/**
 * Forcing plans (issue 28): a ranked pattern becomes a schedule constraint for the Java agent — the
 * plan's `force` section (docs/noise.md, "Forcing plans"). The pattern's accesses, in execution
 * order, are the plan's accesses; at every change of thread role the thread after the change is
 * held before its access until the other thread has performed the access before the change (on the
 * same object when both are the same variable), and inside an atomicity window only a performance
 * after the window opened counts (`since`: the holding thread's own earlier access of the pattern).
 *
 *   order   A1 B2          pattern: B waits for A            opposite: A waits for B
 *   window  A1 B2 C1       pattern: B waits for A, C waits   opposite: A waits for B
 *                          for B since A                     (B before the window opens)
 *
 * The opposite order reverses the pattern's first change of role, so the window (or the order)
 * cannot happen the pattern's way in that run's forced instance.
 */
import type { PatternAccess } from '../analysis';
import { MAX_FORCE_ACCESSES, MAX_FORCE_WAITS } from '../noise/noisePlan';
import type { ForceAccess, ForceSpec, ForceWait, NoisePlan } from '../noise/noisePlan';

/** A lock acquisition's place, as trace locations name it (lockedHold.ts). */
export interface LockSite {
  file: string;
  line: number;
  method: string;
  /** the held access's method when the lock is taken in a helper it calls (the recording's ACQ stacks): only its callers are held (ForceWait.beforeLock.within) */
  within?: string;
}

export type ForceOrder = 'pattern' | 'opposite';

/** A place of a guard's access, as trace locations name it. */
export interface GuardPlace {
  file: string;
  line: number;
  method: string;
  call?: string;
}

/**
 * A check the held thread made before its held access, on another variable, that the failure needs to
 * have seen the state before the other thread's write (guardChain.ts): the held thread's read of
 * `variable` at `read`, the other thread's write of it at `write`. With `kind: 'publication'` the other
 * way round: the held thread's write of `variable` at `write` (what it published), which the other
 * thread's read at `read` must see before its awaited access.
 */
export interface GuardChain {
  /** absent or 'check': the held thread reads, the other writes; 'publication': the held thread writes, the other reads */
  kind?: 'check' | 'publication';
  variable: string;
  read: GuardPlace;
  write: GuardPlace;
  /**
   * the call sites, nearest first, the other thread's access of the guard (its write of a check, its read
   * of a publication) was made from at the failing runs' instance, when they leave other performances out
   * (instanceCallers.ts pickCallers): the plans match that access only there
   */
  callers?: GuardPlace[];
}

/** What forcing needs of a ranked pattern (a RankedPattern, or the editor's PatternDto). */
export interface ForcedPattern {
  key: string;
  id: string;
  kind: string;
  rank: number;
  /** false: no statistical evidence (p ≥ 0.05, or in nearly every passing run) */
  evidence?: boolean;
  accesses: (Pick<PatternAccess, 'thread' | 'type' | 'variable' | 'file' | 'line' | 'method' | 'library' | 'call' | 'mixedCalls'> & {
    /**
     * `call` is exact though the line makes several library calls (`mixedCalls`): the pattern comes from
     * the runs ranked with locations per call (callRefinement.ts). The plan matches the call, and a
     * window it opens is forced with a fresh opening and no guard (patternForcing)
     */
    exactCall?: boolean;
  })[];
  /**
   * the check of the use, for an order pattern `W1 → R2` whose read is guarded by the reader's earlier
   * read of the variable (checkOfUse.ts): the pattern's order is forced as a check then a use `R2 W1
   * R2`, the check held as that pattern's is; the opposite order stays the pattern's own
   */
  /**
   * the pattern's first hold is inside a lock the other thread's access needs (lockedHold.ts). With
   * `site`, the place that lock is taken: the wait holds the thread there, before it takes the lock
   * (ForceWait.beforeLock; `oppositeSite` for the opposite order's wait), and the verdict is the runs'.
   * Without it, runs that do not confirm say nothing — the verdict is "not forced" with this reason,
   * never "refuted"
   */
  lockedHold?: { reason: string; site?: LockSite; oppositeSite?: LockSite };
  /**
   * per thread role: the threads that may take part (role names, `*` for a number: `pool-*-thread-*`),
   * those of the instance the recording's failing runs had (threadRoles.ts) — the forced order is then
   * not met by another instance of the same accesses (the test's setup on `main`). Every access of the
   * role in every plan (pattern, counterfactual, same delay) names them (ForceAccess.threads), unless
   * `ForcingOptions.byThread` is false
   */
  roleThreads?: Partial<Record<number, string[]>>;
  /**
   * the held thread's check before its held access (guardChain.ts): every plan (pattern, counterfactual,
   * same delay) also holds the other thread's write of the guard's variable until the held thread has
   * made its guard read after that thread arrived (guardWait), unless `ForcingOptions.guardChain` is false
   */
  guard?: GuardChain;
  /**
   * per access of the pattern (its index in `accesses`): the call sites, nearest first, the instance the
   * recording's failing runs had was made from (instanceCallers.ts) — the plans then match that access
   * only there (ForceAccess.callers): a recursive method's nested calls are neither held nor counted.
   * Every plan (pattern, counterfactual, same delay) has them, unless `ForcingOptions.byCaller` is false
   */
  callers?: { at: number; sites: GuardPlace[] }[];
  check?: Pick<PatternAccess, 'type' | 'variable' | 'file' | 'line' | 'method' | 'library' | 'call' | 'mixedCalls'> & { exactCall?: boolean };
}

/** One access of a forcing plan (noisePlan.ts ForceAccess): where the trace records it (library code: the library location). */
export type ForceAccessSpec = ForceAccess & { role: 1 | 2 };

/** A wait of a forcing plan (noisePlan.ts ForceWait). */
export type ForceWaitSpec = ForceWait;

/** The `force` section braid confirm writes (noisePlan.ts ForceSpec, with the pattern's two roles). */
export type ForceSection = Omit<ForceSpec, 'accesses' | 'pattern'> & { pattern?: { key: string; id: string; rank: number }; accesses: ForceAccessSpec[] };

export interface ForcingOptions {
  /** longest hold, ms (default 300) */
  waitMs?: number;
  /** forced instances per run (default 1; the opposite order: every instance, `oppositeTimes`) */
  times?: number;
  /**
   * forced instances per run of the opposite order (default EVERY_INSTANCE): the pattern's order needs
   * one instance to make the failure happen, but the counterfactual must keep it from happening at all —
   * a cache filled lazily per region races again on the next region once one instance was forced
   */
  oppositeTimes?: number;
  /** timed-out holds of one wait before it is given up for the run (default 5) */
  maxTimeouts?: number;
  /** match accesses by method, variable and type on any line (`line: 0`): after an edit moved lines */
  anyLine?: boolean;
  /** false: waits on a collection the pattern checks by key match on the object, not the key (keyedCollections) */
  byKey?: boolean;
  /**
   * false: any thread takes part in the plan's accesses, as before issue 40's change (the pattern's
   * `roleThreads`, the failing runs' instance, are not named): the first instance that meets the order is forced
   */
  byThread?: boolean;
  /**
   * false: the plans match the pattern's accesses from any caller (the pattern's `callers`, the failing
   * runs' instance, are not named): the first performance that meets the order is forced
   */
  byCaller?: boolean;
  /**
   * false: two calls of one library method, one per thread, are forced in order (the second waits until
   * the first has returned) as any pattern; default: forced to overlap, with the calls serialised as the
   * counterfactual (isLibraryOverlap)
   */
  overlap?: boolean;
  /**
   * false: every awaited library call counts as performed when it returns, as before; default: a call
   * that calls back or traverses (callsBack: a stream's terminal operation, forEach, computeIfAbsent …)
   * counts at its thread's next recorded access after it began — inside its callback (atNext)
   */
  callbacks?: boolean;
  /**
   * false: a symmetric pattern of one access per thread (`W1 W2`) has no counterfactual ("confirms the
   * window" at best); default: the threads' regions serialised (regionSerialForcing)
   */
  regions?: boolean;
  /**
   * false: the pattern's `guard` (a check the held thread made before its access, guardChain.ts) is not
   * forced; default true: every plan holds the other thread's write of the guard's variable until the
   * held thread's guard read (optional)
   */
  guardChain?: boolean;
}

export const DEFAULT_WAIT_MS = 300;
/** `times` that never stops forcing in a run (the plan format's whole number ≥ 1) */
export const EVERY_INSTANCE = 1_000_000_000;

/** The location the trace records for an access (the library's, for an access in library code). */
export function traceLocation(a: Pick<PatternAccess, 'file' | 'line' | 'method' | 'library'>): { file: string; line: number; method: string } {
  return a.library ?? { file: a.file, line: a.line, method: a.method };
}

/**
 * The waits that force the pattern's own order, and the guard accesses they need. A window's
 * closing wait is also made at the holding thread's first access to the variable after the window
 * opened, at any line (a guard access, `anywhere`, R or W): a thread often reads the variable again
 * before the pattern's closing access (`count = count - 1` reads `count` first), and that read must
 * see the other thread's write. An order pattern gets the same guard, optional: the first thread's
 * next access to the variable waits for the second thread's access, so the pair stays adjacent
 * (UNICORN's pairs are adjacent in the access window); a thread that never touches the variable
 * again does not make the run unforced.
 */
export function patternForcing(accesses: readonly ForceAccessSpec[], loopCalls: ReadonlySet<number> = new Set()): { accesses: ForceAccessSpec[]; waits: ForceWaitSpec[] } {
  const all = [...accesses];
  const waits: ForceWaitSpec[] = [];
  const guard = (like: ForceAccessSpec): number => {
    // any line of the variable: not the pattern access's call, nor its call sites (another line has others)
    const { call: _call, callers: _callers, ...rest } = like;
    const g: ForceAccessSpec = { ...rest, type: 'RW', anywhere: true };
    const found = all.findIndex((a) => a.anywhere && a.role === g.role && a.variable === g.variable);
    if (found >= 0) return found;
    all.push(g);
    return all.length - 1;
  };
  for (let i = 1; i < accesses.length; i++) {
    if (accesses[i].role === accesses[i - 1].role) continue;
    const w: ForceWaitSpec = { at: i, for: i - 1, sameObject: accesses[i].variable === accesses[i - 1].variable };
    for (let k = i - 2; k >= 0; k--) {
      if (accesses[k].role === accesses[i].role) {
        w.since = k;
        break;
      }
    }
    if (w.since !== undefined) {
      // which thread opened the window is ambiguous when the other role's earlier access is the same
      // access as the opening one (W1(x) W2(x) W2(y) W1(y): both threads write x at one line): the
      // window thread is the one whose window already holds the other thread's access
      const needs: number[] = [];
      const spot = (a: ForceAccessSpec) => `${a.type}\0${a.variable}\0${a.file}\0${a.line}\0${a.method}\0${a.call ?? ''}`;
      for (let j = w.since + 1; j < i - 1; j++) if (accesses[j].role !== accesses[i].role && spot(accesses[j]) === spot(accesses[w.since])) needs.push(j);
      if (needs.length) w.needs = needs;
      if (!loopCalls.has(w.since)) waits.push({ ...w, at: guard(accesses[i]) });
    }
    waits.push(w);
  }
  // a window opened by a call a loop repeats (hasNext() of a for-each, on a line of several calls):
  // the other thread waits for an opening after it arrived (`fresh`), or for the window's thread held
  // at the closing access — an older hasNext() may be from a pass over an empty map that never reaches
  // next() — and the window's thread waits before opening it until the other thread is there
  // (`ready`, optional: a loop that would end before the other thread arrives). No guard: the
  // thread's next access to the variable may be the next pass's values()
  // a check then a use (R1 W2 R1 at two places: `if (parents != null) copy(parents)`): the check must
  // see the state before the other thread's write, so the window opens only when that thread is at
  // its write — its check passes only on a state the write is about to change (a reader that calls
  // the check 30 times before the writer has set the field returns at the check every time, and the
  // use is never reached). Forced as a loop's window: the writer waits for a check after it arrived
  // (`fresh`; an older check saw another state), the checker for the writer to be ready (`optional`)
  const checkThenUse = (w: ForceWaitSpec): boolean => {
    if (w.since === undefined || !w.sameObject) return false;
    const open = accesses[w.since];
    const close = accesses[w.at];
    return open !== undefined && close !== undefined && open.type === 'R' && close.type === 'R' && open.variable === close.variable && (open.line !== close.line || open.method !== close.method);
  };
  const ready: ForceWaitSpec[] = [];
  const after: ForceWaitSpec[] = [];
  for (const w of waits) {
    if (w.since === undefined || !(loopCalls.has(w.since) || checkThenUse(w))) continue;
    const open = waits.find((o) => o.since === undefined && o.for === w.since && o.at === w.since + 1);
    if (!open || open.fresh) continue;
    open.fresh = true;
    ready.push({ at: w.since, for: open.at, sameObject: open.sameObject, ready: true, optional: true });
    // and the writer's next access to the variable waits for the use (optional, as an order pattern's
    // guard): a writer that sets the field again right after its clear (`set(); clear(); set()`) would
    // otherwise often beat the checker's use on a loaded machine, and the use would see the new value
    if (checkThenUse(w) && w.at === open.at + 1) after.push({ at: guard(accesses[open.at]), for: w.at, since: open.at, sameObject: open.sameObject, optional: true });
  }
  waits.unshift(...ready);
  waits.push(...after);
  if (accesses.length === 2 && accesses[0].role !== accesses[1].role) {
    waits.push({ at: guard(accesses[0]), for: 1, since: 0, sameObject: accesses[0].variable === accesses[1].variable, optional: true });
  }
  return { accesses: all, waits };
}

/** The waits that force the pattern's own order (patternForcing's waits). */
export function patternWaits(accesses: readonly ForceAccessSpec[]): ForceWaitSpec[] {
  return patternForcing(accesses).waits;
}

/**
 * A pattern whose two threads do the same accesses (both write `x` at line 21: P3 WW on one line;
 * P9 with both threads at the same two lines): swapping the roles gives the same pattern, so the
 * opposite order is the same interleaving and cannot serve as a counterfactual — `braid confirm`
 * compares with the unforced runs only.
 */
export function isSymmetric(p: Pick<ForcedPattern, 'accesses'>): boolean {
  const spot = (a: ForcedPattern['accesses'][number]) => {
    const l = traceLocation(a);
    return `${a.type}\0${a.variable}\0${l.file}\0${l.line}\0${l.method}\0${a.mixedCalls && !a.exactCall ? '' : (a.call ?? '')}`;
  };
  const of = (role: 1 | 2) => p.accesses.filter((a) => a.thread === role).map(spot).sort().join('\n');
  return of(1) === of(2);
}

/**
 * The counterfactual of a symmetric pattern (issue 40): its opposite order is the same interleaving,
 * so the other interleaving of the same window is the two threads' regions serialised — the other
 * role's first access waits until a thread has made the first role's last access (R1 R2 W2 W1
 * becomes R1 W1 R2 W2). Empty when the pattern already is serial (W1 W2: one access per thread — its
 * only other interleaving is itself).
 */
export function serialWaits(accesses: readonly Pick<ForceAccessSpec, 'role' | 'variable'>[]): ForceWaitSpec[] {
  const i2 = accesses.findIndex((a) => a.role !== accesses[0].role);
  let l1 = -1;
  for (let k = accesses.length - 1; k >= 0; k--) {
    if (accesses[k].role === accesses[0].role) {
      l1 = k;
      break;
    }
  }
  if (i2 < 0 || l1 < i2) return [];
  return [{ at: i2, for: l1, sameObject: accesses[i2].variable === accesses[l1].variable }];
}

/**
 * The counterfactual group a confirmation runs (`opposite` plans): the opposite order, or for a
 * symmetric pattern its threads serialised; undefined when there is none (a symmetric pattern of one
 * access per thread).
 */
export function counterfactual(p: ForcedPattern, o: Pick<ForcingOptions, 'overlap' | 'regions'> = {}): 'opposite' | 'serialised' | undefined {
  if (!isSymmetric(p)) return 'opposite';
  if (forcedAsOverlap(p, o)) return 'serialised';
  if (o.regions !== false && isSingleAccessPair(p)) return 'serialised';
  return serialWaits(p.accesses.map((a) => ({ role: a.thread, variable: a.variable }))).length ? 'serialised' : undefined;
}

/**
 * `W1 W2`: one access per thread, the same spot (a symmetric pattern of two accesses), recorded by the
 * Java agent (the Node.js recorder has no `afterOwn`: its JavaScript and TypeScript files are left out).
 */
function isSingleAccessPair(p: Pick<ForcedPattern, 'accesses'>): boolean {
  const script = (f: string) => /\.(c|m)?(j|t)sx?$/.test(f);
  return p.accesses.length === 2 && p.accesses[0].thread !== p.accesses[1].thread && !p.accesses.some((a) => script(a.file)) && isSymmetric(p);
}

/**
 * The threads' regions serialised for a symmetric pattern of one access per thread (`W1 W2` at one spot:
 * a check-then-act whose second step is the thread's next access of the variable — spring-mimelru's
 * `queue.remove(key)` then `queue.add(key)`, resilience4j-halfopen's two transitions). Its only other
 * interleaving of the two accesses is itself, so the counterfactual takes the first thread's REGION on
 * the variable: the second thread's access waits until the other thread has made its next access of the
 * variable after its own access of the pattern (a guard access at any line, `afterOwn`, `fresh`). The
 * forced order holds the first thread's next access until the second thread's access (the order
 * pattern's guard, patternForcing): forced, the second thread's access falls inside the first thread's
 * region; serialised, after it.
 */
export function regionSerialForcing(accesses: readonly ForceAccessSpec[]): { accesses: ForceAccessSpec[]; waits: ForceWaitSpec[] } {
  const { call: _call, callers: _callers, atStart: _start, ...rest } = accesses[0];
  const next: ForceAccessSpec = { ...rest, type: 'RW', anywhere: true };
  const all = [...accesses, next];
  return { accesses: all, waits: [{ at: 1, for: 2, sameObject: true, fresh: true, afterOwn: 0 }] };
}

/**
 * Two calls of one JDK method that is not thread-safe, one per thread (`W1 W2` at one call: indriya's
 * `HashMap.computeIfAbsent` on a static map): the race is inside the library's code, which is not recorded, and holding the second
 * call until the first has returned serialises them — the race cannot happen then. Such a pattern is
 * forced as an OVERLAP: the second call waits until the first has BEGUN (the awaited access's `atStart`);
 * its counterfactual is the two calls serialised (the second waits until the first has returned).
 */
export function isLibraryOverlap(p: Pick<ForcedPattern, 'accesses'>): boolean {
  const [a, b] = p.accesses;
  // a JDK method that is not thread-safe (java.util.HashMap, ArrayList, …; not java.util.concurrent's): the
  // Java agent's library calls; a thread-safe call's overlap is no race, and the Node.js recorder has no call start
  const exact = (x: ForcedPattern['accesses'][number]) => !!x.call && (!x.mixedCalls || !!x.exactCall) && x.call.startsWith('java.') && !x.call.startsWith('java.util.concurrent.');
  return p.accesses.length === 2 && a.thread !== b.thread && a.type === 'W' && exact(a) && exact(b) && isSymmetric(p);
}

/**
 * A JDK library call that runs the caller's code or traverses lazily (issue 40, item 3: library-internal
 * races forced at the call boundary): a stream's terminal operation, a collection's `forEach`,
 * `removeIf`, `replaceAll`, a map's `computeIfAbsent`, `compute`, `merge` …, and the lazy `stream()`,
 * `spliterator()` whose traversal comes later. The race such a call has with another thread's mutation
 * is the mutation *during* it (an ArrayList's spliterator checks for changes at the end of its traversal,
 * `HashMap.computeIfAbsent` after its mapping function); the recorder writes a call when it begins, so
 * the recorded order says no more than that. Awaited by another thread's access, such a call counts at
 * its thread's next recorded access after it began (`atNext`: inside the callback, or in the traversal),
 * not when it returned — which forced exactly the interleaving that cannot fail: micrometer-promcollect's
 * `collect` over a collector's children, then another thread's `add`, forced after the collect returned,
 * failed 1–5 of 20 (unforced 4–8). Not for an R call awaited by a read (nothing to race), nor for a
 * thread-safe collection (java.util.concurrent's, Vector, Hashtable, the synchronized wrappers).
 */
export function callsBack(a: Pick<ForceAccessSpec, 'call'> & { variable?: string }): boolean {
  if (!a.call || !a.call.startsWith('java.')) return false;
  // a thread-safe collection's call is atomic to other calls (a ConcurrentHashMap's get during a compute sees
  // the state before it): during is before, and counting it inside would force the opposite order
  if (a.variable !== undefined && THREAD_SAFE.test(a.variable)) return false;
  if (a.call.startsWith('java.util.concurrent.')) return false;
  const m = a.call.slice(a.call.lastIndexOf('.') + 1);
  if (a.call.startsWith('java.util.stream.')) return CALLBACK_STREAM.has(m);
  return CALLBACK_METHODS.has(m);
}

const THREAD_SAFE = /^java\.util\.(concurrent\.|Vector$|Hashtable$|Collections\$Synchronized)/;
const CALLBACK_STREAM = new Set(['collect', 'forEach', 'forEachOrdered', 'reduce', 'toArray', 'toList', 'anyMatch', 'allMatch', 'noneMatch', 'findFirst', 'findAny', 'count', 'min', 'max', 'sum', 'average', 'iterator', 'spliterator']);
const CALLBACK_METHODS = new Set(['stream', 'parallelStream', 'spliterator', 'forEach', 'forEachRemaining', 'removeIf', 'replaceAll', 'computeIfAbsent', 'computeIfPresent', 'compute', 'merge', 'sort']);

/** The pattern is forced as an overlap of two library calls (isLibraryOverlap), unless `overlap` is false. */
export function forcedAsOverlap(p: Pick<ForcedPattern, 'accesses'>, o: Pick<ForcingOptions, 'overlap'> = {}): boolean {
  return o.overlap !== false && isLibraryOverlap(p);
}

/**
 * The waits of a call that calls back (callsBack), in place: the awaited call counts inside it (atNext);
 * a held library call counts when it begins (atStart) and the awaiting thread, inside, waits until it
 * has (a ready wait: Forcing.afterBegun), so the held call runs while the callback does.
 */
export function callbackWaits(forcing: { accesses: ForceAccessSpec[]; waits: ForceWaitSpec[] }): void {
  const added: ForceWaitSpec[] = [];
  const during = new Set<number>();
  for (const w of forcing.waits) {
    const a = forcing.accesses[w.for];
    const held = forcing.accesses[w.at];
    // a guard (a held access at any line) waits for the call to be over, as before
    if (w.ready || !a || !held || a.atStart || a.anywhere || held.anywhere || !a.call || !callsBack(a)) continue;
    // a read held for a read call: nothing to race
    if (a.type === 'R' && held.type === 'R') continue;
    forcing.accesses[w.for] = { ...a, atNext: true };
    during.add(w.for);
    // only a call begun after the held thread arrived can still be running: an earlier one (processEvent's
    // forEach of a request long served) is over, and the mutation would land after it (`fresh`)
    // (a window's closing wait already counts only what came after the window opened: `since`)
    if (w.since === undefined) w.fresh = true;
    if (held.call && !held.anywhere && !held.atNext && held.role !== a.role) {
      forcing.accesses[w.at] = { ...held, atStart: true };
      if (!forcing.waits.some((x) => x.ready && x.at === w.for && x.for === w.at)) added.push({ at: w.for, for: w.at, sameObject: w.sameObject, ready: true, optional: true });
    }
  }
  // the window such a call opens closes inside it: the calling thread's later access of the pattern (its
  // next forEach, R1 W2 R1 over two calls as recorded) or guard no longer waits for the mutation — held
  // there, it would let the mutation go between two calls (a fresh wait ends when its partner is held in
  // the window), not during one
  forcing.waits = forcing.waits.filter((x) => x.ready || x.since === undefined || !during.has(x.since) || forcing.accesses[x.at].role !== forcing.accesses[x.since].role);
  forcing.waits.unshift(...added);
}

/** The wait that forces the opposite order: the first access waits for the other role's first access. */
export function oppositeWaits(accesses: readonly ForceAccessSpec[]): ForceWaitSpec[] {
  const j = accesses.findIndex((a) => a.role !== accesses[0].role);
  if (j < 0) return [];
  return [{ at: 0, for: j, sameObject: accesses[0].variable === accesses[j].variable }];
}

/** Library calls that check one key or element: a pattern with one of them is about that key. */
const KEY_CHECKS = new Set(['get', 'getOrDefault', 'containsKey', 'contains']);

/**
 * The collections whose accesses the pattern checks by key: a read made by a keyed check (`get`,
 * `containsKey`, `contains`, `getOrDefault` — named exactly, not one of several calls on its line).
 * Its waits on that collection then match by key (`sameKey`): only a `put` of the key the `get` found
 * missing acts on that check (a `HashMap` cache filled lazily for several regions: another region's put
 * meets a wait on the object, and the forced instance loses nothing). The agent compares objects
 * when either side's call has no plain key.
 */
export function keyedCollections(p: Pick<ForcedPattern, 'accesses'>): Set<string> {
  const out = new Set<string>();
  for (const a of p.accesses) {
    if (a.type !== 'R' || !a.call || (a.mixedCalls && !a.exactCall)) continue;
    if (KEY_CHECKS.has(a.call.slice(a.call.lastIndexOf('.') + 1))) out.add(a.variable);
  }
  return out;
}

/** The accesses the pattern's own order is forced with: with a check of its use (`check`), the check then the pattern. */
function forcedAccesses(p: ForcedPattern, order: ForceOrder): ForcedPattern['accesses'] {
  if (order !== 'pattern' || !p.check || p.accesses.length !== 2) return p.accesses;
  return [{ ...p.check, thread: p.accesses[1].thread }, ...p.accesses];
}

export function forceSection(p: ForcedPattern, order: ForceOrder, o: ForcingOptions = {}): ForceSection {
  const own = p.accesses.length;
  p = { ...p, accesses: forcedAccesses(p, order) };
  // a check of the use goes before the pattern's own accesses
  const shift = p.accesses.length - own;
  const callersAt = new Map(o.byCaller === false || o.anyLine ? [] : (p.callers ?? []).map((c) => [c.at + shift, c.sites] as const));
  const accesses: ForceAccessSpec[] = p.accesses.map((a, k) => {
    const at = traceLocation(a);
    const sites = callersAt.get(k);
    return {
      role: a.thread,
      type: a.type,
      variable: a.variable,
      ...at,
      line: o.anyLine ? 0 : at.line,
      ...(a.call && (!a.mixedCalls || a.exactCall) ? { call: a.call } : {}),
      ...(sites?.length ? { callers: sites.map((x) => ({ file: x.file, line: x.line, method: x.method })) } : {}),
    };
  });
  const loopCalls = new Set(p.accesses.flatMap((a, k) => (a.exactCall && a.call ? [k] : [])));
  // the opposite of a symmetric pattern is the same interleaving: its counterfactual is the threads serialised
  // two calls of one library method: forced to overlap, serialised as the counterfactual (isLibraryOverlap)
  const overlap = forcedAsOverlap(p, o);
  const forcing =
    order === 'pattern'
      ? patternForcing(accesses, loopCalls)
      : overlap
        ? { accesses, waits: [{ at: 1, for: 0, sameObject: true }] }
        : o.regions !== false && isSingleAccessPair(p)
          ? regionSerialForcing(accesses)
          : { accesses, waits: isSymmetric(p) ? serialWaits(accesses) : oppositeWaits(accesses) };
  if (overlap && order === 'pattern') {
    // both calls count as performed when they begin
    forcing.accesses[0] = { ...forcing.accesses[0], atStart: true };
    forcing.accesses[1] = { ...forcing.accesses[1], atStart: true };
    // the first call waits until the second thread is at its call (`ready`), the second until the first
    // has begun; and the agent's first call, once begun, waits for the second to begin (Forcing.afterBegun:
    // a ready wait between two atStart accesses), so both calls start together — a first call that runs
    // free is over before a later thread arrives, and the calls overlap only by chance
    forcing.waits.unshift({ at: 0, for: 1, sameObject: true, ready: true, optional: true });
  }
  // an awaited call that calls back or traverses counts inside it (callbackWaits) — in the pattern's own
  // order only: a counterfactual, and two calls of one method that `overlap: false` forces in order, keep
  // each call after the other returned
  if (o.callbacks !== false && order === 'pattern' && !overlap && !(o.overlap === false && isLibraryOverlap(p))) callbackWaits(forcing);
  if (o.guardChain !== false && p.guard) guardWait(forcing, p, o.anyLine, o.byCaller !== false && !o.anyLine);
  // a first hold inside a lock the other access needs: held before that lock is taken (lockedHold.ts);
  // the pattern's wait is its first change of role (not with a check of the use, which adds one before it)
  const site = order === 'pattern' ? (p.check ? undefined : p.lockedHold?.site) : isSymmetric(p) ? undefined : p.lockedHold?.oppositeSite;
  if (site) {
    const first = order === 'pattern' ? accesses.findIndex((a, k) => k > 0 && a.role !== accesses[k - 1].role) : 0;
    const w = forcing.waits.find((x) => x.at === first && x.since === undefined && !x.fresh && !x.ready);
    if (w) w.beforeLock = { ...site };
  }
  // the threads of the failing runs' instance (threadRoles.ts): every access of a role, guards included
  if (o.byThread !== false && p.roleThreads) {
    for (const a of forcing.accesses) {
      const names = p.roleThreads[a.role];
      if (names?.length) a.threads = [...names];
    }
  }
  const keyed = o.byKey === false ? new Set<string>() : keyedCollections(p);
  for (const w of forcing.waits) {
    if (w.sameObject && keyed.has(forcing.accesses[w.at].variable) && keyed.has(forcing.accesses[w.for].variable)) w.sameKey = true;
  }
  return {
    order,
    waitMs: o.waitMs ?? DEFAULT_WAIT_MS,
    times: order === 'opposite' ? (o.oppositeTimes ?? EVERY_INSTANCE) : (o.times ?? 1),
    maxTimeouts: o.maxTimeouts ?? 5,
    pattern: { key: p.key, id: p.id, rank: p.rank },
    ...forcing,
  };
}

/**
 * A guard the held access depends on (ForcedPattern.guard, guardChain.ts), added to a plan's accesses and
 * waits: the held thread's read of the guard's variable (the role of the pattern's first held access)
 * and the other thread's write of it, and a wait that holds the write until the held thread has made
 * the read after the writer arrived (`fresh`: an older check is from an earlier round); for a
 * publication the held thread's write and the other thread's read, the read held until the write — optional, so
 * a run whose writer finds no such read within the hold is not unforced for that alone. It goes first
 * in `waits`, so the pattern's own last wait stays the one that stops forcing (`times`). Every plan gets
 * it, the counterfactuals too: the comparison is then about the pattern's order alone. Takes the roles
 * from the pattern's first change of role; nothing when the pattern has none.
 */
export function guardWait(forcing: { accesses: ForceAccessSpec[]; waits: ForceWaitSpec[] }, p: Pick<ForcedPattern, 'accesses' | 'guard'>, anyLine = false, byCaller = true): void {
  const g = p.guard;
  const at = p.accesses.findIndex((a, k) => k > 0 && a.thread !== p.accesses[k - 1].thread);
  // the plan format's limits: at most 16 accesses and 16 waits
  if (!g || at < 0 || forcing.accesses.length + 2 > MAX_FORCE_ACCESSES || forcing.waits.length + 1 > MAX_FORCE_WAITS) return;
  const held = p.accesses[at].thread;
  const other = p.accesses[at - 1].thread;
  const place = (x: GuardPlace) => ({ file: x.file, line: anyLine ? 0 : x.line, method: x.method, ...(x.call ? { call: x.call } : {}) });
  // the other thread's access of the guard, from the call sites of the failing runs' instance
  const via = byCaller && g.callers?.length ? { callers: g.callers.map((c) => ({ file: c.file, line: c.line, method: c.method })) } : {};
  if (g.kind === 'publication') {
    // the other thread's read waits for the held thread's write made after it arrived
    const write = forcing.accesses.push({ role: held, type: 'W', variable: g.variable, ...place(g.write) }) - 1;
    const read = forcing.accesses.push({ role: other, type: 'R', variable: g.variable, ...place(g.read), ...via }) - 1;
    forcing.waits.unshift({ at: read, for: write, sameObject: true, fresh: true, optional: true });
    return;
  }
  const read = forcing.accesses.push({ role: held, type: 'R', variable: g.variable, ...place(g.read) }) - 1;
  const write = forcing.accesses.push({ role: other, type: 'W', variable: g.variable, ...place(g.write), ...via }) - 1;
  forcing.waits.unshift({ at: write, for: read, sameObject: true, fresh: true, optional: true });
}

/**
 * The same-delay control of a pattern whose first hold is before a lock (docs/confirm.md "The same
 * delay, not the order"): the opposite order's plan (the other thread held before its own lock until
 * the held access is made), plus the pattern's first thread held before its lock as in the pattern's
 * plan, but only until the other thread is held there (`ready`) — so it is delayed about as long, and
 * nothing of the other thread happens meanwhile. Undefined where it does not apply: no place before
 * the lock for either order, a symmetric pattern, a check of the use, or a pattern whose other thread
 * does not start with the awaited access (the opposite's held access is the pattern's first).
 */
export function sameDelaySection(p: ForcedPattern, o: ForcingOptions = {}): ForceSection | undefined {
  const site = p.lockedHold?.site;
  if (!site || !p.lockedHold?.oppositeSite || p.check || isSymmetric(p)) return undefined;
  const s = forceSection(p, 'opposite', o);
  const first = s.accesses.findIndex((a, k) => k > 0 && a.role !== s.accesses[k - 1].role);
  const opp = s.waits.find((w) => w.beforeLock);
  if (first !== 1 || !opp || opp.at !== first - 1) return undefined;
  const sameObject = s.accesses[first].variable === s.accesses[first - 1].variable;
  return { ...s, waits: [{ at: first, for: first - 1, sameObject, ready: true, optional: true, beforeLock: { ...site } }, ...s.waits] };
}

/** A plan that forces (no noise anywhere): `braid record --plan` runs it like any noise plan. */
export function forcingPlan(name: string, p: ForcedPattern, order: ForceOrder, o: ForcingOptions = {}, command?: string[]): NoisePlan & { force: ForceSection } {
  return {
    format: 'braid-noise-plan',
    version: 1,
    name,
    ...(command ? { command } : {}),
    noise: { kind: 'yield' },
    points: [],
    force: forceSection(p, order, o),
    origin: { tool: 'braid confirm', created: new Date().toISOString() },
  };
}
