/**
 * The registry's memo of pattern combinations, (p1, p2, relation) → answer,
 * beyond the dense table of the first signatures: one small open-addressing
 * table per p2 (keys p1 · 8 + relation + 1, int32), all rows in one pool of
 * int32 slot pairs. The pair window looks up many p1 for one p2 (the new
 * pair), so those lookups stay in one row, a few cache lines, instead of
 * missing the cache on every lookup of one big table.
 */

/** p1 below this fits a row key (p1 · 8 + 7 + 1 < 2^31) */
export const ROW_P1_LIMIT = 2 ** 27;

const FIRST_SLOTS = 8;

export class CombinationMemo {
  /** slot pairs: key (0 empty), value */
  private pool = new Int32Array(1 << 16);
  private used = 0;
  /** per p2: offset of its row in pool (int32 units), slots − 1 (-1: no row), entries */
  private rowOff = new Int32Array(1024);
  private rowMask = new Int32Array(1024).fill(-1);
  private rowSize = new Int32Array(1024);
  size = 0;

  /** The value stored for (p2, key), 0 when none (callers store values ≥ 1). */
  get(p2: number, key: number): number {
    if (p2 >= this.rowMask.length) return 0;
    const mask = this.rowMask[p2];
    if (mask < 0) return 0;
    const pool = this.pool;
    const off = this.rowOff[p2];
    let h = Math.imul(key, 0x9e3779b1);
    h ^= h >>> 16;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const i = off + 2 * s;
      const k = pool[i];
      if (k === key) return pool[i + 1];
      if (k === 0) return 0;
    }
  }

  /** Stores value `v` (≥ 1) for (p2, key); key ≥ 1, a new key. */
  set(p2: number, key: number, v: number): void {
    if (p2 >= this.rowMask.length) this.growRows(p2 + 1);
    if (this.rowMask[p2] < 0) this.newRow(p2, FIRST_SLOTS);
    else if ((this.rowSize[p2] + 1) * 2 > this.rowMask[p2] + 1) this.newRow(p2, (this.rowMask[p2] + 1) * 2);
    this.place(p2, key, v);
    this.rowSize[p2]++;
    this.size++;
  }

  private place(p2: number, key: number, v: number): void {
    const pool = this.pool;
    const mask = this.rowMask[p2];
    const off = this.rowOff[p2];
    let h = Math.imul(key, 0x9e3779b1);
    h ^= h >>> 16;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const i = off + 2 * s;
      const k = pool[i];
      if (k === 0 || k === key) {
        pool[i] = key;
        pool[i + 1] = v;
        return;
      }
    }
  }

  /** Moves row p2 (if any) to a new, larger region of `slots` slots at the end of the pool. */
  private newRow(p2: number, slots: number): void {
    if (this.used + 2 * slots > this.pool.length) this.compact(2 * slots);
    const oldMask = this.rowMask[p2];
    const oldOff = this.rowOff[p2];
    this.rowOff[p2] = this.used;
    this.rowMask[p2] = slots - 1;
    this.used += 2 * slots;
    if (oldMask < 0) return;
    const pool = this.pool;
    for (let s = 0; s <= oldMask; s++) {
      const i = oldOff + 2 * s;
      if (pool[i] !== 0) this.place(p2, pool[i], pool[i + 1]);
      pool[i] = 0;
    }
  }

  /** A new pool with the live rows packed, and room for `extra` more int32. */
  private compact(extra: number): void {
    let live = 0;
    for (let p = 0; p < this.rowMask.length; p++) if (this.rowMask[p] >= 0) live += 2 * (this.rowMask[p] + 1);
    let n = this.pool.length;
    while (n < 2 * (live + extra)) n *= 2;
    const pool = new Int32Array(n);
    let used = 0;
    for (let p = 0; p < this.rowMask.length; p++) {
      if (this.rowMask[p] < 0) continue;
      const len = 2 * (this.rowMask[p] + 1);
      pool.set(this.pool.subarray(this.rowOff[p], this.rowOff[p] + len), used);
      this.rowOff[p] = used;
      used += len;
    }
    this.pool = pool;
    this.used = used;
  }

  private growRows(need: number): void {
    let n = this.rowMask.length * 2;
    while (n < need) n *= 2;
    const off = new Int32Array(n);
    off.set(this.rowOff);
    this.rowOff = off;
    const mask = new Int32Array(n).fill(-1);
    mask.set(this.rowMask);
    this.rowMask = mask;
    const size = new Int32Array(n);
    size.set(this.rowSize);
    this.rowSize = size;
  }
}
