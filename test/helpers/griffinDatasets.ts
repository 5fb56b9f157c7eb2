/**
 * Generated data for GRIFFIN: synthetic coverage matrices with several
 * independent bugs and known ground truth per failing run, the thesis'
 * F-measure (§5.4.3), and the coverage data of Figure 11.
 */
import { CoverageMatrix, MatrixPattern } from '../../server/src/engine/griffin/coverageMatrix';
import { suspiciousness } from '../../server/src/engine/ranking/suspiciousness';
import { rng } from './seededRandom';

/**
 * Van Rijsbergen's F-measure of a clustering C against the optimal
 * clustering O (thesis §5.4.3):
 *   F(Ci, Oj) = 2·R·P / (R + P), P = |Ci ∩ Oj| / |Ci|, R = |Ci ∩ Oj| / |Oj|
 *   F-measure(C) = Σi |Ci| / N · maxj F(Ci, Oj)
 */
export function fMeasure(clusters: readonly (readonly (number | string)[])[], optimal: readonly (readonly (number | string)[])[]): number {
  const N = clusters.reduce((n, c) => n + c.length, 0);
  if (N === 0) return 0;
  const opt = optimal.map((o) => new Set(o));
  let f = 0;
  for (const c of clusters) {
    let best = 0;
    for (const o of opt) {
      const common = c.filter((x) => o.has(x)).length;
      if (common === 0) continue;
      const P = common / c.length;
      const R = common / o.size;
      best = Math.max(best, (2 * R * P) / (R + P));
    }
    f += (c.length / N) * best;
  }
  return f;
}

/** Ground-truth clusters: failing run indices grouped by bug. */
export function optimalClusters(truth: ReadonlyMap<number, number>): number[][] {
  const by = new Map<number, number[]>();
  for (const [run, bug] of truth) {
    let l = by.get(bug);
    if (!l) by.set(bug, (l = []));
    l.push(run);
  }
  return [...by.values()];
}

export interface SyntheticOptions {
  runs: number;
  patterns: number;
  bugs: number;
  /** fraction of runs that fail (each with exactly one bug) */
  failRate?: number;
  /** patterns per bug: [min, max] */
  bugPatterns?: [number, number];
  /** how many of a bug's patterns a partial manifestation misses (default 3) */
  partialMiss?: number;
  /** chance that a failing run shows the partial manifestation (default 0.3) */
  partialRate?: number;
  /** chance that a run misses a given common (structural) noise pattern (default 0.03) */
  noiseMiss?: number;
  /** rare noise patterns (unusual benign interleavings) per run, on average (default 1) */
  rarePerRun?: number;
  /** fraction of the noise patterns that are rare (default 0.5) */
  rareShare?: number;
  seed?: number;
}

export interface SyntheticDataset {
  matrix: CoverageMatrix;
  /** failing run index → bug (0-based) */
  truth: Map<number, number>;
  /** bug → its pattern rows */
  bugRows: number[][];
}

/**
 * A coverage matrix like UNICORN's for repeated runs of one test on a program
 * with several independent bugs.
 * - A failing run shows exactly one bug. The bug's bad interleaving yields
 *   the same patterns each time (the Vector example: E1–E3 see PI1–PI5), or,
 *   in a partial manifestation, all but a few of them.
 * - A few of a bug's patterns are harmless on their own and also show up in
 *   some passing runs (like PI5 of Table 9).
 * - Noise (benign interleavings): common patterns that almost every run
 *   shows (each run misses a few at random), and rare patterns that a run
 *   shows now and then, passing or failing alike.
 * Rows are sorted by the global Jaccard ranking, as M's rows are.
 */
