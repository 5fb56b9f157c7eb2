/**
 * A hash map from non-negative integer keys (below 2^53) to non-negative int32
 * ids, in two typed arrays with linear probing: no object per entry, no
 * allocation per lookup. The hot path of UNICORN uses it to intern pair
 * signatures and to memoize pattern combinations of signature tuples.
 */
const EMPTY = -1;

export class NumberIdMap {
  private keys: Float64Array;
  private vals: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1024) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.keys = new Float64Array(n).fill(EMPTY);
    this.vals = new Int32Array(n);
    this.mask = n - 1;
  }

  private slot(key: number): number {
    // mix the high and low 32 bits
    const lo = key >>> 0;
    const hi = (key / 4294967296) >>> 0;
    let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h & this.mask;
  }

  /** The id of `key`, or -1. */
  get(key: number): number {
    const keys = this.keys;
    const mask = this.mask;
    for (let i = this.slot(key); ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === key) return this.vals[i];
      if (k === EMPTY) return -1;
    }
  }

  set(key: number, id: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const mask = this.mask;
    for (let i = this.slot(key); ; i = (i + 1) & mask) {
      const k = keys[i];
      if (k === key) {
        this.vals[i] = id;
        return;
      }
      if (k === EMPTY) {
        keys[i] = key;
        this.vals[i] = id;
        this.size++;
        return;
      }
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldVals = this.vals;
    const n = oldKeys.length * 2;
    this.keys = new Float64Array(n).fill(EMPTY);
    this.vals = new Int32Array(n);
    this.mask = n - 1;
    // re-insert directly: keys are distinct, and the new table has room for all
    const keys = this.keys;
    const vals = this.vals;
    const mask = this.mask;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i];
      if (k === EMPTY) continue;
      let j = this.slot(k);
      while (keys[j] !== EMPTY) j = (j + 1) & mask;
      keys[j] = k;
      vals[j] = oldVals[i];
    }
  }
}

/** A growable int32 column. */
export class IntColumn {
  data: Int32Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Int32Array(capacity);
  }
  push(v: number): number {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length] = v;
    return this.length++;
  }
  /** Makes room for `n` entries (keeps the contents). */
  reserve(n: number): void {
    if (n <= this.data.length) return;
    let c = this.data.length * 2;
    while (c < n) c *= 2;
    const d = new Int32Array(c);
    d.set(this.data.subarray(0, this.length));
    this.data = d;
  }
}
