/**
 * The order in which patterns are listed (docs/algorithms.md "Root-cause
 * order"): patterns with evidence first (hasEvidence: Fisher p < 0.05, not in
 * nearly every passing run) — causes, then harness, then symptom patterns —
 * then the same three sections of patterns without evidence, each section
 * by suspiciousness; within one score, fewer passing runs, then shorter
 * patterns (measured on the subjects: a longer pattern tied with one of its
 * own pairs adds accesses that are not needed to explain the failure), then
 * then (options.clearedRead, on by default) a pattern whose last access reads the empty value
 * (null, undefined) another thread of the pattern wrote before one that does not (readsCleared), then
 * the static key. Patterns of one section and score over the same methods
 * form one tie group.
 *
 * With grouping off the order is the thesis' (score, then failed runs,
 * then passing runs, longer first) in one list.
 */
import { sameScore } from './competitionRanking';
import { fisherOneSided } from './fisherExact';

export type PatternGroup = 'cause' | 'harness' | 'symptom';
export const PATTERN_GROUPS: readonly PatternGroup[] = ['cause', 'harness', 'symptom'];

export interface OrderRow {
  score: number;
  f: number;
  p: number;
  group: PatternGroup;
  /** false: no evidence (hasEvidence): listed after every row with evidence (grouping on) */
  evidence?: boolean;
  length: number;
  key: string;
  /**
   * the pattern's last access reads the empty value another thread of the pattern wrote (readsCleared);
   * listed before the rows without at equal counts and length (AnalysisOptions.clearedRead)
   */
  clearedRead?: boolean;
}

export type TieOrder = 'shorter' | 'longer';

/**
 * Whether a pattern of this definition ends in a read of what the other thread role wrote: its last
 * access is a read and an earlier access of the other role writes the same variable — W1→R2 (P2),
 * R1 W2 R1 (P4), W1 W2 R1 (P5) and the multi-variable P14, P15, P17. Returns that write's index, else -1.
 */
export function endsInReadOf(d: { kind: string; roles: readonly number[]; vars: readonly string[] }): number {
  const last = d.kind.length - 1;
  if (d.kind[last] !== 'R') return -1;
  for (let k = last - 1; k >= 0; k--) if (d.kind[k] === 'W' && d.roles[k] !== d.roles[last] && d.vars[k] === d.vars[last]) return k;
  return -1;
}

/** An empty value as the recorders write it: Java's null, JavaScript's null or undefined (`"undefined"`). */
export function isEmptyValue(v: unknown): boolean {
  return v === null || v === 'undefined';
}

/** A write of the empty value over another thread's recorded non-empty one (the two writes of a W1 → W2 pattern). */
export function clearsOther(first: unknown, second: unknown): boolean {
  return first !== undefined && !isEmptyValue(first) && isEmptyValue(second);
}

/**
 * A silent write (docs/algorithms.md "Silent writes last"): the value before the write — the recorded
 * value of the access just before it in the location's run, the first access of an R1 → W2 or W1 → W2
 * pair — is the value it writes: whichever order the two threads take, a reader sees the same value.
 * Both values must be recorded (undefined: none).
 */
export function silentWrite(before: unknown, value: unknown): boolean {
  return before !== undefined && before === value;
}

/**
 * Read of a cleared value (docs/algorithms.md "Cleared read first"): the pattern ends in a read of what
 * the other thread wrote (endsInReadOf); that write and the read carry the empty value (at the
 * pattern's first occurrence); and the write cleared another thread's value (`clearing(k)`: some
 * W1 → W2 pattern has access k as its W2, writing empty over W1's non-empty value, clearsOther, and
 * that W1 → W2 pattern has evidence by its presence: the Analyzer's clearing table) — one thread
 * cleared or deleted what another had put there, a clear that goes with failing (not a consumer's
 * routine take-and-clear, in passing runs too), and a thread then reads it empty.
 * `valueAt(k)`: the recorded value of access k (undefined: none recorded).
 */
export function readsCleared(
  d: { kind: string; roles: readonly number[]; vars: readonly string[] },
  valueAt: (k: number) => unknown,
  clearing: (k: number) => boolean,
): boolean {
  const w = endsInReadOf(d);
  return w >= 0 && clearing(w) && isEmptyValue(valueAt(d.kind.length - 1)) && isEmptyValue(valueAt(w));
}

