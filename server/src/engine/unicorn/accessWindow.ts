/**
 * UNICORN Step 1: the access windows of one run, one per shared-memory
 * location (thesis §4.2.1, Figure 6(a)), all in one pool of typed arrays:
 * window w owns slots w·S … w·S + S − 1 (S: the capacity C rounded up to a
 * power of two) used as a ring of at most C accesses (oldest first from
 * `head`). Nothing is allocated per access.
 *
 * - A new access from the thread of the latest slot replaces it, except that
 *   a read never replaces a write of the same thread (writes are preferred:
 *   every pattern needs one).
 * - `adjacent` writes (AnalysisOptions.windowWrites, Braid's default; `latest`
 *   is the thesis): when a write replaces a write of the same thread, the
 *   slot keeps the run's first write too (its shadow slot, S slots further).
 *   A pair whose later access is the slot's pairs with that first write — the
 *   write right after the other thread's access, the act of a check-then-act
 *   (`entries[key] = computing`) — and a pair whose earlier access is the
 *   slot's keeps its latest write, the one the other thread then sees. The
 *   thesis keeps only the latest, so a thread that writes a location twice in a
 *   row (sets an entry, then finishes it) hides its first write from every pair.
 * - An access from another thread goes into a new slot; when the window is
 *   full, the pairs of the oldest access are emitted and it is dropped.
 * - A pair is the oldest access with each later access of another thread,
 *   at least one of the two being a write (P1–P3).
 *
 * The sink receives the window and the two slots (pool indices); it reads
 * what it needs (slotIdx, slotThread, …) before the call returns. Window w
 * owns 2·S pool slots: its ring, then the rings' shadows.
 */

export type PairSink = (win: number, first: number, second: number) => void;

/** Fields of one access, handed to AccessWindows.add (one reusable object per collector). */
export interface AccessInput {
  idx: number;
  /** dense thread slot of the run */
  thread: number;
  write: boolean;
  sacc: number;
  stack: number;
  value: unknown;
  /** happens-before: the thread's slot in the clocks, its own clock component, and its vector clock (null: filter off) */
  hbSlot: number;
  hbClock: number;
  hbVc: Int32Array | null;
}

export class AccessWindows {
  readonly capacity: number;
  /** keep a run's first write beside its latest (windowWrites 'adjacent'); false: the thesis */
  readonly adjacentWrites: boolean;
  /** slots per window (a power of two ≥ capacity), its log2 and mask */
  private readonly stride: number;
  private readonly shift: number;
  private readonly mask: number;
  /** windows */
  count = 0;
  private head = new Int32Array(64);
  private len = new Int32Array(64);
  /** slots (window · capacity + k) */
  slotIdx: Float64Array;
  slotThread: Int32Array;
  slotSacc: Int32Array;
  slotStack: Int32Array;
  slotWrite: Uint8Array;
  /** 1: the slot's shadow (slot + stride) holds the run's first write */
  private slotFirst: Uint8Array;
  slotHbClock: Int32Array;
  slotHbSlot: Int32Array;
  /** values and vector clocks: plain arrays, filled only when the trace has values / the filter is on */
  slotValue: unknown[] = [];
  slotHbVc: (Int32Array | null)[] = [];
  hasValues = false;
  hasHb = false;

  constructor(capacity: number, adjacentWrites = false) {
    this.capacity = capacity;
    this.adjacentWrites = adjacentWrites;
    let shift = 0;
    while (1 << shift < capacity) shift++;
    this.shift = shift;
    this.stride = 1 << shift;
    this.mask = this.stride - 1;
    const n = 64 * 2 * this.stride;
    this.slotIdx = new Float64Array(n);
    this.slotThread = new Int32Array(n);
    this.slotSacc = new Int32Array(n);
    this.slotStack = new Int32Array(n);
    this.slotWrite = new Uint8Array(n);
    this.slotFirst = new Uint8Array(n);
    this.slotHbClock = new Int32Array(n);
    this.slotHbSlot = new Int32Array(n);
  }

  /** A new, empty window. */
  create(): number {
    const w = this.count++;
    if (w >= this.head.length) this.grow();
    this.head[w] = 0;
    this.len[w] = 0;
    return w;
  }

  private grow(): void {
    const n = this.head.length * 2;
    const i32 = (a: Int32Array, size: number) => {
      const g = new Int32Array(size);
      g.set(a);
      return g;
    };
    this.head = i32(this.head, n);
    this.len = i32(this.len, n);
    const s = n * 2 * this.stride;
    const f = new Float64Array(s);
    f.set(this.slotIdx);
    this.slotIdx = f;
    this.slotThread = i32(this.slotThread, s);
    this.slotSacc = i32(this.slotSacc, s);
    this.slotStack = i32(this.slotStack, s);
    this.slotHbClock = i32(this.slotHbClock, s);
    this.slotHbSlot = i32(this.slotHbSlot, s);
    const u = new Uint8Array(s);
    u.set(this.slotWrite);
    this.slotWrite = u;
    const fw = new Uint8Array(s);
    fw.set(this.slotFirst);
    this.slotFirst = fw;
  }

