/**
 * GRIFFIN (thesis chapter 5): one explanation per bug from UNICORN's ranked
 * patterns.
 *   Step 1  the coverage matrix M with call stacks (coverageMatrix.ts)
 *   Step 2  cluster the failing runs per bug (Algorithm 3)
 *   Step 3  per failing-run cluster, cluster its top patterns by call stack
 *           (Algorithm 4); per pattern cluster report the suspicious methods,
 *           the bug graph and fix advice.
 *   Merge   (on by default; off = the thesis' output) one bug per root cause:
 *           pattern clusters with the same suspicious methods or common call
 *           stacks and overlapping failing runs are one bug, and a cluster
 *           that explains no new failing run joins the bug above it.
 *   Evidence per bug: failing runs explained, their share, the Fisher p-value
 *           of its best pattern; one or two runs = weak evidence, listed last.
 *
 *   const bugs = explainBugs(analyzer, analyzer.rank());
 */
import type { Analyzer, AnalysisResult } from '../analysis';
import { patternAt } from '../ranking/rankedList';
import type { Formula } from '../ranking/suspiciousness';
import { CoverageMatrix } from './coverageMatrix';
import { clusterFailingExecutions, DEFAULT_S, DEFAULT_T } from './clusterFailingExecutions';
import { clusterSuspiciousPatterns, DEFAULT_PATTERN_TOP, laneCommonStacks, laneOf, PatternCluster, PatternMember } from './clusterSuspiciousPatterns';
import { suspiciousMethods, SuspiciousMethod } from './suspiciousMethods';
import { CommonFrame, sameCallStack } from './commonCallStack';
import { globalScore, Scoring } from './suspiciousPatterns';
import { fisherOneSided } from '../ranking/fisherExact';
import { TestCodeClassifier } from '../testCode';
import { bugGraph, BugGraph } from './bugGraph';
import { BugKind, fixAdvice, FixAdvice, loc, shortMethod, shortVar } from './fixAdvice';
import { evidenceClustering, EVIDENCE_DEFAULTS } from './evidenceClustering';
import { overwritingWrite } from './overwrittenWrite';
import { iteratorMaker } from './iteratorMaker';
import { handOff } from './handOff';
import { isLibraryCode } from '../libraryCode';
import { terminalLine } from '../outputEscaping';

export interface GriffinOptions {
  /** Algorithm 3: suspicious patterns compared per failing-run cluster (default 30, Study 1) */
  t?: number;
  /** Algorithm 3: similarity threshold (default 0.8, Study 1) */
  s?: number;
  /** Algorithm 4: patterns clustered per failing-run cluster (default 20, Study 2) */
  patternTop?: number;
  /**
   * How failing runs and patterns become bugs (docs/griffin.md):
   *   'evidence' (default) — evidence clustering: sequential covering of the failing runs by
   *      significant patterns (evidenceClustering.ts), one bug per root cause;
   *   'merge' — Algorithms 3 and 4, then the merge step (the default before issue 27);
   *   'thesis' — Algorithms 3 and 4 only: one bug per pattern cluster (the thesis' output).
   */
  clustering?: GriffinClustering;
  /**
   * Legacy switch of the merge step: false = 'thesis', true = 'merge' (when `clustering` is not
   * given). See docs/griffin.md "Merge step".
   */
  merge?: boolean;
  /** evidence clustering: a family member's precision is at least this fraction of its seed's (default 0.9) */
  familyPrecision?: number;
  /**
   * evidence clustering: a suspicious method that is a helper accessor of the raced field's class is
   * left for its caller (default true; the thesis' modes keep the thesis' rule). suspiciousMethods.ts
   */
  outOfHelpers?: boolean;
  /** with outOfHelpers: walk out of a data structure both threads race inside (default true; suspiciousMethods.ts) */
  outOfStructures?: boolean;
  /**
   * evidence clustering: when no bug forms and the first cause pattern occurs in every failing run
   * (≥ 5 failing and ≥ 5 passing runs), one weak bug from it, marked `evidence.inEveryRun` (default
   * true; false = no bug, as the thesis). evidenceClustering.ts step 6
   */
  inEveryRun?: boolean;
  /**
   * evidence clustering: a family member inside the methods of one of the seed's lanes (that lane racing
   * with another instance of itself, a third thread) gives no lane its methods when the seed's lanes run
   * in different methods (default true; false = before; evidenceClustering.ts)
   */
  thirdThread?: boolean;
  /**
   * with outOfHelpers: a lane inside one method of a class (all writes or all reads) called by a callback
   * nested in another method of that class names the callback (default true; outOfOwnHelpers.ts)
   */
  callbackMakerHelpers?: boolean;
  /**
   * with outOfHelpers: an atomic call racing with itself (both lanes one method, only writes through a
   * java.util.concurrent object) names the caller below that method's class (default true; outOfAtomicCalls.ts)
   */
  outOfAtomicCalls?: boolean;
  /**
   * with outOfHelpers: a lane named by javac's synthetic accessor (`Outer.access$300`) names the method it
   * forwards to (default true; throughSyntheticAccessors.ts)
   */
  throughAccessors?: boolean;
  /**
   * evidence clustering, with outOfHelpers: a bug led by W → R whose read saw another value than the
   * write stored, with a write of the reader's lane in its family that stored the value read, names that
   * replacing write's method for the reader's lane, first (issue 38; default true; overwrittenWrite.ts)
   */
  overwrittenWrite?: boolean;
  /**
   * evidence clustering, with outOfHelpers: an iteration while modified whose iterating thread steps a
   * collection's iterator in a class of the code under test that made it in another of its methods (its
   * own iterator class) names the method that made the iterator for that thread, first (issue 38;
   * default true; iteratorMaker.ts)
   */
  iteratorMaker?: boolean;
  /**
   * evidence clustering, with outOfHelpers: an order violation between Node.js tasks led by R → W, whose
   * reader's method left something (a write of another variable) that the writer's method takes over
   * after its write, names the writer first instead of the reader (issue 38; default true; handOff.ts)
   */
  handOff?: boolean;
  /**
   * getSuspiciousPatterns: 'global' (default, thesis) takes the top t of the
   * ranked list F; 'cluster' re-scores patterns within each failing-run
   * cluster (an extension that splits one bug into many; kept for comparison).
   */
  scoring?: Scoring;
  /**
   * Extension, off by default (0, as the thesis): a pattern cluster becomes a
   * bug only when its best score is at least this fraction of the best score
   * among the pattern clusters of its failing-run cluster.
   */
  minScoreRatio?: number;
  /** a bug explaining at most this many failing runs is "weak evidence" and listed last (default 2) */
  weakRuns?: number;
  /**
   * Merge step: a pattern cluster whose best pattern has a one-sided Fisher
   * p-value above alpha is not associated with failing; it joins a bug it
   * shares failing runs with instead of starting one, and adds no failing
   * runs (default 0.05).
   */
  alpha?: number;
  /** test code is never a suspicious method while code under test is on the stacks */
  testCode?: TestCodeClassifier;
  /** suspiciousness formula; default: the analysis' formula */
  formula?: Formula;
}

