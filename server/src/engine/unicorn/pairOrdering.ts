/**
 * UNICORN Step 2, first half: "sort the pairs by the global index of their
 * first access" (Algorithm 2, line 13) — done as a stream so that memory
 * does not grow with the trace.
 *
 * A pair is emitted when its first access leaves its access window, so
 * pairs arrive roughly, not exactly, in order. Any pair still to come has
 * its first access in some window now, so every buffered pair whose first
 * index is below the smallest "oldest index" of all windows (the watermark)
 * is final and can be released in sorted order. The watermark is kept in a
 * lazy min-heap of windows: a window's oldest index only grows, so stale
 * keys are fixed up when they reach the top.
 *
 * If a location is touched once and then never again, the watermark stays
 * low and the buffer grows; past `maxBuffered` pairs the oldest are released
 * anyway and later stragglers are counted in `lateArrivals` (they are then
 * combined with the pairs around the current position, an approximation the
 * analysis reports as a warning).
 */
import { AccessWindow, WindowAccess } from './accessWindow';

export interface OrderedPair {
  first: WindowAccess;
  second: WindowAccess;
  /** pair signature id (PatternRegistry.internPair) */
  sig: number;
  /** emission order, to keep the sort stable */
  seq: number;
}

export class PairOrdering {
  private buffer: OrderedPair[] = [];
  private readonly heap: AccessWindow[] = [];
  private seq = 0;
  private lastReleased = -1;
  lateArrivals = 0;

  constructor(
    private readonly release: (p: OrderedPair) => void,
    private readonly batch = 8192,
    private readonly maxBuffered = 1 << 21,
  ) {}

  /** Registers a new window for the watermark. */
  track(w: AccessWindow): void {
    w.heapKey = w.oldestIndex();
    w.heapPos = this.heap.length;
    this.heap.push(w);
    this.siftUp(w.heapPos);
  }

  push(first: WindowAccess, second: WindowAccess, sig: number): void {
    if (first.idx < this.lastReleased) this.lateArrivals++;
    this.buffer.push({ first, second, sig, seq: this.seq++ });
    if (this.buffer.length >= this.batch) this.drain();
  }

  /** Releases every pair below the current watermark. */
  drain(): void {
    const wm = this.watermark();
    this.releaseBelow(wm);
    if (this.buffer.length > this.maxBuffered) {
      // cap memory: release the oldest half regardless of the watermark
      this.sortBuffer();
      const half = this.buffer.length >> 1;
      const out = this.buffer.slice(0, half);
      this.buffer = this.buffer.slice(half);
      for (const p of out) this.emit(p);
    }
  }

  /** End of the run (all windows flushed): releases everything. */
  finish(): void {
    this.releaseBelow(Infinity);
  }

  private releaseBelow(wm: number): void {
    if (!this.buffer.length) return;
    this.sortBuffer();
    const b = this.buffer;
    let k = 0;
    while (k < b.length && b[k].first.idx < wm) this.emit(b[k++]);
    this.buffer = k === b.length ? [] : b.slice(k);
  }

  private emit(p: OrderedPair): void {
    if (p.first.idx > this.lastReleased) this.lastReleased = p.first.idx;
    this.release(p);
  }

  private sortBuffer(): void {
    this.buffer.sort((x, y) => x.first.idx - y.first.idx || x.seq - y.seq);
  }

  private watermark(): number {
    const h = this.heap;
    while (h.length) {
      const top = h[0];
      const actual = top.oldestIndex();
      if (actual === top.heapKey) return actual;
      top.heapKey = actual;
      this.siftDown(0);
    }
    return Infinity;
  }

  private siftUp(i: number): void {
    const h = this.heap;
    const w = h[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].heapKey <= w.heapKey) break;
      h[i] = h[p];
      h[i].heapPos = i;
      i = p;
    }
    h[i] = w;
    w.heapPos = i;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    const w = h[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r].heapKey < h[l].heapKey ? r : l;
      if (h[c].heapKey >= w.heapKey) break;
      h[i] = h[c];
      h[i].heapPos = i;
      i = c;
    }
    h[i] = w;
    w.heapPos = i;
  }
}
