/**
 * The weighted total reduction R_total_w (seed 003, Definition 1): all vertices with the same label
 * become one vertex, every edge of the unreduced graph is mapped to the edge between the reduced
 * vertices, and an edge's weight counts how many edges were mapped to it. Recursion becomes a
 * self-edge. The temporal edges of Sect. 3.2 (temporalEdges.ts) are reduced the same way; each
 * edge has a type, so a call edge and a temporal edge between the same methods stay apart.
 *
 * Storage for many runs, allocation-light: edges `(type, source, target)` are interned once for
 * all runs in an open-addressing table of typed arrays; the current run counts weights in a dense
 * array indexed by edge id (with a list of the touched ids), and `endRun` appends the run's
 * non-zero weights to one growing column (CSR by run).
 */
import type { Outcome } from '../trace/traceFormat';

export const enum EdgeType {
  Call = 0,
  NextCall = 1,
  InterThread = 2,
  IntraThread = 3,
}

export const EDGE_TYPE_NAMES = ['call', 'next', 'inter', 'intra'] as const;
export type EdgeTypeName = (typeof EDGE_TYPE_NAMES)[number];
/** The arrow of each edge type, as in the seed's notation (→, →nc, →it, →in). */
export const EDGE_ARROWS = ['→', '→nc', '→it', '→in'] as const;

/** Interned edges (type, source method, target method) → dense ids. */
export class EdgeIndex {
  private keys = new Int32Array(1024).fill(-1);
  private slots = new Int32Array(1024);
  private mask = 1023;
  types = new Uint8Array(256);
  sources = new Int32Array(256);
  targets = new Int32Array(256);
  size = 0;

  /** The id of the edge, interned on first use. Methods must be < 2^29. */
  intern(type: EdgeType, source: number, target: number): number {
    const hi = (source << 2) | type;
    let h = (Math.imul(hi, 0x9e3779b1) ^ Math.imul(target, 0x85ebca77)) & this.mask;
    const keys = this.keys;
    for (;;) {
      const k = keys[h * 2];
      if (k === -1) break;
      if (k === hi && keys[h * 2 + 1] === target) return this.slots[h];
      h = (h + 1) & this.mask;
    }
    const id = this.size++;
    if (id >= this.types.length) this.growEdges();
    this.types[id] = type;
    this.sources[id] = source;
    this.targets[id] = target;
    keys[h * 2] = hi;
    keys[h * 2 + 1] = target;
    this.slots[h] = id;
    if (this.size * 2 > this.mask) this.rehash();
    return id;
  }

  /** The id of the edge, or -1. */
  find(type: EdgeType, source: number, target: number): number {
    const hi = (source << 2) | type;
    let h = (Math.imul(hi, 0x9e3779b1) ^ Math.imul(target, 0x85ebca77)) & this.mask;
    for (;;) {
      const k = this.keys[h * 2];
      if (k === -1) return -1;
      if (k === hi && this.keys[h * 2 + 1] === target) return this.slots[h];
      h = (h + 1) & this.mask;
    }
  }

  private growEdges(): void {
    const cap = this.types.length * 2;
    const t = new Uint8Array(cap);
    t.set(this.types);
    const s = new Int32Array(cap);
    s.set(this.sources);
    const g = new Int32Array(cap);
    g.set(this.targets);
    this.types = t;
    this.sources = s;
    this.targets = g;
  }

  private rehash(): void {
    const cap = (this.mask + 1) * 2;
    this.keys = new Int32Array(cap * 2).fill(-1);
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
    for (let id = 0; id < this.size; id++) {
      const hi = (this.sources[id] << 2) | this.types[id];
      const target = this.targets[id];
      let h = (Math.imul(hi, 0x9e3779b1) ^ Math.imul(target, 0x85ebca77)) & this.mask;
      while (this.keys[h * 2] !== -1) h = (h + 1) & this.mask;
      this.keys[h * 2] = hi;
      this.keys[h * 2 + 1] = target;
      this.slots[h] = id;
    }
  }
}

export interface RunInfo {
  execution: string;
  file?: string;
  outcome: Outcome;
  /** calls seen in the run */
  calls: number;
}

/** The R_total_w-reduced graphs of many runs: one row of edge weights per run. */
export class WeightedGraphSet {
  readonly edges = new EdgeIndex();
  readonly runs: RunInfo[] = [];
  /** run r's edges are runEdges[runStart[r] .. runStart[r+1]) with weights runWeights[...] */
  runStart: number[] = [0];
  runEdges = new Int32Array(1024);
  runWeights = new Float64Array(1024);
  private nnz = 0;
  /** weights of the current run, by edge id */
  private current = new Float64Array(1024);
  private touched = new Int32Array(256);
  private touchedCount = 0;

  /** Adds one edge occurrence to the current run (Definition 1: weight +1). */
  add(type: EdgeType, source: number, target: number): void {
    const id = this.edges.intern(type, source, target);
    if (id >= this.current.length) {
      const next = new Float64Array(this.current.length * 2);
      next.set(this.current);
      this.current = next;
    }
    if (this.current[id]++ === 0) {
      if (this.touchedCount === this.touched.length) {
        const next = new Int32Array(this.touched.length * 2);
        next.set(this.touched);
        this.touched = next;
      }
      this.touched[this.touchedCount++] = id;
    }
  }

  /** Closes the current run: its non-zero weights become its row. */
  endRun(info: RunInfo): void {
    const n = this.touchedCount;
    if (this.nnz + n > this.runEdges.length) {
      let cap = this.runEdges.length;
      while (cap < this.nnz + n) cap *= 2;
      const e = new Int32Array(cap);
      e.set(this.runEdges.subarray(0, this.nnz));
      const w = new Float64Array(cap);
      w.set(this.runWeights.subarray(0, this.nnz));
      this.runEdges = e;
      this.runWeights = w;
    }
    const ids = this.touched.subarray(0, n).sort();
    for (let k = 0; k < n; k++) {
      const id = ids[k];
      this.runEdges[this.nnz] = id;
      this.runWeights[this.nnz] = this.current[id];
      this.nnz++;
      this.current[id] = 0;
    }
    this.touchedCount = 0;
    this.runs.push(info);
    this.runStart.push(this.nnz);
  }

  /** Drops the current run (a trace that could not be read to the end). */
  abortRun(): void {
    for (let k = 0; k < this.touchedCount; k++) this.current[this.touched[k]] = 0;
    this.touchedCount = 0;
  }

  /** The weight of an edge in run r (0 when the run does not have it). */
  weight(run: number, type: EdgeType, source: number, target: number): number {
    const id = this.edges.find(type, source, target);
    if (id < 0) return 0;
    for (let k = this.runStart[run]; k < this.runStart[run + 1]; k++) if (this.runEdges[k] === id) return this.runWeights[k];
    return 0;
  }

  get nonZeros(): number {
    return this.nnz;
  }
}