export type GriffinClustering = 'evidence' | 'merge' | 'thesis';
export const GRIFFIN_CLUSTERINGS: readonly GriffinClustering[] = ['evidence', 'merge', 'thesis'];
export const DEFAULT_ALPHA = 0.05;
export const GRIFFIN_DEFAULTS = {
  t: DEFAULT_T,
  s: DEFAULT_S,
  patternTop: DEFAULT_PATTERN_TOP,
  clustering: 'evidence' as GriffinClustering,
  merge: true,
  scoring: 'global' as Scoring,
  minScoreRatio: 0,
  weakRuns: 2,
  alpha: DEFAULT_ALPHA,
  familyPrecision: EVIDENCE_DEFAULTS.familyPrecision,
  outOfHelpers: true,
};

/** The clustering the options ask for: `clustering`, else the legacy `merge` switch, else 'evidence'. */
export function clusteringOf(o: Pick<GriffinOptions, 'clustering' | 'merge'>): GriffinClustering {
  if (o.clustering !== undefined) return o.clustering;
  if (o.merge !== undefined) return o.merge ? 'merge' : 'thesis';
  return 'evidence';
}

/** Checks option values; throws an Error naming the bad option. */
export function validateGriffinOptions(o: GriffinOptions): void {
  const int = (name: string, v: number | undefined, min: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) throw new Error(`GRIFFIN option ${name} must be an integer ≥ ${min}, got ${v}`);
  };
  int('t', o.t, 1);
  int('patternTop', o.patternTop, 1);
  int('weakRuns', o.weakRuns, 0);
  if (o.s !== undefined && !(o.s >= 0 && o.s <= 1)) throw new Error(`GRIFFIN option s must be within [0, 1], got ${o.s}`);
  if (o.minScoreRatio !== undefined && !(o.minScoreRatio >= 0 && o.minScoreRatio <= 1)) throw new Error(`GRIFFIN option minScoreRatio must be within [0, 1], got ${o.minScoreRatio}`);
  if (o.alpha !== undefined && !(o.alpha >= 0 && o.alpha <= 1)) throw new Error(`GRIFFIN option alpha must be within [0, 1], got ${o.alpha}`);
  if (o.scoring !== undefined && o.scoring !== 'global' && o.scoring !== 'cluster') throw new Error(`GRIFFIN option scoring must be global or cluster, got ${o.scoring}`);
  if (o.clustering !== undefined && !GRIFFIN_CLUSTERINGS.includes(o.clustering)) throw new Error(`GRIFFIN option clustering must be ${GRIFFIN_CLUSTERINGS.join(', ')}, got ${o.clustering}`);
  if (o.familyPrecision !== undefined && !(o.familyPrecision >= 0 && o.familyPrecision <= 1)) throw new Error(`GRIFFIN option familyPrecision must be within [0, 1], got ${o.familyPrecision}`);
}

export interface BugMethod {
  thread: 1 | 2;
  method: string;
  file: string;
  /** first line of the method on the accesses' stacks */
  line: number;
  /** all its lines on the accesses' stacks (the region involved) */
  lines: number[];
}

export interface BugEvidence {
  /** failing runs the bug explains (runs showing the best pattern of one of its pattern clusters) */
  failingRuns: number;
  /** of all failing runs */
  totalFailing: number;
  /** failingRuns / totalFailing */
  fraction: number;
  /** one-sided Fisher exact p-value of the bug's best pattern (failing vs passing runs) */
  pValue: number;
  /** explains at most `weakRuns` (2) failing runs, or `inEveryRun` */
  weak: boolean;
  /**
   * (weak) no pattern has evidence: the bug is the first cause pattern, which occurs in every
   * failing run and in passing runs too (GriffinOptions.inEveryRun)
   */
  inEveryRun?: boolean;
}

