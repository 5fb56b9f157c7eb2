/**
 * The set of pattern ids found in one run: the list of ids, and their
 * positions in a dense int32 array for the first 2^16 ids and in an
 * open-addressing hash table of int32 (id + 1, position) beyond, cheaper than
 * a Set on the hot path (every pair adds its pattern) and sized by the run's
 * own patterns, not by the registry's largest id (with many distinct patterns
 * in a workspace, a map per run over all ids would cost megabytes per run).
 * It also keeps, per pattern, the earliest end (global index of the last
 * access) of its occurrences, which tells whether the pattern occurred
 * before the run's failure point (cause vs consequence).
 */
/** ids below this are found through a dense array (at most 256 KiB per run), larger ones through the hash table */
const DENSE_IDS = 1 << 16;

export class PatternSet {
  /** ids below DENSE_IDS: position in ids + 1 (0 absent), indexed by id, grown to the largest such id seen */
  private dense = new Int32Array(1024);
  /** larger ids: slots of two int32, id + 1 (0 empty) and position in ids */
  private table = new Int32Array(2 * 256);
  private hashed = 0;
  /** 32 − log2(slots): Fibonacci hashing keeps the top bits */
  private shift = 32 - 8;
  /** slot mask in int32 units (2 · slots − 1, even positions) */
  private mask = 2 * 256 - 1;
  /** earliest end per position in ids */
  private ends = new Float64Array(256);
  /** occurrences per position in ids (how many times the pair window found the pattern in this run) */
  private counts = new Int32Array(256);
  /** per position in ids: the occurrences whose first thread started after the other (ranking/startOrderEvidence.ts) */
  private over = new Int32Array(256);
  /** the ids in first-found order (positions 0 … count − 1) */
  private list = new Int32Array(256);
  private count = 0;
  private idArray: number[] | undefined;

  /** The ids in the order they were first found (built on demand, kept until the next new id). */
  get ids(): number[] {
    if (this.idArray === undefined) {
      const out = new Array<number>(this.count);
      for (let i = 0; i < this.count; i++) out[i] = this.list[i];
      this.idArray = out;
    }
    return this.idArray;
  }

  /** Adds pattern `id` occurring up to global index `end` (-1: unknown, counts as early); returns its position (for overtaken). */
  add(id: number, end = -1): number {
    // fast path, small enough to be inlined in the pair window's loop: a pattern of the first DENSE_IDS already found in this run
    if (id < this.dense.length) {
      const p = this.dense[id] - 1;
      if (p >= 0) {
        if (end < this.ends[p]) this.ends[p] = end;
        this.counts[p]++;
        return p;
      }
    }
    return this.addSlow(id, end);
  }

  /**
   * The occurrence just added at position `p` (add's result) was made by a first thread that started
   * after the other one (the thread started later got there first).
   */
  overtaken(p: number): void {
    this.over[p]++;
  }

  private addSlow(id: number, end: number): number {
    if (id < DENSE_IDS) {
      if (id >= this.dense.length) {
        let n = this.dense.length;
        while (n <= id) n *= 2;
        const d = new Int32Array(n);
        d.set(this.dense);
        this.dense = d;
      }
      const p = this.dense[id] - 1;
      if (p >= 0) {
        if (end < this.ends[p]) this.ends[p] = end;
        this.counts[p]++;
        return p;
      }
      const q = this.push(id, end);
      this.dense[id] = q + 1;
      return q;
    }
    const t = this.table;
    const key = id + 1;
    for (let i = (Math.imul(key, 0x9e3779b1) >>> this.shift) << 1; ; i = (i + 2) & this.mask) {
      const k = t[i];
      if (k === key) {
        const p = t[i + 1];
        if (end < this.ends[p]) this.ends[p] = end;
        this.counts[p]++;
        return p;
      }
      if (k === 0) return this.addNew(i, key, end);
    }
  }

  /** Appends a new id; returns its position. */
  private push(id: number, end: number): number {
    const p = this.count++;
    if (p >= this.ends.length) {
      const e = new Float64Array(this.ends.length * 2);
      e.set(this.ends);
      this.ends = e;
      const l = new Int32Array(this.list.length * 2);
      l.set(this.list);
      this.list = l;
      const c = new Int32Array(this.counts.length * 2);
      c.set(this.counts);
      this.counts = c;
      const o = new Int32Array(this.over.length * 2);
      o.set(this.over);
      this.over = o;
    }
    this.list[p] = id;
    this.idArray = undefined;
    this.ends[p] = end;
    this.counts[p] = 1;
    this.over[p] = 0;
    return p;
  }

  private addNew(i: number, key: number, end: number): number {
    const p = this.push(key - 1, end);
    this.table[i] = key;
    this.table[i + 1] = p;
    this.hashed++;
    // load ≤ 1/2
    if (this.hashed * 4 > this.table.length) this.grow();
    return p;
  }

  private grow(): void {
    const old = this.table;
    const t = (this.table = new Int32Array(old.length * 2));
    this.shift--;
    this.mask = t.length - 1;
    for (let j = 0; j < old.length; j += 2) {
      const key = old[j];
      if (key === 0) continue;
      let i = (Math.imul(key, 0x9e3779b1) >>> this.shift) << 1;
      while (t[i] !== 0) i = (i + 2) & this.mask;
      t[i] = key;
      t[i + 1] = old[j + 1];
    }
  }

  /** Position of `id` in ids, or -1. */
  private position(id: number): number {
    if (id < DENSE_IDS) return id < this.dense.length ? this.dense[id] - 1 : -1;
    const t = this.table;
    const key = id + 1;
    for (let i = (Math.imul(key, 0x9e3779b1) >>> this.shift) << 1; ; i = (i + 2) & this.mask) {
      const k = t[i];
      if (k === key) return t[i + 1];
      if (k === 0) return -1;
    }
  }

  /** The earliest end of pattern `id`'s occurrences (-1 unknown). */
  earliestEnd(id: number): number {
    const p = id >= 0 ? this.position(id) : -1;
    return p < 0 ? -1 : this.ends[p];
  }

  /** How many of pattern `id`'s occurrences in this run were made by a first thread that started after the other (overtaken). */
  overtakings(id: number): number {
    const p = id >= 0 ? this.position(id) : -1;
    return p < 0 ? 0 : this.over[p];
  }

  /** How many times pattern `id` occurred in this run (0: never). */
  occurrences(id: number): number {
    const p = id >= 0 ? this.position(id) : -1;
    return p < 0 ? 0 : this.counts[p];
  }

  /** The ids in increasing order (a new array): an LSD radix sort on 11-bit digits (a run can find tens of thousands of patterns). */
  sortedIds(): number[] {
    const n = this.count;
    if (n < 256) return this.ids.slice().sort((a, b) => a - b);
    let a = this.list.slice(0, n);
    let b = new Int32Array(n);
    let max = 0;
    for (let i = 0; i < n; i++) if (a[i] > max) max = a[i];
    const count = new Int32Array(2048);
    for (let shift = 0; shift < 32 && (shift === 0 || max >>> shift > 0); shift += 11) {
      count.fill(0);
      for (let i = 0; i < n; i++) count[(a[i] >>> shift) & 2047]++;
      let sum = 0;
      for (let d = 0; d < 2048; d++) {
        const c = count[d];
        count[d] = sum;
        sum += c;
      }
      for (let i = 0; i < n; i++) b[count[(a[i] >>> shift) & 2047]++] = a[i];
      const t = a;
      a = b;
      b = t;
    }
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = a[i];
    return out;
  }

  get size(): number {
    return this.count;
  }
}
