/**
 * GRIFFIN Step 1 output: the coverage matrix M (thesis §5.3.1, Figure 11) —
 * rows are the ranked patterns F (row k = result.patterns[k], so row order is
 * the ranking), columns are the runs; a set cell (pattern, run) means the
 * pattern was observed in the run. Each pattern keeps its accesses with their
 * call stacks (bottom first, the top frame is the accessing method).
 *
 * Storage is built for 1,000 runs × 10,000 patterns: one bitset row per
 * pattern (Uint32Array words over runs) and, per run, the sorted list of
 * pattern rows it covers (a CSR view used by the clustering algorithms).
 */
import type { AnalysisResult, RankedPattern } from '../analysis';
import type { PatternCategory } from '../unicorn/patternCatalog';

export interface Frame {
  file: string;
  line: number;
  method: string;
  /** the recorder marked the location as test code (trace `loc.harness`) */
  harness?: boolean;
}

export interface MatrixAccess {
  /** thread role within the pattern: 1 = the thread of the pattern's first access */
  thread: 1 | 2;
  type: 'R' | 'W';
  variable: string;
  file: string;
  line: number;
  method: string;
  /** call stack, bottom first; never empty: the top frame is the accessing method */
  stack: Frame[];
  /** static identity of the access: type, variable, file, line */
  key: string;
  /** the thread's name at the pattern's first occurrence, when the trace names threads */
  threadName?: string;
}

export interface MatrixPattern {
  /** row in M = index in result.patterns */
  row: number;
  /** "P1".."P17" */
  id: string;
  kind: string;
  category: PatternCategory;
  key: string;
  accesses: MatrixAccess[];
}

export interface MatrixRun {
  execution: string;
  failing: boolean;
}

/** Rows of M built on demand: GRIFFIN reads the accesses of the few top patterns it clusters. */
export interface LazyMatrixPatterns {
  length: number;
  get(row: number): MatrixPattern;
}

export class CoverageMatrix {
  /** number of rows (patterns) */
  readonly rowCount: number;
  private readonly source: MatrixPattern[] | LazyMatrixPatterns;
  private readonly built = new Map<number, MatrixPattern>();
  readonly runs: MatrixRun[];
  /** words per bitset row */
  readonly words: number;
  /** pattern rows × ceil(runs/32) words */
  readonly bits: Uint32Array;
  /** per run: sorted pattern rows it covers */
  readonly runPatterns: Int32Array[];
  /** per pattern: number of passing / failing runs covering it */
  readonly passed: Int32Array;
  readonly failed: Int32Array;
  readonly totalFailed: number;
  readonly totalPassed: number;
  /** indices (into runs) of the failing runs, in run order */
  readonly failingRuns: number[];
  /** per row: its score in the ranked list F (set by fromAnalysis; otherwise computed from the formula) */
  scores?: Float64Array;
  /** per row: the ranking's group ("cause", "harness", "symptom") when the analysis has one */
  groups?: (string | undefined)[];

  /**
   * @param patterns rows of M in ranking order (F)
   * @param runs columns of M
   * @param covers per run, the pattern rows it covers (any order, duplicates ignored)
   */
  constructor(patterns: MatrixPattern[] | LazyMatrixPatterns, runs: MatrixRun[], covers: ArrayLike<number>[]) {
    if (covers.length !== runs.length) throw new Error(`coverage has ${covers.length} runs, expected ${runs.length}`);
    this.source = patterns;
    this.rowCount = patterns.length;
    this.runs = runs;
    const P = patterns.length;
    this.words = (runs.length + 31) >>> 5;
    this.bits = new Uint32Array(P * this.words);
    this.passed = new Int32Array(P);
    this.failed = new Int32Array(P);
    this.runPatterns = new Array(runs.length);
    this.failingRuns = [];
    let tf = 0;
    for (let r = 0; r < runs.length; r++) {
      const list = Int32Array.from(covers[r]).sort();
      let n = 0;
      for (let k = 0; k < list.length; k++) {
        const p = list[k];
        if (p < 0 || p >= P) throw new RangeError(`run ${runs[r].execution} covers unknown pattern row ${p}`);
        if (n > 0 && list[n - 1] === p) continue;
        list[n++] = p;
      }
      const rowList = n === list.length ? list : list.slice(0, n);
      this.runPatterns[r] = rowList;
      const failing = runs[r].failing;
      if (failing) {
        tf++;
        this.failingRuns.push(r);
      }
      const word = r >>> 5;
      const bit = 1 << (r & 31);
      const counts = failing ? this.failed : this.passed;
      for (let k = 0; k < n; k++) {
        const p = rowList[k];
        this.bits[p * this.words + word] |= bit;
        counts[p]++;
      }
    }
    this.totalFailed = tf;
    this.totalPassed = runs.length - tf;
  }

  /** Row `row`'s pattern (built on first use when the rows are lazy). */
  pattern(row: number): MatrixPattern {
    const src = this.source;
    if (Array.isArray(src)) return src[row];
    let p = this.built.get(row);
    if (!p) {
      if (!(row >= 0 && row < this.rowCount)) throw new RangeError(`no pattern row ${row} in M (${this.rowCount} rows)`);
      this.built.set(row, (p = (src as LazyMatrixPatterns).get(row)));
    }
    return p;
  }

