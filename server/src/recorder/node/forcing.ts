/**
 * Forcing plans for JavaScript (docs/noise.md "Forcing plans", docs/recorder-node.md "Forcing"):
 * the Node.js recorder's side of the `force` section that the Java agent runs in Forcing.java — the
 * same plan, the same waits, the same `{"forcing":…}` report line.
 *
 * JavaScript cannot stop a task in the middle of synchronous code: a task is held where it gives up
 * the event loop anyway — at an `await` (the transform's `__braid.aw`) and at the start of an async
 * function's body (`__braid.hf`: an extra `await` only in forcing runs, only when the task is held).
 * And a callback task is held before it starts (runtime.ts `gate`): a timer's, an immediate's, a
 * nextTick's, a microtask's, an fs callback, an EventEmitter listener or a then/catch/finally
 * callback whose function is instrumented is deferred — re-queued when its hold is over, the event loop
 * running other tasks meanwhile — when its first function entry is a suspension point whose upcoming
 * accesses (those of that function, and those the callbacks entering there reached synchronously
 * earlier in the run) meet a wait. So a wait `{at, for, since}` applies at a suspension point of task T
 *
 *   - with `since`: when T has performed `accesses[since]` and not `accesses[at]` after it (T is inside
 *     the window that `since` opened), whatever T does next;
 *   - without `since`: when `accesses[at]` may come next in T — an access of the same file and
 *     function at or after the suspension point's line (line 0: any line of the function).
 *
 * Then, as in the agent: met at once when another task performed `accesses[for]` (on the same object
 * when `sameObject`: the object of T's `since` performance when both are the same variable), skipped
 * when a task already held waits for an access that may come next in T or is held in the same role,
 * else held until it is met (a performance resolves the hold) or `waitMs` passes. After `maxTimeouts`
 * unmet holds a wait is disabled, until a new task takes part. Once the last wait has been met `times`
 * times forcing stops and every held task goes on.
 *
 * An access in synchronous code (no await before it in its function; in a function a callback or an
 * await's continuation calls) is held at the task's LAST suspension point before it (its boundary, issue
 * 40): every suspension point a task passes is its boundary until the next one, and each plan access
 * the task performs meanwhile is counted as having followed that boundary (per place: file, line,
 * function). The counts are appended to a file (`learnFile`) that the next run of the group reads: a
 * place where an access followed in at least half of the passes is a place where that access may come
 * next. A hold there is verified: its wait counts as met only once the held task does perform the
 * access before its next suspension point (a task held there that goes elsewhere is counted as
 * `missed`, never as met), so a wrong hold cannot make a run count as forced.
 */

/** One access of the plan, as the runtime needs it (ForceAccess of engine/noise/noisePlan.ts). */
export interface NodeForceAccess {
  role: number;
  type: 'R' | 'W' | 'RW';
  variable: string;
  file: string;
  line: number;
  method: string;
  anywhere?: boolean;
  call?: string;
}

export interface NodeForceWait {
  at: number;
  for: number;
  since?: number;
  sameObject: boolean;
  optional?: boolean;
  needs?: number[];
  fresh?: boolean;
  ready?: boolean;
}

/** The `force` section a run gets (nodeRunner.ts copies it from the plan). */
export interface NodeForceSpec {
  order: 'pattern' | 'opposite';
  waitMs: number;
  times: number;
  maxTimeouts?: number;
  pattern?: Record<string, unknown>;
  accesses: NodeForceAccess[];
  waits: NodeForceWait[];
}

/** What forcing keeps on a task (the runtime's Task). */
export interface ForcedTask {
  /** per access: the sequence number of the task's latest performance (0: none) */
  forceLast: number[] | null;
  /** per access: the object of that performance */
  forceObj: number[] | null;
  /** the site of the task's last suspension point (its boundary; -1: none yet) */
  forceSite: number;
  /** the plan's accesses the task performed since that boundary */
  forceAfter: number;
  /** which pass of its place that boundary was in this run (1…PASS_ORDINALS; 0: a later one, or not known) */
  forceNth?: number;
  /** a wait met by a hold at a learned boundary, to count once the task performs its access (-1: none) */
  forcePending: number;
  /**
   * a continuation split off `forceParent` at a learned await outside the include list (`split`): the
   * parent's performances up to sequence `forceSplit` are its own history, not another task's
   */
  forceParent?: ForcedTask | null;
  forceSplit?: number;
  /**
   * happens-before (NodeForcingOptions.hb): the recorder's tokens the task received (its RCVs), those
   * whose sender knew of some plan performance, in order; `forceRecvBase` of the earliest dropped
   */
  forceRecv?: number[] | null;
  forceRecvBase?: number;
}

/** Where an access or a suspension point is, as the trace names it. */
export interface ForceLocation {
  file: string;
  line: number;
  method: string;
  call?: string;
}

