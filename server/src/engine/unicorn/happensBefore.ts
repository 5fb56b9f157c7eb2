/**
 * The happens-before filter (a deliberate deviation from the thesis,
 * docs/algorithms.md "Happens-before filter"): vector clocks over the
 * synchronisation that orders two accesses in *every* schedule — thread
 * start and join, and the hand-off tokens SND → RCV (executor task
 * hand-off and completion, latch count-down → await, barrier arrival →
 * release). Monitors, locks, volatiles and atomics are deliberately left
 * out: their order depends on the schedule, and atomicity violations are
 * made of accesses that such synchronisation orders in one run only.
 *
 * A pair (a, b), a earlier in the trace, is *ordered* when a happens before
 * b: a's own clock component is ≤ the component for a's thread in b's
 * vector clock. Such a pair can never be reordered, so UNICORN drops it.
 *
 * Cost: clocks change only at the (rare) synchronisation events, and each
 * change makes a new Int32Array (copy on write), so that an access keeps a
 * reference to its thread's clock at no cost: nothing is allocated per
 * access. Threads get dense slots; a clock is as long as the number of
 * threads known when it was made.
 */
import { EventKind, TraceEvent } from '../trace/traceFormat';

/** The happens-before stamp an access carries. */
export interface HbStamp {
  /** dense slot of the access's thread; -1 when the filter is off */
  hbSlot: number;
  /** the thread's own clock component at the access */
  hbClock: number;
  /** the thread's vector clock at the access (shared, never mutated) */
  hbVc: Int32Array | null;
}

/** Above this many threads in one run the clocks would cost too much memory: the filter stops for that run. */
export const MAX_HB_THREADS = 8192;

const EMPTY = new Int32Array(0);

export class HappensBefore {
  private readonly slots = new Map<number, number>();
  private clocks: Int32Array[] = [];
  private readonly tokens = new Map<number, Int32Array>();
  /** false once the run has more threads than MAX_HB_THREADS */
  enabled = true;
  /** sync events applied */
  syncEvents = 0;

  private lastThread = -1;
  private lastSlot = -1;

  /** Dense slot of thread `t` (created with clock 1 on first sight). */
  slot(t: number): number {
    if (t === this.lastThread) return this.lastSlot;
    let s = this.slots.get(t);
    if (s === undefined) {
      s = this.clocks.length;
      this.slots.set(t, s);
      const vc = new Int32Array(s + 1);
      vc[s] = 1;
      this.clocks.push(vc);
      if (this.clocks.length > MAX_HB_THREADS) this.disable();
    }
    this.lastThread = t;
    this.lastSlot = s;
    return s;
  }

  /** Current vector clock of slot `s`; never mutated afterwards. */
  clock(s: number): Int32Array {
    return this.clocks[s];
  }

  /** Stamps an access of thread `t` (no allocation once the thread is known). */
  stamp(t: number, into: HbStamp): void {
    if (!this.enabled) {
      into.hbSlot = -1;
      into.hbVc = null;
      return;
    }
    const s = this.slot(t);
    if (!this.enabled) {
      into.hbSlot = -1;
      into.hbVc = null;
      return;
    }
    const vc = this.clocks[s];
    into.hbSlot = s;
    into.hbClock = vc[s];
    into.hbVc = vc;
  }

  /** Applies START, JOIN, SND and RCV; other events are ignored. */
  onEvent(ev: TraceEvent): void {
    if (!this.enabled) return;
    switch (ev.kind) {
      case EventKind.Start: {
        const p = this.slot(ev.t);
        const c = this.slot(ev.a);
        if (!this.enabled) return;
        this.syncEvents++;
        const child = join(this.clocks[c], this.clocks[p]);
        child[c] = Math.max(child[c], 1);
        this.clocks[c] = child;
        this.clocks[p] = tick(this.clocks[p], p);
        return;
      }
      case EventKind.Join: {
        const p = this.slot(ev.t);
        const c = this.slot(ev.a);
        if (!this.enabled) return;
        this.syncEvents++;
        this.clocks[p] = join(this.clocks[p], this.clocks[c]);
        // the child's later accesses (none, normally) are not ordered before what follows
        this.clocks[c] = tick(this.clocks[c], c);
        return;
      }
      case EventKind.Send: {
        const t = this.slot(ev.t);
        if (!this.enabled) return;
        this.syncEvents++;
        this.tokens.set(ev.a, join(this.tokens.get(ev.a) ?? EMPTY, this.clocks[t]));
        this.clocks[t] = tick(this.clocks[t], t);
        return;
      }
      case EventKind.Receive: {
        const t = this.slot(ev.t);
        if (!this.enabled) return;
        const token = this.tokens.get(ev.a);
        this.syncEvents++;
        if (token) this.clocks[t] = join(this.clocks[t], token);
        return;
      }
      default:
        return;
    }
  }

  private disable(): void {
    this.enabled = false;
    this.clocks = [];
    this.tokens.clear();
  }
}

/** True when access `a` (earlier in the trace) happens before access `b`. */
export function orderedBefore(a: Partial<HbStamp>, b: Partial<HbStamp>): boolean {
  const vc = b.hbVc;
  if (!vc || !a.hbVc) return false;
  const s = a.hbSlot!;
  return s < vc.length && a.hbClock! <= vc[s];
}

/** A new clock: the component-wise maximum of x and y. */
function join(x: Int32Array, y: Int32Array): Int32Array {
  const n = Math.max(x.length, y.length);
  const r = new Int32Array(n);
  r.set(x);
  for (let k = 0; k < y.length; k++) if (y[k] > r[k]) r[k] = y[k];
  return r;
}

/** A new clock: x with its own component `s` incremented. */
function tick(x: Int32Array, s: number): Int32Array {
  const r = new Int32Array(Math.max(x.length, s + 1));
  r.set(x);
  r[s]++;
  return r;
}
