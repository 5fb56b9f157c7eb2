/**
 * The method ranking (seed 003, Sect. 2.3 and Algorithm 2 lines 12–17, without contexts): the
 * feature table has one row per run and one column per edge of the chosen graph representation
 * (cells: the edge's weight in the run, 0 when absent), the class is the run's outcome; each
 * column's InfoGain is the edge's suspiciousness, and a method's suspiciousness is the maximum over
 * its outgoing edges (the call site is active in the call, the sink is not). The edge that gives
 * the maximum is reported with the method. Ties are broken by the method's lines of code,
 * descending (the seed's second criterion), then by name.
 *
 * Class balance: the seed balances failed and correct runs (Sect. 5.1, by running more and
 * dropping runs). Braid's default weighs each run by 1/|its class| instead (every run counts, the
 * result is deterministic, and both classes have the same mass, which is what balancing achieves);
 * `subsample` keeps min(F, P) runs of each class chosen by a seeded shuffle (the seed's way) and
 * `none` uses the runs as they are.
 */
import { MethodInfo, MethodTable, ROOT_METHOD } from './callGraph';
import { informationGainSparse, RUN_BITS } from './informationGain';
import { EDGE_ARROWS, EDGE_TYPE_NAMES, EdgeType, EdgeTypeName, WeightedGraphSet } from './totalReduction';
import { mulberry32 } from '../seededRandom';

/** Which edges are features: the call graph alone, or it plus one (or every) kind of temporal edge. */
export type GraphRepresentation = 'call' | 'next' | 'inter' | 'intra' | 'all';
export const GRAPH_REPRESENTATIONS: readonly GraphRepresentation[] = ['call', 'next', 'inter', 'intra', 'all'];
export type ClassBalance = 'weights' | 'subsample' | 'none';
export const CLASS_BALANCES: readonly ClassBalance[] = ['weights', 'subsample', 'none'];

export interface MethodRankingOptions {
  /** default 'inter' (the seed's best representation, Sect. 5.2) */
  representation?: GraphRepresentation;
  /** default 'weights' */
  balance?: ClassBalance;
  /** seed of the `subsample` shuffle (default 1) */
  seed?: number;
  /** lines of code of a method from its source, when it can be found; else the span of recorded lines is used */
  linesOfCode?: (m: MethodInfo) => { loc: number; line?: number; endLine?: number } | undefined;
}

export interface ScoredEdge {
  kind: EdgeTypeName;
  source: string;
  target: string;
  score: number;
  /** runs with the edge */
  failedRuns: number;
  passedRuns: number;
  /** mean weight per failed / passed run (0 for runs without the edge) */
  meanFailed: number;
  meanPassed: number;
  /** "a →it b" */
  text: string;
}

export interface RankedMethod {
  /** position in the list, 1-based (what a developer inspects top-down) */
  rank: number;
  score: number;
  method: string;
  file: string;
  /** declaration line from the source, else the entry line, else the smallest recorded line */
  line: number;
  /** last line of the method: its closing brace from the source, else the largest recorded line */
  endLine: number;
  /** lines of code (tie-breaker) and where the figure comes from */
  loc: number;
  locSource: 'source' | 'span';
  /** smallest and largest recorded line, and the entry line (0: none) */
  span: { min: number; max: number; entry: number };
  /** the outgoing edge with the largest InfoGain (absent for a method that calls nothing) */
  edge?: ScoredEdge;
  /** runs in which the method was called (or called something) */
  runs: { failed: number; passed: number };
}

export interface MethodRanking {
  methods: RankedMethod[];
  /** every edge of the representation, best first */
  edges: ScoredEdge[];
  executions: { total: number; failed: number; passed: number; used: number };
  representation: GraphRepresentation;
  balance: ClassBalance;
  message?: string;
}

const SAME = 1e-9;

