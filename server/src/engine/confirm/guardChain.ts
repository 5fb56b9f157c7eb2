/**
 * A check the held thread's access depends on (issue 40, pool2-returnclose): forcing holds the
 * pattern's second thread before its access until the other thread has made the access before it. The
 * failure may also need a check that thread made EARLIER, on another variable, to have seen the state
 * before the other thread changed it: commons-pool2's returner reads `closed` (`isClosed()`), then adds
 * its object to the idle deque; the closer writes `closed = true`, then clears the deque. The pattern is
 * the deque's unlink then link (`R1 first → W2 first`); forced alone, the returner that reads `closed`
 * after the close never reaches the link, and the run is unforced.
 *
 * Read from the recording's FAILING traces (failingTraceScan.ts), per trace, at the last instance before
 * the failure of the pattern's first change of role — thread H makes the held access (`accesses[at]`)
 * after thread O made the awaited one (`accesses[at - 1]`, on the same object when both are of one
 * variable): each variable v the pattern does not have whose latest read by H (made since H's previous
 * performance of the held access: the same round of H's work) comes before O's latest write of v (on the
 * same object), which itself comes before O's awaited access. The guard is the (v, read place, write
 * place) found so in more than half of the failing traces that have an instance (the most such traces;
 * ties: the read made latest in the last such trace, then by name). The plans then also hold O's write
 * of v until H has made that read after O arrived (`fresh`, `optional`): forcingPlan.ts guardWait.
 *
 * The other way round, a PUBLICATION (micrometer-composite, issue 40): the other thread reaches its
 * awaited access only through what the held thread published earlier. Micrometer's getOrCreateMeter
 * publishes the new composite counter in `meterMap` (`:576`) before its meter-added listener writes the
 * counter's `children` (`:76`, the held write); the other thread's lock-free lookup (`:550`) must find it
 * there to increment it and read `children` (`:47`, the awaited read). Held alone at `:76`, the writer
 * kept the registry's lock while the other thread, which had looked up before the publication, waited for
 * that lock: 0 of 5 forced runs met. So the same reading also takes each variable v whose latest WRITE
 * by H (since H's previous performance of the held access) comes before O's latest read of v (same
 * object), which comes before O's awaited access (`kind: 'publication'`); the plans then hold O's read of
 * v until H has written it after O arrived (`fresh`, `optional`).
 *
 * Reading allocates per thread, variable and object, and per matching access, not per event.
 */
import type { TraceSymbols } from '../trace/traceSymbols';
import { FailingAccessReader, firstChangeOfRole, isPerformanceOf } from './failingTraceScan';
import { EventKind } from '../trace/traceFormat';
import type { TraceEvent } from '../trace/traceFormat';
import type { ForcedPattern, GuardChain } from './forcingPlan';
import { type Chain, chainOf, pickCallers } from './instanceCallers';

/** A guard of an instance: the guard, the seq of its read, and the other thread's access of it (place, stack node). */
interface Found {
  guard: GuardChain;
  read: number;
  otherLoc: number;
  otherNode: number;
}

type Access = ForcedPattern['accesses'][number];


/** The latest access of one kind by one thread to one variable of one object: updated in place. */
interface Latest {
  seq: number;
  loc: number;
  /** its stack node */
  node: number;
}

/** per thread → variable id → object → latest */
type ByThread = Map<number, Map<number, Map<number, Latest>>>;

function note(m: ByThread, t: number, v: number, obj: number, seq: number, loc: number, node: number): void {
  let vars = m.get(t);
  if (!vars) m.set(t, (vars = new Map()));
  let objs = vars.get(v);
  if (!objs) vars.set(v, (objs = new Map()));
  const l = objs.get(obj);
  if (l) {
    l.seq = seq;
    l.loc = loc;
    l.node = node;
  } else objs.set(obj, { seq, loc, node });
}

/** What the failing runs show of a guard: the guard, and in how many failing traces with an instance. */
export interface GuardChainFound {
  guard: GuardChain;
  /** failing traces whose instance had this guard, of those with an instance */
  withGuard: number;
  withInstance: number;
  failingRead: number;
}

