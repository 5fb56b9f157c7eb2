/**
 * FALCON (thesis chapter 3, Algorithm 1 GatherPatterns): one window per
 * shared-memory location, patterns P1–P8 found online. The window update
 * policy is UNICORN's (same-thread replacement, a write is kept over a later
 * read of its thread). When an access of another thread meets a full
 * window, the window is scanned for the atomicity patterns P4–P8 that start
 * at the oldest slot; only if there is none, for the order patterns P1–P3
 * (a pair already part of a triplet is not counted twice); then the window
 * slides. Windows are flushed the same way at the end of the run.
 */
import { PatternSet } from '../unicorn/patternSet';
import { EventKind, TraceEvent } from '../trace/traceFormat';
import { TraceSymbols } from '../trace/traceSymbols';
import { StaticAccessMapper } from '../staticAccessMapper';
import { PairRelation, pairPatternNumber, singleVariablePatternNumber } from '../unicorn/patternCatalog';
import { PatternRegistry } from '../unicorn/patternRegistry';
import { CollectorStats, LocationTable, RunCollector } from '../unicorn/unicornCollector';
import { AccessRef } from '../unicorn/patternRegistry';

class FalconWindow {
  readonly slots: AccessRef[] = [];
  constructor(readonly capacity: number) {}
}

export class FalconCollector implements RunCollector {
  private readonly mapper: StaticAccessMapper;
  private readonly windows = new LocationTable<FalconWindow>();
  private readonly found = new PatternSet();
  private accesses = 0;
  private pairs = 0;

  constructor(
    private readonly registry: PatternRegistry,
    private readonly windowSize: number,
  ) {
    this.mapper = new StaticAccessMapper(registry);
  }

  event(ev: TraceEvent, symbols: TraceSymbols): void {
    if (ev.kind !== EventKind.Read && ev.kind !== EventKind.Write) return;
    this.accesses++;
    let w = this.windows.get(ev.a, ev.d, ev.e);
    if (w === undefined) {
      w = new FalconWindow(Math.max(2, this.windowSize));
      this.windows.set(ev.a, ev.d, ev.e, w);
    }
    const a: AccessRef = {
      idx: ev.i,
      thread: ev.t,
      write: ev.kind === EventKind.Write,
      sacc: this.mapper.staticAccess(ev, symbols),
      stack: ev.c >= 0 ? this.mapper.stack(ev.c, symbols) : -1,
      threadName: symbols.threads.get(ev.t)?.name,
    };
    const s = w.slots;
    const n = s.length;
    if (n > 0) {
      const last = s[n - 1];
      if (last.thread === a.thread) {
        if (last.write && !a.write) return;
        s[n - 1] = a;
        return;
      }
      if (n >= w.capacity) {
        this.gatherPatterns(s);
        s.shift();
      }
    }
    s.push(a);
  }

  /** getPatterns(w): patterns whose first access is the oldest slot. */
  private gatherPatterns(s: AccessRef[]): void {
    const a = s[0];
    const reg = this.registry;
    let triplets = 0;
    for (let j = 1; j < s.length; j++) {
      const b = s[j];
      if (b.thread === a.thread) continue;
      for (let k = j + 1; k < s.length; k++) {
        const c = s[k];
        if (c.thread !== a.thread) continue;
        if (!(a.write || b.write) || !(b.write || c.write)) continue;
        const n = singleVariablePatternNumber(a.write, b.write, c.write);
        if (!n) continue;
        const p1 = reg.internPair(a.sacc, b.sacc);
        const p2 = reg.internPair(b.sacc, c.sacc);
        this.found.add(reg.internPattern(p1, p2, PairRelation.SharedMiddle, n, a, b, b, c));
        triplets++;
      }
    }
    if (triplets) return;
    for (let j = 1; j < s.length; j++) {
      const b = s[j];
      if (b.thread === a.thread || !(a.write || b.write)) continue;
      this.pairs++;
      const sig = reg.internPair(a.sacc, b.sacc);
      this.found.add(reg.internPattern(sig, -1, PairRelation.Pair, pairPatternNumber(a.write, b.write), a, b));
    }
  }

  finish(): PatternSet {
    for (const w of this.windows.values()) {
      while (w.slots.length) {
        this.gatherPatterns(w.slots);
        w.slots.shift();
      }
    }
    return this.found;
  }

  stats(): CollectorStats {
    return { accesses: this.accesses, locations: this.windows.size, pairs: this.pairs, latePairs: 0 };
  }
}
