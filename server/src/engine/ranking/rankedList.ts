/**
 * The ranked list F, compact: one row per pattern in list order (registry id,
 * rank, score, failed/passed runs, group, tie group) in typed arrays, and a
 * pattern is described (accesses, call stacks, p-value) only when it is
 * shown: `describe(k)`. Memory is a few dozen bytes per pattern whatever
 * the number of patterns; reports, GRIFFIN and the language server describe
 * the top rows and the rest on demand.
 */
import { PATTERN_GROUPS, PatternGroup } from './rootCauseOrder';

/** What describing row k of the list yields (analysis.ts' RankedPattern). */
export interface DescribedRow {
  rank: number;
  score: number;
  failed: number;
  passed: number;
  group: PatternGroup;
  /** false: no evidence that it goes with failing (rootCauseOrder.hasEvidence); listed after those with evidence */
  evidence?: boolean;
  tie: number;
  tieSize: number;
}

/** The rows of a ranked list as reports read them: compact fields, and each row described on demand. */
export interface RankedRows<D extends DescribedRow = DescribedRow> {
  readonly length: number;
  readonly groupCounts: Record<PatternGroup, number>;
  rank(k: number): number;
  group(k: number): PatternGroup;
  /** row k has evidence (rootCauseOrder.hasEvidence); rows without come after every row with */
  hasEvidence(k: number): boolean;
  tie(k: number): number;
  describe(k: number): D;
  tiedWithFirst(k: number): boolean;
  /** rows shown under `--top`: the first `top`, then those tied with the first up to TIE_CAP rows in all */
  topCount(top: number | undefined): number;
  /** rows tied with the first that `--top` leaves out (beyond TIE_CAP) */
  tiedLeftOut(top: number | undefined): number;
}

/**
 * Rows tied with the first are shown past `--top` (a root cause tied with the first must not hide
 * behind the tie order, issue 11), but at most TIE_CAP rows in all (issue 31, N6: 20,000 sibling
 * stacks tied with the first made a 115 MB text and a 921 MB SARIF report of `--top 20`); the report
 * says how many tied rows were left out.
 */
export const TIE_CAP = 100;

function topCountOf(rows: Pick<RankedRows, 'length' | 'tiedWithFirst'>, top: number | undefined): number {
  if (top === undefined) return rows.length;
  let n = Math.min(top, rows.length);
  const cap = Math.max(top, TIE_CAP);
  while (n < rows.length && n < cap && rows.tiedWithFirst(n)) n++;
  return n;
}

function tiedLeftOutOf(rows: Pick<RankedRows, 'length' | 'tiedWithFirst'>, top: number | undefined): number {
  let n = topCountOf(rows, top);
  let left = 0;
  while (n < rows.length && rows.tiedWithFirst(n)) {
    left++;
    n++;
  }
  return left;
}

export class RankedList<D extends DescribedRow = DescribedRow> implements RankedRows<D> {
  readonly length: number;
  /** registry id of each row */
  readonly ids: Int32Array;
  readonly ranks: Int32Array;
  readonly scores: Float64Array;
  readonly failed: Int32Array;
  readonly passed: Int32Array;
  /** index into PATTERN_GROUPS */
  readonly groupCodes: Uint8Array;
  /** 1: the row has evidence (rootCauseOrder.hasEvidence), 0: none */
  readonly evidence: Uint8Array;
  /** tie group number (1-based, in list order) and its size */
  readonly ties: Int32Array;
  readonly tieSizes: Int32Array;
  /** per row: the one-sided p-value of its evidence by order (analysis' options.order), NaN where its evidence is not its order; absent when not computed */
  orderP?: Float64Array;
  /** rows per group */
  readonly groupCounts: Record<PatternGroup, number> = { cause: 0, harness: 0, symptom: 0 };

  constructor(
    length: number,
    private readonly describer: (list: RankedList<D>, row: number) => D,
  ) {
    this.length = length;
    this.ids = new Int32Array(length);
    this.ranks = new Int32Array(length);
    this.scores = new Float64Array(length);
    this.failed = new Int32Array(length);
    this.passed = new Int32Array(length);
    this.groupCodes = new Uint8Array(length);
    this.evidence = new Uint8Array(length).fill(1);
    this.ties = new Int32Array(length);
    this.tieSizes = new Int32Array(length);
  }

  /** Sets row k (used once per row while ranking). */
  set(k: number, id: number, rank: number, score: number, failed: number, passed: number, group: PatternGroup, tie: number, tieSize: number, evidence = true): void {
    this.evidence[k] = evidence ? 1 : 0;
    this.ids[k] = id;
    this.ranks[k] = rank;
    this.scores[k] = score;
    this.failed[k] = failed;
    this.passed[k] = passed;
    const g = PATTERN_GROUPS.indexOf(group);
    this.groupCodes[k] = g;
    this.groupCounts[group]++;
    this.ties[k] = tie;
    this.tieSizes[k] = tieSize;
  }