const RING = 128;
const NO_OBJECT = -1;
/**
 * The passes of a place learned one by one (the first, second, … pass of the place in a run); later
 * passes only together with all of them (`byPass`).
 */
export const PASS_ORDINALS = 8;

/** Options of the Node.js forcing that are not in the plan (docs/recorder-node.md "Forcing"). */
export interface NodeForcingOptions {
  /**
   * learn, besides a place's passes together, which of its passes (the 1st, 2nd, … in a run) an
   * access followed, and hold at a pass of the place only where it followed that pass (default true;
   * `BRAID_NODE_LEARN_PASS=0`: false, any pass of a place where the access followed half of them)
   */
  byPass?: boolean;
  /**
   * "another task's access" is one not ordered before the held task's point by the recorder's
   * happens-before (the tokens of the trace: an async function's start after its caller's events, a
   * promise reaction after the resolution, a callback after the call that scheduled it): the same
   * request's earlier access, in the async chain that led to the hold, is never the pattern's other
   * side (default true; `BRAID_NODE_FORCE_HB=0`: false, any other task's access, as before issue 40's
   * session 15)
   */
  hb?: boolean;
}

/** The tokens forcing keeps for happens-before (a ring: a token older than this many is forgotten, nothing ordered by it). */
const TOKENS = 1 << 16;
/** The received tokens a task keeps (the earlier half dropped beyond it: nothing ordered by them). */
const MAX_RECEIVED = 8192;

interface Hold {
  task: ForcedTask;
  w: number;
  obj: number;
  after: number;
  /** held at a learned boundary: met only once the task performs the wait's access */
  learned: boolean;
  resolve: () => void;
  timer: ReturnType<typeof setTimeout> | null;
  third: ReturnType<typeof setTimeout> | null;
}

export class NodeForcing {
  /** forcing has stopped (the last wait met `times` times): the hooks' one check */
  stopped = false;
  private readonly n: number;
  private readonly waitMs: number;
  private readonly maxTimeouts: number;
  private readonly readMask: number;
  private seq = 0;
  private readonly ringSeq: Float64Array[];
  private readonly ringTask: (ForcedTask | null)[][];
  private readonly ringObj: Float64Array[];
  private readonly ringNext: Int32Array;
  private readonly ringSize: Int32Array;
  private readonly performedCount: Int32Array;
  private readonly met: Int32Array;
  private readonly timedOut: Int32Array;
  private readonly allHeld: Int32Array;
  private readonly skipped: Int32Array;
  private readonly reached: Int32Array;
  private readonly notApplicable: Int32Array;
  private readonly failures: Int32Array;
  /** holds at a learned boundary whose task went on without performing the wait's access */
  private readonly missed: Int32Array;
  /**
   * per boundary site: passes, and per plan access how many of them it followed (index n: the passes);
   * then the same for the site's k-th pass of the run, k = 1…PASS_ORDINALS (block k at k·(n+1))
   */
  private readonly follow = new Map<number, Int32Array>();
  /** per place key (learnKey): the counts the group's earlier runs learned (laid out as `follow`) */
  private readonly prior = new Map<string, Int32Array>();
  /** per site: the accesses the earlier runs learned may come next there, per pass ordinal (0: any pass) */
  private readonly priorSite = new Map<number, Int32Array>();
  /** learn and hold per pass ordinal (NodeForcingOptions.byPass) */
  private readonly byPass: boolean;
  /** happens-before between tasks (NodeForcingOptions.hb): per token slot (token & (TOKENS - 1)) the token, its sender, the clock and the sender's received count at its SND */
  private readonly hb: boolean;
  private readonly tokId: Float64Array | null;
  private readonly tokClock: Float64Array | null;
  private readonly tokCount: Float64Array | null;
  private readonly tokTask: (ForcedTask | null)[] | null;
  /** the walk of `ordered`: the slots visited in walk `walkGen`, and its stack of tokens */
  private readonly tokSeen: Int32Array | null;
  private walkGen = 0;
  private readonly walk: number[] = [];
  /** performances not counted as another task's because they happen before the held point (the report's `ordered`) */
  private readonly orderedOut: Int32Array;
  /** the plan's accesses that name a place (not `anywhere`) */
  private readonly placed: number;
  private readonly disabled: boolean[];
  private readonly performers = new Set<ForcedTask>();
  private readonly held: Hold[] = [];
  /** per (loc, var) key: the accesses an access there matches, bit k = accesses[k]; reads and writes apart */
  private readonly masks = new Map<number, number>();
  /** per suspension point (the runtime's site): the accesses without `anywhere` that may come after it */
  private readonly upcoming = new Map<number, number>();

