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
  /** the value read or written at the pattern's first occurrence, when the trace records values */
  value?: unknown;
  /** a library call recorded at this user line (trace loc.call), e.g. "java.util.HashMap.put" */
  call?: string;
  /** the access is inside library code: the library location (file/line/method are then the user's caller) */
  library?: { file: string; line: number; method: string };
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

/**
 * Coverage given by the runs' pattern ids (an analysis' runs) and the rows' ids (its ranking), with the
 * per-row failing/passing counts already known (the ranking's): M is then read without building it.
 */
export interface IdCoverage {
  /** per run (column): its pattern ids */
  runIds: ArrayLike<number>[];
  /** per row: its pattern id */
  rowIds: Int32Array;
  /** per row: number of failing / passing runs covering it */
  failed: Int32Array;
  passed: Int32Array;
}

export class CoverageMatrix {
  /** number of rows (patterns) */
  readonly rowCount: number;
  private readonly source: MatrixPattern[] | LazyMatrixPatterns;
  private readonly built = new Map<number, MatrixPattern>();
  readonly runs: MatrixRun[];
  /** words per bitset row */
  readonly words: number;
  /** per pattern: number of passing / failing runs covering it */
  readonly passed: Int32Array;
  readonly failed: Int32Array;
  readonly totalFailed: number;
  readonly totalPassed: number;
  /** indices (into runs) of the failing runs, in run order */
  readonly failingRuns: number[];
  /** per row: its score in the ranked list F (set by fromAnalysis; otherwise computed from the formula) */
  scores?: Float64Array;
  /** per row: the p-value of its evidence by order (the ranking's orderP; NaN: none), when the analysis computed it */
  orderP?: Float64Array;
  /** per row: the ranking's group ("cause", "harness", "symptom") when the analysis has one */
  groups?: (string | undefined)[];
  /** per row: the ranking's group (when given by a ranking: read with group(row)) */
  private groupOfRow?: (row: number) => string | undefined;

  /** pattern rows × ceil(runs/32) words (built on first use when M is given by ids) */
  private bitRows: Uint32Array | undefined;
  /** per run: sorted pattern rows it covers (built per run on first use when M is given by ids) */
  private readonly rowLists: (Int32Array | undefined)[];
  /** M given by ids: per run its pattern ids ascending, and pattern id → row */
  private readonly byIds: { runIds: ArrayLike<number>[]; rowIds: Int32Array; rowOf: Int32Array } | undefined;
  /** per run: its first rows (runTop), and how many were asked for */
  private readonly tops: (Int32Array | undefined)[];
  private readonly topsOf: Int32Array;
  /** runsOf answers when M is given by ids */
  private readonly runsOfRow = new Map<number, number[]>();

  /**
   * @param patterns rows of M in ranking order (F)
   * @param runs columns of M
   * @param covers per run, the pattern rows it covers (any order, duplicates ignored); or the
   *   coverage by pattern ids (IdCoverage: an analysis' runs and ranking), read lazily
   */
  constructor(patterns: MatrixPattern[] | LazyMatrixPatterns, runs: MatrixRun[], covers: ArrayLike<number>[] | IdCoverage) {
    const byIds = !Array.isArray(covers);
    const runCount = byIds ? (covers as IdCoverage).runIds.length : (covers as ArrayLike<number>[]).length;
    if (runCount !== runs.length) throw new Error(`coverage has ${runCount} runs, expected ${runs.length}`);
    this.source = patterns;
    this.rowCount = patterns.length;
    this.runs = runs;
    const P = patterns.length;
    this.words = (runs.length + 31) >>> 5;
    this.rowLists = new Array(runs.length);
    this.tops = new Array(runs.length);
    this.topsOf = new Int32Array(runs.length);
    this.failingRuns = [];
    for (let r = 0; r < runs.length; r++) if (runs[r].failing) this.failingRuns.push(r);
    this.totalFailed = this.failingRuns.length;
    this.totalPassed = runs.length - this.totalFailed;
    if (byIds) {
      const c = covers as IdCoverage;
      if (c.rowIds.length !== P || c.failed.length !== P || c.passed.length !== P) throw new Error(`coverage has ${c.rowIds.length} rows, expected ${P}`);
      let maxId = -1;
      for (let k = 0; k < P; k++) if (c.rowIds[k] > maxId) maxId = c.rowIds[k];
      const rowOf = new Int32Array(maxId + 1).fill(-1);
      for (let k = 0; k < P; k++) if (c.rowIds[k] >= 0) rowOf[c.rowIds[k]] = k;
      this.byIds = { runIds: c.runIds.map(ascending), rowIds: c.rowIds, rowOf };
      this.failed = c.failed;
      this.passed = c.passed;
      return;
    }
    this.byIds = undefined;
    this.bitRows = new Uint32Array(P * this.words);
    this.passed = new Int32Array(P);
    this.failed = new Int32Array(P);
    const list = covers as ArrayLike<number>[];
    for (let r = 0; r < runs.length; r++) {
      const rowList = sortedRows(list[r], P, runs[r].execution);
      this.rowLists[r] = rowList;
      const word = r >>> 5;
      const bit = 1 << (r & 31);
      const counts = runs[r].failing ? this.failed : this.passed;
      for (let k = 0; k < rowList.length; k++) {
        const p = rowList[k];
        this.bitRows[p * this.words + word] |= bit;
        counts[p]++;
      }
    }
  }

