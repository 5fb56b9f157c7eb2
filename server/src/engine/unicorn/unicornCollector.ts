/**
 * UNICORN Steps 1 and 2 for one execution, as a trace visitor: accesses go
 * into per-location access windows (keyed by the dynamic location, var +
 * object + element), the pairs they emit are put in order of their first
 * access and go through the pair window, which combines them into patterns.
 * The result is the set of pattern ids (PatternRegistry) of the run.
 *
 * Nothing is allocated per access or per pair: accesses live in the access
 * windows' typed arrays, pairs in the pair ordering's records and the pair
 * window's ring, threads are dense slots of the run, and patterns are found
 * by signature (see PairWindow).
 */
import { PatternSet } from './patternSet';
import { EventKind, TraceEvent } from '../trace/traceFormat';
import { TraceSymbols } from '../trace/traceSymbols';
import { TraceVisitor } from '../trace/traceReader';
import { StaticAccessMapper } from '../staticAccessMapper';
import { AccessInput, AccessWindows } from './accessWindow';
import { PairOrdering } from './pairOrdering';
import { PairWindow } from './pairWindow';
import { PatternRegistry } from './patternRegistry';
import { HappensBefore } from './happensBefore';
import { NumberIdMap } from './numberIdMap';

export interface CollectorStats {
  accesses: number;
  locations: number;
  pairs: number;
  /** always 0: pairs are ordered exactly (kept for readers of older results) */
  latePairs: number;
  /** pairs the pair ordering wrote to a temporary file to stay within its memory budget */
  spilledPairs?: number;
  /** pairs dropped because happens-before orders their accesses (0 with --hb none) */
  orderedPairs?: number;
  /** true when the run had too many threads for the happens-before clocks (filter off for the rest of the run) */
  hbOff?: boolean;
}

export interface RunCollector extends TraceVisitor {
  /** Ends the run (flushes windows) and returns the patterns found. */
  finish(): PatternSet;
  /** Releases what the collector holds outside memory (temporary files) when the run is abandoned without finish(). */
  close?(): void;
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

/**
 * Dynamic location → access window id, for UnicornCollector: per object a
 * flat hash table of numeric keys (var · 2^32 + elem + 1; no boxed number
 * key per lookup), a Map beyond those bounds.
 */
export class WindowTable {
  private readonly byObj = new Map<number, NumberIdMap>();
  private readonly big = new Map<string, number>();
  size = 0;
  private lastObj = NaN;
  private lastInner: NumberIdMap | undefined;

  /** The window of (variable, obj, elem), or -1. */
  get(variable: number, obj: number, elem: number): number {
    if (variable >= 2 ** 21 || variable < 0 || elem < -1 || elem >= 2 ** 32 - 1) return this.big.get(`${variable},${obj},${elem}`) ?? -1;
    let inner = this.lastInner;
    if (obj !== this.lastObj) {
      inner = this.byObj.get(obj);
      if (!inner) return -1;
      this.lastObj = obj;
      this.lastInner = inner;
    }
    return inner!.get(variable * 4294967296 + (elem + 1));
  }

  set(variable: number, obj: number, elem: number, w: number): void {
    this.size++;
    if (variable >= 2 ** 21 || variable < 0 || elem < -1 || elem >= 2 ** 32 - 1) {
      this.big.set(`${variable},${obj},${elem}`, w);
      return;
    }
    let inner = this.byObj.get(obj);
    if (!inner) this.byObj.set(obj, (inner = new NumberIdMap(8)));
    inner.set(variable * 4294967296 + (elem + 1), w);
  }
}

export interface UnicornCollectorOptions {
  /** pairs buffered in memory by the pair ordering before it spills to disk */
  maxBufferedPairs?: number;
  /** AnalysisOptions.windowWrites 'adjacent' (accessWindow.ts); default false: the thesis' window */
  adjacentWrites?: boolean;
}

export class UnicornCollector implements RunCollector {
  private readonly mapper: StaticAccessMapper;
  private readonly locations = new WindowTable();
  private readonly windows: AccessWindows;
  private readonly found = new PatternSet();
  private readonly pairWindow: PairWindow;
  private readonly ordering: PairOrdering;
  private accesses = 0;
  private pairs = 0;
  private orderedPairs = 0;
  private readonly sink: (w: number, first: number, second: number) => void;
  /** the happens-before filter; null with --hb none (the thesis' behaviour) */
  private readonly hb: HappensBefore | null;
  /** dense thread slots of this run and their trace names */
  private readonly threadSlots = new Map<number, number>();
  private readonly threadNames: (string | undefined)[] = [];
  private lastThread = NaN;
  private lastSlot = -1;
  /** trace thread id → start rank: the order of the threads' first appearance (as an event's thread, or as a START's child) */
  private readonly startRanks = new Map<number, number>();
  private lastRanked = NaN;
  private readonly saccs = new NumberIdMap(256);
  private readonly stacks = new NumberIdMap(256);
  private readonly input: AccessInput = { idx: 0, thread: 0, write: false, sacc: 0, stack: -1, value: undefined, hbSlot: -1, hbClock: 0, hbVc: null };