/** The guard's share of a pass over the failing traces (failingTraceScan.ts). */
export class GuardChainReader extends FailingAccessReader {
  private readonly before: Access;
  private readonly after: Access;
  private readonly sameVariable: boolean;
  private readonly patternVars: Set<string>;
  /**
   * per guard key: failing traces that had it, the guard, the seq of its read in the last of them (ties),
   * and for the other thread's access of the guard (its write of a check, its read of a publication) the
   * callers it had at the instance and those of every performance of its place (instanceCallers.ts)
   */
  private readonly counts = new Map<string, { n: number; guard: GuardChain; rank: number; instances: Chain[]; performances: { chain: Chain; n: number }[] }>();
  private withInstance = 0;
  // per trace
  private seq = 0;
  private reads: ByThread = new Map();
  private writes: ByThread = new Map();
  /** per object (0 when the two accesses are of different variables): thread → seq of its latest `before` */
  private latestBefore = new Map<number, Map<number, number>>();
  /** per thread: seq of its latest `after` */
  private lastAfter = new Map<number, number>();
  /** the guards of the trace's latest instance (keys → guard, the seq of its read, the other thread's access: place and stack) */
  private instance: Map<string, Found> | undefined;
  /** per place (loc id) of a non-pattern access: stack node → performances (the guard's callers are picked among them) */
  private placeNodes = new Map<number, Map<number, number>>();
  private symbols: TraceSymbols | undefined;

  constructor(p: Pick<ForcedPattern, 'accesses'>) {
    super();
    const at = firstChangeOfRole(p);
    this.active = at.at > 0;
    ({ before: this.before, after: this.after, sameVariable: this.sameVariable } = at);
    this.patternVars = new Set(p.accesses.map((a) => a.variable));
  }

  protected access(ev: TraceEvent, symbols: TraceSymbols): void {
    const seq = ++this.seq;
    const varName = symbols.vars.get(ev.a)?.name;
    const loc = symbols.locs.get(ev.b);
    const isAfter = isPerformanceOf(this.after, ev.kind, varName, loc);
    const isBefore = isPerformanceOf(this.before, ev.kind, varName, loc);
    if (isAfter) {
      const by = this.latestBefore.get(this.sameVariable ? ev.d : 0);
      let other = -1;
      let otherSeq = -1;
      if (by) for (const [t, s] of by) if (t !== ev.t && s > otherSeq) (other = t), (otherSeq = s);
      if (other >= 0) this.instanceAt(ev.t, other, otherSeq, symbols);
      this.lastAfter.set(ev.t, seq);
    }
    if (isBefore) {
      const obj = this.sameVariable ? ev.d : 0;
      let by = this.latestBefore.get(obj);
      if (!by) this.latestBefore.set(obj, (by = new Map()));
      by.set(ev.t, seq);
    }
    if (varName === undefined || this.patternVars.has(varName)) return;
    note(ev.kind === EventKind.Read ? this.reads : this.writes, ev.t, ev.a, ev.d, seq, ev.b, ev.c);
    let nodes = this.placeNodes.get(ev.b);
    if (!nodes) this.placeNodes.set(ev.b, (nodes = new Map()));
    nodes.set(ev.c, (nodes.get(ev.c) ?? 0) + 1);
    this.symbols = symbols;
  }

  /** An instance: `held` makes the held access after `other`'s awaited access at `otherSeq`. */
  private instanceAt(held: number, other: number, otherSeq: number, symbols: TraceSymbols): void {
    const found = new Map<string, Found>();
    const since = this.lastAfter.get(held) ?? 0;
    const heldReads = this.reads.get(held);
    const otherWrites = this.writes.get(other);
    if (heldReads && otherWrites) {
      for (const [v, objs] of heldReads) {
        const ws = otherWrites.get(v);
        if (!ws) continue;
        for (const [obj, r] of objs) {
          const w = ws.get(obj);
          if (!w || r.seq <= since || !(r.seq < w.seq && w.seq < otherSeq)) continue;
          this.found(found, this.guardOf(v, r.loc, w.loc, symbols), r.seq, w);
        }
      }
    }
    // a publication: H wrote v (this round), then O read it, then O made the awaited access
    const heldWrites = this.writes.get(held);
    const otherReads = this.reads.get(other);
    if (heldWrites && otherReads) {
      for (const [v, objs] of heldWrites) {
        const rs = otherReads.get(v);
        if (!rs) continue;
        for (const [obj, w] of objs) {
          const r = rs.get(obj);
          if (!r || w.seq <= since || !(w.seq < r.seq && r.seq < otherSeq)) continue;
          const g = this.guardOf(v, r.loc, w.loc, symbols);
          this.found(found, g ? { ...g, kind: 'publication' } : undefined, w.seq, r);
        }
      }
    }
    this.instance = found;
  }