export interface Bug {
  /** 1-based, in report order */
  id: number;
  /** 1-based index of the failing-run cluster (Algorithm 3) of the bug's best pattern cluster */
  cluster: number;
  /** every failing-run cluster whose pattern clusters were merged into this bug */
  clusters: number[];
  /**
   * execution ids of the failing runs the bug explains (those showing the lead pattern of one of
   * its pattern clusters), in run order; thesis mode (merge off): its failing-run cluster's runs
   */
  failingRuns: string[];
  kind: BugKind;
  /** global suspiciousness of the bug's best pattern (its score in the ranked list) */
  score: number;
  evidence: BugEvidence;
  /** indices into result.patterns, best first: the lead pattern cluster's, then merged ones */
  patterns: number[];
  /** the same patterns' stable keys (RankedPattern.key) */
  patternKeys: string[];
  /** number of Algorithm 4 pattern clusters in this bug (1 without the merge step) */
  patternClusters: number;
  suspiciousMethods: BugMethod[];
  graph: BugGraph;
  advice: FixAdvice;
}

/**
 * Explains the failing runs of an analysis as bugs. `result` must be
 * `analyzer.rank()` (its patterns and runs are used; `analyzer` supplies the
 * default formula).
 */
export function explainBugs(analyzer: Pick<Analyzer, 'options'> | undefined, result: AnalysisResult, options: GriffinOptions = {}): Bug[] {
  const m = CoverageMatrix.fromAnalysis(result);
  // test code: the caller's classifier, else the analysis' --test-code globs (when the analysis has them) and its test driver
  const globs = (result.options as { testCode?: string[] }).testCode;
  const testCode = options.testCode ?? new TestCodeClassifier(Array.isArray(globs) ? globs : [], result.drivers);
  return explainMatrix(m, { formula: analyzer?.options.formula ?? result.options.formula, ...options, testCode });
}

/** One Algorithm 4 pattern cluster of one failing-run cluster: a candidate bug. */
interface Candidate {
  cluster: number;
  /** the failing runs of its failing-run cluster (Algorithm 3) */
  clusterRuns: readonly number[];
  members: PatternMember[];
  /** best (lowest) row of M among the members */
  lead: number;
  /** failing runs (indices into m.runs) covering the lead pattern */
  runs: Set<number>;
  /** Fisher p-value of the lead pattern */
  pValue: number;
  /** failing / (failing + passing) runs showing the lead pattern */
  precision: number;
  methods: SuspiciousMethod[];
  common: [CommonFrame[], CommonFrame[]];
}

/** GRIFFIN Steps 2–3 on a coverage matrix (rows = the ranked patterns), then the merge step. */
export function explainMatrix(m: CoverageMatrix, options: GriffinOptions = {}): Bug[] {
  validateGriffinOptions(options);
  const o = { ...GRIFFIN_DEFAULTS, ...stripUndefined(options) };
  const formula = options.formula ?? 'jaccard';
  const clustering = clusteringOf(options);
  if (clustering === 'evidence') return evidenceBugs(m, o, formula);
  const failing = clusterFailingExecutions(m, { t: o.t, s: o.s, formula, scoring: o.scoring });
  const candidates: Candidate[] = [];
  failing.forEach((runs, c) => {
    const clusters: PatternCluster[] = clusterSuspiciousPatterns(m, runs, { t: o.patternTop, formula, scoring: o.scoring });
    const best = Math.max(0, ...clusters.map((x) => x.members[0].score));
    for (const pc of clusters) {
      if (o.minScoreRatio > 0 && pc.members[0].score + 1e-12 < o.minScoreRatio * best) continue;
      const lead = Math.min(...pc.members.map((x) => x.row));
      candidates.push({
        cluster: c + 1,
        clusterRuns: runs,
        members: pc.members,
        lead,
        runs: new Set(m.runsOf(lead).filter((r) => m.runs[r].failing)),
        pValue: 1,
        precision: 0,
        methods: suspiciousMethods(m, pc.members, o.testCode),
        common: laneCommonStacks(m, pc.members),
      });
    }
  });
  // merge order (docs/griffin.md): candidates resting on more than `weakRuns` failing runs first; then those whose
  // lead the ranking groups as a cause (when it groups); then by the lead pattern's precision (share of failing runs
  // among the runs showing it), its p-value, its rank in F, more failing runs, cluster order
  for (const c of candidates) {
    c.pValue = fisherOneSided(m.failed[c.lead], m.passed[c.lead], m.totalFailed, m.totalPassed);
    c.precision = m.failed[c.lead] / (m.failed[c.lead] + m.passed[c.lead]);
  }
  const weak = (c: Candidate) => (c.runs.size <= o.weakRuns ? 1 : 0);
  // with the ranking's groups: a lead that is a symptom of the failure or only test code comes after causes
  const notCause = (c: Candidate) => (leadIsCause(m, c) ? 0 : 1);
  candidates.sort(
    (a, b) =>
      weak(a) - weak(b) ||
      notCause(a) - notCause(b) ||
      (Math.abs(a.precision - b.precision) > 1e-9 ? b.precision - a.precision : 0) ||
      a.pValue - b.pValue ||
      a.lead - b.lead ||
      b.runs.size - a.runs.size ||
      a.cluster - b.cluster,
  );
  const merge = clustering === 'merge';
  const groups = merge ? absorbSideEffects(m, mergeCandidates(candidates, o.alpha)) : candidates.map((c) => [{ candidate: c, addsRuns: true, sameBug: true, flip: false }]);
  const bugs = groups.map((g) => toBug(m, g, formula, o.weakRuns, merge));
  // weak evidence last; otherwise keep the order
  const ordered = [...bugs.filter((b) => !b.evidence.weak), ...bugs.filter((b) => b.evidence.weak)];
  ordered.forEach((b, k) => (b.id = k + 1));
  return ordered;
}

