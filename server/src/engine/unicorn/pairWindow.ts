/**
 * UNICORN Step 2: the pair window (thesis §4.2.2, Figure 6(b)). One window
 * for all locations over the pairs in order of their first access; each new
 * pair is combined with the `size` pairs before it (Algorithm 2's nested
 * loop, for j, k in j+1..j+w, done as a stream). Every pair is also a
 * pattern itself (P1–P3).
 *
 * Two pairs can only combine when they run between the same two threads in
 * opposite directions (T1 → T2, then T2 → T1), and when the earlier pair's
 * second access has the type of the later pair's first access (P4–P8: it is
 * the same access; P9–P17: thread 2's two accesses have one type). The
 * window is a ring of the last `size` pairs in typed arrays, each entry
 * linked to the previous pair of the same chain (direction and access types,
 * RW / WR / WW), so a new pair u → v whose first access has type X visits
 * only the v → u pairs ending with an X access (at most two chains, merged
 * newest first) of the last `size` positions — the same combinations, in the
 * same order, as the full scan.
 *
 * Combination works on signatures: what a pair of pairs forms depends only on
 * their two pair signatures and how they are placed (one shared access, or
 * sequential / interleaved / nested on two locations), so the registry
 * memoizes (signature, signature, placement) → pattern, and a pattern is built
 * once, at its first occurrence ever.
 */
import { PatternSet } from './patternSet';
import { PairRelation } from './patternCatalog';
import { placement } from './patternCombination';
import { Occurrence, PatternRegistry, UNKNOWN_COMBINATION } from './patternRegistry';
import { REC, REC_SIG, REC_STACK1, REC_STACK2, REC_T1, REC_T2, REC_WIN } from './pairOrdering';

/** One pair handed to the window (fields of a PairOrdering record; names are the threads' trace names). */
export interface PairInput {
  firstIdx: number;
  secondIdx: number;
  sig: number;
  /** dense thread slots of the run */
  t1: number;
  t2: number;
  /** the access window (dynamic location) */
  win: number;
  stack1: number;
  stack2: number;
  value1: unknown;
  value2: unknown;
}

/** Chain tables are dense up to this many thread slots, a Map beyond. */
const DENSE_THREADS = 128;

export class PairWindow {
  pairCount = 0;
  /** ring slots − 1 (a power of two minus one ≥ size) */
  private readonly mask: number;
  private readonly rFirst: Float64Array;
  private readonly rSecond: Float64Array;
  private readonly rSig: Int32Array;
  private readonly rT1: Int32Array;
  private readonly rT2: Int32Array;
  private readonly rWin: Int32Array;
  private readonly rStack1: Int32Array;
  private readonly rStack2: Int32Array;
  private readonly rValue1: unknown[];
  private readonly rValue2: unknown[];
  /** position of the previous pair of the same chain (-1 none) */
  private readonly rPrev: Int32Array;
  /** latest position per chain (t1 · DENSE_THREADS + t2) · 4 + kind, plus one (0: none) */
  private readonly latestDense = new Int32Array(DENSE_THREADS * DENSE_THREADS * 4);
  private readonly latestSparse = new Map<number, number>();
  private readonly occ = new Occurrence();
  /**
   * per dense thread slot: its start rank in the run (the order in which the threads first appear in
   * the trace, a thread started by START when it is started): an occurrence whose first thread has the
   * higher rank was made by the thread that started later getting there first (overtaken)
   */
  private startRank = new Int32Array(64);

  constructor(
    readonly size: number,
    private readonly registry: PatternRegistry,
    private readonly found: PatternSet,
    /** trace name of a dense thread slot */
    private readonly threadName: (slot: number) => string | undefined = () => undefined,
  ) {
    let n = 1;
    while (n < size + 1) n *= 2;
    this.mask = n - 1;
    this.rFirst = new Float64Array(n);
    this.rSecond = new Float64Array(n);
    this.rSig = new Int32Array(n);
    this.rT1 = new Int32Array(n);
    this.rT2 = new Int32Array(n);
    this.rWin = new Int32Array(n);
    this.rStack1 = new Int32Array(n);
    this.rStack2 = new Int32Array(n);
    this.rValue1 = new Array(n).fill(undefined);
    this.rValue2 = new Array(n).fill(undefined);
    this.rPrev = new Int32Array(n);
  }

  /** The start rank of dense thread slot `slot` (UnicornCollector, when it makes the slot). */
  setStartRank(slot: number, rank: number): void {
    if (slot >= this.startRank.length) {
      let n = this.startRank.length;
      while (n <= slot) n *= 2;
      const r = new Int32Array(n);
      r.set(this.startRank);
      this.startRank = r;
    }
    this.startRank[slot] = rank;
  }

  /** Latest position of chain (t1 → t2, kind), -1 none. */
  private latest(t1: number, t2: number, kind: number): number {
    if (t1 < DENSE_THREADS && t2 < DENSE_THREADS) return this.latestDense[(t1 * DENSE_THREADS + t2) * 4 + kind] - 1;
    return this.latestSparse.get((t1 * 2 ** 26 + t2) * 4 + kind) ?? -1;
  }