  constructor(
    readonly spec: NodeForceSpec,
    options: NodeForcingOptions = {},
  ) {
    const n = (this.n = spec.accesses.length);
    this.byPass = options.byPass !== false;
    this.hb = options.hb !== false;
    this.tokId = this.hb ? new Float64Array(TOKENS).fill(-1) : null;
    this.tokClock = this.hb ? new Float64Array(TOKENS) : null;
    this.tokCount = this.hb ? new Float64Array(TOKENS) : null;
    this.tokTask = this.hb ? new Array<ForcedTask | null>(TOKENS).fill(null) : null;
    this.tokSeen = this.hb ? new Int32Array(TOKENS) : null;
    this.waitMs = spec.waitMs;
    this.maxTimeouts = spec.maxTimeouts ?? 5;
    let reads = 0;
    spec.accesses.forEach((a, k) => {
      if (a.type !== 'W') reads |= 1 << k;
    });
    this.readMask = reads;
    this.ringSeq = Array.from({ length: n }, () => new Float64Array(RING));
    this.ringTask = Array.from({ length: n }, () => new Array<ForcedTask | null>(RING).fill(null));
    this.ringObj = Array.from({ length: n }, () => new Float64Array(RING));
    this.ringNext = new Int32Array(n);
    this.ringSize = new Int32Array(n);
    this.performedCount = new Int32Array(n);
    const w = spec.waits.length;
    this.met = new Int32Array(w);
    this.timedOut = new Int32Array(w);
    this.allHeld = new Int32Array(w);
    this.skipped = new Int32Array(w);
    this.reached = new Int32Array(w);
    this.notApplicable = new Int32Array(w);
    this.failures = new Int32Array(w);
    this.missed = new Int32Array(w);
    this.orderedOut = new Int32Array(w);
    this.disabled = new Array<boolean>(w).fill(false);
    let placed = 0;
    spec.accesses.forEach((a, k) => {
      if (!a.anywhere) placed |= 1 << k;
    });
    this.placed = placed;
  }

  // ---- boundaries: the last suspension point before an access (learned over a group's runs) ----