  /** `other`: the other thread's access of the guard (its write of a check, its read of a publication) */
  private found(found: Map<string, Found>, guard: GuardChain | undefined, seq: number, other: Latest): void {
    if (!guard) return;
    const key = `${guard.kind ?? 'check'}\0${guard.variable}\0${guard.read.file}\0${guard.read.line}\0${guard.read.method}\0${guard.write.file}\0${guard.write.line}\0${guard.write.method}`;
    const had = found.get(key);
    if (!had || had.read < seq) found.set(key, { guard, read: seq, otherLoc: other.loc, otherNode: other.node });
  }

  private guardOf(v: number, readLoc: number, writeLoc: number, symbols: TraceSymbols): GuardChain | undefined {
    const name = symbols.vars.get(v)?.name;
    const r = symbols.locs.get(readLoc);
    const w = symbols.locs.get(writeLoc);
    if (!name || !r || !w) return undefined;
    return {
      variable: name,
      read: { file: r.file, line: r.line, method: r.method, ...(r.call ? { call: r.call } : {}) },
      write: { file: w.file, line: w.line, method: w.method, ...(w.call ? { call: w.call } : {}) },
    };
  }

  protected failingTrace(): void {
    if (!this.instance) return;
    this.withInstance++;
    const chains = new Map<number, Chain | undefined>();
    const chain = (node: number) => {
      if (!chains.has(node)) chains.set(node, this.symbols ? chainOf(node, this.symbols) : undefined);
      return chains.get(node);
    };
    for (const [key, { guard, read, otherLoc, otherNode }] of this.instance) {
      let c = this.counts.get(key);
      if (c) {
        c.n++;
        c.rank = read;
      } else this.counts.set(key, (c = { n: 1, guard, rank: read, instances: [], performances: [] }));
      const own = chain(otherNode);
      if (own) c.instances.push(own);
      for (const [node, n] of this.placeNodes.get(otherLoc) ?? []) {
        const at = chain(node);
        if (at) c.performances.push({ chain: at, n });
      }
    }
  }

  protected resetTrace(): void {
    this.seq = 0;
    this.reads = new Map();
    this.writes = new Map();
    this.latestBefore = new Map();
    this.lastAfter = new Map();
    this.instance = undefined;
    this.placeNodes = new Map();
    this.symbols = undefined;
  }

  /** The guard found in more than half of the failing traces with an instance (see the file comment), or undefined. */
  answer(): GuardChainFound | undefined {
    if (!this.allJava || !this.withInstance) return undefined;
    let best: { n: number; guard: GuardChain; rank: number; key: string; instances: Chain[]; performances: { chain: Chain; n: number }[] } | undefined;
    for (const [key, c] of this.counts) {
      if (!best || c.n > best.n || (c.n === best.n && (c.rank > best.rank || (c.rank === best.rank && key < best.key)))) best = { ...c, key };
    }
    if (!best || best.n * 2 <= this.withInstance) return undefined;
    // the other thread's access of the guard only from the call sites its instance had (a publication's
    // lookup made again, nested, for another registry — micrometer-composite's listener)
    const callers = best.instances.length * 2 > best.n ? pickCallers(best.instances, best.performances) : undefined;
    const guard = callers ? { ...best.guard, callers: callers.sites } : best.guard;
    return { guard, withGuard: best.n, withInstance: this.withInstance, failingRead: this.failingRead };
  }
}
