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
 * Pairs are records in typed arrays (no object per pair; the int fields of
 * one record side by side), listed by id in buckets of BUCKET consecutive
 * first indices (an array per bucket, reused: no linked list to chase); a
 * bucket is counting-sorted (stable: equal first indices are the pairs of
 * one access, in emission order) once the watermark has passed it.
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

/** int32 fields per record in PairOrdering.rec: pair signature, thread slots, window, stacks (and padding to a power of two) */
export const REC = 8;
export const REC_SIG = 0;
export const REC_T1 = 1;
export const REC_T2 = 2;
export const REC_WIN = 3;
export const REC_STACK1 = 4;
export const REC_STACK2 = 5;

/** a bucket slot keeps its arrays up to this many records (larger ones are dropped when released) */
const KEEP_BUCKET = 1 << 14;

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

/** One bucket slot of the ring: the records of one bucket in arrival order, side by side (arrays reused by the next bucket of the slot). */
class Bucket {
  n = 0;
  first = new Float64Array(0);
  second = new Float64Array(0);
  rec = new Int32Array(0);
  value1: unknown[] = [];
  value2: unknown[] = [];

  /** Makes room for `m` records (keeps the contents). */
  reserve(m: number): void {
    if (m <= this.first.length) return;
    let c = this.first.length < 64 ? 64 : this.first.length * 2;
    while (c < m) c *= 2;
    const f = new Float64Array(c);
    f.set(this.first.subarray(0, this.n));
    this.first = f;
    const g = new Float64Array(c);
    g.set(this.second.subarray(0, this.n));
    this.second = g;
    const r = new Int32Array(c * REC);
    r.set(this.rec.subarray(0, this.n * REC));
    this.rec = r;
  }

  /** Empties the bucket; drops its arrays when they are much larger than a usual bucket. */
  clear(): void {
    this.n = 0;
    if (this.value1.length) {
      this.value1 = [];
      this.value2 = [];
    }
    if (this.first.length > KEEP_BUCKET) {
      this.first = new Float64Array(0);
      this.second = new Float64Array(0);
      this.rec = new Int32Array(0);
    }
  }
}

export class PairOrdering {
  /**
   * The record being released: the release callback reads record r of the
   * bucket being released as firstIdx[r], secondIdx[r], rec[r · REC + REC_SIG …],
   * value1[r], value2[r] (value arrays empty when the trace has no values).
   */
  firstIdx = new Float64Array(0);
  secondIdx = new Float64Array(0);
  rec = new Int32Array(0);
  value1: unknown[] = [];
  value2: unknown[] = [];
  /** bucket ring: bucket b is buckets[b & (ring − 1)] */
  private buckets: Bucket[] = Array.from({ length: 64 }, () => new Bucket());
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

  /** The bucket of first index `fi`, with room for one more record. */
  private bucketFor(fi: number): Bucket {
    const b = Math.floor(fi / BUCKET);
    if (b < this.nextBucket) throw new Error(`internal error: pair with first index ${fi} arrived after the watermark had passed it`);
    if (b - this.nextBucket >= this.buckets.length) this.growRing(b - this.nextBucket + 1);
    if (b > this.maxBucket) this.maxBucket = b;
    const bk = this.buckets[b & (this.buckets.length - 1)];
    if (bk.n === bk.first.length) bk.reserve(bk.n + 1);
    return bk;
  }

  /** Buffers the pair of slots `first`, `second` (of AccessWindows) of window `w`. */
  push(w: number, first: number, second: number, sig: number): void {
    const ws = this.windows;
    const fi = ws.slotIdx[first];
    const bk = this.bucketFor(fi);
    const r = bk.n++;
    bk.first[r] = fi;
    bk.second[r] = ws.slotIdx[second];
    const rec = bk.rec;
    const o = r * REC;
    rec[o + REC_SIG] = sig;
    rec[o + REC_T1] = ws.slotThread[first];
    rec[o + REC_T2] = ws.slotThread[second];
    rec[o + REC_WIN] = w;
    rec[o + REC_STACK1] = ws.slotStack[first];
    rec[o + REC_STACK2] = ws.slotStack[second];
    if (ws.hasValues) {
      bk.value1[r] = ws.slotValue[first];
      bk.value2[r] = ws.slotValue[second];
    }
    this.count++;
    if (++this.sinceDrain >= this.batch) this.drain();
  }

