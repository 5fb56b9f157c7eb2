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
 * Holding before the enclosing lock acquisition is what would force it (not built: the agent holds
 * before accesses only).
 *
 * Read from the recording's traces: per thread the locks it holds (ACQ/REL), per lock the threads
 * holding it. Two locks exclude each other when the traces never show them held by two threads at
 * once (the same lock always does). Reading allocates per lock and per matching access, not per event.
 */
import { readTrace } from '../trace/traceReader';
import { EventKind } from '../trace/traceFormat';
import type { LocDef } from '../trace/traceFormat';
import { type ForcedPattern, traceLocation } from './forcingPlan';

export interface LockedHold {
  /** the held access, `File.java:166` */
  heldAt: string;
  /** where the held thread took the lock it holds there, `File.java:88` */
  lockAt: string;
  /** the awaited access, `File.java:96` */
  awaitedAt: string;
  /** occurrences of the held access under such a lock in the failing runs read */
  occurrences: number;
  /** one sentence: why the forced runs say nothing */
  reason: string;
}

type Access = ForcedPattern['accesses'][number];

/** `p` with its locked hold (lockedHold) when the traces show one, else `p` itself; a trace that cannot be read leaves `p` as it is. */
export async function withLockedHold<P extends ForcedPattern>(p: P, traceFiles: readonly string[]): Promise<P & Pick<ForcedPattern, 'lockedHold'>> {
  if (p.lockedHold || !traceFiles.length) return p;
  try {
    const h = await lockedHold(p, traceFiles);
    return h ? { ...p, lockedHold: { reason: h.reason } } : p;
  } catch {
    return p;
  }
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

/**
 * The first wait of the pattern's own order (the first change of thread role: the thread of access
 * `at` waits for the other thread's access `at - 1`), when in the failing runs its access is made
 * under a lock that excludes a lock the other thread holds at the awaited access; undefined otherwise
 * (no lock at the held access, or none the other access needs, or no failing run read).
 */
export async function lockedHold(p: Pick<ForcedPattern, 'accesses'>, traceFiles: readonly string[], maxFiles = 40): Promise<LockedHold | undefined> {
  const at = p.accesses.findIndex((a, k) => k > 0 && a.thread !== p.accesses[k - 1].thread);
  if (at < 0) return undefined;
  const held = p.accesses[at];
  const awaited = p.accesses[at - 1];
  // lock pairs (held thread's lock → other thread's lock) seen at an occurrence, and lock pairs seen held at once
  const candidates = new Map<string, { occurrences: number; lockLoc: LocDef | undefined }>();
  let failingRead = 0;
  for (const file of traceFiles) {
    if (failingRead >= maxFiles) break;
    // per trace: thread → held locks (lock id, acquisition loc); lock → holding threads (count)
    const locks = new Map<number, { lock: number; loc: number }[]>();
    const holders = new Map<number, Map<number, number>>();
    /** the other thread's latest awaited access per object: its thread and the locks it held */
    const lastAwaited = new Map<number, { t: number; locks: number[] }>();
    let latestAwaited: { t: number; locks: number[] } | undefined;
    const found: { lock: number; loc: number; other: number }[] = [];
    const pairs = new Set<string>();
    const result = await readTrace(file, {
      event(ev, symbols) {
        if (ev.kind === EventKind.Acquire) {
          let mine = locks.get(ev.t);
          if (!mine) locks.set(ev.t, (mine = []));
          // another thread holding some lock now: those two locks were held at once
          for (const [lock, by] of holders) {
            for (const [t, n] of by) if (t !== ev.t && n > 0) pairs.add(`${ev.a}\0${lock}`).add(`${lock}\0${ev.a}`);
          }
          mine.push({ lock: ev.a, loc: ev.b });
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
        if (matches(awaited, ev.kind, varName, loc)) {
          latestAwaited = { t: ev.t, locks: (locks.get(ev.t) ?? []).map((l) => l.lock) };
          lastAwaited.set(ev.d, latestAwaited);
        }
        if (matches(held, ev.kind, varName, loc)) {
          const mine = locks.get(ev.t);
          const other = held.variable === awaited.variable ? lastAwaited.get(ev.d) : latestAwaited;
          if (!mine?.length || !other || other.t === ev.t || !other.locks.length) return;
          for (const l of mine) for (const o of other.locks) found.push({ lock: l.lock, loc: l.loc, other: o });
        }
      },
    });
    if (!result.ok || result.outcome !== 'fail') continue;
    failingRead++;
    for (const f of found) {
      if (pairs.has(`${f.lock}\0${f.other}`)) continue;
      // lock ids are per run: the pair is named by the held lock's acquisition place
      const loc = result.symbols.locs.get(f.loc);
      const key = loc ? `${loc.file}\0${loc.line}` : `?${f.loc}`;
      const c = candidates.get(key) ?? { occurrences: 0, lockLoc: loc };
      c.occurrences++;
      candidates.set(key, c);
    }
  }
  let best: { occurrences: number; lockLoc: LocDef | undefined } | undefined;
  for (const c of candidates.values()) if (!best || c.occurrences > best.occurrences) best = c;
  if (!best) return undefined;
  const lockAt = best.lockLoc ? `${shortFile(best.lockLoc.file)}:${best.lockLoc.line}` : 'an unknown place';
  const heldAt = where(held);
  const awaitedAt = where(awaited);
  return {
    heldAt,
    lockAt,
    awaitedAt,
    occurrences: best.occurrences,
    reason:
      `the hold at ${heldAt} is inside the lock taken at ${lockAt}, and the other thread makes its access at ${awaitedAt} under a lock the traces never show held at the same time: ` +
      `held there, the thread keeps the other one from its access, so only an access made before the lock was taken meets the wait — forcing this order needs the hold before that lock is taken (not built)`,
  };
}