  /** Reads what earlier runs learned (the lines of `boundaryLines`); lines of another plan's accesses are ignored. */
  loadBoundaries(text: string): void {
    const keys = this.spec.accesses.map(accessKey);
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      let o: { at?: unknown; passes?: unknown; followed?: unknown; nth?: unknown };
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof o.at !== 'string' || typeof o.passes !== 'number' || !o.followed || typeof o.followed !== 'object') continue;
      let c = this.prior.get(o.at);
      if (c === undefined) this.prior.set(o.at, (c = new Int32Array((this.n + 1) * (PASS_ORDINALS + 1))));
      const add = (base: number, passes: number, followed: Record<string, unknown>) => {
        c![base + this.n] += passes;
        keys.forEach((k, j) => {
          const f = followed[k];
          if (typeof f === 'number') c![base + j] += f;
        });
      };
      add(0, o.passes, o.followed as Record<string, unknown>);
      // the same counts per pass of the place (the k-th entry: its k-th pass in a run)
      if (Array.isArray(o.nth)) {
        o.nth.forEach((e: unknown, i) => {
          if (i >= PASS_ORDINALS || !e || typeof e !== 'object') return;
          const { passes, followed } = e as { passes?: unknown; followed?: unknown };
          if (typeof passes === 'number' && followed && typeof followed === 'object') add((i + 1) * (this.n + 1), passes, followed as Record<string, unknown>);
        });
      }
    }
  }

  /** What this run learned, as lines for the next runs (one per boundary site an access followed). */
  boundaryLines(where: (site: number) => ForceLocation): string {
    const keys = this.spec.accesses.map(accessKey);
    let out = '';
    for (const [site, c] of this.follow) {
      const followed: Record<string, number> = {};
      let any = false;
      for (let j = 0; j < this.n; j++) {
        if (c[j] > 0) {
          followed[keys[j]] = c[j];
          any = true;
        }
      }
      if (!any) continue;
      // per pass of the place: [{passes, followed}] for its 1st, 2nd, … pass (up to PASS_ORDINALS)
      const nth: { passes: number; followed: Record<string, number> }[] = [];
      for (let k = 1; k <= PASS_ORDINALS; k++) {
        const b = k * (this.n + 1);
        if (c[b + this.n] === 0) break;
        const f: Record<string, number> = {};
        for (let j = 0; j < this.n; j++) if (c[b + j] > 0) f[keys[j]] = c[b + j];
        nth.push({ passes: c[b + this.n], followed: f });
      }
      out += JSON.stringify({ at: learnKey(where(site)), passes: c[this.n], followed, nth }) + '\n';
    }
    return out;
  }

  /**
   * The accesses that earlier runs saw follow this site in at least half of its passes — with `byPass`,
   * of its `nth` passes (the nth of a run) when earlier runs had such a pass, else of all of them.
   */
  private priorAt(site: number, at: () => ForceLocation, nth: number): number {
    let m = this.priorSite.get(site);
    if (m === undefined) {
      m = new Int32Array(PASS_ORDINALS + 1);
      const c = this.prior.size > 0 ? this.prior.get(learnKey(at())) : undefined;
      if (c !== undefined) {
        for (let k = 0; k <= PASS_ORDINALS; k++) {
          const b = k * (this.n + 1);
          // a pass no earlier run had: learned as the passes together
          const from = k > 0 && (!this.byPass || c[b + this.n] === 0) ? 0 : b;
          for (let j = 0; j < this.n; j++) if (c[from + j] > 0 && c[from + j] * 2 >= c[from + this.n] && (this.placed & (1 << j)) !== 0) m[k] |= 1 << j;
        }
      }
      this.priorSite.set(site, m);
    }
    return m[nth > 0 && nth <= PASS_ORDINALS ? nth : 0];
  }

  /**
   * A gated callback of task `t` returned (or was held and did not run): the task's boundary is again
   * the one it had before the callback (`site`, `after`). A wait met by a hold at the callback's start
   * whose access the callback did not make is missed.
   */
  leaveCallback(t: ForcedTask, site: number, after: number, nth = 0): void {
    this.missPending(t);
    t.forceSite = site;
    t.forceAfter = after;
    t.forceNth = nth;
  }

  /** A wait met by a hold at a learned boundary whose task went on without the access: missed, not met. */
  private missPending(t: ForcedTask): void {
    if (t.forcePending >= 0) {
      this.missed[t.forcePending]++;
      t.forcePending = -1;
    }
  }

  /**
   * The continuation of an await outside the include list (runtime `ac`) starts in task `t`: that
   * await (`site`, its pass counted when the task reached it) is the task's boundary again — the
   * continuation may run in a task of its own, or in one whose other flows passed other points meanwhile.
   */
  resume(t: ForcedTask, site: number): void {
    if (t.forceSite === site) return;
    // (a wait met by a hold at this await stays pending: the continuation is where its access comes)
    t.forceSite = site;
    t.forceAfter = 0;
    // which pass it was is not known here: the place's latest one
    const c = this.follow.get(site);
    t.forceNth = c !== undefined && c[this.n] <= PASS_ORDINALS ? c[this.n] : 0;
  }

  /** The accesses that earlier runs saw follow this suspension point's next pass (0: not a learned place). */
  learnedAt(site: number, at: () => ForceLocation): number {
    if (this.prior.size === 0) return 0;
    const c = this.follow.get(site);
    return this.priorAt(site, at, (c === undefined ? 0 : c[this.n]) + 1);
  }

  /**
   * An await outside the include list at a learned place: its continuation will run as `c`, a flow
   * of its own split off `t` now (the recorder's task of an unrecorded continuation is only decided
   * when it runs, after a hold — and the access it waits for may come from `t`'s other flows
   * meanwhile). What `t` performed so far is `c`'s own history (its window, and never "another task").
   */
  split(t: ForcedTask, c: ForcedTask): void {
    c.forceLast = t.forceLast === null ? null : t.forceLast.slice();
    c.forceObj = t.forceObj === null ? null : t.forceObj.slice();
    c.forceParent = t;
    c.forceSplit = this.seq;
    // and what happened before `t`'s point happens before `c`'s
    if (this.hb && t.forceRecv) {
      c.forceRecv = t.forceRecv.slice();
      c.forceRecvBase = t.forceRecvBase ?? 0;
    }
  }

  // ---- happens-before (NodeForcingOptions.hb) ----

  /**
   * Task `t` sent the recorder's token `tok` (its SND: what `t` did so far happens before whatever
   * receives it). Kept only when `t` knows of some plan performance (its own, or one a token it
   * received carried): other tokens order nothing forcing asks about.
   */
  sent(t: ForcedTask, tok: number): void {
    if (!this.hb || this.stopped || (t.forceLast === null && !t.forceRecv)) return;
    const k = tok & (TOKENS - 1);
    this.tokId![k] = tok;
    this.tokClock![k] = this.seq;
    this.tokCount![k] = (t.forceRecvBase ?? 0) + (t.forceRecv ? t.forceRecv.length : 0);
    this.tokTask![k] = t;
  }

  /** Task `t` received token `tok` (its RCV: what follows in `t` happens after the token's SND). */
  received(t: ForcedTask, tok: number): void {
    if (!this.hb || this.stopped || this.tokId![tok & (TOKENS - 1)] !== tok) return;
    const r = (t.forceRecv ??= []);
    if (r.length >= MAX_RECEIVED) {
      // the earlier half forgotten (nothing is ordered by them any more: an access they carried counts as another task's, as without hb)
      r.splice(0, MAX_RECEIVED / 2);
      t.forceRecvBase = (t.forceRecvBase ?? 0) + MAX_RECEIVED / 2;
    }
    r.push(tok);
  }

  /**
   * `u`'s performance of sequence `s` happens before `t`'s point: a token `t` received was sent after
   * it (clock ≥ s) by `u`, or by a task that had received such a token before its SND (a walk back over
   * the tokens sent since `s` only — an older one cannot carry it).
   */
  ordered(u: ForcedTask, s: number, t: ForcedTask): boolean {
    const recv = t.forceRecv;
    if (!this.hb || !recv || recv.length === 0) return false;
    const ids = this.tokId!;
    const clock = this.tokClock!;
    const count = this.tokCount!;
    const task = this.tokTask!;
    const seen = this.tokSeen!;
    const gen = ++this.walkGen;
    const st = this.walk;
    st.length = 0;
    for (let i = 0; i < recv.length; i++) st.push(recv[i]);
    while (st.length > 0) {
      const tok = st.pop()!;
      const k = tok & (TOKENS - 1);
      if (ids[k] !== tok || seen[k] === gen) continue;
      seen[k] = gen;
      if (clock[k] < s) continue;
      const v = task[k]!;
      if (v === u || (v.forceParent === u && s <= v.forceSplit!)) return true;
      const vr = v.forceRecv;
      if (!vr) continue;
      const base = v.forceRecvBase ?? 0;
      for (let i = Math.max(0, count[k] - base) - 1; i >= 0; i--) if (i < vr.length) st.push(vr[i]);
    }
    return false;
  }

  /** Task `t` passes the suspension point at `site`: its boundary from now on. */
  private pass(t: ForcedTask, site: number): void {
    this.missPending(t);
    let c = this.follow.get(site);
    if (c === undefined) this.follow.set(site, (c = new Int32Array((this.n + 1) * (PASS_ORDINALS + 1))));
    const nth = ++c[this.n];
    t.forceSite = site;
    t.forceAfter = 0;
    t.forceNth = nth <= PASS_ORDINALS ? nth : 0;
    if (nth <= PASS_ORDINALS) c[nth * (this.n + 1) + this.n]++;
  }

  // ---- matching ----

  /** The cached mask of an access kind at (loc, var), or undefined when not computed yet. */
  maskOf(key: number): number | undefined {
    return this.masks.get(key);
  }

  /** Computes and caches the accesses an access of `variable` at `at` matches (`write`: a write, else a read). */
  computeMask(key: number, write: boolean, variable: string, at: ForceLocation): number {
    let m = 0;
    this.spec.accesses.forEach((a, k) => {
      if (a.variable !== variable) return;
      if (write ? a.type === 'R' : a.type === 'W') return;
      if (!a.anywhere) {
        if (!sameFile(a.file, at.file) || !sameFunction(a.method, at.method) || (a.line !== 0 && a.line !== at.line)) return;
        if (a.call !== undefined && a.call !== at.call) return;
      }
      m |= 1 << k;
    });
    this.masks.set(key, m);
    return m;
  }

  /** The accesses (not `anywhere`) that may come after a suspension point at `at` in its function. */
  upcomingAt(site: number, at: () => ForceLocation): number {
    let m = this.upcoming.get(site);
    if (m === undefined) {
      const here = at();
      m = 0;
      this.spec.accesses.forEach((a, k) => {
        if (!a.anywhere && sameFile(a.file, here.file) && sameFunction(a.method, here.method) && (a.line === 0 || a.line >= here.line)) m! |= 1 << k;
      });
      this.upcoming.set(site, m);
    }
    return m;
  }

  /** The sequence number of the latest performance (a clock for performedSince). */
  get clock(): number {
    return this.seq;
  }

  /** The accesses some task performed after sequence `after` (what a callback reached synchronously). */
  performedSince(after: number): number {
    let m = 0;
    for (let j = 0; j < this.n; j++) {
      if (this.ringSize[j] > 0 && this.ringSeq[j][(this.ringNext[j] - 1) & (RING - 1)] > after) m |= 1 << j;
    }
    return m;
  }

  // ---- performances ----

  /** Task `t` performed the accesses of mask `m` on object `obj`. */
  performed(t: ForcedTask, m: number, obj: number): void {
    if (this.stopped || m === 0) return;
    const last = (t.forceLast ??= new Array<number>(this.n).fill(0));
    const lastObj = (t.forceObj ??= new Array<number>(this.n).fill(NO_OBJECT));
    const seq = ++this.seq;
    for (let j = 0; j < this.n; j++) {
      if ((m & (1 << j)) === 0) continue;
      const p = this.ringNext[j];
      this.ringSeq[j][p] = seq;
      this.ringTask[j][p] = t;
      this.ringObj[j][p] = obj;
      this.ringNext[j] = (p + 1) & (RING - 1);
      if (this.ringSize[j] < RING) this.ringSize[j]++;
      this.performedCount[j]++;
      last[j] = seq;
      lastObj[j] = obj;
    }
    // the accesses that followed the task's boundary (each counted once per pass)
    const fresh = m & this.placed & ~t.forceAfter;
    if (fresh !== 0 && t.forceSite >= 0) {
      t.forceAfter |= fresh;
      const c = this.follow.get(t.forceSite);
      if (c !== undefined) {
        const b = (t.forceNth ?? 0) * (this.n + 1);
        for (let j = 0; j < this.n; j++) {
          if ((fresh & (1 << j)) === 0) continue;
          c[j]++;
          if (b > 0) c[b + j]++;
        }
      }
    }
    if (t.forcePending >= 0 && (m & (1 << this.spec.waits[t.forcePending].at)) !== 0) {
      const w = t.forcePending;
      t.forcePending = -1;
      this.metWait(w);
    }
    if (!this.performers.has(t)) {
      this.performers.add(t);
      // a new task takes part: waits given up while its partner had not started are tried again
      this.failures.fill(0);
      this.disabled.fill(false);
    }
    // a performance may meet the waits of held tasks
    // (a release may end forcing, which releases every hold: the list shrinks while it is walked)
    for (let h = this.held.length - 1; h >= 0; h--) {
      const hold = this.held[h];
      if (hold === undefined) continue;
      if (hold.task !== t && this.satisfied(hold.w, hold.task, hold.obj, hold.after)) this.release(hold, 'met');
    }
  }

  // ---- suspension points ----

  /**
   * Task `t` is at a suspension point whose upcoming accesses are `upcoming`: a promise that resolves
   * when its holds are over, or null when it goes on at once.
   */
  suspend(t: ForcedTask, upcoming: number, site = -1, at?: () => ForceLocation): Promise<void> | null {
    let learned = 0;
    if (site >= 0) {
      this.pass(t, site);
      if (at !== undefined) learned = this.priorAt(site, at, t.forceNth ?? 0) & ~upcoming;
    }
    return this.from(t, upcoming | learned, 0, learned);
  }

  private from(t: ForcedTask, upcoming: number, first: number, learned = 0): Promise<void> | null {
    const waits = this.spec.waits;
    for (let w = first; w < waits.length && !this.stopped; w++) {
      const wait = waits[w];
      let after = 0;
      let obj = NO_OBJECT;
      if (wait.since !== undefined) {
        const since = t.forceLast?.[wait.since] ?? 0;
        // not in a window this wait closes: the task never opened it, or closed it already
        if (since === 0 || (t.forceLast![wait.at] ?? 0) > since) continue;
        this.reached[w]++;
        after = since;
        if (this.spec.accesses[wait.since].variable === this.spec.accesses[wait.at].variable) obj = t.forceObj![wait.since];
        if (wait.needs && !wait.needs.every((j) => this.performedAfter(j, t, after, -1, NO_OBJECT))) {
          this.notApplicable[w]++;
          continue;
        }
      } else {
        if ((upcoming & (1 << wait.at)) === 0) continue;
        this.reached[w]++;
      }
      if (this.disabled[w]) {
        this.skipped[w]++;
        continue;
      }
      if (wait.fresh) after = this.seq;
      // held only because earlier runs saw the access follow here: met once the task performs it
      const onLearned = wait.since === undefined && (learned & (1 << wait.at)) !== 0;
      if (this.satisfied(w, t, obj, after)) {
        if (onLearned) t.forcePending = w;
        else this.metWait(w);
        continue;
      }
      if (this.lastOrdered) this.orderedOut[w]++;
      if (this.conflict(w, t, upcoming, obj)) {
        this.skipped[w]++;
        continue;
      }
      return this.hold(t, w, obj, after, onLearned).then(() => this.from(t, upcoming, w + 1, learned) ?? undefined);
    }
    return null;
  }

  private satisfied(w: number, t: ForcedTask, obj: number, after: number): boolean {
    const wait = this.spec.waits[w];
    this.lastOrdered = false;
    if (wait.ready) return this.held.some((h) => h.task !== t && this.spec.waits[h.w].at === wait.for && this.sameTarget(w, obj, h.obj));
    return this.performedAfter(wait.for, t, after, w, obj);
  }

  private sameTarget(w: number, obj: number, other: number): boolean {
    return !this.spec.waits[w].sameObject || obj === NO_OBJECT || other === NO_OBJECT || obj === other;
  }

  /**
   * Another task performed access `j` after sequence `after` (on `obj` when wait `w` asks for the same
   * object; w = -1: any) — with `hb`, a performance that happens before `t`'s point is not another
   * task's (the same request's earlier access: `lastOrdered` says one was passed over).
   */
  private performedAfter(j: number, t: ForcedTask, after: number, w: number, obj: number): boolean {
    const seqs = this.ringSeq[j];
    const tasks = this.ringTask[j];
    const objs = this.ringObj[j];
    let p = this.ringNext[j];
    this.lastOrdered = false;
    for (let c = 0; c < this.ringSize[j]; c++) {
      p = (p - 1) & (RING - 1);
      if (seqs[p] <= after) return false;
      const u = tasks[p]!;
      if (u !== t && !(u === t.forceParent && seqs[p] <= t.forceSplit!) && (w < 0 || this.sameTarget(w, obj, objs[p]))) {
        if (!this.ordered(u, seqs[p], t)) return true;
        this.lastOrdered = true;
      }
    }
    return false;
  }

  /** the last `performedAfter` passed over a performance that happens before the task's point */
  private lastOrdered = false;

  /** Holding `t` at `w` would deadlock: a held task waits for an access that may come next in `t`, or is held in the same role. */
  private conflict(w: number, t: ForcedTask, upcoming: number, obj: number): boolean {
    const waits = this.spec.waits;
    const role = (k: number) => this.spec.accesses[k].role;
    for (const h of this.held) {
      if (h.task === t) continue;
      const hw = waits[h.w];
      if (hw.ready) continue;
      // the held task waits for what this one does next (in its window, whatever it does next)
      const next = waits[w].since !== undefined ? upcoming | this.variableMask(waits[w].at) : upcoming;
      if ((next & (1 << hw.for)) !== 0 && this.sameTarget(h.w, obj, h.obj)) return true;
      if (role(hw.at) === role(waits[w].at) && (!(waits[w].sameObject && hw.sameObject) || obj === h.obj || obj === NO_OBJECT || h.obj === NO_OBJECT)) return true;
    }
    return false;
  }

  /** The accesses of the same variable as access `k` (a task in a window may perform any of them next). */
  private variableMask(k: number): number {
    let m = 0;
    const v = this.spec.accesses[k].variable;
    this.spec.accesses.forEach((a, j) => {
      if (a.variable === v) m |= 1 << j;
    });
    return m;
  }

  private hold(t: ForcedTask, w: number, obj: number, after: number, learned: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const h: Hold = { task: t, w, obj, after, learned, resolve, timer: null, third: null };
      h.timer = setTimeout(() => this.release(h, 'timeout'), this.waitMs);
      // every other task of the pattern held too: nobody is free to perform what they wait for
      h.third = setTimeout(() => {
        h.third = null;
        if (this.held.includes(h) && this.everyoneHeld(t)) this.release(h, 'all-held');
      }, Math.max(1, this.waitMs / 3));
      this.held.push(h);
    });
  }

  private everyoneHeld(t: ForcedTask): boolean {
    let other = false;
    for (const p of this.performers) {
      if (p === t) continue;
      if (!this.held.some((h) => h.task === p)) return false;
      other = true;
    }
    return other;
  }

  private release(h: Hold, how: 'met' | 'timeout' | 'all-held' | 'stopped'): void {
    const k = this.held.indexOf(h);
    if (k < 0) return;
    this.held.splice(k, 1);
    if (h.timer !== null) clearTimeout(h.timer);
    if (h.third !== null) clearTimeout(h.third);
    if (how === 'met') {
      if (h.learned) h.task.forcePending = h.w;
      else this.metWait(h.w);
    } else if (how !== 'stopped') {
      this.timedOut[h.w]++;
      if (how === 'all-held') this.allHeld[h.w]++;
      if (++this.failures[h.w] >= this.maxTimeouts) this.disabled[h.w] = true;
    }
    h.resolve();
  }

  private metWait(w: number): void {
    this.met[w]++;
    if (w === this.spec.waits.length - 1 && this.met[w] >= this.spec.times) this.stop();
  }

  /** Ends forcing: held tasks go on, nothing more is held or counted. */
  stop(): void {
    this.stopped = true;
    for (const h of [...this.held]) this.release(h, 'stopped');
  }

  // ---- the report ----

  /** Some wait was reached or some access performed: the run's process took part (its trace carries the report). */
  touched(): boolean {
    return this.seq > 0 || this.reached.some((r) => r > 0);
  }

  /** The trace line `{"forcing":{…}}` (docs/trace-format.md "Forcing report"). */
  reportLine(): string {
    const waits = this.spec.waits;
    const reasons: string[] = [];
    let ok = true;
    waits.forEach((w, k) => {
      if (this.met[k] > 0 || w.optional) return;
      ok = false;
      reasons.push(`wait ${k}: ${this.whyNotMet(k)}`);
    });
    const report = {
      ok,
      order: this.spec.order,
      ...(this.spec.pattern ? { pattern: this.spec.pattern } : {}),
      waits: waits.map((w, k) => ({ at: w.at, for: w.for, met: this.met[k], timedOut: this.timedOut[k], lock: 0, skipped: this.skipped[k], ...(this.missed[k] > 0 ? { missed: this.missed[k] } : {}), ...(this.orderedOut[k] > 0 ? { ordered: this.orderedOut[k] } : {}), ...(w.optional ? { optional: true } : {}) })),
      ...(ok ? {} : { reason: reasons.join('; ') }),
    };
    return JSON.stringify({ forcing: report });
  }

  private describe(k: number): string {
    const a = this.spec.accesses[k];
    const base = a.file.slice(a.file.lastIndexOf('/') + 1);
    const where = a.anywhere ? 'any access' : a.line > 0 ? `${base}:${a.line}` : `${base} (any line of ${a.method})`;
    const type = a.type === 'RW' ? 'R/W' : a.type;
    const name = a.call ? a.call : a.variable.slice(a.variable.lastIndexOf('.') + 1);
    return `${where} (${type} ${name})`;
  }

  private whyNotMet(w: number): string {
    const wait = this.spec.waits[w];
    const here = this.describe(wait.at);
    const awaited = `another task's ${this.describe(wait.for)}${wait.sameObject ? ' on the same object' : ''}`;
    if (this.reached[w] === 0) {
      if (this.performedCount[wait.at] > 0) {
        return `${here} was performed ${times(this.performedCount[wait.at])} but never after an await, at the start of an async function or at the start of a callback (a timer, an immediate, a nextTick, a listener, an fs callback, a then callback) of its task, where JavaScript can hold a task (synchronous code runs to its end)`;
      }
      return `no thread reached ${here}`;
    }
    const parts: string[] = [];
    if (this.timedOut[w] > 0) {
      const waited = this.timedOut[w] - this.allHeld[w];
      let s = '';
      if (waited > 0) s += `timed out ${times(waited)} (${this.waitMs}${waited === 1 ? ' ms)' : ' ms each)'}`;
      if (this.allHeld[w] > 0) s += `${waited > 0 ? ' and ' : ''}let go ${times(this.allHeld[w])} when every other task of the pattern was held too`;
      s += ` at ${here} waiting for ${awaited}`;
      if (this.performedCount[wait.for] === 0) s += ', which no task performed';
      if (this.disabled[w]) s += `; then disabled (maxTimeouts ${this.maxTimeouts})`;
      parts.push(s);
    }
    if (this.orderedOut[w] > 0) parts.push(`${times(this.orderedOut[w])} the only task that had performed ${this.describe(wait.for)} did it before the held point, in its own async chain (happens-before: not the pattern's other side)`);
    if (this.missed[w] > 0) parts.push(`held ${times(this.missed[w])} at the place before ${here} where earlier runs saw it follow, but the task went on without it (not counted as met)`);
    if (parts.length) return parts.join('; ');
    if (this.notApplicable[w] === this.reached[w]) return `${here} was reached ${times(this.reached[w])}, never by a task whose window already held the other task's accesses`;
    if (this.skipped[w] > 0) return `${here} was reached ${times(this.reached[w])} but never held: another task was already held in its role or waiting for this task's access (skipped ${times(this.skipped[w])})`;
    return `${here} was reached ${times(this.reached[w])} but forcing had stopped`;
  }
}