function includes(rep: GraphRepresentation, type: EdgeType): boolean {
  if (type === EdgeType.Call || rep === 'all') return true;
  return (rep === 'next' && type === EdgeType.NextCall) || (rep === 'inter' && type === EdgeType.InterThread) || (rep === 'intra' && type === EdgeType.IntraThread);
}


/** Run weights of the feature table for a class balance. */
export function runWeights(failed: Uint8Array, balance: ClassBalance, seed = 1): Float64Array {
  const n = failed.length;
  const w = new Float64Array(n);
  let f = 0;
  for (let r = 0; r < n; r++) f += failed[r];
  const p = n - f;
  if (balance === 'none' || f === 0 || p === 0) return w.fill(1);
  if (balance === 'weights') {
    for (let r = 0; r < n; r++) w[r] = failed[r] ? 1 / f : 1 / p;
    return w;
  }
  // subsample: keep min(f, p) runs of each class, chosen by a seeded Fisher–Yates shuffle
  const keep = Math.min(f, p);
  const rnd = mulberry32(seed);
  for (const cls of [1, 0]) {
    const idx: number[] = [];
    for (let r = 0; r < n; r++) if (failed[r] === cls) idx.push(r);
    for (let k = idx.length - 1; k > 0; k--) {
      const j = Math.floor(rnd() * (k + 1));
      const t = idx[k];
      idx[k] = idx[j];
      idx[j] = t;
    }
    for (let k = 0; k < keep; k++) w[idx[k]] = 1;
  }
  return w;
}

