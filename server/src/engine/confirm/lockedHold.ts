/**
 * A hold inside a lock the other access needs (issue 40, metrics-rescale): forcing holds a thread
 * before its access until the other thread has made the access before it. When the held access runs
 * under a lock (a `synchronized` block, a `ReentrantReadWriteLock`'s write lock) and the other thread
 * makes its access under a lock that is never held at the same time as that one (the same monitor,
 * the read lock of the same read-write lock), the held thread holds the lock: the other thread cannot
 * reach its access while it waits, and only an access made before the lock was taken meets the wait —
 * an older one, maybe of a call that ended long before (the order the failure needs, the other
 * access after the held thread is committed but before it takes the lock, never happens). A verdict
 * from such runs says nothing: the confirmation says "not forced" with this reason, never "refuted".
 * Holding before the enclosing lock acquisition forces it: the plan's wait then holds the thread at the
 * place the lock is taken (ForceWait.beforeLock, the agent's beforeAcquire hook), and the verdict is
 * the runs' as usual; without a known place, "not forced" stays.
 *
 * Read from the recording's traces: per thread the locks it holds (ACQ/REL), per lock the threads
 * holding it. Two locks exclude each other when the traces never show them held by two threads at
 * once (the same lock always does). Reading allocates per lock and per matching access, not per event.
 */
import type { ReadTraceResult } from '../trace/traceReader';
import { type FailingTraceReader, scanFailingTraces } from './failingTraceScan';
import { EventKind } from '../trace/traceFormat';
import type { LocDef, TraceEvent } from '../trace/traceFormat';
import type { TraceSymbols } from '../trace/traceSymbols';
import { type ForcedPattern, type LockSite, traceLocation } from './forcingPlan';

export interface LockedHold {
  /** the held access, `File.java:166` */
  heldAt: string;
  /** where the held thread took the lock it holds there, `File.java:88` */
  lockAt: string;
  /** the awaited access, `File.java:96` */
  awaitedAt: string;
  /** occurrences of the held access under such a lock in the failing runs read */
  occurrences: number;
  /** one sentence: why a hold at the access says nothing (and where it is held instead, with `site`) */
  reason: string;
  /** where the held thread takes that lock: forcing holds it there, before the lock (ForceWait.beforeLock) */
  site?: LockSite;
  /** the same for the opposite order's wait (the pattern's first access waiting for the other role's first) */
  oppositeSite?: LockSite;
}

type Access = ForcedPattern['accesses'][number];

/** `p` with its locked hold (lockedHold) when the traces show one, else `p` itself; a trace that cannot be read leaves `p` as it is. */
export async function withLockedHold<P extends ForcedPattern>(p: P, traceFiles: readonly string[]): Promise<P & Pick<ForcedPattern, 'lockedHold'>> {
  if (p.lockedHold || !traceFiles.length) return p;
  try {
    const h = await lockedHold(p, traceFiles);
    return h ? { ...p, lockedHold: holdOfPlan(h) } : p;
  } catch {
    return p;
  }
}

/** What a forcing plan keeps of a locked hold. */
export function holdOfPlan(h: LockedHold): NonNullable<ForcedPattern['lockedHold']> {
  return { reason: h.reason, ...(h.site ? { site: h.site } : {}), ...(h.oppositeSite ? { oppositeSite: h.oppositeSite } : {}) };
}

const shortFile = (f: string) => f.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1);
const where = (a: Access) => {
  const l = traceLocation(a);
  return `${shortFile(l.file)}:${l.line}`;
};

function matches(a: Access, kind: EventKind, varName: string | undefined, loc: LocDef | undefined): boolean {
  if (!loc || varName !== a.variable || (a.type === 'R' ? kind !== EventKind.Read : kind !== EventKind.Write)) return false;
  const l = traceLocation(a);
  return loc.line === l.line && loc.file === l.file && loc.method === l.method;
}