  /** Every row's pattern (all built: prefer pattern(row)). */
  get patterns(): MatrixPattern[] {
    const src = this.source;
    if (Array.isArray(src)) return src;
    const all: MatrixPattern[] = [];
    for (let k = 0; k < this.rowCount; k++) all.push(this.pattern(k));
    return all;
  }

  /** M(pattern, run) */
  covers(row: number, run: number): boolean {
    return (this.bits[row * this.words + (run >>> 5)] & (1 << (run & 31))) !== 0;
  }

  /** indices of the runs covering a pattern */
  runsOf(row: number): number[] {
    const out: number[] = [];
    const base = row * this.words;
    for (let w = 0; w < this.words; w++) {
      let x = this.bits[base + w];
      while (x !== 0) {
        const low = x & -x;
        out.push((w << 5) + (31 - Math.clz32(low)));
        x ^= low;
      }
    }
    return out;
  }

  /** M from an analysis: rows = result.patterns (ranking order), columns = result.runs; rows described on demand. */
  static fromAnalysis(result: AnalysisResult): CoverageMatrix {
    const ranking = result.ranking;
    const n = ranking ? ranking.length : result.patterns.length;
    // registry id → row
    const idOf = (k: number) => {
      const id = ranking ? ranking.ids[k] : result.patterns[k].index;
      return Number.isInteger(id) && id >= 0 ? id : -1;
    };
    let maxId = -1;
    for (let k = 0; k < n; k++) maxId = Math.max(maxId, idOf(k));
    const rowOf = new Int32Array(maxId + 1).fill(-1);
    for (let k = 0; k < n; k++) if (idOf(k) >= 0) rowOf[idOf(k)] = k;
    const patterns: MatrixPattern[] | LazyMatrixPatterns = ranking
      ? { length: n, get: (row) => matrixPattern(ranking.describe(row), row) }
      : result.patterns.map((p, k) => matrixPattern(p, k));
    const runs = result.runs.map((r) => ({ execution: r.execution, failing: r.outcome === 'fail' }));
    const covers = result.runs.map((r) => {
      const out: number[] = [];
      for (const id of r.patterns) {
        const row = id <= maxId ? rowOf[id] : -1;
        if (row >= 0) out.push(row);
      }
      return out;
    });
    const m = new CoverageMatrix(patterns, runs, covers);
    if (ranking) {
      m.scores = ranking.scores;
      if (n > 0) m.groups = Array.from({ length: n }, (_, k) => ranking.group(k));
    } else {
      m.scores = Float64Array.from(result.patterns, (p) => p.score);
      const groups = result.patterns.map((p) => (p as { group?: string }).group);
      if (groups.some((g) => g !== undefined)) m.groups = groups;
    }
    return m;
  }
}

/** A pattern's row data, with every access given a non-empty stack. */
export function matrixPattern(p: RankedPattern, row: number): MatrixPattern {
  return {
    row,
    id: p.id,
    kind: p.kind,
    category: p.category,
    key: p.key,
    accesses: p.accesses.map((a) => {
      // copied once per distinct stack array (the analysis shares them), not per pattern: memory stays patterns + stacks, not patterns × depth
      const frames = framesOf(a.stack);
      return {
        thread: a.thread,
        type: a.type,
        variable: a.variable,
        file: a.file,
        line: a.line,
        method: a.method,
        stack: normalizeStack(frames, frameOf(a)),
        key: accessKey(a.type, a.variable, a.file, a.line),
        ...(a.threadName !== undefined ? { threadName: a.threadName } : {}),
      };
    }),
  };
}

/** file, line, method and the optional `harness` flag (when the analysis carries it) */
const copiedStacks = new WeakMap<readonly object[], Frame[]>();
function framesOf(stack: readonly { file: string; line: number; method: string; harness?: boolean }[]): Frame[] {
  let frames = copiedStacks.get(stack);
  if (!frames) copiedStacks.set(stack, (frames = stack.map((f) => copiedFrame(f))));
  return frames;
}

/** One copy per frame object (the analysis shares one per location). */
const copiedFrames = new WeakMap<object, Frame>();
function copiedFrame(f: { file: string; line: number; method: string; harness?: boolean }): Frame {
  let c = copiedFrames.get(f);
  if (!c) copiedFrames.set(f, (c = frameOf(f)));
  return c;
}

function frameOf(f: { file: string; line: number; method: string; harness?: boolean }): Frame {
  return f.harness ? { file: f.file, line: f.line, method: f.method, harness: true } : { file: f.file, line: f.line, method: f.method };
}

export function accessKey(type: string, variable: string, file: string, line: number): string {
  return `${type}:${variable}@${file}:${line}`;
}

/**
 * Makes the top frame the accessing method at the access line: traces whose
 * stacks are rebuilt from ENTER events have the method's first line on top,
 * and traces without stacks have none at all.
 */
export function normalizeStack(frames: Frame[], access: Frame): Frame[] {
  const top = frames[frames.length - 1];
  if (!top) return [access];
  if (top.method === access.method && top.file === access.file) {
    if (top.line === access.line) return frames;
    return [...frames.slice(0, -1), access];
  }
  return [...frames, access];
}
