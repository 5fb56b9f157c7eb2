/**
 * UNICORN Step 2: the pair window (thesis §4.2.2, Figure 6(b)). One window
 * for all locations over the pairs in order of their first access; each new
 * pair is combined with the `size` pairs before it (Algorithm 2's nested
 * loop, for j, k in j+1..j+w, done as a stream). Every pair is also a
 * pattern itself (P1–P3).
 *
 * Two pairs can only combine when they run between the same two threads in
 * opposite directions (T1 → T2, then T2 → T1), so the window is kept as one
 * queue per direction: a new pair u → v looks only at the v → u pairs of the
 * last `size` positions — the same combinations as the full scan, without
 * visiting the pairs that cannot match.
 */
import { PatternSet } from './patternSet';
import { OrderedPair } from './pairOrdering';
import { combinePairs } from './patternCombination';
import { PairRelation, pairPatternNumber } from './patternCatalog';
import { PatternRegistry } from './patternRegistry';

/** A FIFO of (position, pair) for one thread direction. */
class DirectionQueue {
  pos: number[] = [];
  pairs: OrderedPair[] = [];
  head = 0;

  push(position: number, p: OrderedPair): void {
    if (this.head > 1024 && this.head * 2 > this.pos.length) {
      this.pos = this.pos.slice(this.head);
      this.pairs = this.pairs.slice(this.head);
      this.head = 0;
    }
    this.pos.push(position);
    this.pairs.push(p);
  }

  /** Drops entries older than `minPosition`. */
  expire(minPosition: number): void {
    while (this.head < this.pos.length && this.pos[this.head] < minPosition) {
      this.pairs[this.head] = undefined as unknown as OrderedPair;
      this.head++;
    }
  }
}

export class PairWindow {
  private readonly queues = new Map<number, Map<number, DirectionQueue>>();
  pairCount = 0;

  constructor(
    readonly size: number,
    private readonly registry: PatternRegistry,
    private readonly found: PatternSet,
  ) {}

  private queue(from: number, to: number, create: boolean): DirectionQueue | undefined {
    let m = this.queues.get(from);
    if (!m) {
      if (!create) return undefined;
      this.queues.set(from, (m = new Map()));
    }
    let q = m.get(to);
    if (!q && create) m.set(to, (q = new DirectionQueue()));
    return q;
  }

  push(q: OrderedPair): void {
    const position = this.pairCount++;
    const reg = this.registry;
    const qf = q.first;
    const qs = q.second;
    this.found.add(reg.internPattern(q.sig, -1, PairRelation.Pair, pairPatternNumber(qf.write, qs.write), qf, qs), qs.idx > qf.idx ? qs.idx : qf.idx);
    if (this.size <= 0) return;
    const opposite = this.queue(qs.thread, qf.thread, false);
    if (opposite) {
      opposite.expire(position - this.size);
      const pos = opposite.pos;
      const pairs = opposite.pairs;
      for (let k = opposite.head; k < pos.length; k++) {
        const p = pairs[k];
        const code = combinePairs(p.first, p.second, qf, qs);
        if (code) {
          // the same combination as last time with this pair: already in this run's set
          const combination = q.sig * 256 + code;
          if (p.lastCombination === combination) continue;
          p.lastCombination = combination;
          this.found.add(reg.internPattern(p.sig, q.sig, code & 7, code >> 3, p.first, p.second, qf, qs), Math.max(p.first.idx, p.second.idx, qf.idx, qs.idx));
        }
      }
    }
    const own = this.queue(qf.thread, qs.thread, true)!;
    own.expire(position - this.size + 1);
    own.push(position, q);
  }
}
