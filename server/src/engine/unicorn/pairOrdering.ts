/**
 * UNICORN Step 2, first half: "sort the pairs by the global index of their
 * first access" (Algorithm 2, line 13) — exactly, as a stream, in bounded
 * memory.
 *
 * A pair is emitted when its first access leaves its access window, so
 * pairs arrive roughly, not exactly, in order. Any pair still to come has
 * its first access in some window now, so every buffered pair whose first
 * index is below the smallest "oldest index" of all windows (the watermark)
 * is final and is released in sorted order. The watermark is kept in a lazy
 * min-heap of windows: a window's oldest index only grows, so stale keys are
 * fixed up when they reach the top.
 *
 * Pairs are records in typed arrays (no object per pair), linked into
 * buckets of BUCKET consecutive first indices; a bucket is counting-sorted
 * (stable: equal first indices are the pairs of one access, in emission
 * order) once the watermark has passed it.
 *
 * A location touched once early and then never again holds the watermark
 * back until the end of the run. When more than `maxBuffered` pairs are
 * buffered, they are written, sorted, to a temporary file (a sorted run);
 * releasing a bucket then also reads that bucket's pairs back from every
 * run. Memory stays bounded and the order stays exact.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessWindows } from './accessWindow';

/** Width (in global index units) of one reorder bucket. */
const BUCKET = 1024;
/** numbers per spilled record: first, second, sig, t1, t2, win, stack1, stack2, value offset, value length */
const FIELDS = 10;
/** records per spill read/write chunk */
const CHUNK = 4096;

/** One sorted run of pairs on disk. */
class SpillRun {
  readonly buf = new Float64Array(CHUNK * FIELDS);
  /** records in buf, and the next one */
  n = 0;
  pos = 0;
  /** records still on disk after buf, and where they start */
  left: number;
  offset = 0;

  constructor(
    readonly fd: number,
    readonly valueFd: number,
    count: number,
  ) {
    this.left = count;
    this.fill();
  }

  /** First index of the next record (Infinity when done). */
  peek(): number {
    return this.pos < this.n ? this.buf[this.pos * FIELDS] : Infinity;
  }

  next(): void {
    if (++this.pos >= this.n) this.fill();
  }

  private fill(): void {
    this.pos = 0;
    this.n = Math.min(CHUNK, this.left);
    if (this.n === 0) return;
    const bytes = this.n * FIELDS * 8;
    const b = Buffer.from(this.buf.buffer, 0, bytes);
    let got = 0;
    while (got < bytes) got += readSync(this.fd, b, got, bytes - got, this.offset + got);
    this.offset += bytes;
    this.left -= this.n;
  }
}

export class PairOrdering {
  /** records: first/second access index, pair signature, thread slots, window, stacks, values; `next` links a bucket */
  firstIdx = new Float64Array(1024);
  secondIdx = new Float64Array(1024);
  sig = new Int32Array(1024);
  t1 = new Int32Array(1024);
  t2 = new Int32Array(1024);
  win = new Int32Array(1024);
  stack1 = new Int32Array(1024);
  stack2 = new Int32Array(1024);
  value1: unknown[] = [];
  value2: unknown[] = [];
  private next = new Int32Array(1024);
  private free = -1;
  private used = 0;
  /** bucket ring: head/tail record of bucket b at b & (ring − 1) */
  private head = new Int32Array(64).fill(-1);
  private tail = new Int32Array(64).fill(-1);
  private nextBucket = 0;
  private maxBucket = -1;
  private count = 0;
  private sinceDrain = 0;
  /** watermark heap of windows, keyed by their oldest index */
  private heap = new Int32Array(64);
  private heapKey = new Float64Array(64);
  private heapSize = 0;
  private runs: SpillRun[] = [];
  private spillDir: string | undefined;
  /** pairs written to disk, and sorted runs (stats) */
  spilledPairs = 0;
  spillRuns = 0;