  private setLatest(t1: number, t2: number, kind: number, pos: number): void {
    if (t1 < DENSE_THREADS && t2 < DENSE_THREADS) this.latestDense[(t1 * DENSE_THREADS + t2) * 4 + kind] = pos + 1;
    else this.latestSparse.set((t1 * 2 ** 26 + t2) * 4 + kind, pos);
  }

  private readonly oneFirst = new Float64Array(1);
  private readonly oneSecond = new Float64Array(1);
  private readonly oneRec = new Int32Array(REC);

  /** Adds the next pair in pair order. */
  push(q: PairInput): void {
    this.oneFirst[0] = q.firstIdx;
    this.oneSecond[0] = q.secondIdx;
    const rec = this.oneRec;
    rec[REC_SIG] = q.sig;
    rec[REC_T1] = q.t1;
    rec[REC_T2] = q.t2;
    rec[REC_WIN] = q.win;
    rec[REC_STACK1] = q.stack1;
    rec[REC_STACK2] = q.stack2;
    this.add(this.oneFirst, this.oneSecond, rec, 0, q.value1, q.value2);
  }

  /**
   * Adds the next pair in pair order: record r of a PairOrdering bucket
   * (first[r], second[r], rec[r · REC + REC_SIG …]). The arrays are passed,
   * not the numbers: global indices are doubles, which would be boxed as
   * arguments of a call that is not inlined.
   */
  add(first: Float64Array, second: Float64Array, rec: Int32Array, r: number, value1: unknown, value2: unknown): void {
    const qFirst = first[r];
    const qSecond = second[r];
    const o = r * REC;
    const qSig = rec[o + REC_SIG];
    const t1 = rec[o + REC_T1];
    const t2 = rec[o + REC_T2];
    const qWin = rec[o + REC_WIN];
    const stack1 = rec[o + REC_STACK1];
    const stack2 = rec[o + REC_STACK2];
    const position = this.pairCount++;
    if (position >= 2 ** 31 - 1) throw new Error('more than 2^31 memory-access pairs in one run');
    const reg = this.registry;
    const occ = this.occ;
    let own = reg.knownPairPattern(qSig);
    if (own < 0) {
      occ.set(0, stack1, value1, this.threadName(t1));
      occ.set(1, stack2, value2, this.threadName(t2));
      own = reg.pairPattern(qSig, occ);
    }
    const rank = this.startRank;
    const at = this.found.add(own, qSecond > qFirst ? qSecond : qFirst);
    if (rank[t1] > rank[t2]) this.found.overtaken(at);
    if (this.size <= 0) return;
    const kind = reg.pairKind(qSig);
    const min = position - this.size;
    const mask = this.mask;
    const rFirst = this.rFirst;
    const rSecond = this.rSecond;
    const rWin = this.rWin;
    const rSig = this.rSig;
    const rPrev = this.rPrev;
    const found = this.found;
    // candidates p1 = (a1, a2) on t2 → t1 with a2 of q's first access type: kinds R·x and W·x
    // chain a (kind R·x) and chain b (W·x); the one of kind y·x can form P4–P17, the other only
    // P4–P8 (P9–P17 need a1 of q's second access type), so there only a2 = b1 is checked
    const x = kind >> 1;
    const fullB = (kind & 1) === 1;
    let pa = this.latest(t2, t1, x);
    let pb = this.latest(t2, t1, 2 + x);
    for (;;) {
      let p: number;
      let full: boolean;
      if (pa > pb) {
        p = pa;
        if (p < min) break;
        pa = rPrev[p & mask];
        full = !fullB;
      } else {
        p = pb;
        if (p < min || p < 0) break;
        pb = rPrev[p & mask];
        full = fullB;
      }
      const e = p & mask;
      const a2 = rSecond[e];
      if (!full && (a2 !== qFirst || rWin[e] !== qWin)) continue;
      const a1 = rFirst[e];
      const rel = placement(rWin[e] === qWin, a1, a2, qFirst, qSecond);
      if (rel !== PairRelation.Pair) {
        let id = reg.combination(rSig[e], qSig, rel);
        if (id === UNKNOWN_COMBINATION) {
          occ.set(0, this.rStack1[e], this.rValue1[e], this.threadName(this.rT1[e]));
          occ.set(1, this.rStack2[e], this.rValue2[e], this.threadName(this.rT2[e]));
          occ.set(2, stack1, value1, this.threadName(t1));
          occ.set(3, stack2, value2, this.threadName(t2));
          id = reg.internCombination(rSig[e], qSig, rel, occ);
        }
        // the last access of the four: a2 or b2 (a1 < a2, b1 < b2, a1 < b1)
        if (id >= 0) {
          const pos = found.add(id, a2 > qSecond ? a2 : qSecond);
          // the combination's first thread is its first pair's (a1's)
          if (rank[this.rT1[e]] > rank[this.rT2[e]]) found.overtaken(pos);
        }
      }
    }
    const e = position & mask;
    this.rFirst[e] = qFirst;
    this.rSecond[e] = qSecond;
    this.rSig[e] = qSig;
    this.rT1[e] = t1;
    this.rT2[e] = t2;
    this.rWin[e] = qWin;
    this.rStack1[e] = stack1;
    this.rStack2[e] = stack2;
    this.rValue1[e] = value1;
    this.rValue2[e] = value2;
    this.rPrev[e] = this.latest(t1, t2, kind);
    this.setLatest(t1, t2, kind, position);
  }
}