/**
 * Evidence clustering (evidenceClustering.ts): each bug is its family (the patterns that make it,
 * adding their failing runs) and its related patterns (listed, adding none). Bugs with evidence
 * first, by their lead's p-value; weak ones last.
 */
function evidenceBugs(m: CoverageMatrix, o: typeof GRIFFIN_DEFAULTS & GriffinOptions, formula: Formula): Bug[] {
  const ev = evidenceClustering(m, { alpha: o.alpha, familyPrecision: o.familyPrecision, listed: Math.max(o.patternTop * 2, EVIDENCE_DEFAULTS.listed), inEveryRun: o.inEveryRun ?? EVIDENCE_DEFAULTS.inEveryRun, thirdThread: o.thirdThread ?? EVIDENCE_DEFAULTS.thirdThread });
  // (a pattern whose evidence is its order: that p-value, ranking/orderEvidence.ts)
  const p = (row: number) => {
    const f = fisherOneSided(m.failed[row], m.passed[row], m.totalFailed, m.totalPassed);
    const o = m.orderP ? m.orderP[row] : NaN;
    return o < f ? o : f;
  };
  const bugs = ev.bugs.map((b, k) => {
    const runs = [...b.runs].sort((x, y) => x - y);
    // the bug's lead: its best-ranked family member with evidence (the seed when none ranks above it)
    const strong = b.family.filter((x) => p(x.row) < (b.weak ? o.alpha : ev.threshold));
    const lead = (strong.length ? strong : b.family.filter((x) => x.row === b.seed))[0].row;
    const core: Candidate = {
      cluster: k + 1,
      clusterRuns: runs,
      members: b.family,
      lead,
      runs: b.runs,
      pValue: p(lead),
      precision: m.failed[lead] / (m.failed[lead] + m.passed[lead]),
      methods: suspiciousMethods(m, b.lanes, o.testCode, { outOfHelpers: o.outOfHelpers, outOfStructures: o.outOfStructures, outOfAtomicCalls: o.outOfAtomicCalls, callbackMakerHelpers: o.callbackMakerHelpers, throughAccessors: o.throughAccessors }),
      common: laneCommonStacks(m, b.lanes),
    };
    const group: GroupMember<Candidate>[] = [{ candidate: core, addsRuns: true, sameBug: true, flip: false }];
    if (b.related.length)
      group.push({
        candidate: { ...core, members: b.related.map((row) => ({ row, flip: false, score: m.scores?.[row] ?? 0, failed: m.failed[row], passed: m.passed[row] })), lead: b.related[0] },
        addsRuns: false,
        sameBug: false,
        flip: false,
      });
    const bug = toBug(m, group, formula, o.weakRuns, true);
    if (b.weak) bug.evidence.weak = true;
    if (b.inEveryRun) bug.evidence.inEveryRun = true;
    // the write the reader saw wins over where the iterator is made: one renaming per bug
    const replaced = o.outOfHelpers !== false && o.overwrittenWrite !== false && replacingWriteFirst(m, bug, b.family, b.related, lead, o.testCode);
    if (!replaced && o.outOfHelpers !== false && o.iteratorMaker !== false && bug.advice.shape === 'iteration-while-modified') iteratorMakerFirst(m, bug, b.family, o.testCode);
    if (!replaced && o.outOfHelpers !== false && o.handOff !== false && bug.advice.kind === 'order-violation') writerTakesOverFirst(m, bug, b.family, b.related, lead);
    fixLaneFirst(bug);
    return bug;
  });
  const ordered = [...bugs.filter((b) => !b.evidence.weak), ...bugs.filter((b) => b.evidence.weak)];
  // with evidence first: the smaller p-value first, then more failing runs (stable otherwise)
  const strongCount = ordered.findIndex((b) => b.evidence.weak);
  const strongPart = ordered.slice(0, strongCount < 0 ? ordered.length : strongCount).sort((a, b) => a.evidence.pValue - b.evidence.pValue || b.evidence.failingRuns - a.evidence.failingRuns);
  const out = [...strongPart, ...ordered.slice(strongPart.length)];
  out.forEach((b, k) => (b.id = k + 1));
  return out;
}

/**
 * The suspicious method where the fix usually goes is named first (FixAdvice.fixLane): an atomicity
 * violation's region — the thread whose accesses the other interrupts (a lazily built array filled
 * while another thread reads it: the builder) — and an order violation's writer (a field assigned
 * after the thread that reads it was started: the constructor). The lanes keep their numbers; only
 * the listing order changes.
 */
function fixLaneFirst(bug: Bug): void {
  if (bug.suspiciousMethods.length === 2 && bug.suspiciousMethods[0].thread !== bug.advice.fixLane) bug.suspiciousMethods.reverse();
}