  /**
   * set() with the group as an index into PATTERN_GROUPS, plus PATTERN_GROUPS.length for a row without
   * evidence (the listed order's sections); groupCounts are made by countGroups() once every row is set.
   */
  setRow(k: number, id: number, rank: number, score: number, failed: number, passed: number, sectionCode: number, tie: number, tieSize: number): void {
    const G = PATTERN_GROUPS.length;
    const groupCode = sectionCode % G;
    this.evidence[k] = sectionCode < G ? 1 : 0;
    this.ids[k] = id;
    this.ranks[k] = rank;
    this.scores[k] = score;
    this.failed[k] = failed;
    this.passed[k] = passed;
    this.groupCodes[k] = groupCode;
    this.ties[k] = tie;
    this.tieSizes[k] = tieSize;
  }

  /** Counts the rows per group (after setRow). */
  countGroups(): void {
    const n = new Int32Array(PATTERN_GROUPS.length);
    for (let k = 0; k < this.length; k++) n[this.groupCodes[k]]++;
    PATTERN_GROUPS.forEach((g, c) => (this.groupCounts[g] = n[c]));
  }

  group(k: number): PatternGroup {
    return PATTERN_GROUPS[this.groupCodes[k]];
  }

  hasEvidence(k: number): boolean {
    return this.evidence[k] === 1;
  }

  rank(k: number): number {
    return this.ranks[k];
  }

  tie(k: number): number {
    return this.ties[k];
  }

  /** Row k described in full (a new object each call: callers keep what they show). */
  describe(k: number): D {
    if (!(k >= 0 && k < this.length)) throw new RangeError(`no pattern at row ${k} (the list has ${this.length})`);
    return this.describer(this, k);
  }

  /** Rows [from, to) described. */
  describeRange(from = 0, to = this.length): D[] {
    const out: D[] = [];
    for (let k = Math.max(0, from); k < Math.min(to, this.length); k++) out.push(this.describe(k));
    return out;
  }

  /** Row k is in the first row's group and shares its rank (tied with the first: always shown). */
  tiedWithFirst(k: number): boolean {
    return this.length > 0 && this.groupCodes[k] === this.groupCodes[0] && this.evidence[k] === this.evidence[0] && this.ranks[k] === this.ranks[0];
  }

  /**
   * Rows kept by `--top N` over the whole list: the first N, and every row
   * tied with the first.
   */
  topCount(top: number | undefined): number {
    return topCountOf(this, top);
  }

  tiedLeftOut(top: number | undefined): number {
    return tiedLeftOutOf(this, top);
  }

  *[Symbol.iterator](): IterableIterator<D> {
    for (let k = 0; k < this.length; k++) yield this.describe(k);
  }
}

/** Number of ranked patterns of an analysis result (without describing them). */
export function patternCount<D extends DescribedRow>(r: { patterns: D[]; ranking?: RankedList<D> }): number {
  return r.ranking ? r.ranking.length : r.patterns.length;
}

/** Ranked pattern k of an analysis result (described on demand when it has a compact ranking). */
export function patternAt<D extends DescribedRow>(r: { patterns: D[]; ranking?: RankedList<D> }, k: number): D | undefined {
  if (r.ranking) return k >= 0 && k < r.ranking.length ? r.ranking.describe(k) : undefined;
  return r.patterns[k];
}

/** A ranked list given as described patterns (results built by hand, or copied by the language server). */
class DescribedRows<D extends DescribedRow> implements RankedRows<D> {
  readonly groupCounts: Record<PatternGroup, number> = { cause: 0, harness: 0, symptom: 0 };
  constructor(private readonly patterns: readonly D[]) {
    for (const p of patterns) if (p.group in this.groupCounts) this.groupCounts[p.group]++;
  }
  get length(): number {
    return this.patterns.length;
  }
  rank(k: number): number {
    return this.patterns[k].rank;
  }
  group(k: number): PatternGroup {
    return this.patterns[k].group;
  }
  hasEvidence(k: number): boolean {
    return this.patterns[k].evidence !== false;
  }
  tie(k: number): number {
    return this.patterns[k].tie;
  }
  describe(k: number): D {
    return this.patterns[k];
  }
  tiedWithFirst(k: number): boolean {
    const first = this.patterns[0];
    return first !== undefined && this.patterns[k].group === first.group && (this.patterns[k].evidence !== false) === (first.evidence !== false) && this.patterns[k].rank === first.rank;
  }
  topCount(top: number | undefined): number {
    return topCountOf(this, top);
  }

  tiedLeftOut(top: number | undefined): number {
    return tiedLeftOutOf(this, top);
  }
}

/** The rows of an analysis result: its compact ranking when it has one, else its described patterns. */
export function rankedRows<D extends DescribedRow>(r: { patterns: D[]; ranking?: RankedList<D> }): RankedRows<D> {
  return r.ranking ?? new DescribedRows(r.patterns);
}
