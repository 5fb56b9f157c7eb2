/**
 * UNICORN Step 1: the access window of one shared-memory location
 * (thesis §4.2.1, Figure 6(a)). Fixed number of slots, oldest first.
 *
 * - A new access from the thread of the latest slot replaces it, except that
 *   a read never replaces a write of the same thread (writes are preferred:
 *   every pattern needs one).
 * - An access from another thread goes into a new slot; when the window is
 *   full, the pairs of the oldest access are emitted and it is dropped.
 * - A pair is the oldest access with each later access of another thread,
 *   at least one of the two being a write (P1–P3).
 */
import type { AccessRef } from './patternRegistry';
import type { HbStamp } from './happensBefore';

/** An access in a window; the happens-before stamp is set when the filter is on (UnicornCollector). */
export interface WindowAccess extends AccessRef, Partial<HbStamp> {
  /** the window (dynamic location) the access belongs to */
  win: AccessWindow;
}

export interface MemoryAccessPair {
  first: WindowAccess;
  second: WindowAccess;
}

export type PairSink = (first: WindowAccess, second: WindowAccess) => void;

export class AccessWindow {
  /** accesses, oldest first */
  readonly slots: WindowAccess[] = [];
  /** key of this window in the watermark heap (see PairOrdering) */
  heapKey = 0;
  heapPos = -1;

  constructor(readonly capacity: number) {}

  /** Adds `a` (whose `win` is this window). */
  add(a: WindowAccess, sink: PairSink): void {
    const s = this.slots;
    const n = s.length;
    if (n > 0) {
      const last = s[n - 1];
      if (last.thread === a.thread) {
        if (last.write && !a.write) return; // keep the write
        s[n - 1] = a;
        return;
      }
      if (n >= this.capacity) {
        this.emitOldest(sink);
        s.shift();
      }
    }
    s.push(a);
  }

  /** Index of the oldest access still in the window (Infinity when empty). */
  oldestIndex(): number {
    return this.slots.length ? this.slots[0].idx : Infinity;
  }

  /** Emits the pairs of every access, oldest first, and empties the window. */
  flush(sink: PairSink): void {
    while (this.slots.length) {
      this.emitOldest(sink);
      this.slots.shift();
    }
  }

  private emitOldest(sink: PairSink): void {
    const s = this.slots;
    const o = s[0];
    for (let k = 1; k < s.length; k++) {
      const b = s[k];
      if (b.thread !== o.thread && (o.write || b.write)) sink(o, b);
    }
  }
}