  /** pattern rows × ceil(runs/32) words: one bitset row per pattern */
  get bits(): Uint32Array {
    if (!this.bitRows) {
      const bits = new Uint32Array(this.rowCount * this.words);
      for (let r = 0; r < this.runs.length; r++) {
        const rows = this.runRows(r);
        const word = r >>> 5;
        const bit = 1 << (r & 31);
        for (let k = 0; k < rows.length; k++) bits[rows[k] * this.words + word] |= bit;
      }
      this.bitRows = bits;
    }
    return this.bitRows;
  }

  /** per run: sorted pattern rows it covers (every run's: prefer runRows / runTop) */
  get runPatterns(): Int32Array[] {
    return this.runs.map((_, r) => this.runRows(r));
  }

  /** The sorted pattern rows run `r` covers. */
  runRows(r: number): Int32Array {
    let rows = this.rowLists[r];
    if (!rows) {
      const b = this.byIds!;
      const ids = b.runIds[r];
      const out: number[] = [];
      for (let k = 0; k < ids.length; k++) {
        const row = ids[k] < b.rowOf.length ? b.rowOf[ids[k]] : -1;
        if (row >= 0) out.push(row);
      }
      this.rowLists[r] = rows = sortedRows(out, this.rowCount, this.runs[r].execution);
    }
    return rows;
  }

  /**
   * Calls `visit(row)` for each pattern row run `r` covers, in no particular order and without building
   * the run's sorted row list (evidence clustering reads every failing run once).
   */
  forEachRow(r: number, visit: (row: number) => void): void {
    const known = this.rowLists[r];
    if (known || !this.byIds) {
      const rows = known ?? this.runRows(r);
      for (let k = 0; k < rows.length; k++) visit(rows[k]);
      return;
    }
    const b = this.byIds;
    const ids = b.runIds[r];
    for (let k = 0; k < ids.length; k++) {
      const row = ids[k] < b.rowOf.length ? b.rowOf[ids[k]] : -1;
      if (row >= 0) visit(row);
    }
  }