/**
 * The plan's file and the run's: equal, or one a path ending of the other — a recording made in the
 * subject's folder names `forkCache.mjs`, a run from the repository root
 * `test/fixtures/node/inflight/forkCache.mjs` (trace files are relative to the working folder).
 */
export function sameFile(a: string, b: string): boolean {
  return a === b || (a.length < b.length ? b.endsWith(`/${a}`) : a.endsWith(`/${b}`));
}

/**
 * The plan's function name and the run's: equal, or one the other with more of the functions it was
 * made in (` in <outer>`). A recording made by an earlier recorder names a nested function or an
 * object literal's method by its own name only (`release`, `[Symbol.asyncIterator]`), today's with
 * where it was made (`release in fastqueue`, `[Symbol.asyncIterator] in pMapIterable`): the plan of an
 * older recording still matches. Two functions of today's names with different makers do not.
 */
export function sameFunction(a: string, b: string): boolean {
  return a === b || (a.length < b.length ? b.startsWith(`${a} in `) : a.startsWith(`${b} in `));
}

/** A place of the trace as the boundaries file names it: file, line, function. */
export function learnKey(l: ForceLocation): string {
  return `${l.file}\t${l.line}\t${l.method}`;
}

/** A plan access as the boundaries file names it (the index may differ between a group's plans). */
function accessKey(a: NodeForceAccess): string {
  return `${a.type} ${a.variable} ${a.file}:${a.line} ${a.method}${a.call ? ` ${a.call}` : ''}`;
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}