  /** Number of accesses in window w. */
  size(w: number): number {
    return this.len[w];
  }

  /** Pool index of the k-th oldest slot of window w. */
  slot(w: number, k: number): number {
    return (w << (this.shift + 1)) + ((this.head[w] + k) & this.mask);
  }

  /** Index of the oldest access still in window w (Infinity when empty). */
  oldestIndex(w: number): number {
    return this.len[w] ? this.slotIdx[(w << (this.shift + 1)) + this.head[w]] : Infinity;
  }

  /** Adds access `a` to window w (the update policy above). */
  add(w: number, a: AccessInput, sink: PairSink): void {
    const base = w << (this.shift + 1);
    const m = this.mask;
    const n = this.len[w];
    let s: number;
    if (n > 0) {
      const last = base + ((this.head[w] + n - 1) & m);
      if (this.slotThread[last] === a.thread) {
        if (this.slotWrite[last] === 1) {
          if (!a.write) return; // keep the write
          if (this.adjacentWrites && this.slotFirst[last] === 0) {
            this.copy(last, last + this.stride); // the run's first write
            this.slotFirst[last] = 1;
          }
        }
        this.write(last, a);
        return;
      }
      if (n >= this.capacity) {
        this.emitOldest(w, sink);
        this.head[w] = (this.head[w] + 1) & m;
        s = base + ((this.head[w] + n - 1) & m);
      } else {
        s = base + ((this.head[w] + n) & m);
        this.len[w] = n + 1;
      }
    } else {
      s = base + this.head[w];
      this.len[w] = 1;
    }
    this.slotFirst[s] = 0;
    this.write(s, a);
  }

  /** Copies slot `from` to slot `to` (a run's first write into its shadow). */
  private copy(from: number, to: number): void {
    this.slotIdx[to] = this.slotIdx[from];
    this.slotThread[to] = this.slotThread[from];
    this.slotSacc[to] = this.slotSacc[from];
    this.slotStack[to] = this.slotStack[from];
    this.slotWrite[to] = this.slotWrite[from];
    if (this.hasValues) this.slotValue[to] = this.slotValue[from];
    if (this.hasHb) {
      this.slotHbClock[to] = this.slotHbClock[from];
      this.slotHbSlot[to] = this.slotHbSlot[from];
      this.slotHbVc[to] = this.slotHbVc[from];
    }
  }

  private write(s: number, a: AccessInput): void {
    this.slotIdx[s] = a.idx;
    this.slotThread[s] = a.thread;
    this.slotSacc[s] = a.sacc;
    this.slotStack[s] = a.stack;
    this.slotWrite[s] = a.write ? 1 : 0;
    if (a.value !== undefined || this.hasValues) {
      this.hasValues = true;
      this.slotValue[s] = a.value;
    }
    if (a.hbVc !== null || this.hasHb) {
      this.hasHb = true;
      this.slotHbClock[s] = a.hbClock;
      this.slotHbSlot[s] = a.hbSlot;
      this.slotHbVc[s] = a.hbVc;
    }
  }

  /** Emits the pairs of every access of window w, oldest first, and empties it. */
  flush(w: number, sink: PairSink): void {
    while (this.len[w] > 0) {
      this.emitOldest(w, sink);
      this.head[w] = (this.head[w] + 1) & this.mask;
      this.len[w]--;
    }
  }

  private emitOldest(w: number, sink: PairSink): void {
    const base = w << (this.shift + 1);
    const m = this.mask;
    const h = this.head[w];
    const n = this.len[w];
    const o = base + h;
    const ot = this.slotThread[o];
    const ow = this.slotWrite[o];
    for (let k = 1; k < n; k++) {
      const b = base + ((h + k) & m);
      if (this.slotThread[b] !== ot && (ow === 1 || this.slotWrite[b] === 1)) sink(w, o, this.slotFirst[b] === 1 ? b + this.stride : b);
    }
  }

  /** The value of a slot (undefined when the trace has none). */
  value(s: number): unknown {
    return this.hasValues ? this.slotValue[s] : undefined;
  }

  /** True when the access in slot a happens before the one in slot b (happens-before filter on). */
  orderedBefore(a: number, b: number): boolean {
    if (!this.hasHb) return false;
    const vc = this.slotHbVc[b];
    const va = this.slotHbVc[a];
    if (!vc || !va) return false;
    const t = this.slotHbSlot[a];
    return t < vc.length && this.slotHbClock[a] <= vc[t];
  }
}