  private growRing(need: number): void {
    let n = this.buckets.length * 2;
    while (n < need) n *= 2;
    const buckets: Bucket[] = new Array(n);
    const old = this.buckets.length - 1;
    for (let b = this.nextBucket; b < this.nextBucket + this.buckets.length; b++) buckets[b & (n - 1)] = this.buckets[b & old];
    for (let k = 0; k < n; k++) buckets[k] ??= new Bucket();
    this.buckets = buckets;
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

  private sorted = new Int32Array(1024);
  private readonly counts = new Int32Array(BUCKET + 1);

  /** The records of bucket b in order of first index (stable), in this.sorted; returns their number. */
  private sortBucket(b: number): number {
    const bk = this.buckets[b & (this.buckets.length - 1)];
    const n = bk.n;
    if (this.sorted.length < n) this.sorted = new Int32Array(bk.first.length);
    const base = b * BUCKET;
    const c = this.counts;
    c.fill(0);
    const sorted = this.sorted;
    const first = bk.first;
    for (let j = 0; j < n; j++) c[((first[j] - base) | 0) + 1]++;
    for (let j = 1; j <= BUCKET; j++) c[j] += c[j - 1];
    for (let j = 0; j < n; j++) sorted[c[(first[j] - base) | 0]++] = j;
    return n;
  }

  /** bucket records in order of first index, copied for release (read one after the other, not at random in a cold bucket) */
  private sFirst = new Float64Array(1024);
  private sSecond = new Float64Array(1024);
  private sRec = new Int32Array(1024 * REC);
  private sValue1: unknown[] = [];
  private sValue2: unknown[] = [];

  /**
   * Copies bucket b's records in order of first index (stable counting sort,
   * as sortBucket) into the s* arrays; returns their number.
   */
  private copySorted(b: number): number {
    const bk = this.buckets[b & (this.buckets.length - 1)];
    const n = bk.n;
    if (this.sFirst.length < n) {
      let c = this.sFirst.length * 2;
      while (c < n) c *= 2;
      this.sFirst = new Float64Array(c);
      this.sSecond = new Float64Array(c);
      this.sRec = new Int32Array(c * REC);
    }
    const sFirst = this.sFirst;
    const sSecond = this.sSecond;
    const sRec = this.sRec;
    const first = bk.first;
    const second = bk.second;
    const rec = bk.rec;
    const base = b * BUCKET;
    const c = this.counts;
    c.fill(0);
    for (let r = 0; r < n; r++) c[((first[r] - base) | 0) + 1]++;
    for (let k = 1; k <= BUCKET; k++) c[k] += c[k - 1];
    // scatter: the (cold) bucket is read in order, the (recently used) copy is written at random
    for (let r = 0; r < n; r++) {
      const j = c[(first[r] - base) | 0]++;
      sFirst[j] = first[r];
      sSecond[j] = second[r];
      const o = r * REC;
      const q = j * REC;
      sRec[q] = rec[o];
      sRec[q + 1] = rec[o + 1];
      sRec[q + 2] = rec[o + 2];
      sRec[q + 3] = rec[o + 3];
      sRec[q + 4] = rec[o + 4];
      sRec[q + 5] = rec[o + 5];
    }
    if (bk.value1.length > 0 || bk.value2.length > 0) {
      // second pass over the same order for the values (rare: traces with values)
      c.fill(0);
      for (let r = 0; r < n; r++) c[((first[r] - base) | 0) + 1]++;
      for (let k = 1; k <= BUCKET; k++) c[k] += c[k - 1];
      const v1 = (this.sValue1 = new Array(n).fill(undefined));
      const v2 = (this.sValue2 = new Array(n).fill(undefined));
      for (let r = 0; r < n; r++) {
        const j = c[(first[r] - base) | 0]++;
        v1[j] = bk.value1[r];
        v2[j] = bk.value2[r];
      }
    } else if (this.sValue1.length > 0) {
      this.sValue1 = [];
      this.sValue2 = [];
    }
    return n;
  }

  /** Releases, in order, all buckets below `limit`. */
  private releaseBuckets(limit: number): void {
    // maxBucket covers the spilled pairs too
    const end = Math.min(limit, this.maxBucket + 1);
    for (let b = this.nextBucket; b < end; b++) {
      if (this.runs.length) this.readBack(b);
      const bk = this.buckets[b & (this.buckets.length - 1)];
      if (bk.n === 0) continue;
      const n = this.copySorted(b);
      // the callback reads the bucket's records through firstIdx, secondIdx, rec, value1, value2
      this.firstIdx = this.sFirst;
      this.secondIdx = this.sSecond;
      this.rec = this.sRec;
      this.value1 = this.sValue1;
      this.value2 = this.sValue2;
      for (let j = 0; j < n; j++) this.release(j);
      bk.clear();
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
    if (!this.runs.some((run) => run.peek() < limit)) return;
    const bk = this.buckets[b & (this.buckets.length - 1)];
    const kept = bk.n;
    // in-memory records move behind the read-back ones: copy them aside
    const keptFirst = bk.first.slice(0, kept);
    const keptSecond = bk.second.slice(0, kept);
    const keptRec = bk.rec.slice(0, kept * REC);
    const keptV1 = bk.value1.slice(0, kept);
    const keptV2 = bk.value2.slice(0, kept);
    bk.n = 0;
    bk.value1 = [];
    bk.value2 = [];
    for (const run of this.runs) {
      while (run.peek() < limit) {
        const o = run.pos * FIELDS;
        const d = run.buf;
        if (bk.n === bk.first.length) bk.reserve(bk.n + 1);
        const r = bk.n++;
        bk.first[r] = d[o];
        bk.second[r] = d[o + 1];
        const q = r * REC;
        bk.rec[q + REC_SIG] = d[o + 2];
        bk.rec[q + REC_T1] = d[o + 3];
        bk.rec[q + REC_T2] = d[o + 4];
        bk.rec[q + REC_WIN] = d[o + 5];
        bk.rec[q + REC_STACK1] = d[o + 6];
        bk.rec[q + REC_STACK2] = d[o + 7];
        if (d[o + 9] > 0) {
          const buf = Buffer.alloc(d[o + 9]);
          readSync(run.valueFd, buf, 0, buf.length, d[o + 8]);
          const [has1, v1, has2, v2] = JSON.parse(buf.toString('utf8')) as [number, unknown, number, unknown];
          bk.value1[r] = has1 ? v1 : undefined;
          bk.value2[r] = has2 ? v2 : undefined;
        }
        this.count++;
        run.next();
      }
    }
    for (let j = 0; j < kept; j++) {
      if (bk.n === bk.first.length) bk.reserve(bk.n + 1);
      const r = bk.n++;
      bk.first[r] = keptFirst[j];
      bk.second[r] = keptSecond[j];
      bk.rec.set(keptRec.subarray(j * REC, j * REC + REC), r * REC);
      if (keptV1.length || keptV2.length) {
        bk.value1[r] = keptV1[j];
        bk.value2[r] = keptV2[j];
      }
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
      const bk = this.buckets[b & (this.buckets.length - 1)];
      if (bk.n === 0) continue;
      const m = this.sortBucket(b);
      const values = bk.value1.length > 0 || bk.value2.length > 0;
      for (let j = 0; j < m; j++) {
        const r = this.sorted[j];
        const o = n * FIELDS;
        const q = r * REC;
        out[o] = bk.first[r];
        out[o + 1] = bk.second[r];
        out[o + 2] = bk.rec[q + REC_SIG];
        out[o + 3] = bk.rec[q + REC_T1];
        out[o + 4] = bk.rec[q + REC_T2];
        out[o + 5] = bk.rec[q + REC_WIN];
        out[o + 6] = bk.rec[q + REC_STACK1];
        out[o + 7] = bk.rec[q + REC_STACK2];
        out[o + 8] = valueOffset;
        out[o + 9] = 0;
        if (values && (bk.value1[r] !== undefined || bk.value2[r] !== undefined)) {
          const text = Buffer.from(JSON.stringify([bk.value1[r] === undefined ? 0 : 1, bk.value1[r] ?? null, bk.value2[r] === undefined ? 0 : 1, bk.value2[r] ?? null]), 'utf8');
          valueOffset += writeSync(valueFd, text, 0, text.length, valueOffset);
          out[o + 9] = text.length;
        }
        if (++n === CHUNK) flush();
        total++;
      }
      bk.clear();
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