/** Sorts rows in place in the listed order. */
export function orderPatterns<R extends OrderRow>(rows: R[], grouping: boolean, tieOrder: TieOrder = 'shorter'): R[] {
  if (!grouping) {
    return rows.sort(
      (a, b) => b.score - a.score || b.f - a.f || a.p - b.p || b.length - a.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
  }
  const dir = tieOrder === 'shorter' ? 1 : -1;
  return rows.sort(
    (a, b) =>
      sectionOf(a) - sectionOf(b) ||
      b.score - a.score ||
      a.p - b.p ||
      b.f - a.f ||
      dir * (a.length - b.length) ||
      (b.clearedRead ? 1 : 0) - (a.clearedRead ? 1 : 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** The listed section of a row (grouping on): its group, after every group's rows with evidence when it has none. */
export function sectionOf(r: Pick<OrderRow, 'group' | 'evidence'>): number {
  return PATTERN_GROUPS.indexOf(r.group) + (r.evidence === false ? PATTERN_GROUPS.length : 0);
}

/**
 * Competition ranks ("1224") over the listed order: equal (section, score)
 * share a rank; without grouping, equal scores do.
 */
export function listRanks(rows: readonly OrderRow[], grouping: boolean): number[] {
  const ranks: number[] = new Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const same = k > 0 && sameScore(rows[k].score, rows[k - 1].score) && (!grouping || sectionOf(rows[k]) === sectionOf(rows[k - 1]));
    ranks[k] = same ? ranks[k - 1] : k + 1;
  }
  return ranks;
}

/**
 * Tie groups: within each run of equal (section, score), patterns over the
 * same methods are one group, listed together at the place of the group's
 * first member. Returns the new order (indices into `rows`) and each
 * listed row's group number (1-based) and group size.
 */
export function tieGroups(rows: readonly OrderRow[], methods: readonly string[], grouping: boolean): { order: number[]; tie: number[]; size: number[] } {
  const n = rows.length;
  const order: number[] = [];
  const tie: number[] = [];
  const size: number[] = [];
  if (!grouping) {
    for (let k = 0; k < n; k++) {
      order.push(k);
      tie.push(k + 1);
      size.push(1);
    }
    return { order, tie, size };
  }
  let start = 0;
  let groupNo = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && sectionOf(rows[end]) === sectionOf(rows[start]) && sameScore(rows[end].score, rows[start].score)) end++;
    const buckets = new Map<string, number[]>();
    for (let k = start; k < end; k++) {
      const b = buckets.get(methods[k]);
      if (b) b.push(k);
      else buckets.set(methods[k], [k]);
    }
    for (const members of buckets.values()) {
      groupNo++;
      for (const k of members) {
        order.push(k);
        tie.push(groupNo);
        size.push(members.length);
      }
    }
    start = end;
  }
  return { order, tie, size };
}

/** The methods key of a tie group: each thread role's sorted methods, the two roles in a fixed order. */
export function methodsKey(accesses: readonly { thread: number; method: string }[]): string {
  const r1 = new Set<string>();
  const r2 = new Set<string>();
  for (const a of accesses) (a.thread === 1 ? r1 : r2).add(a.method);
  const k1 = [...r1].sort().join(',');
  const k2 = [...r2].sort().join(',');
  return k1 <= k2 ? `${k1}|${k2}` : `${k2}|${k1}`;
}

/** Evidence threshold of the listed order: a pattern with p ≥ this has no evidence (docs/algorithms.md "Evidence first"). */
export const EVIDENCE_ALPHA = 0.05;
/** A pattern in at least this share of the passing runs has no evidence either (a benign order present in every run). */
export const NEARLY_EVERY_PASSING_RUN = 0.95;

/**
 * Whether a pattern seen in `failed` failing and `passed` passing runs has evidence of going with
 * failing: its one-sided Fisher p-value is below 0.05 and it is missing from some passing runs
 * (fewer than 95 % of them show it). Patterns without evidence are listed after every pattern with.
 */
export function hasEvidence(failed: number, passed: number, totalFailed: number, totalPassed: number): boolean {
  if (failed === 0) return false;
  if (totalPassed > 0 && passed >= NEARLY_EVERY_PASSING_RUN * totalPassed) return false;
  return fisherOneSided(failed, passed, totalFailed, totalPassed) < EVIDENCE_ALPHA;
}

/**
 * Evidence by absence (issue 38, "most runs fail"; docs/algorithms.md "Evidence by absence"): a
 * pattern without evidence of its own whose *absence* goes with failing — it is missing from the
 * failing runs and present in the passing ones, so that "the pattern did not happen" has evidence by
 * hasEvidence on the complementary counts (totalFailed − failed, totalPassed − passed). UNICORN's
 * patterns are ordered (thread roles, access order), so such a pattern is usually the *protective
 * order* of a racing pair: the order every passing run took and the failing runs did not. When most
 * runs fail, the few passing runs are what tells the orders apart, and a protective order present in
 * all of them is as strong evidence as a failing-only pattern. Only when fewer runs pass than fail.
 * Listed with the complementary counts' score (the formula of the analysis) among the patterns with
 * evidence; at an equal score, after the patterns whose evidence is their presence.
 */
export function hasAbsenceEvidence(failed: number, passed: number, totalFailed: number, totalPassed: number): boolean {
  // only when the passing runs are the rarer outcome: with most runs passing, presence in the few
  // failing runs is the sharper signal, and a pattern missing from them is mostly chance (measured on
  // the real corpus' design part: ognlmethods, 89 of 200 failing, lost its root cause to a dozen such)
  if (totalPassed >= totalFailed) return false;
  if (passed === 0 || hasEvidence(failed, passed, totalFailed, totalPassed)) return false;
  return hasEvidence(totalFailed - failed, totalPassed - passed, totalFailed, totalPassed);
}

export const MIN_FAILING_RUNS = 5;
export const CONFIDENT_P = 0.01;

/**
 * A plain sentence when the result rests on fewer than 5 failing runs or the
 * first pattern's p-value is ≥ 0.01, with how many more runs to record: the
 * smallest multiple of the current runs that, at the same failure rate and
 * with the first pattern seen in the same share of failing and passing
 * runs, gives ≥ 5 failing runs and p < 0.01. Undefined when confident.
 */
export function confidenceNote(totalFailed: number, totalPassed: number, first?: { failed: number; passed: number; pValue: number }): string | undefined {
  const total = totalFailed + totalPassed;
  if (total === 0 || totalFailed === 0) return undefined;
  const fewRuns = totalFailed < MIN_FAILING_RUNS;
  const weak = first !== undefined && first.pValue >= CONFIDENT_P;
  if (!fewRuns && !weak) return undefined;
  const why: string[] = [];
  if (fewRuns) why.push(`only ${totalFailed} of ${total} runs failed (fewer than ${MIN_FAILING_RUNS})`);
  if (weak) why.push(`the first pattern could be chance (p = ${formatP(first!.pValue)} ≥ ${CONFIDENT_P})`);
  let more: number | undefined;
  for (let k = 2; k <= 100; k++) {
    const F = Math.round(totalFailed * k);
    const P = Math.round(totalPassed * k);
    if (F < MIN_FAILING_RUNS) continue;
    if (!first) {
      more = total * (k - 1);
      break;
    }
    const p = fisherOneSided(Math.round(first.failed * k), Math.round(first.passed * k), F, P);
    if (p < CONFIDENT_P) {
      more = total * (k - 1);
      break;
    }
  }
  const advice =
    more !== undefined
      ? `record about ${more} more runs (${total + more} in all) before trusting the ranking`
      : totalPassed === 0
        ? 'more runs alone will not help while every run fails: a pattern is evidence only against passing runs — record with less noise (a smaller --noise) or a driver that fails less often, so that some runs pass'
        : 'more runs alone may not help: the first pattern is seen in passing runs almost as often as in failing ones';
  return `Low confidence: ${why.join(' and ')}; ${advice}.`;
}

export function formatP(p: number): string {
  if (p === 0) return '0';
  if (p < 0.001) return p.toExponential(1);
  return p < 0.01 ? p.toFixed(4) : p.toFixed(3);
}