  constructor(
    private readonly registry: PatternRegistry,
    accessWindowSize: number,
    pairWindowSize: number,
    happensBefore = false,
    options: UnicornCollectorOptions = {},
  ) {
    this.mapper = new StaticAccessMapper(registry);
    this.hb = happensBefore ? new HappensBefore() : null;
    this.windows = new AccessWindows(accessWindowSize, options.adjacentWrites === true);
    this.pairWindow = new PairWindow(pairWindowSize, registry, this.found, (t) => this.threadNames[t]);
    const o = (this.ordering = new PairOrdering(this.windows, (r) => this.releasePair(r), 4096, options.maxBufferedPairs));
    const ws = this.windows;
    this.sink = (w, a, b) => {
      if (ws.hasHb && ws.orderedBefore(a, b)) {
        this.orderedPairs++;
        return;
      }
      this.pairs++;
      o.push(w, a, b, registry.internPair(ws.slotSacc[a], ws.slotSacc[b]));
    };
  }

  private releasePair(r: number): void {
    const o = this.ordering;
    const values = o.value1.length > 0;
    this.pairWindow.add(o.firstIdx, o.secondIdx, o.rec, r, values ? o.value1[r] : undefined, values ? o.value2[r] : undefined);
  }

  /** The mapper's static access of a R/W event, memoized in a flat numeric hash table (the mapper's Map boxes these keys). */
  private staticAccess(ev: TraceEvent, symbols: TraceSymbols): number {
    if (ev.b >= 2 ** 25 || ev.a >= 2 ** 26 || ev.b < 0 || ev.a < 0) return this.mapper.staticAccess(ev, symbols);
    const key = ev.b * 2 ** 27 + ev.a * 2 + ev.kind;
    let id = this.saccs.get(key);
    if (id < 0) this.saccs.set(key, (id = this.mapper.staticAccess(ev, symbols)));
    return id;
  }

  /** The mapper's global stack of a local stack id (≥ 0), memoized likewise. */
  private stack(c: number, symbols: TraceSymbols): number {
    let id = this.stacks.get(c);
    if (id < 0) {
      id = this.mapper.stack(c, symbols);
      if (id >= 0) this.stacks.set(c, id);
    }
    return id;
  }

  /** The start rank of trace thread `t`, given now when it has none. */
  private startRank(t: number): number {
    let r = this.startRanks.get(t);
    if (r === undefined) this.startRanks.set(t, (r = this.startRanks.size));
    return r;
  }

  /** Dense slot of trace thread `t` in this run (its name from the trace's `def thread`). */
  private threadSlot(t: number, symbols: TraceSymbols): number {
    if (t === this.lastThread) return this.lastSlot;
    let s = this.threadSlots.get(t);
    if (s === undefined) {
      s = this.threadNames.length;
      this.threadSlots.set(t, s);
      this.threadNames.push(symbols.threads.get(t)?.name);
      this.pairWindow.setStartRank(s, this.startRank(t));
    } else if (this.threadNames[s] === undefined) this.threadNames[s] = symbols.threads.get(t)?.name;
    this.lastThread = t;
    this.lastSlot = s;
    return s;
  }

  event(ev: TraceEvent, symbols: TraceSymbols): void {
    if (ev.t !== this.lastRanked) {
      this.startRank(ev.t);
      this.lastRanked = ev.t;
    }
    if (ev.kind !== EventKind.Read && ev.kind !== EventKind.Write) {
      if (ev.kind === EventKind.Start) this.startRank(ev.a);
      if (this.hb !== null) this.hb.onEvent(ev);
      return;
    }
    this.accesses++;
    let win = this.locations.get(ev.a, ev.d, ev.e);
    const created = win < 0;
    if (created) {
      win = this.windows.create();
      this.locations.set(ev.a, ev.d, ev.e, win);
    }
    const a = this.input;
    a.idx = ev.i;
    a.thread = this.threadSlot(ev.t, symbols);
    a.write = ev.kind === EventKind.Write;
    a.sacc = this.staticAccess(ev, symbols);
    a.stack = ev.c >= 0 ? this.stack(ev.c, symbols) : -1;
    a.value = ev.value;
    if (this.hb !== null) this.hb.stamp(ev.t, a);
    this.windows.add(win, a, this.sink);
    if (created) this.ordering.track(win);
  }

  finish(): PatternSet {
    try {
      for (let w = 0; w < this.windows.count; w++) this.windows.flush(w, this.sink);
      this.ordering.finish();
    } finally {
      this.ordering.close();
    }
    return this.found;
  }

  close(): void {
    this.ordering.close();
  }

  stats(): CollectorStats {
    return {
      accesses: this.accesses,
      locations: this.locations.size,
      pairs: this.pairs,
      latePairs: 0,
      spilledPairs: this.ordering.spilledPairs,
      orderedPairs: this.orderedPairs,
      hbOff: this.hb !== null && !this.hb.enabled,
    };
  }
}