export function rankMethods(graphs: WeightedGraphSet, table: MethodTable, options: MethodRankingOptions = {}): MethodRanking {
  const rep = options.representation ?? 'inter';
  const balance = options.balance ?? 'weights';
  const runs = graphs.runs.length;
  if (runs >= 2 ** RUN_BITS) throw new Error(`at most ${2 ** RUN_BITS - 1} runs can be ranked, got ${runs}`);
  const failed = new Uint8Array(runs);
  let nf = 0;
  for (let r = 0; r < runs; r++) if (graphs.runs[r].outcome === 'fail') (failed[r] = 1), nf++;
  const np = runs - nf;
  const weight = runWeights(failed, balance, options.seed ?? 1);
  let tf = 0;
  let tp = 0;
  let used = 0;
  for (let r = 0; r < runs; r++) {
    if (weight[r] > 0) used++;
    if (failed[r]) tf += weight[r];
    else tp += weight[r];
  }

  // transpose the run rows into edge columns (CSR by edge), selected edge types only
  const E = graphs.edges.size;
  const types = graphs.edges.types;
  const sel = new Uint8Array(E);
  for (let e = 0; e < E; e++) sel[e] = includes(rep, types[e]) ? 1 : 0;
  const start = new Int32Array(E + 1);
  const re = graphs.runEdges;
  const rw = graphs.runWeights;
  const nnz = graphs.nonZeros;
  for (let k = 0; k < nnz; k++) if (sel[re[k]]) start[re[k] + 1]++;
  for (let e = 0; e < E; e++) start[e + 1] += start[e];
  const fill = start.slice(0, E);
  const packed = new Float64Array(start[E]);
  const failedRunsOf = new Int32Array(E);
  const sumFailed = new Float64Array(E);
  const sumPassed = new Float64Array(E);
  const scale = 2 ** RUN_BITS;
  for (let r = 0; r < runs; r++) {
    for (let k = graphs.runStart[r]; k < graphs.runStart[r + 1]; k++) {
      const e = re[k];
      if (!sel[e]) continue;
      packed[fill[e]++] = rw[k] * scale + r;
      if (failed[r]) {
        failedRunsOf[e]++;
        sumFailed[e] += rw[k];
      } else sumPassed[e] += rw[k];
    }
  }

  const score = new Float64Array(E);
  const best = new Int32Array(table.size).fill(-1);
  const sources = graphs.edges.sources;
  const targets = graphs.edges.targets;
  const scored: number[] = [];
  for (let e = 0; e < E; e++) {
    const n = start[e + 1] - start[e];
    if (n === 0) continue;
    const col = packed.subarray(start[e], start[e + 1]);
    col.sort();
    score[e] = informationGainSparse(col, n, weight, failed, tf, tp);
    scored.push(e);
    const s = sources[e];
    const b = best[s];
    if (b < 0 || score[e] > score[b] + SAME || (Math.abs(score[e] - score[b]) <= SAME && edgeOrder(e, b) < 0)) best[s] = e;
  }

  function edgeOrder(a: number, b: number): number {
    // equal InfoGain: a call edge before temporal ones, then by target name
    if (types[a] !== types[b]) return types[a] - types[b];
    return table.methods[targets[a]].name < table.methods[targets[b]].name ? -1 : 1;
  }

  const describe = (e: number): ScoredEdge => {
    const source = table.methods[sources[e]].name;
    const target = table.methods[targets[e]].name;
    const n = start[e + 1] - start[e];
    return {
      kind: EDGE_TYPE_NAMES[types[e]],
      source,
      target,
      score: score[e],
      failedRuns: failedRunsOf[e],
      passedRuns: n - failedRunsOf[e],
      meanFailed: nf ? sumFailed[e] / nf : 0,
      meanPassed: np ? sumPassed[e] / np : 0,
      text: `${source} ${EDGE_ARROWS[types[e]]} ${target}`,
    };
  };

  // runs in which each method occurs (as caller or callee)
  const M = table.size;
  const stamp = new Int32Array(M).fill(-1);
  const inFailed = new Int32Array(M);
  const inPassed = new Int32Array(M);
  for (let r = 0; r < runs; r++) {
    for (let k = graphs.runStart[r]; k < graphs.runStart[r + 1]; k++) {
      const e = re[k];
      if (types[e] !== EdgeType.Call) continue;
      for (let side = 0; side < 2; side++) {
        const m = side === 0 ? sources[e] : targets[e];
        if (stamp[m] === r) continue;
        stamp[m] = r;
        if (failed[r]) inFailed[m]++;
        else inPassed[m]++;
      }
    }
  }

  const methods: RankedMethod[] = [];
  for (let m = 0; m < M; m++) {
    if (m === ROOT_METHOD) continue;
    const info = table.methods[m];
    const fromSource = options.linesOfCode?.(info);
    const span = info.minLine > 0 ? info.maxLine - info.minLine + 1 : 0;
    methods.push({
      rank: 0,
      score: best[m] >= 0 ? score[best[m]] : 0,
      method: info.name,
      file: info.file,
      line: fromSource?.line ?? (info.entryLine || info.minLine),
      endLine: Math.max(fromSource?.endLine ?? 0, info.maxLine),
      loc: fromSource ? fromSource.loc : span,
      locSource: fromSource ? 'source' : 'span',
      span: { min: info.minLine, max: info.maxLine, entry: info.entryLine },
      edge: best[m] >= 0 ? describe(best[m]) : undefined,
      runs: { failed: inFailed[m], passed: inPassed[m] },
    });
  }
  methods.sort(compareMethods);
  methods.forEach((x, k) => (x.rank = k + 1));
  const edges = scored.sort((a, b) => score[b] - score[a] || a - b).map(describe);
  let message: string | undefined;
  if (runs === 0) message = 'No runs to rank.';
  else if (nf === 0) message = 'No failing runs: every method scores 0.';
  else if (np === 0) message = 'No passing runs: every method scores 0.';
  return { methods, edges, executions: { total: runs, failed: nf, passed: np, used }, representation: rep, balance, message };
}

/** Suspiciousness descending; equal scores: lines of code descending, then method name. */
export function compareMethods(a: Pick<RankedMethod, 'score' | 'loc' | 'method'>, b: Pick<RankedMethod, 'score' | 'loc' | 'method'>): number {
  if (Math.abs(a.score - b.score) > SAME) return b.score - a.score;
  if (a.loc !== b.loc) return b.loc - a.loc;
  return a.method < b.method ? -1 : a.method > b.method ? 1 : 0;
}