/**
 * The write the reader saw (overwrittenWrite.ts): the reader's lane names the method of the write that
 * replaced the first lane's value before the read, and that lane is named first. The pattern and the
 * advice's story stay the lead's. True when it renamed a lane.
 */
function replacingWriteFirst(m: CoverageMatrix, bug: Bug, family: readonly PatternMember[], related: readonly number[], lead: number, testCode: TestCodeClassifier | undefined): boolean {
  const canName = (f: { file: string; method: string; line: number }) => !(testCode && testCode.isTestCode(f)) && !isLibraryCode(f.file, f.method) && !/(^|\.)main$/.test(f.method);
  const leadMember = family.find((x) => x.row === lead);
  if (!leadMember) return false;
  const ow = overwritingWrite(m, leadMember, [...family.map((x) => x.row), ...related], canName);
  if (!ow) return false;
  const k = bug.suspiciousMethods.findIndex((sm) => sm.thread === ow.lane);
  if (k < 0) return false;
  const sm = ow.method;
  bug.suspiciousMethods[k] = { thread: sm.thread, method: sm.method, file: sm.file, line: sm.line, lines: sm.lines };
  const lane = bug.graph.lanes.find((l) => l.thread === ow.lane);
  if (lane) lane.suspiciousMethod = { method: ow.method.method, file: ow.method.file, line: ow.method.line };
  bug.advice.fixLane = ow.lane;
  return true;
}

/**
 * The writer takes over what the reader left (handOff.ts): an order violation R → W between Node.js
 * tasks, named reader first, whose reader's method left a write that the writer's method takes over after
 * its own write, names the writer first, and the advice says so first. The pattern and the lanes' methods
 * stay.
 */
function writerTakesOverFirst(m: CoverageMatrix, bug: Bug, family: readonly PatternMember[], related: readonly number[], lead: number): void {
  const leadMember = family.find((x) => x.row === lead);
  if (!leadMember || m.pattern(lead).accesses.length !== 2) return;
  const readerLane = laneOf(m, leadMember, 0);
  if (bug.advice.fixLane !== readerLane) return;
  const reader = bug.suspiciousMethods.find((sm) => sm.thread === readerLane);
  const writer = bug.suspiciousMethods.find((sm) => sm.thread !== readerLane);
  if (!reader || !writer) return;
  const h = handOff(m, leadMember, [...family.map((x) => x.row), ...related], reader, writer);
  if (!h) return;
  bug.advice.fixLane = h.writerLane;
  const [r, w] = m.pattern(lead).accesses;
  const R = shortMethod(reader.method);
  const W = shortMethod(writer.method);
  bug.advice.steps.unshift(
    `${W} takes over what ${R} left: ${R} read ${shortVar(r.variable)} (${loc(r.file, [r.line])}) before ${W}'s write (${loc(w.file, [w.line])}) and left ${shortVar(h.left.variable)} (${loc(h.left.file, [h.left.line])}), which ${W} then handles (${loc(h.taken.file, [h.taken.line])}). ` +
      `The reader read the state as it was and deferred to ${W}: make ${W}'s hand-over leave the state the waiting task expects (do not count as free what it hands over, resume every task that stopped) rather than making ${R} re-check.`,
  );
}

/**
 * Where the iterator is made (iteratorMaker.ts): an iteration while modified whose iterating lane steps an
 * iterator that another method of the same class of the code under test made names that method for the
 * iterating lane, and that lane first. The pattern and the advice's story stay the lead's.
 */
function iteratorMakerFirst(m: CoverageMatrix, bug: Bug, family: readonly PatternMember[], testCode: TestCodeClassifier | undefined): void {
  const canName = (f: { file: string; method: string; line: number }) => !(testCode && testCode.isTestCode(f)) && !isLibraryCode(f.file, f.method) && !/(^|\.)main$/.test(f.method);
  const iterating = (3 - bug.advice.fixLane) as 1 | 2;
  const made = iteratorMaker(m, iterating, family, canName);
  if (!made) return;
  const k = bug.suspiciousMethods.findIndex((sm) => sm.thread === iterating);
  if (k < 0) return;
  const sm = made.method;
  bug.suspiciousMethods[k] = { thread: sm.thread, method: sm.method, file: sm.file, line: sm.line, lines: sm.lines };
  const lane = bug.graph.lanes.find((l) => l.thread === iterating);
  if (lane) lane.suspiciousMethod = { method: sm.method, file: sm.file, line: sm.line };
  bug.advice.fixLane = iterating;
  // the advice: the snapshot where the iterator is made first (it named the stepping method), the collection's type second
  const steps = bug.advice.steps;
  const snap = steps.findIndex((x) => x.startsWith('Or iterate over a snapshot: in '));
  if (snap > 0 && steps[0].startsWith('Make ')) {
    const rest = steps[snap].replace(/^Or iterate over a snapshot: in [^,]+, /, '');
    const first = `Iterate over a snapshot where the iterator is made: in ${sm.method.endsWith('.<init>') ? 'the ' : ''}${shortMethod(sm.method)} (${loc(sm.file, [sm.line])}), ${rest.replace(/ and loop over the copy\.$/, ' and make the iterator over the copy; the methods that step it then never see a change.')}`;
    bug.advice.steps = [first, `Or m${steps[0].slice(1)}`, ...steps.slice(1).filter((_, k) => k + 1 !== snap)];
  }
}