/** What one trace shows of a (held, awaited) pair of accesses: per occurrence of the held access under a lock, the lock pairs. */
class PairScan {
  /** the other thread's latest awaited access per object: its thread and the locks it held */
  private readonly lastAwaited = new Map<number, { t: number; locks: number[] }>();
  private latestAwaited: { t: number; locks: number[] } | undefined;
  readonly found: { lock: number; loc: number; other: number; inside: boolean }[] = [];
  /** anyOrder: the locks held at the held access's occurrences (thread, lock, acquisition loc), and the awaited access's locks (thread, lock) */
  private readonly heldLocks: { t: number; lock: number; loc: number; inside: boolean }[] = [];
  /** per ACQ stack node: whether the held access's method is a frame below the lock's own (the lock taken in a helper it calls) */
  private readonly insideByStack = new Map<number, boolean>();
  private readonly awaitedLocks = new Map<string, { t: number; lock: number }>();
  /**
   * anyOrder: the awaited access may come after the held one in the recording (the opposite order's
   * wait: the pattern's first access waits for an access that followed it) — a held occurrence is paired
   * with the locks of the awaited access's occurrences anywhere in the trace, by another thread
   */
  constructor(
    private readonly held: Access,
    private readonly awaited: Access,
    private readonly anyOrder = false,
  ) {}
  /** anyOrder: the pairs, once the trace is read */
  finish(): void {
    if (!this.anyOrder) return;
    for (const h of this.heldLocks) for (const a of this.awaitedLocks.values()) if (a.t !== h.t) this.found.push({ lock: h.lock, loc: h.loc, other: a.lock, inside: h.inside });
  }
  /** Whether the lock acquired with stack node `stack` was taken in a helper the held access's method called (that method below the top frame). */
  private inside(stack: number, symbols: TraceSymbols): boolean {
    if (stack < 0) return false;
    let v = this.insideByStack.get(stack);
    if (v === undefined) {
      const frames = symbols.stackFrames(stack);
      const top = symbols.locs.get(frames[frames.length - 1])?.method;
      const method = traceLocation(this.held).method;
      v = top !== method && frames.slice(0, -1).some((f) => symbols.locs.get(f)?.method === method);
      this.insideByStack.set(stack, v);
    }
    return v;
  }
  access(ev: { kind: EventKind; t: number; d: number }, varName: string | undefined, loc: LocDef | undefined, locks: Map<number, HeldLock[]>, symbols: TraceSymbols): void {
    if (this.anyOrder) {
      // bounded: one entry per (thread, lock) on the awaited side, per occurrence held under a lock on the held side (as found)
      if (matches(this.awaited, ev.kind, varName, loc)) for (const l of locks.get(ev.t) ?? []) this.awaitedLocks.set(`${ev.t}\0${l.lock}`, { t: ev.t, lock: l.lock });
      if (matches(this.held, ev.kind, varName, loc)) for (const l of locks.get(ev.t) ?? []) this.heldLocks.push({ t: ev.t, lock: l.lock, loc: l.loc, inside: this.inside(l.stack, symbols) });
      return;
    }
    if (matches(this.awaited, ev.kind, varName, loc)) {
      this.latestAwaited = { t: ev.t, locks: (locks.get(ev.t) ?? []).map((l) => l.lock) };
      this.lastAwaited.set(ev.d, this.latestAwaited);
    }
    if (matches(this.held, ev.kind, varName, loc)) {
      const mine = locks.get(ev.t);
      const other = this.held.variable === this.awaited.variable ? this.lastAwaited.get(ev.d) : this.latestAwaited;
      if (!mine?.length || !other || other.t === ev.t || !other.locks.length) return;
      for (const l of mine) for (const o of other.locks) this.found.push({ lock: l.lock, loc: l.loc, other: o, inside: this.inside(l.stack, symbols) });
    }
  }
}

/** A lock a thread holds: its id, the loc and the stack node of its acquisition. */
type HeldLock = { lock: number; loc: number; stack: number };