  /**
   * The first `t` rows (in F's order) run `r` covers: runRows(r).subarray(0, t), found without sorting
   * the run's rows when M is given by ids.
   */
  runTop(r: number, t: number): Int32Array {
    const full = this.rowLists[r];
    if (full) return full.subarray(0, t);
    const known = this.tops[r];
    if (known && (this.topsOf[r] >= t || known.length < this.topsOf[r])) return known.subarray(0, t);
    const b = this.byIds!;
    const ids = b.runIds[r];
    const top = new Int32Array(t);
    let n = 0;
    for (let k = 0; k < ids.length; k++) {
      const row = ids[k] < b.rowOf.length ? b.rowOf[ids[k]] : -1;
      if (row < 0 || (n === t && row >= top[t - 1])) continue;
      let q = n === t ? t - 1 : n;
      let dup = false;
      for (let x = 0; x < n; x++) if (top[x] === row) dup = true;
      if (dup) continue;
      if (n < t) n++;
      while (q > 0 && top[q - 1] > row) {
        top[q] = top[q - 1];
        q--;
      }
      top[q] = row;
    }
    const kept = n === t ? top : top.slice(0, n);
    this.tops[r] = kept;
    this.topsOf[r] = t;
    return kept;
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

  /** The ranking's group of a row ("cause", "harness", "symptom"), when known. */
  group(row: number): string | undefined {
    if (this.groupOfRow) return this.groupOfRow(row);
    return this.groups?.[row];
  }

  /** M(pattern, run) */
  covers(row: number, run: number): boolean {
    if (this.bitRows || !this.byIds) return (this.bits[row * this.words + (run >>> 5)] & (1 << (run & 31))) !== 0;
    return hasId(this.byIds.runIds[run], this.byIds.rowIds[row]);
  }

  /** indices of the runs covering a pattern */
  runsOf(row: number): number[] {
    const out: number[] = [];
    if (!this.bitRows && this.byIds) {
      // GRIFFIN asks for the same lead rows again and again (one per pattern cluster)
      let known = this.runsOfRow.get(row);
      if (!known) {
        known = [];
        const id = this.byIds.rowIds[row];
        for (let r = 0; r < this.runs.length; r++) if (hasId(this.byIds.runIds[r], id)) known.push(r);
        this.runsOfRow.set(row, known);
      }
      return known.slice();
    }
    const bits = this.bits;
    const base = row * this.words;
    for (let w = 0; w < this.words; w++) {
      let x = bits[base + w];
      while (x !== 0) {
        const low = x & -x;
        out.push((w << 5) + (31 - Math.clz32(low)));
        x ^= low;
      }
    }
    return out;
  }

  /**
   * M from an analysis: rows = result.patterns (ranking order), columns = result.runs; rows described on
   * demand. With a compact ranking M is read from the runs' pattern ids and the ranking's counts, so
   * building it costs O(runs), not O(patterns × runs).
   */
  static fromAnalysis(result: AnalysisResult): CoverageMatrix {
    const ranking = result.ranking;
    const runs = result.runs.map((r) => ({ execution: r.execution, failing: r.outcome === 'fail' }));
    if (ranking) {
      const n = ranking.length;
      const m = new CoverageMatrix(
        { length: n, get: (row) => matrixPattern(ranking.describe(row), row) },
        runs,
        { runIds: result.runs.map((r) => r.patterns), rowIds: ranking.ids, failed: ranking.failed, passed: ranking.passed },
      );
      m.scores = ranking.scores;
      if (ranking.orderP) m.orderP = ranking.orderP;
      if (n > 0) m.groupOfRow = (row) => ranking.group(row);
      return m;
    }
    const n = result.patterns.length;
    // registry id → row
    const idOf = (k: number) => {
      const id = result.patterns[k].index;
      return Number.isInteger(id) && id >= 0 ? id : -1;
    };
    let maxId = -1;
    for (let k = 0; k < n; k++) maxId = Math.max(maxId, idOf(k));
    const rowOf = new Int32Array(maxId + 1).fill(-1);
    for (let k = 0; k < n; k++) if (idOf(k) >= 0) rowOf[idOf(k)] = k;
    const patterns = result.patterns.map((p, k) => matrixPattern(p, k));
    const covers = result.runs.map((r) => {
      const out: number[] = [];
      for (const id of r.patterns) {
        const row = id <= maxId ? rowOf[id] : -1;
        if (row >= 0) out.push(row);
      }
      return out;
    });
    const m = new CoverageMatrix(patterns, runs, covers);
    m.scores = Float64Array.from(result.patterns, (p) => p.score);
    const groups = result.patterns.map((p) => (p as { group?: string }).group);
    if (groups.some((g) => g !== undefined)) m.groups = groups;
    return m;
  }
}

/** A run's rows sorted, duplicates dropped; throws on a row outside M. */
function sortedRows(rows: ArrayLike<number>, P: number, execution: string): Int32Array {
  const list = Int32Array.from(rows).sort();
  let n = 0;
  for (let k = 0; k < list.length; k++) {
    const p = list[k];
    if (p < 0 || p >= P) throw new RangeError(`run ${execution} covers unknown pattern row ${p}`);
    if (n > 0 && list[n - 1] === p) continue;
    list[n++] = p;
  }
  return n === list.length ? list : list.slice(0, n);
}

/** The ids ascending (as they are in an analysis' runs; sorted when not). */
function ascending(ids: ArrayLike<number>): ArrayLike<number> {
  for (let k = 1; k < ids.length; k++) if (ids[k] < ids[k - 1]) return Float64Array.from(ids).sort();
  return ids;
}

/** Binary search of an ascending list. */
function hasId(ids: ArrayLike<number>, id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid];
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
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
        // what the fix advice tells (fixAdvice.ts): the value seen, the library call, a race inside library code
        ...(a.value !== undefined ? { value: a.value } : {}),
        ...(a.call !== undefined ? { call: a.call } : {}),
        ...(a.library !== undefined ? { library: a.library } : {}),
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