  constructor(
    private readonly windows: AccessWindows,
    private readonly release: (record: number) => void,
    private readonly batch = 4096,
    readonly maxBuffered = 1 << 20,
  ) {}

  /** Registers a new window for the watermark. */
  track(w: number): void {
    if (this.heapSize === this.heap.length) {
      const h = new Int32Array(this.heap.length * 2);
      h.set(this.heap);
      this.heap = h;
      const k = new Float64Array(this.heap.length);
      k.set(this.heapKey);
      this.heapKey = k;
    }
    let i = this.heapSize++;
    const key = this.windows.oldestIndex(w);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.heapKey[p] <= key) break;
      this.heap[i] = this.heap[p];
      this.heapKey[i] = this.heapKey[p];
      i = p;
    }
    this.heap[i] = w;
    this.heapKey[i] = key;
  }

  private alloc(): number {
    let r = this.free;
    if (r >= 0) {
      this.free = this.next[r];
      return r;
    }
    r = this.used++;
    if (r >= this.firstIdx.length) this.growRecords();
    return r;
  }

  private growRecords(): void {
    const n = this.firstIdx.length * 2;
    const f = (a: Float64Array) => {
      const g = new Float64Array(n);
      g.set(a);
      return g;
    };
    const i = (a: Int32Array) => {
      const g = new Int32Array(n);
      g.set(a);
      return g;
    };
    this.firstIdx = f(this.firstIdx);
    this.secondIdx = f(this.secondIdx);
    this.sig = i(this.sig);
    this.t1 = i(this.t1);
    this.t2 = i(this.t2);
    this.win = i(this.win);
    this.stack1 = i(this.stack1);
    this.stack2 = i(this.stack2);
    this.next = i(this.next);
  }

  /** Buffers the pair of slots `first`, `second` (of AccessWindows) of window `w`. */
  push(w: number, first: number, second: number, sig: number): void {
    const ws = this.windows;
    const r = this.alloc();
    const fi = ws.slotIdx[first];
    this.firstIdx[r] = fi;
    this.secondIdx[r] = ws.slotIdx[second];
    this.sig[r] = sig;
    this.t1[r] = ws.slotThread[first];
    this.t2[r] = ws.slotThread[second];
    this.win[r] = w;
    this.stack1[r] = ws.slotStack[first];
    this.stack2[r] = ws.slotStack[second];
    if (ws.hasValues) {
      this.value1[r] = ws.slotValue[first];
      this.value2[r] = ws.slotValue[second];
    }
    this.link(r, Math.floor(fi / BUCKET));
    this.count++;
    if (++this.sinceDrain >= this.batch) this.drain();
  }

  private link(r: number, b: number): void {
    if (b < this.nextBucket) throw new Error(`internal error: pair with first index ${this.firstIdx[r]} arrived after the watermark had passed it`);
    if (b - this.nextBucket >= this.head.length) this.growRing(b - this.nextBucket + 1);
    if (b > this.maxBucket) this.maxBucket = b;
    const k = b & (this.head.length - 1);
    this.next[r] = -1;
    if (this.head[k] < 0) this.head[k] = r;
    else this.next[this.tail[k]] = r;
    this.tail[k] = r;
  }

  private growRing(need: number): void {
    let n = this.head.length * 2;
    while (n < need) n *= 2;
    const head = new Int32Array(n).fill(-1);
    const tail = new Int32Array(n).fill(-1);
    const old = this.head.length - 1;
    for (let b = this.nextBucket; b <= this.maxBucket; b++) {
      head[b & (n - 1)] = this.head[b & old];
      tail[b & (n - 1)] = this.tail[b & old];
    }
    this.head = head;
    this.tail = tail;
  }

  /** Releases every bucket entirely below the current watermark; spills past the memory budget. */
  drain(): void {
    this.sinceDrain = 0;
    const wm = this.watermark();
    this.releaseBuckets(wm === Infinity ? Infinity : Math.floor(wm / BUCKET));
    if (this.count > this.maxBuffered) this.spill();
  }

  /** End of the run (all windows flushed): releases everything and removes the spill files. */
  finish(): void {
    this.releaseBuckets(Infinity);
    this.close();
  }

  /** Removes the spill files (also after an error). */
  close(): void {
    for (const r of this.runs) {
      closeSync(r.fd);
      closeSync(r.valueFd);
    }
    this.runs = [];
    if (this.spillDir) rmSync(this.spillDir, { recursive: true, force: true });
    this.spillDir = undefined;
  }

  get buffered(): number {
    return this.count;
  }

  private order = new Int32Array(1024);
  private sorted = new Int32Array(1024);
  private readonly counts = new Int32Array(BUCKET + 1);

  /** The records of bucket b in order of first index (stable); empties the bucket. Returns their number (in this.sorted). */
  private sortBucket(b: number): number {
    const k = b & (this.head.length - 1);
    let n = 0;
    for (let r = this.head[k]; r >= 0; r = this.next[r]) {
      if (n === this.order.length) {
        const g = new Int32Array(n * 2);
        g.set(this.order);
        this.order = g;
        this.sorted = new Int32Array(n * 2);
      }
      this.order[n++] = r;
    }
    this.head[k] = -1;
    this.tail[k] = -1;
    if (this.sorted.length < this.order.length) this.sorted = new Int32Array(this.order.length);
    const base = b * BUCKET;
    const c = this.counts;
    c.fill(0);
    const order = this.order;
    const sorted = this.sorted;
    const first = this.firstIdx;
    for (let j = 0; j < n; j++) c[((first[order[j]] - base) | 0) + 1]++;
    for (let j = 1; j <= BUCKET; j++) c[j] += c[j - 1];
    for (let j = 0; j < n; j++) {
      const r = order[j];
      sorted[c[(first[r] - base) | 0]++] = r;
    }
    return n;
  }

  /** Releases, in order, all buckets below `limit`. */
  private releaseBuckets(limit: number): void {
    // maxBucket covers the spilled pairs too
    const end = Math.min(limit, this.maxBucket + 1);
    for (let b = this.nextBucket; b < end; b++) {
      if (this.runs.length) this.readBack(b);
      if (this.head[b & (this.head.length - 1)] < 0) continue;
      const n = this.sortBucket(b);
      // release in order; records freed after their release (the callback reads them)
      const sorted = this.sorted;
      const values = this.value1.length > 0;
      for (let j = 0; j < n; j++) {
        const r = sorted[j];
        this.release(r);
        if (values) {
          this.value1[r] = undefined;
          this.value2[r] = undefined;
        }
      }
      // free the records (the release callback has read them)
      const next = this.next;
      for (let j = 0; j < n; j++) {
        const r = sorted[j];
        next[r] = this.free;
        this.free = r;
      }
      this.count -= n;
    }
    if (end > this.nextBucket) this.nextBucket = end;
  }

  /**
   * Moves bucket b's records from the spill runs back into memory, ahead of
   * the bucket's records still in memory: runs were written earlier (in run
   * order), and the pairs of one access may be split by a spill between a run
   * and memory, so this keeps emission order for equal first indices.
   */
  private readBack(b: number): void {
    const limit = (b + 1) * BUCKET;
    let chainHead = -1;
    let chainTail = -1;
    for (const run of this.runs) {
      while (run.peek() < limit) {
        const o = run.pos * FIELDS;
        const d = run.buf;
        const r = this.alloc();
        this.firstIdx[r] = d[o];
        this.secondIdx[r] = d[o + 1];
        this.sig[r] = d[o + 2];
        this.t1[r] = d[o + 3];
        this.t2[r] = d[o + 4];
        this.win[r] = d[o + 5];
        this.stack1[r] = d[o + 6];
        this.stack2[r] = d[o + 7];
        if (d[o + 9] > 0) {
          const buf = Buffer.alloc(d[o + 9]);
          readSync(run.valueFd, buf, 0, buf.length, d[o + 8]);
          const [has1, v1, has2, v2] = JSON.parse(buf.toString('utf8')) as [number, unknown, number, unknown];
          this.value1[r] = has1 ? v1 : undefined;
          this.value2[r] = has2 ? v2 : undefined;
        }
        this.next[r] = -1;
        if (chainHead < 0) chainHead = r;
        else this.next[chainTail] = r;
        chainTail = r;
        this.count++;
        run.next();
      }
    }
    if (chainHead >= 0) {
      const k = b & (this.head.length - 1);
      this.next[chainTail] = this.head[k];
      if (this.head[k] < 0) this.tail[k] = chainTail;
      this.head[k] = chainHead;
    }
    this.runs = this.runs.filter((run) => {
      if (run.peek() !== Infinity) return true;
      closeSync(run.fd);
      closeSync(run.valueFd);
      return false;
    });
  }

  /** Writes every buffered pair, in order, to a new sorted run on disk. */
  private spill(): void {
    this.spillDir ??= mkdtempSync(path.join(os.tmpdir(), 'braid-pairs-'));
    const file = path.join(this.spillDir, `run${this.spillRuns++}`);
    const fd = openSync(file, 'w+');
    const valueFd = openSync(file + '.values', 'w+');
    const out = new Float64Array(CHUNK * FIELDS);
    let n = 0;
    let total = 0;
    let valueOffset = 0;
    let fileOffset = 0;
    const flush = () => {
      const bytes = n * FIELDS * 8;
      fileOffset += writeSync(fd, Buffer.from(out.buffer, 0, bytes), 0, bytes, fileOffset);
      n = 0;
    };
    for (let b = this.nextBucket; b <= this.maxBucket; b++) {
      if (this.head[b & (this.head.length - 1)] < 0) continue;
      const m = this.sortBucket(b);
      for (let j = 0; j < m; j++) {
        const r = this.sorted[j];
        const o = n * FIELDS;
        out[o] = this.firstIdx[r];
        out[o + 1] = this.secondIdx[r];
        out[o + 2] = this.sig[r];
        out[o + 3] = this.t1[r];
        out[o + 4] = this.t2[r];
        out[o + 5] = this.win[r];
        out[o + 6] = this.stack1[r];
        out[o + 7] = this.stack2[r];
        out[o + 8] = valueOffset;
        out[o + 9] = 0;
        if (this.value1.length && (this.value1[r] !== undefined || this.value2[r] !== undefined)) {
          const text = Buffer.from(JSON.stringify([this.value1[r] === undefined ? 0 : 1, this.value1[r] ?? null, this.value2[r] === undefined ? 0 : 1, this.value2[r] ?? null]), 'utf8');
          valueOffset += writeSync(valueFd, text, 0, text.length, valueOffset);
          out[o + 9] = text.length;
          this.value1[r] = undefined;
          this.value2[r] = undefined;
        }
        this.next[r] = this.free;
        this.free = r;
        if (++n === CHUNK) flush();
        total++;
      }
    }
    if (n) flush();
    this.count = 0;
    this.spilledPairs += total;
    this.runs.push(new SpillRun(fd, valueFd, total));
  }

  private watermark(): number {
    const ws = this.windows;
    while (this.heapSize) {
      const top = this.heap[0];
      const actual = ws.oldestIndex(top);
      if (actual === this.heapKey[0]) return actual;
      this.heapKey[0] = actual;
      this.siftDown();
    }
    return Infinity;
  }

  private siftDown(): void {
    const h = this.heap;
    const key = this.heapKey;
    const n = this.heapSize;
    const w = h[0];
    const wk = key[0];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && key[r] < key[l] ? r : l;
      if (key[c] >= wk) break;
      h[i] = h[c];
      key[i] = key[c];
      i = c;
    }
    h[i] = w;
    key[i] = wk;
  }
}