export function syntheticDataset(o: SyntheticOptions): SyntheticDataset {
  const rand = rng(o.seed ?? 1);
  const failRate = o.failRate ?? 0.3;
  const [bmin, bmax] = o.bugPatterns ?? [8, 30];
  const partialMiss = o.partialMiss ?? 3;
  const partialRate = o.partialRate ?? 0.3;
  const noiseMiss = o.noiseMiss ?? 0.03;
  const rarePerRun = o.rarePerRun ?? 1;
  const bugPats: number[][] = [];
  let next = 0;
  for (let b = 0; b < o.bugs; b++) {
    const n = bmin + Math.floor(rand() * (bmax - bmin + 1));
    bugPats.push(Array.from({ length: n }, () => next++));
  }
  const noiseStart = next;
  const noiseCount = o.patterns - noiseStart;
  if (noiseCount <= 1) throw new Error('not enough patterns for the bugs');
  const rareCount = Math.max(1, Math.floor(noiseCount * (o.rareShare ?? 0.5)));
  const commonStart = noiseStart + rareCount;
  const commonCount = o.patterns - commonStart;

  const failing: boolean[] = [];
  const covers: number[][] = [];
  const truth = new Map<number, number>();
  for (let r = 0; r < o.runs; r++) {
    const set: number[] = [];
    const fails = rand() < failRate;
    if (fails) {
      const b = Math.floor(rand() * o.bugs);
      truth.set(r, b);
      const pats = bugPats[b];
      const partial = rand() < partialRate;
      const missing = new Set<number>();
      if (partial) while (missing.size < Math.min(partialMiss, pats.length - 1)) missing.add(1 + Math.floor(rand() * (pats.length - 1)));
      pats.forEach((p, k) => {
        if (!missing.has(k)) set.push(p);
      });
    } else {
      // a bug's last pattern is harmless alone: some passing runs show it
      for (const pats of bugPats) if (rand() < 0.05) set.push(pats[pats.length - 1]);
    }
    // common noise: each run misses a few; geometric skips keep this O(covered)
    let k = -1;
    const logMiss = Math.log(1 - noiseMiss);
    for (;;) {
      const skip = Math.floor(Math.log(1 - rand()) / logMiss);
      // patterns k+1 .. k+skip are covered, k+skip+1 is missed
      for (let j = k + 1; j <= Math.min(commonCount - 1, k + skip); j++) set.push(commonStart + j);
      k += skip + 1;
      if (k >= commonCount) break;
    }
    // rare noise: Poisson(rarePerRun) picks
    let n = 0;
    for (let L = Math.exp(-rarePerRun), pr = rand(); pr > L; pr *= rand()) n++;
    for (let j = 0; j < n; j++) set.push(noiseStart + Math.floor(rand() * rareCount));
    failing.push(fails);
    covers.push(set);
  }
  // rank rows by global Jaccard (failed desc on ties), as result.patterns is
  const P = o.patterns;
  const f = new Int32Array(P);
  const p = new Int32Array(P);
  for (let r = 0; r < o.runs; r++) for (const x of new Set(covers[r])) (failing[r] ? f : p)[x]++;
  const totalFailed = failing.filter(Boolean).length;
  const order = Array.from({ length: P }, (_, k) => k);
  const score = order.map((k) => suspiciousness('jaccard', f[k], p[k], totalFailed, o.runs - totalFailed));
  order.sort((a, b) => score[b] - score[a] || f[b] - f[a] || p[a] - p[b] || a - b);
  const rowOf = new Int32Array(P);
  order.forEach((id, row) => (rowOf[id] = row));
  const bugOf = new Int32Array(P).fill(-1);
  bugPats.forEach((l, b) => l.forEach((id) => (bugOf[id] = b)));
  const patterns: MatrixPattern[] = order.map((id, row) => syntheticPattern(id, row, bugOf[id]));
  const matrix = new CoverageMatrix(
    patterns,
    failing.map((x, r) => ({ execution: `R${r + 1}`, failing: x })),
    covers.map((c) => c.map((id) => rowOf[id])),
  );
  assertRanked(matrix);
  return { matrix, truth, bugRows: bugPats.map((l) => l.map((id) => rowOf[id])) };
}

/**
 * A pattern with accesses and stacks: a bug's patterns are RWR triples and
 * RW pairs under Bug<b>.check (thread 1) and Bug<b>.update (thread 2); noise
 * patterns are pairs in their own methods.
 */
