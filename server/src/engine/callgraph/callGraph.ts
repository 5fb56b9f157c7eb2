/**
 * Call graphs of runs (seed 003, Sect. 2.1): each method is a vertex, each call an edge. This
 * file turns the events of one trace into the sequence of calls `(thread, caller, callee)`, in
 * the global order of the trace, and hands each call to a sink (the weighted total reduction
 * and the temporal-edge tracker).
 *
 * Two sources of calls, per run:
 * - `ENTER`/`EXIT` events: an `ENTER` is a call from the method on top of the thread's stack
 *   (or from the thread root) to the entered method. Exact call counts.
 * - Call stacks carried by accesses and lock events (what Braid's Java agent writes): the thread's
 *   stack is compared with its previous one; the frames from the first differing activation up
 *   are new calls. A frame is the same activation when its method and every frame below it are the
 *   same and the call-site lines below it are the same. Calls that do not reach a recorded event,
 *   and repeated calls from one call-site line with no event of the thread in between that tells
 *   them apart, are not seen (docs/callgraph.md).
 * Once a run has an `ENTER`, its stacks are not used (the reader rebuilds them from the same
 * `ENTER`/`EXIT`).
 *
 * Vertices are labelled by method name only, never by thread (the seed's Sect. 3.1: thread ids do
 * not match across runs). A thread's first frame is called from the pseudo-method ROOT_METHOD.
 */
import { EventKind, TraceEvent } from '../trace/traceFormat';
import { TraceSymbols } from '../trace/traceSymbols';

/** The caller of a thread's outermost frame; not a method of the program, never ranked. */
export const ROOT_METHOD = 0;
export const ROOT_METHOD_NAME = '<thread>';

export interface MethodInfo {
  id: number;
  name: string;
  /** source file of the method (as in the trace), '' when unknown */
  file: string;
  /** smallest and largest source line recorded in the method (accesses, call sites, entries) */
  minLine: number;
  maxLine: number;
  /** first line from an ENTER event, 0 when none was seen */
  entryLine: number;
}

/** Method names interned to small ids, with the lines recorded in each (all runs). */
export class MethodTable {
  readonly methods: MethodInfo[] = [{ id: ROOT_METHOD, name: ROOT_METHOD_NAME, file: '', minLine: 0, maxLine: 0, entryLine: 0 }];
  private readonly byName = new Map<string, number>();

  intern(name: string, file: string): number {
    let id = this.byName.get(name);
    if (id === undefined) {
      id = this.methods.length;
      this.methods.push({ id, name, file, minLine: 0, maxLine: 0, entryLine: 0 });
      this.byName.set(name, id);
    }
    return id;
  }

  idOf(name: string): number | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.methods.length;
  }

  noteLine(id: number, line: number): void {
    if (line <= 0) return;
    const m = this.methods[id];
    if (m.minLine === 0 || line < m.minLine) m.minLine = line;
    if (line > m.maxLine) m.maxLine = line;
  }
}

/** Receives the calls of a run in order. */
export interface CallSink {
  /** `depth`: the callee's frame depth in its thread (0 = the thread's outermost frame) */
  call(thread: number, caller: number, callee: number, depth: number): void;
  /** the frame at `depth` of the thread returned (an EXIT, a shorter stack, or the thread's END) */
  ret(thread: number, depth: number): void;
}

/** Per-thread frames: method ids and loc ids (the loc of a frame below the top is its call site). */
class ThreadFrames {
  methods = new Int32Array(16);
  locs = new Float64Array(16);
  depth = 0;

  ensure(n: number): void {
    if (n <= this.methods.length) return;
    let cap = this.methods.length;
    while (cap < n) cap *= 2;
    const m = new Int32Array(cap);
    m.set(this.methods);
    const l = new Float64Array(cap);
    l.set(this.locs);
    this.methods = m;
    this.locs = l;
  }
}

/**
 * Builds the call sequence of one run at a time from trace events. Reuse one builder for all runs
 * (`beginRun` resets it); per event it allocates nothing once a thread's frames have grown.
 */
export class CallGraphBuilder {
  /** frames by thread id: an array for small ids (the common case), a map beyond */
  private readonly threadList: (ThreadFrames | undefined)[] = [];
  private readonly threads = new Map<number, ThreadFrames>();
  /** loc id → method id of the current trace file (-1: not yet mapped) */
  private locMethod = new Int32Array(64).fill(-1);
  private symbols: TraceSymbols | undefined;
  private sawEnter = false;
  /** calls of the current run */
  calls = 0;

  constructor(
    readonly table: MethodTable,
    private readonly sink: CallSink,
  ) {}

  beginRun(symbols?: TraceSymbols): void {
    for (const f of this.threads.values()) f.depth = 0;
    for (const f of this.threadList) if (f) f.depth = 0;
    this.locMethod.fill(-1);
    this.symbols = symbols;
    this.sawEnter = false;
    this.calls = 0;
  }