/** A candidate in a merged group (a bug). */
export interface GroupMember<C> {
  candidate: C;
  /** its failing runs count for the bug */
  addsRuns: boolean;
  /** the group's first candidate, or joined by the first rule (same methods / common call stacks) */
  sameBug: boolean;
  /** (sameBug) its lanes are the group lead's the other way round */
  flip: boolean;
}

/**
 * The merge step (docs/griffin.md "Merge step"). Candidates are taken in
 * order. A candidate joins the first group above it that names the same pair
 * of suspicious methods or has the same common call stacks, and whose failing
 * runs overlap its own. Otherwise, if every failing run it explains is
 * explained by a group above — or if its lead pattern is not associated with
 * failing (p-value > alpha) and it shares runs with a group — it joins the
 * group sharing most of its runs, adding its patterns but no failing runs.
 * Otherwise it starts a group. A candidate joining by the first rule adds its
 * failing runs only when its lead pattern is associated with failing.
 * A group's failing runs are those of its members that add runs.
 */
export function mergeCandidates<C extends Pick<Candidate, 'runs' | 'methods' | 'common' | 'pValue'>>(candidates: readonly C[], alpha = DEFAULT_ALPHA): GroupMember<C>[][] {
  const groups: { members: C[]; runs: Set<number> }[] = [];
  const explained = new Set<number>();
  const adds = new Set<C>();
  /** candidates that joined by the first rule, and whether their lanes are the other way round */
  const related = new Map<C, boolean>();
  for (const c of candidates) {
    const associated = c.pValue <= alpha;
    let target = groups.find((g) => (sameMethods(g.members[0], c) || sameCommon(g.members[0], c)) && overlaps(g.runs, c.runs));
    const same = target !== undefined;
    if (same) related.set(c, lanesFlipped(target!.members[0], c));
    if (!target && ([...c.runs].every((r) => explained.has(r)) || (!associated && overlaps(explained, c.runs)))) {
      let best = -1;
      for (const g of groups) {
        const n = [...c.runs].filter((r) => g.runs.has(r)).length;
        if (n > best) {
          best = n;
          target = g;
        }
      }
    }
    if (target) {
      target.members.push(c);
      if (same && associated) {
        for (const r of c.runs) target.runs.add(r);
        adds.add(c);
      }
    } else {
      groups.push({ members: [c], runs: new Set(c.runs) });
      adds.add(c);
    }
    if (adds.has(c)) for (const r of c.runs) explained.add(r);
  }
  return groups.map((g) => g.members.map((c, k) => ({ candidate: c, addsRuns: adds.has(c), sameBug: k === 0 || related.has(c), flip: related.get(c) ?? false })));
}

/** Whether the candidate's lead is a cause (or the ranking does not group patterns). */
function leadIsCause(m: CoverageMatrix, c: Pick<Candidate, 'lead'>): boolean {
  const g = m.group(c.lead);
  return g === undefined || g === 'cause';
}

/**
 * Merge step, rule 5 (docs/griffin.md): side effects of a bug are folded into it. Of two bugs, the
 * one whose lead pattern is weaker (larger p-value) is a side effect of the other when its patterns
 * run inside the other's suspicious methods — an access at one of the lines the other bug names in
 * them — and the failing runs it explains are mostly the other's: all of them when it is listed
 * above the other (precision ordering put it first), at least half when it is listed below (it
 * explains a few runs the other's lead misses, so rule 3 did not fold it). The stronger bug's lead
 * must be a cause. Seen on a counter updated next to a check-then-act in a lazy cache, and on
 * locked statistics fields updated around a lost retry count: each made a second bug of one root cause.
 */
export function absorbSideEffects(m: CoverageMatrix, groups: GroupMember<Candidate>[][]): GroupMember<Candidate>[][] {
  const runsOf = (g: GroupMember<Candidate>[]) => {
    const runs = new Set<number>();
    for (const x of g) if (x.addsRuns) for (const r of x.candidate.runs) runs.add(r);
    return runs;
  };
  /** an access of c's patterns at a line the other candidate's suspicious methods name */
  const inside = (c: Candidate, other: Candidate) =>
    c.members.some((x) =>
      m.pattern(x.row).accesses.some((acc) => acc.stack.some((f) => other.methods.some((sm) => sm.method === f.method && sm.file === f.file && sm.lines.includes(f.line)))),
    );
  const out = groups.map((g) => g.slice());
  // a group's failing runs do not change when a side effect is folded into it (it adds none)
  const runs = out.map(runsOf);
  const fold = (from: number, into: number) => {
    out[into].push(...out[from].map((x) => ({ ...x, addsRuns: false, sameBug: false, flip: false })));
    out.splice(from, 1);
    runs.splice(from, 1);
  };
  const shared = (a: Set<number>, b: Set<number>) => {
    let n = 0;
    for (const r of a) if (b.has(r)) n++;
    return n;
  };
  for (let changed = true; changed; ) {
    changed = false;
    outer: for (let i = 0; i < out.length; i++)
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i][0].candidate;
        const b = out[j][0].candidate;
        const ra = runs[i];
        const rb = runs[j];
        if (ra.size === 0 || rb.size === 0) continue;
        // cheap tests first: which one is weaker, whether the stronger is a cause, the run counts
        if (b.pValue < a.pValue) {
          if (ra.size > rb.size || !leadIsCause(m, b) || shared(ra, rb) !== ra.size || !inside(a, b)) continue;
          fold(i, j);
        } else if (a.pValue < b.pValue) {
          if (!leadIsCause(m, a) || 2 * shared(rb, ra) < rb.size || !inside(b, a)) continue;
          fold(j, i);
        } else continue;
        changed = true;
        break outer;
      }
  }
  return out;
}

