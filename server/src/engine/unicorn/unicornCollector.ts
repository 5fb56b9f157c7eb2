/**
 * UNICORN Steps 1 and 2 for one execution, as a trace visitor: accesses go
 * into per-location access windows (keyed by the dynamic location, var +
 * object + element), the pairs they emit are put in order of their first
 * access and go through the pair window, which combines them into patterns.
 * The result is the set of pattern ids (PatternRegistry) of the run.
 */
import { PatternSet } from './patternSet';
import { EventKind, TraceEvent } from '../trace/traceFormat';
import { TraceSymbols } from '../trace/traceSymbols';
import { TraceVisitor } from '../trace/traceReader';
import { StaticAccessMapper } from '../staticAccessMapper';
import { AccessWindow, WindowAccess } from './accessWindow';
import { PairOrdering } from './pairOrdering';
import { PairWindow } from './pairWindow';
import { PatternRegistry } from './patternRegistry';
import { HappensBefore, orderedBefore } from './happensBefore';

export interface CollectorStats {
  accesses: number;
  locations: number;
  pairs: number;
  /** pairs that arrived after later pairs had been released (approximation) */
  latePairs: number;
  /** pairs dropped because happens-before orders their accesses (0 with --hb none) */
  orderedPairs?: number;
  /** true when the run had too many threads for the happens-before clocks (filter off for the rest of the run) */
  hbOff?: boolean;
}

export interface RunCollector extends TraceVisitor {
  /** Ends the run (flushes windows) and returns the patterns found. */
  finish(): PatternSet;
  stats(): CollectorStats;
}

/** Dynamic location → window: obj → (var, elem) → window. */
export class LocationTable<W> {
  private readonly byObj = new Map<number, Map<number, W>>();
  size = 0;

  private lastObj = NaN;
  private lastInner: Map<number, W> | undefined;

  get(variable: number, obj: number, elem: number): W | undefined {
    const inner = obj === this.lastObj ? this.lastInner : this.byObj.get(obj);
    if (!inner) return undefined;
    this.lastObj = obj;
    this.lastInner = inner;
    return inner.get(variable * 4294967296 + (elem + 1));
  }

  set(variable: number, obj: number, elem: number, w: W): void {
    let inner = this.byObj.get(obj);
    if (!inner) this.byObj.set(obj, (inner = new Map()));
    inner.set(variable * 4294967296 + (elem + 1), w);
    this.size++;
  }

  *values(): IterableIterator<W> {
    for (const inner of this.byObj.values()) yield* inner.values();
  }
}

export class UnicornCollector implements RunCollector {
  private readonly mapper: StaticAccessMapper;
  private readonly windows = new LocationTable<AccessWindow>();
  private readonly found = new PatternSet();
  private readonly pairWindow: PairWindow;
  private readonly ordering: PairOrdering;
  private accesses = 0;
  private pairs = 0;
  private orderedPairs = 0;
  private readonly sink: (a: WindowAccess, b: WindowAccess) => void;
  /** the happens-before filter; null with --hb none (the thesis' behaviour) */
  private readonly hb: HappensBefore | null;

  constructor(
    private readonly registry: PatternRegistry,
    private readonly accessWindowSize: number,
    pairWindowSize: number,
    happensBefore = false,
  ) {
    this.mapper = new StaticAccessMapper(registry);
    this.hb = happensBefore ? new HappensBefore() : null;
    this.pairWindow = new PairWindow(pairWindowSize, registry, this.found);
    this.ordering = new PairOrdering((p) => this.pairWindow.push(p));
    this.sink = (a, b) => {
      if (a.hbVc && orderedBefore(a, b)) {
        this.orderedPairs++;
        return;
      }
      this.pairs++;
      this.ordering.push(a, b, this.registry.internPair(a.sacc, b.sacc));
    };
  }

  event(ev: TraceEvent, symbols: TraceSymbols): void {
    if (ev.kind !== EventKind.Read && ev.kind !== EventKind.Write) {
      if (this.hb !== null) this.hb.onEvent(ev);
      return;
    }
    this.accesses++;
    let win = this.windows.get(ev.a, ev.d, ev.e);
    const created = win === undefined;
    if (win === undefined) {
      win = new AccessWindow(this.accessWindowSize);
      this.windows.set(ev.a, ev.d, ev.e, win);
    }
    const a: WindowAccess = {
      idx: ev.i,
      thread: ev.t,
      write: ev.kind === EventKind.Write,
      sacc: this.mapper.staticAccess(ev, symbols),
      stack: ev.c >= 0 ? this.mapper.stack(ev.c, symbols) : -1,
      value: ev.value,
      threadName: this.threadName(ev.t, symbols),
      win,
      hbSlot: -1,
      hbClock: 0,
      hbVc: null,
    };
    if (this.hb !== null) this.hb.stamp(ev.t, a as Required<WindowAccess>);
    win.add(a, this.sink);
    if (created) this.ordering.track(win);
  }

  private lastThread = NaN;
  private lastThreadName: string | undefined;

  /** The trace's name for thread `t` (its `def thread` line), cached for runs of one thread. */
  private threadName(t: number, symbols: TraceSymbols): string | undefined {
    if (t !== this.lastThread) {
      this.lastThread = t;
      this.lastThreadName = symbols.threads.get(t)?.name;
    }
    return this.lastThreadName;
  }

  finish(): PatternSet {
    for (const w of this.windows.values()) w.flush(this.sink);
    this.ordering.finish();
    return this.found;
  }

  stats(): CollectorStats {
    return {
      accesses: this.accesses,
      locations: this.windows.size,
      pairs: this.pairs,
      latePairs: this.ordering.lateArrivals,
      orderedPairs: this.orderedPairs,
      hbOff: this.hb !== null && !this.hb.enabled,
    };
  }
}