function syntheticPattern(id: number, row: number, bug: number): MatrixPattern {
  const file = bug >= 0 ? `Bug${bug}.java` : `Noise${id % 97}.java`;
  const m1 = bug >= 0 ? `app.Bug${bug}.check` : `app.Noise${id}.a`;
  const m2 = bug >= 0 ? `app.Bug${bug}.update` : `app.Noise${id}.b`;
  const v = bug >= 0 ? `app.Bug${bug}.v${id % 3}` : `app.Noise.v${id}`;
  const acc = (thread: 1 | 2, type: 'R' | 'W', method: string, root: string, line: number) => ({
    thread,
    type,
    variable: v,
    file,
    line,
    method,
    stack: [
      { file: 'Main.java', line: 1, method: root },
      { file, line, method },
    ],
    key: `${type}:${v}@${file}:${line}`,
  });
  const triple = bug >= 0 && id % 2 === 0;
  const accesses = triple
    ? [acc(1, 'R', m1, 'app.Main.t1', 10 + (id % 5)), acc(2, 'W', m2, 'app.Main.t2', 40 + (id % 4)), acc(1, 'R', m1, 'app.Main.t1', 20 + (id % 5))]
    : [acc(1, 'R', m1, 'app.Main.t1', 10 + (id % 7)), acc(2, 'W', m2, 'app.Main.t2', 40 + (id % 4))];
  return { row, id: triple ? 'P4' : 'P1', kind: triple ? 'RWR' : 'RW', category: triple ? 'single-variable atomicity' : 'order', key: `syn${id}`, accesses };
}

/**
 * Figure 11's coverage matrix (PI1–PI15 × E1–E15, E1–E7 failing). The figure
 * itself is an image that the text of the thesis does not carry; these cells
 * follow Table 9 (PI1–PI4: E1–E3 only; PI5: E1–E3 and 3 passing runs;
 * PI6/PI8: B2 = E4, E5; PI7/PI9: B3 = E6, E7) and §5.3.2's walk-through: E4
 * has five patterns and E5 four, three shared (similarity 3/6); likewise E6
 * and E7; PI10–PI15 are low-ranked, mostly in passing runs, and appear in
 * failing runs at random.
 */
export function figure11(): { matrix: CoverageMatrix; optimal: number[][] } {
  // rows: PI1..PI15 → 0..14; runs: E1..E15 → 0..14
  const cells: Record<string, number[]> = {
    E1: [1, 2, 3, 4, 5],
    E2: [1, 2, 3, 4, 5, 15],
    E3: [1, 2, 3, 4, 5],
    E4: [6, 8, 10, 11, 12],
    E5: [6, 8, 10, 13],
    E6: [7, 9, 13, 14, 15],
    E7: [7, 9, 14, 12],
    E8: [5, 10, 11, 12, 13, 14, 15],
    E9: [5, 10, 11, 12, 13, 14, 15],
    E10: [5, 10, 11, 13, 14, 15],
    E11: [10, 11, 12, 13, 14, 15],
    E12: [11, 12, 13, 14, 15],
    E13: [10, 12, 13, 14, 15],
    E14: [10, 11, 12, 14],
    E15: [11, 13, 15],
  };
  const runs = Object.keys(cells).map((e, k) => ({ execution: e, failing: k < 7 }));
  // M's rows are the ranked list F. Global Jaccard (7 failing runs), worked out by hand from the
  // cells: PI1–PI4 3/7, PI5 3/10, PI6–PI9 2/7, PI10 2/13, PI12 2/13, PI13–PI15 2/14, PI11 1/14.
  const order = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 11];
  const rowOf = new Map(order.map((pi, row) => [pi, row]));
  const patterns: MatrixPattern[] = order.map((pi, row) => ({
    row,
    id: 'P1',
    kind: 'RW',
    category: 'order',
    key: `PI${pi}`,
    accesses: [],
  }));
  const matrix = new CoverageMatrix(
    patterns,
    runs,
    Object.values(cells).map((l) => l.map((pi) => rowOf.get(pi)!)),
  );
  assertRanked(matrix);
  return { matrix, optimal: [[0, 1, 2], [3, 4], [5, 6]] };
}

/** Throws unless M's rows are in ranking order (non-increasing global Jaccard), as getSuspiciousPatterns requires. */
export function assertRanked(m: CoverageMatrix): void {
  let prev = Infinity;
  for (let row = 0; row < m.patterns.length; row++) {
    const f = m.failed[row];
    const score = f / (m.totalFailed + m.passed[row]);
    if (score > prev + 1e-12) throw new Error(`row ${row} (${m.patterns[row].key}) scores ${score}, above the row before it (${prev}): rows must follow the ranking`);
    prev = score;
  }
}