/** Whether b's lanes line up with a's the other way round (by suspicious methods, else by common call stacks). */
function lanesFlipped(a: Pick<Candidate, 'methods' | 'common'>, b: Pick<Candidate, 'methods' | 'common'>): boolean {
  if (a.methods.length === 2 && b.methods.length === 2) {
    const [a1, a2] = a.methods.map(methodKey);
    const [b1, b2] = b.methods.map(methodKey);
    if (a1 === b1 && a2 === b2) return false;
    if (a1 === b2 && a2 === b1) return true;
  }
  const [a1, a2] = a.common;
  const [b1, b2] = b.common;
  return !(sameCallStack(a1, b1) && sameCallStack(a2, b2)) && sameCallStack(a1, b2) && sameCallStack(a2, b1);
}

function methodKey(x: { method: string; file: string }): string {
  return `${x.file}\u0000${x.method}`;
}

/** Same pair of suspicious methods, in either lane order. */
function sameMethods(a: Pick<Candidate, 'methods'>, b: Pick<Candidate, 'methods'>): boolean {
  if (a.methods.length !== 2 || b.methods.length !== 2) return false;
  const [a1, a2] = a.methods.map(methodKey);
  const [b1, b2] = b.methods.map(methodKey);
  return (a1 === b1 && a2 === b2) || (a1 === b2 && a2 === b1);
}

/** Same common call stacks on both lanes (Algorithm 4's first isMergeable case), in either lane order. */
function sameCommon(a: Pick<Candidate, 'common'>, b: Pick<Candidate, 'common'>): boolean {
  const [a1, a2] = a.common;
  const [b1, b2] = b.common;
  if (!a1.length || !a2.length || !b1.length || !b2.length) return false;
  return (sameCallStack(a1, b1) && sameCallStack(a2, b2)) || (sameCallStack(a1, b2) && sameCallStack(a2, b1));
}

function overlaps(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  for (const x of b) if (a.has(x)) return true;
  return false;
}

