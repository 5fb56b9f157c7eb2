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
 * Buffered pairs sit in buckets of BUCKET consecutive indices; a bucket is
 * sorted and released once the watermark has passed it, so each pair is
 * sorted once, in a small, nearly sorted array.
 *
 * If a location is touched once and then never again, the watermark stays
 * low and the buffer grows; past `maxBuffered` pairs the oldest buckets are
 * released anyway and later stragglers are counted in `lateArrivals` (they
 * are then combined with the pairs around the current position, an
 * approximation the analysis reports as a warning).
 */
import { AccessWindow, WindowAccess } from './accessWindow';

export interface OrderedPair {
  first: WindowAccess;
  second: WindowAccess;
  /** pair signature id (PatternRegistry.internPair) */
  sig: number;
  /** emission order, to keep the sort stable */
  seq: number;
  /** the last combination made with this pair in the pair window (sig·256 + code), to skip repeats */
  lastCombination: number;
}

/** Width (in global index units) of one reorder bucket. */
const BUCKET = 1024;

export class PairOrdering {
  /** buffered pairs by bucket = floor(first.idx / BUCKET), each unsorted */
  private readonly buckets = new Map<number, OrderedPair[]>();
  /** lowest bucket that may still hold pairs */
  private nextBucket = 0;
  private maxBucket = -1;
  private count = 0;
  private sinceDrain = 0;
  private readonly heap: AccessWindow[] = [];
  private seq = 0;
  private lastReleased = -1;
  lateArrivals = 0;

  constructor(
    private readonly release: (p: OrderedPair) => void,
    private readonly batch = 4096,
    private readonly maxBuffered = 1 << 20,
  ) {}

  /** Registers a new window for the watermark. */
  track(w: AccessWindow): void {
    w.heapKey = w.oldestIndex();
    w.heapPos = this.heap.length;
    this.heap.push(w);
    this.siftUpWindow(w.heapPos);
  }

  push(first: WindowAccess, second: WindowAccess, sig: number): void {
    const p: OrderedPair = { first, second, sig, seq: this.seq++, lastCombination: -1 };
    const b = Math.floor(first.idx / BUCKET);
    if (b < this.nextBucket) {
      // its bucket was released already: the pair is late (see above)
      this.lateArrivals++;
      this.emit(p);
      return;
    }
    let arr = this.buckets.get(b);
    if (!arr) this.buckets.set(b, (arr = []));
    arr.push(p);
    if (b > this.maxBucket) this.maxBucket = b;
    this.count++;
    if (++this.sinceDrain >= this.batch) this.drain();
  }

  /** Releases every bucket entirely below the current watermark. */
  drain(): void {
    this.sinceDrain = 0;
    const wm = this.watermark();
    this.releaseBuckets(wm === Infinity ? Infinity : Math.floor(wm / BUCKET));
    // cap memory: release the oldest buckets regardless of the watermark
    while (this.count > this.maxBuffered) this.releaseBuckets(this.nextBucket + 1);
  }

  /** End of the run (all windows flushed): releases everything. */
  finish(): void {
    this.releaseBuckets(Infinity);
  }

  get buffered(): number {
    return this.count;
  }

  /** Releases, in order, all buckets below `limit`. */
  private releaseBuckets(limit: number): void {
    const end = Math.min(limit, this.maxBucket + 1);
    for (let b = this.nextBucket; b < end; b++) {
      const arr = this.buckets.get(b);
      if (!arr) continue;
      this.buckets.delete(b);
      this.count -= arr.length;
      const sorted = arr.length > 1 ? this.countingSort(arr, b * BUCKET) : arr;
      for (let k = 0; k < sorted.length; k++) this.emit(sorted[k]);
    }
    if (end > this.nextBucket) this.nextBucket = end;
  }

  private readonly counts = new Int32Array(BUCKET + 1);
  private scratch: OrderedPair[] = [];

  /**
   * Stable counting sort of one bucket by first index (pairs were pushed in
   * seq order, so equal indices keep their emission order).
   */
  private countingSort(arr: OrderedPair[], base: number): OrderedPair[] {
    const c = this.counts;
    c.fill(0);
    for (let k = 0; k < arr.length; k++) c[arr[k].first.idx - base + 1]++;
    for (let k = 1; k <= BUCKET; k++) c[k] += c[k - 1];
    const out = this.scratch.length >= arr.length ? this.scratch : (this.scratch = new Array(arr.length));
    for (let k = 0; k < arr.length; k++) {
      const p = arr[k];
      out[c[p.first.idx - base]++] = p;
    }
    // hand back a copy-free view: copy into arr (reused by the caller only for emitting)
    for (let k = 0; k < arr.length; k++) arr[k] = out[k];
    return arr;
  }

  private emit(p: OrderedPair): void {
    if (p.first.idx > this.lastReleased) this.lastReleased = p.first.idx;
    this.release(p);
  }

  private watermark(): number {
    const h = this.heap;
    while (h.length) {
      const top = h[0];
      const actual = top.oldestIndex();
      if (actual === top.heapKey) return actual;
      top.heapKey = actual;
      this.siftDownWindow(0);
    }
    return Infinity;
  }

  private siftUpWindow(i: number): void {
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

  private siftDownWindow(i: number): void {
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