/** per lock place: occurrences, and those where the lock was taken in a helper the held access's method called */
type Candidate = { occurrences: number; inside: number; lockLoc: LocDef | undefined };
type Candidates = Map<string, Candidate>;

function best(candidates: Candidates): Candidate | undefined {
  let b: Candidate | undefined;
  for (const c of candidates.values()) if (!b || c.occurrences > b.occurrences) b = c;
  return b;
}

/**
 * A lock place where forcing holds the thread of access `a`; `within` its method when the recording shows
 * that lock taken in a helper `a`'s method calls (every occurrence: `a`'s method on the ACQ's stack below
 * the lock's own) — another caller of the helper (metrics-rescale's getSnapshot calling
 * lockForRegularUsage, like update) is then not held in `a`'s role.
 */
function siteOf(c: Candidate | undefined, a: Access): LockSite | undefined {
  const l = c?.lockLoc;
  if (!c || !l || l.line <= 0) return undefined;
  const method = traceLocation(a).method;
  return { file: l.file, line: l.line, method: l.method, ...(c.inside === c.occurrences && method && l.method !== method ? { within: method } : {}) };
}

/**
 * The first wait of the pattern's own order (the first change of thread role: the thread of access
 * `at` waits for the other thread's access `at - 1`), when in the failing runs its access is made
 * under a lock that excludes a lock the other thread holds at the awaited access; undefined otherwise
 * (no lock at the held access, or none the other access needs, or no failing run read). With it, the
 * place where that lock is taken (`site`): forcing holds the thread there, before it takes the lock
 * (noisePlan.ts ForceWait.beforeLock) — and the same for the opposite order's wait (`oppositeSite`:
 * the pattern's first access waits for the other role's first access).
 */
export async function lockedHold(p: Pick<ForcedPattern, 'accesses'>, traceFiles: readonly string[], maxFiles = 40): Promise<LockedHold | undefined> {
  const reader = new LockedHoldReader(p);
  if (!reader.active) return undefined;
  await scanFailingTraces(traceFiles, [reader], maxFiles);
  return reader.answer();
}

/** lockedHold's share of a pass over the failing traces (failingTraceScan.ts): the lock pairs per trace, the candidates over the failing ones. */
export class LockedHoldReader implements FailingTraceReader {
  readonly active: boolean;
  private readonly held: Access;
  private readonly awaited: Access;
  /** the opposite order: the pattern's first access waits for the other role's first access (oppositeWaits) */
  private readonly other: number;
  private readonly oppositeHeld: Access;
  private readonly oppositeAwaited: Access;
  /** lock pairs (held thread's lock → other thread's lock) seen at an occurrence in the failing runs */
  private readonly candidates: Candidates = new Map();
  private readonly oppositeCandidates: Candidates = new Map();
  // per trace: thread → held locks (lock id, acquisition loc); lock → holding threads (count); lock pairs seen held at once
  private locks = new Map<number, HeldLock[]>();
  private holders = new Map<number, Map<number, number>>();
  private pairs = new Set<string>();
  private scan: PairScan;
  private oppositeScan: PairScan;

  constructor(p: Pick<ForcedPattern, 'accesses'>) {
    const at = p.accesses.findIndex((a, k) => k > 0 && a.thread !== p.accesses[k - 1].thread);
    this.active = at >= 0;
    // a pattern without a change of role (or without accesses) asks nothing: placeholders, never read
    const none = { thread: 1, type: 'R', variable: '', file: '', line: 0, method: '' } as Access;
    this.held = at > 0 ? p.accesses[at] : none;
    this.awaited = at > 0 ? p.accesses[at - 1] : none;
    this.other = p.accesses.findIndex((a) => a.thread !== p.accesses[0].thread);
    this.oppositeHeld = p.accesses[0] ?? none;
    this.oppositeAwaited = p.accesses[Math.max(this.other, 0)] ?? none;
    this.scan = new PairScan(this.held, this.awaited);
    this.oppositeScan = new PairScan(this.oppositeHeld, this.oppositeAwaited, true);
  }