function toBug(m: CoverageMatrix, members: readonly GroupMember<Candidate>[], formula: Formula, weakRuns: number, merge: boolean): Bug {
  const group = members.map((x) => x.candidate);
  const lead = group[0];
  // thesis mode: a bug is a pattern cluster of a failing-run cluster, whose runs it stands for;
  // merge step: the failing runs its candidates explain (those showing their lead pattern)
  const runs = new Set<number>(merge ? [] : lead.clusterRuns);
  if (merge) for (const x of members) if (x.addsRuns) for (const r of x.candidate.runs) runs.add(r);
  // the bug's own patterns: its first candidate's and those of candidates joined by the first rule (lanes lined up),
  // in ranking order; then the patterns of folded candidates
  const core: PatternMember[] = [];
  const seen = new Set<number>();
  for (const x of members) {
    if (!x.sameBug) continue;
    for (const p of x.candidate.members)
      if (!seen.has(p.row)) {
        seen.add(p.row);
        core.push(x.flip ? { ...p, flip: !p.flip } : p);
      }
  }
  core.sort((a, b) => a.row - b.row);
  const rows = core.map((p) => p.row);
  for (const x of members) {
    if (x.sameBug) continue;
    for (const p of x.candidate.members.slice().sort((a, b) => a.row - b.row))
      if (!seen.has(p.row)) {
        seen.add(p.row);
        rows.push(p.row);
      }
  }
  // the suspicious methods' lines: every line of the same method in the candidates of the same bug
  const methods = lead.methods.map((sm) => {
    const lines = new Set(sm.lines);
    for (const x of members) {
      if (!x.sameBug || x.candidate === lead) continue;
      const lane = x.flip ? 3 - sm.thread : sm.thread;
      const other = x.candidate.methods.find((o) => o.thread === lane && o.method === sm.method && o.file === sm.file);
      if (other) for (const l of other.lines) lines.add(l);
    }
    const sorted = [...lines].sort((a, b) => a - b);
    return { ...sm, line: sorted[0], lines: sorted };
  });
  const graph = bugGraph(m, core, methods);
  const advice = fixAdvice(m, core, methods);
  const failingRuns = [...runs].sort((a, b) => a - b);
  const totalFailing = m.totalFailed;
  return {
    id: 0,
    cluster: lead.cluster,
    clusters: [...new Set(group.map((c) => c.cluster))].sort((a, b) => a - b),
    failingRuns: failingRuns.map((r) => m.runs[r].execution),
    kind: advice.kind,
    score: globalScore(m, lead.lead, formula),
    evidence: {
      failingRuns: failingRuns.length,
      totalFailing,
      fraction: totalFailing ? failingRuns.length / totalFailing : 0,
      pValue: lead.pValue,
      weak: failingRuns.length <= weakRuns,
    },
    patterns: rows,
    patternKeys: rows.map((r) => m.pattern(r).key),
    patternClusters: group.length,
    suspiciousMethods: methods.map((x) => ({ thread: x.thread, method: x.method, file: x.file, line: x.line, lines: x.lines })),
    graph,
    advice,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * `braid analyze` text output: one block per bug — kind, the two suspicious
 * methods (short names), the evidence, what goes wrong, the fix advice and
 * the best few patterns. Weak-evidence bugs come last under their own heading.
 */
export function bugsTextReport(bugs: readonly Bug[], result: AnalysisResult, maxPatterns = 5): string {
  const out: string[] = [];
  const failed = result.runs.filter((r) => r.outcome === 'fail').length;
  const strong = bugs.filter((b) => !b.evidence?.weak);
  const weak = bugs.filter((b) => b.evidence?.weak);
  const explained = new Set(bugs.flatMap((b) => b.failingRuns));
  const count = (n: number) => `${n} bug${n === 1 ? '' : 's'}`;
  const head = strong.length === 0 && weak.length ? `${count(weak.length)} with weak evidence` : `${count(strong.length)}${weak.length ? ` (+ ${weak.length} with weak evidence)` : ''}`;
  out.push(`GRIFFIN — ${head} explaining ${explained.size} of ${failed} failing run${failed === 1 ? '' : 's'}`);
  if (!bugs.length) {
    const evidence = (result.ranking ? result.ranking.length > 0 && result.ranking.hasEvidence(0) : result.patterns[0]?.evidence !== false) && patternAt(result, 0) !== undefined;
    out.push(
      failed === 0
        ? 'No failing runs, nothing to explain.'
        : patternAt(result, 0) === undefined
          ? 'No failing run has a pattern to explain it.'
          : `No bug yet: no pattern separates the failing from the passing runs with evidence${evidence ? ' after the correction for the number of patterns' : ''} (Fisher p < 0.05). Record more runs; --griffin-clustering thesis groups the patterns anyway.`,
    );
    return out.map(terminalLine).join('\n');
  }
  bugs.forEach((b, k) => {
    if (b.evidence?.inEveryRun) out.push('', `Weak evidence, no bug with evidence (no pattern separates the failing from the passing runs; the first pattern is in every failing run and in passing runs too: its order or values decide, so its methods are named):`);
    else if (b.evidence?.weak && (k === 0 || !bugs[k - 1].evidence?.weak || bugs[k - 1].evidence?.inEveryRun)) out.push('', 'Weak evidence (each rests on one or two failing runs; record more runs to confirm):');
    out.push('');
    const names = b.suspiciousMethods.map((sm) => shortMethod(sm.method));
    // the plain-language headline leads (its code spans as plain text); the kind, shape and methods follow
    const headline = b.advice.headline ? b.advice.headline.replace(/`/g, '') : '';
    out.push(`Bug ${b.id}: ${b.kind.replace(/-/g, ' ')}${names.length ? ` — ${names.join(' ⇄ ')}` : ''}`);
    if (headline) out.push(`  ${headline}`);
    if (b.advice.shape) out.push(`  Shape: ${b.advice.shape.replace(/-/g, ' ')}`);
    const ev = b.evidence;
    if (ev) out.push(`  Evidence: ${ev.failingRuns} of ${ev.totalFailing} failing runs (${Math.round(ev.fraction * 100)}%), best pattern p = ${formatP(ev.pValue)}, score ${b.score.toFixed(3)}${ev.inEveryRun ? ' — weak evidence: in every failing run and in passing runs too' : ev.weak ? ' — weak evidence' : ''}`);
    out.push(`  Failing runs: ${runList(b.failingRuns)}`);
    for (const sm of b.suspiciousMethods) out.push(`  Thread ${sm.thread}: ${shortMethod(sm.method)} at ${loc(sm.file, sm.lines)}`);
    out.push(`  What goes wrong: ${b.advice.summary}`);
    out.push(`  Interleaving: ${b.advice.interleaving}`);
    out.push('  Fix advice:');
    b.advice.steps.forEach((s, i) => out.push(`    ${i + 1}. ${s}`));
    const shown = b.patterns.slice(0, maxPatterns);
    out.push(`  Patterns (${b.patterns.length}${b.patterns.length > shown.length ? `, best ${shown.length} shown` : ''}):`);
    for (const i of shown) {
      const p = patternAt(result, i);
      if (!p) continue;
      const acc = p.accesses.map((a) => `${a.type}${a.thread} ${shortVar(a.variable)}:${a.line}`).join(' → ');
      out.push(`    #${p.rank} ${p.id} ${p.kind} ${acc} (score ${p.score.toFixed(3)}, ${p.failed} fail / ${p.passed} pass)`);
    }
  });
  const missing = result.runs.filter((r) => r.outcome === 'fail' && !explained.has(r.execution)).map((r) => r.execution);
  if (missing.length) out.push('', `${missing.length} failing run${missing.length === 1 ? ' is' : 's are'} not explained by any bug: ${runList(missing)}`);
  // trace names reach terminals and CI logs: every line escaped (outputEscaping.ts)
  return out.map(terminalLine).join('\n');
}

/** "3.2e-7", "0.041", "1" */
export function formatP(p: number): string {
  if (p >= 0.001) return String(Number(p.toPrecision(2)));
  return p.toExponential(1);
}

function runList(xs: readonly string[], max = 8): string {
  return xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')}, … ${xs.length - max} more`;
}
