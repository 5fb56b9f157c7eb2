/**
 * The set of pattern ids found in one run: an open-addressing hash table of
 * int32 (id + 1, position) plus the list of ids, cheaper than a Set on the
 * hot path (every pair adds its pattern) and sized by the run's own patterns,
 * not by the registry's largest id (with many distinct patterns in a
 * workspace, a byte map per run over all ids costs megabytes per run).
 * It also keeps, per pattern, the earliest end (global index of the last
 * access) of its occurrences, which tells whether the pattern occurred
 * before the run's failure point (cause vs consequence).
 */
export class PatternSet {
  /** slots of two int32: id + 1 (0 empty), position in ids */
  private table = new Int32Array(2 * 256);
  /** 32 − log2(slots): Fibonacci hashing keeps the top bits */
  private shift = 32 - 8;
  /** slot mask in int32 units (2 · slots − 1, even positions) */
  private mask = 2 * 256 - 1;
  /** earliest end per position in ids */
  private ends = new Float64Array(256);
  readonly ids: number[] = [];

  /** Adds pattern `id` occurring up to global index `end` (-1: unknown, counts as early). */
  add(id: number, end = -1): void {
    const t = this.table;
    const key = id + 1;
    for (let i = (Math.imul(key, 0x9e3779b1) >>> this.shift) << 1; ; i = (i + 2) & this.mask) {
      const k = t[i];
      if (k === key) {
        const p = t[i + 1];
        if (end < this.ends[p]) this.ends[p] = end;
        return;
      }
      if (k === 0) {
        this.addNew(i, key, end);
        return;
      }
    }
  }

  private addNew(i: number, key: number, end: number): void {
    const p = this.ids.length;
    this.ids.push(key - 1);
    if (p >= this.ends.length) {
      const e = new Float64Array(this.ends.length * 2);
      e.set(this.ends);
      this.ends = e;
    }
    this.ends[p] = end;
    this.table[i] = key;
    this.table[i + 1] = p;
    // load ≤ 1/2
    if ((p + 1) * 4 > this.table.length) this.grow();
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

  /** The ids in increasing order (a new array). */
  sortedIds(): number[] {
    return Array.from(Int32Array.from(this.ids).sort());
  }

  get size(): number {
    return this.ids.length;
  }
}
