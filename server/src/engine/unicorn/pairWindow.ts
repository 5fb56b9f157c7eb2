/**
 * UNICORN Step 2: the pair window (thesis §4.2.2, Figure 6(b)). One window
 * for all locations over the pairs in order of their first access; each new
 * pair is combined with the `size` pairs before it (Algorithm 2's nested
 * loop, for j, k in j+1..j+w, done as a stream). Every pair is also a
 * pattern itself (P1–P3).
 */
import { OrderedPair } from './pairOrdering';
import { combinePairs } from './patternCombination';
import { PairRelation, pairPatternNumber } from './patternCatalog';
import { PatternRegistry } from './patternRegistry';

export class PairWindow {
  private readonly ring: OrderedPair[];
  private head = 0;
  private count = 0;
  pairCount = 0;

  constructor(
    readonly size: number,
    private readonly registry: PatternRegistry,
    private readonly found: Set<number>,
  ) {
    this.ring = new Array(Math.max(1, size));
  }

  push(q: OrderedPair): void {
    this.pairCount++;
    const reg = this.registry;
    const n = pairPatternNumber(q.first.write, q.second.write);
    this.found.add(reg.internPattern(q.sig, -1, PairRelation.Pair, n, [q.first, q.second]));
    const ring = this.ring;
    const cap = ring.length;
    const qf = q.first;
    const qs = q.second;
    for (let k = 0; k < this.count; k++) {
      const p = ring[(this.head + k) % cap];
      // quick reject: same two threads, opposite directions
      if (p.first.thread !== qs.thread || p.second.thread !== qf.thread) continue;
      const c = combinePairs(p.first, p.second, qf, qs);
      if (c) this.found.add(reg.internPattern(p.sig, q.sig, c.rel, c.n, c.ordered));
    }
    if (this.size <= 0) return;
    if (this.count < cap) {
      ring[(this.head + this.count) % cap] = q;
      this.count++;
    } else {
      ring[this.head] = q;
      this.head = (this.head + 1) % cap;
    }
  }
}