  event(ev: TraceEvent, symbols: TraceSymbols): void {
    const { locks, holders, pairs } = this;
    if (ev.kind === EventKind.Acquire) {
      let mine = locks.get(ev.t);
      if (!mine) locks.set(ev.t, (mine = []));
      // another thread holding some lock now: those two locks were held at once
      for (const [lock, by] of holders) {
        for (const [t, n] of by) if (t !== ev.t && n > 0) pairs.add(`${ev.a}\0${lock}`).add(`${lock}\0${ev.a}`);
      }
      mine.push({ lock: ev.a, loc: ev.b, stack: ev.c });
      let by = holders.get(ev.a);
      if (!by) holders.set(ev.a, (by = new Map()));
      by.set(ev.t, (by.get(ev.t) ?? 0) + 1);
      return;
    }
    if (ev.kind === EventKind.Release) {
      const mine = locks.get(ev.t);
      if (mine) {
        for (let k = mine.length - 1; k >= 0; k--) {
          if (mine[k].lock === ev.a) {
            mine.splice(k, 1);
            break;
          }
        }
      }
      const by = holders.get(ev.a);
      if (by && (by.get(ev.t) ?? 0) > 0) by.set(ev.t, by.get(ev.t)! - 1);
      return;
    }
    if (ev.kind !== EventKind.Read && ev.kind !== EventKind.Write) return;
    const varName = symbols.vars.get(ev.a)?.name;
    const loc = symbols.locs.get(ev.b);
    this.scan.access(ev, varName, loc, locks, symbols);
    if (this.other > 0) this.oppositeScan.access(ev, varName, loc, locks, symbols);
  }

  endTrace(result: ReadTraceResult, failing: boolean): void {
    if (failing) {
      this.oppositeScan.finish();
      for (const [s, into] of [
        [this.scan, this.candidates],
        [this.oppositeScan, this.oppositeCandidates],
      ] as const) {
        for (const f of s.found) {
          if (this.pairs.has(`${f.lock}\0${f.other}`)) continue;
          // lock ids are per run: the pair is named by the held lock's acquisition place
          const loc = result.symbols.locs.get(f.loc);
          const key = loc ? `${loc.file}\0${loc.line}` : `?${f.loc}`;
          const c = into.get(key) ?? { occurrences: 0, inside: 0, lockLoc: loc };
          c.occurrences++;
          if (f.inside) c.inside++;
          into.set(key, c);
        }
      }
    }
    this.locks = new Map();
    this.holders = new Map();
    this.pairs = new Set();
    this.scan = new PairScan(this.held, this.awaited);
    this.oppositeScan = new PairScan(this.oppositeHeld, this.oppositeAwaited, true);
  }

  /** The locked hold the failing traces read show, if any (see lockedHold). */
  answer(): LockedHold | undefined {
    if (!this.active) return undefined;
    const { candidates, oppositeCandidates, held, awaited, oppositeHeld } = this;
    const b = best(candidates);
    if (!b) return undefined;
    const site = siteOf(b, held);
    const oppositeSite = siteOf(best(oppositeCandidates), oppositeHeld);
    const lockAt = b.lockLoc ? `${shortFile(b.lockLoc.file)}:${b.lockLoc.line}` : 'an unknown place';
    const heldAt = where(held);
    const awaitedAt = where(awaited);
    return {
      heldAt,
      lockAt,
      awaitedAt,
      occurrences: b.occurrences,
      ...(site ? { site } : {}),
      ...(oppositeSite ? { oppositeSite } : {}),
      reason:
        `the hold at ${heldAt} is inside the lock taken at ${lockAt}, and the other thread makes its access at ${awaitedAt} under a lock the traces never show held at the same time: ` +
        (site
          ? `held there, the thread would keep the other one from its access, so it is held before it takes that lock`
          : `held there, the thread keeps the other one from its access, so only an access made before the lock was taken meets the wait — and the place the lock is taken is not known, so the hold cannot be made before it`),
    };
  }
}