  /** The method id of a loc of the current trace (interned on first use; its line noted). */
  methodOfLoc(loc: number): number {
    if (loc < this.locMethod.length && loc >= 0) {
      const m = this.locMethod[loc];
      if (m >= 0) return m;
    }
    const def = this.symbols?.locs.get(loc);
    const id = this.table.intern(def?.method || (def ? `${def.file}:${def.line}` : `loc ${loc}`), def?.file ?? '');
    if (def) this.table.noteLine(id, def.line);
    if (loc >= 0 && loc < 1 << 24) {
      if (loc >= this.locMethod.length) {
        let cap = this.locMethod.length;
        while (cap <= loc) cap *= 2;
        const next = new Int32Array(cap).fill(-1);
        next.set(this.locMethod);
        this.locMethod = next;
      }
      this.locMethod[loc] = id;
    }
    return id;
  }

  private frames(thread: number): ThreadFrames {
    if (thread < 4096) {
      let f = this.threadList[thread];
      if (!f) {
        while (this.threadList.length <= thread) this.threadList.push(undefined);
        this.threadList[thread] = f = new ThreadFrames();
      }
      return f;
    }
    let f = this.threads.get(thread);
    if (!f) this.threads.set(thread, (f = new ThreadFrames()));
    return f;
  }

  private existing(thread: number): ThreadFrames | undefined {
    return thread < 4096 ? this.threadList[thread] : this.threads.get(thread);
  }

  private emit(thread: number, caller: number, callee: number, depth: number): void {
    this.calls++;
    this.sink.call(thread, caller, callee, depth);
  }

  /** A method entry: a call from the thread's current method (or its root). */
  enter(thread: number, method: number, loc = -1): void {
    const f = this.frames(thread);
    const caller = f.depth > 0 ? f.methods[f.depth - 1] : ROOT_METHOD;
    f.ensure(f.depth + 1);
    f.methods[f.depth] = method;
    f.locs[f.depth] = loc;
    f.depth++;
    this.emit(thread, caller, method, f.depth - 1);
  }

  /** A method exit of the thread's current method. */
  exit(thread: number): void {
    const f = this.existing(thread);
    if (f && f.depth > 0) this.sink.ret(thread, --f.depth);
  }

  /** The thread ended: its remaining frames return. */
  end(thread: number): void {
    const f = this.existing(thread);
    if (!f) return;
    while (f.depth > 0) this.sink.ret(thread, --f.depth);
  }

  /**
   * The thread is at this stack (method ids and loc ids, bottom first; `n` frames): frames from the
   * first activation that differs from the thread's previous stack are new calls.
   */
  stack(thread: number, methods: ArrayLike<number>, locs: ArrayLike<number>, n: number): void {
    const f = this.frames(thread);
    let d = 0;
    const common = Math.min(n, f.depth);
    while (d < common && f.methods[d] === methods[d] && (d === 0 || f.locs[d - 1] === locs[d - 1])) d++;
    for (let k = f.depth - 1; k >= d; k--) this.sink.ret(thread, k);
    f.ensure(n);
    for (let k = d; k < n; k++) {
      f.methods[k] = methods[k];
      this.emit(thread, k === 0 ? ROOT_METHOD : methods[k - 1], methods[k], k);
    }
    for (let k = 0; k < n; k++) f.locs[k] = locs[k];
    f.depth = n;
  }

  private scratchMethods = new Int32Array(64);
  private scratchLocs = new Float64Array(64);

  /** Feeds one event of the current trace (a TraceVisitor's `event`). */
  event(ev: TraceEvent, symbols: TraceSymbols): void {
    if (this.symbols !== symbols) this.symbols = symbols;
    switch (ev.kind) {
      case EventKind.Enter: {
        this.sawEnter = true;
        const m = this.methodOfLoc(ev.b);
        const def = symbols.locs.get(ev.b);
        if (def && def.line > 0) {
          const info = this.table.methods[m];
          if (info.entryLine === 0 || def.line < info.entryLine) info.entryLine = def.line;
        }
        this.enter(ev.t, m, ev.b);
        return;
      }
      case EventKind.Exit:
        this.exit(ev.t);
        return;
      case EventKind.End:
        this.end(ev.t);
        return;
      case EventKind.Read:
      case EventKind.Write:
      case EventKind.Acquire:
      case EventKind.Release: {
        if (this.sawEnter || ev.c < 0) return;
        const frames = symbols.stackFrames(ev.c);
        const n = frames.length;
        if (n === 0) return;
        if (n > this.scratchMethods.length) {
          this.scratchMethods = new Int32Array(n * 2);
          this.scratchLocs = new Float64Array(n * 2);
        }
        for (let k = 0; k < n; k++) {
          this.scratchMethods[k] = this.methodOfLoc(frames[k]);
          this.scratchLocs[k] = frames[k];
        }
        this.stack(ev.t, this.scratchMethods, this.scratchLocs, n);
        return;
      }
      default:
        return;
    }
  }
}
