/**
 * Temporal edges (seed 003, Sect. 3.2, Definitions 2–4 and Notation 1). For two calls
 * c1: x1 → y1 and c2: x2 → y2 that happen immediately after each other (no call in between, in the
 * global order of the run):
 * - next-call edge y1 →nc y2 when x1 and x2 are the same call site (the same calling method,
 *   Definition 2);
 * - inter-thread edge y1 →it y2 when c1 and c2 are in different threads (Definition 3);
 * - intra-thread edge y1 →in y2 when they are in the same thread (Definition 4).
 * An edge's weight counts how often its relation occurs in the run. Temporal edges model the time
 * of the invocation of the sink.
 *
 * Inter-thread edges, two readings (option `interThread`):
 * - `adjacent` (Definition 3 as written): any two adjacent calls of different threads;
 * - `interrupting` (Braid's default): only when y1 has not returned yet when c2 happens, i.e. the
 *   other thread interrupts y1. This is the reading of Sect. 3.2/4 ("after the call of a there is a
 *   thread switch"; "the sequence of calls that should have been protected is interrupted after the
 *   call to method a"). With call stacks instead of ENTER/EXIT, and with methods that make no nested
 *   call, adjacency alone cannot tell a serial run from an interleaved one (docs/callgraph.md).
 *
 * This sink also records every call as a call edge x → y of the weighted total reduction, so
 * one pass over a run's calls gives all four edge types; the ranking picks the graph
 * representation (call graph, next-call, inter-thread or intra-thread graph).
 */
import type { CallSink } from './callGraph';
import { EdgeType, WeightedGraphSet } from './totalReduction';

export type InterThreadReading = 'adjacent' | 'interrupting';

export class TemporalEdgeTracker implements CallSink {
  private prevThread = -1;
  private prevCaller = -1;
  private prevCallee = -1;
  private prevDepth = -1;
  /** the previous call's callee has not returned yet */
  private prevActive = false;

  constructor(
    private readonly graphs: WeightedGraphSet,
    readonly interThread: InterThreadReading = 'interrupting',
  ) {}

  /** Forgets the previous call (a new run starts). */
  reset(): void {
    this.prevThread = -1;
    this.prevCaller = -1;
    this.prevCallee = -1;
    this.prevDepth = -1;
    this.prevActive = false;
  }

  call(thread: number, caller: number, callee: number, depth: number): void {
    const g = this.graphs;
    g.add(EdgeType.Call, caller, callee);
    if (this.prevCallee >= 0) {
      if (this.prevCaller === caller) g.add(EdgeType.NextCall, this.prevCallee, callee);
      if (this.prevThread === thread) g.add(EdgeType.IntraThread, this.prevCallee, callee);
      else if (this.prevActive || this.interThread === 'adjacent') g.add(EdgeType.InterThread, this.prevCallee, callee);
    }
    this.prevThread = thread;
    this.prevCaller = caller;
    this.prevCallee = callee;
    this.prevDepth = depth;
    this.prevActive = true;
  }

  ret(thread: number, depth: number): void {
    if (thread === this.prevThread && depth <= this.prevDepth) this.prevActive = false;
  }
}
