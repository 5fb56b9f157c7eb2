/**
 * The analysis engine's entry point: reads traces (one execution each),
 * collects each run's patterns (UNICORN Steps 1–2, or FALCON), then counts
 * pattern occurrences in passing and failing runs and ranks the patterns by
 * suspiciousness (UNICORN Step 3, Algorithm 2 lines 27–42).
 *
 * `Analyzer` keeps per-run results so that adding or removing one trace does
 * not redo the others (the language server relies on this).
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Diagnostic, EventKind, FAIL_KINDS, ForcingReport, Outcome, TraceEvent, UncaughtInfo } from './trace/traceFormat';
import { readTrace, TraceVisitor } from './trace/traceReader';
import type { TraceSymbols } from './trace/traceSymbols';
import { FailureSources, RunFailure, runFailure } from './runFailure';
import { readTraceInThread } from './trace/traceReaderThread';
import { findTraceFiles } from './traceDiscovery';
import { PatternRegistry, RegistryColumns } from './unicorn/patternRegistry';
import { CollectorStats, RunCollector, UnicornCollector } from './unicorn/unicornCollector';
import { FalconCollector } from './falcon/falconCollector';
import { Formula, FORMULAS, suspiciousness } from './ranking/suspiciousness';
import { PatternCategory, PATTERNS } from './unicorn/patternCatalog';
import { fisherOneSided } from './ranking/fisherExact';
import { orderPValue, orderThreshold, weightedPassedRuns } from './ranking/orderEvidence';
import { startOrderThreshold, startOrderVariant, StartOrderVariant, testable as startOrderTestable, variantScoredPassed } from './ranking/startOrderEvidence';
import { pairFirstOf } from './ranking/pairFirst';
import { presenceDiscoveryCutoff } from './ranking/falseDiscovery';
import { TestCodeClassifier } from './testCode';
import { DriverDetector, DriverRule } from './testDriver';
import { isLibraryCode, LibraryPredicate, nearestUserFrame } from './libraryCode';
import { PATTERN_GROUPS, PatternGroup, TieOrder, clearsOther, silentWrite, confidenceNote, endsInReadOf, hasAbsenceEvidence, isEmptyValue, hasEvidence } from './ranking/rootCauseOrder';
import { RankedList } from './ranking/rankedList';
import { StaticKeyOrder } from './ranking/staticKeyOrder';
import { placeRows } from './ranking/compactOrder';
import { NumberIdMap } from './unicorn/numberIdMap';
export { patternAt, patternCount } from './ranking/rankedList';
import { EncodedRun, encodeRuns, SummaryMerger } from './summary/runSummary';
import { ENGINE_VERSION, optionMismatch, SummaryFile } from './summary/summaryFile';

export type Strategy = 'unicorn' | 'falcon';

export interface AnalysisOptions {
  strategy: Strategy;
  /** access window size w (UNICORN Step 1, FALCON window) */
  accessWindow: number;
  /** pair window size (UNICORN Step 2) */
  pairWindow: number;
  formula: Formula;
  /**
   * Drop access pairs ordered by thread start/join and hand-off tokens
   * (SND/RCV) in every schedule (default true; false = the thesis, `--hb none`).
   */
  happensBefore: boolean;
  /**
   * Cause/harness/symptom sections and tie groups (default true; false =
   * one list in the thesis' order, `--grouping off`).
   */
  grouping: boolean;
  /** globs naming test code (`--test-code`, `braid.testCode`) */
  testCode: string[];
  /**
   * Locations per library call (default: per line, the thesis). A line that makes several library
   * calls on one object (a for-each's values(), iterator(), hasNext(), next()) is then several
   * locations, and pattern keys name the call (`…:55#java.util.Iterator.next`). Changes the patterns
   * and the ranking of library-heavy programs: `braid analyze --confirm` uses it to find the calls of a
   * pattern whose lines make several (docs/confirm.md). Trace files only (summaries keep lines).
   */
  callLocations?: boolean;
  /**
   * Which of a thread's consecutive writes to a location the access window pairs (UNICORN Step 1):
   * `adjacent` (default) — the first write as a pair's later access (the write right after the other
   * thread's access: a check-then-act's act), the latest as a pair's earlier access (the write the
   * other thread then sees); `latest` — the thesis: only the latest (`--window-writes latest`).
   */
  windowWrites: WindowWrites;
  /**
   * Evidence by absence (issue 38): a pattern missing from the failing runs and present in the
   * passing ones — a racing pair's protective order, when most runs fail — is listed among the
   * patterns with evidence, scored on the complementary counts (rootCauseOrder.hasAbsenceEvidence;
   * docs/algorithms.md "Evidence by absence"). Ranking only (grouping on); false: `--absence off`.
   */
  absence?: boolean;
  /**
   * Evidence by order (issue 38): a pattern without evidence by presence whose share of the
   * occurrences of its accesses (the same static accesses in any order) is larger in the failing runs
   * than in the passing ones, Fisher p below 0.05 / the patterns tested, is listed among the patterns
   * with evidence (ranking/orderEvidence.ts; docs/algorithms.md "Evidence by order"). On unless false
   * (`--order off`, the ranking before it; grouping on only).
   */
  order?: boolean;
  /**
   * Evidence by start order (issue 38): a pattern with neither evidence by presence nor by order whose
   * occurrences made by the thread that started later (overtaken) — or those in start order — take a
   * larger share in the failing runs than in the passing ones, Fisher p below 0.05 / twice the patterns
   * tested, is listed among the patterns with evidence like evidence by order (ranking/startOrderEvidence.ts;
   * docs/algorithms.md "Evidence by start order"). On unless false (`--start-order off`, the ranking
   * before it); needs evidence by order on and grouping on.
   */
  startOrder?: boolean;
  /**
   * Symptoms last (issue 38, "consequences of failure ranked after causes"): a pattern that occurs in
   * failing runs only after their failure point (group symptom) is listed without evidence, so after
   * every cause — with or without evidence — instead of before the causes without evidence. A
   * consequence of the failure goes with failing as much as its cause does, but is no evidence of a
   * cause (docs/algorithms.md "Symptoms last"). Grouping on only; false or absent: the order before it
   * (`--symptoms evidence`), true: `--symptoms last`.
   */
  symptomsLast?: boolean;
  /**
   * Evidence among many patterns (issue 38): a pattern's presence is evidence (listed before the
   * patterns without) only when its Fisher p is a discovery of the Benjamini–Hochberg procedure at 0.05
   * over the patterns seen in a failing run (ranking/falseDiscovery.ts; docs/algorithms.md "Evidence
   * among many patterns"). On unless false (`--discovery off`: p < 0.05 alone, the order before it;
   * grouping on only).
   */
  discovery?: boolean;
  /**
   * Cleared read first (issue 38, "a consequence ranks first"): among patterns equal in every count and
   * length, one whose last access reads the empty value (null, undefined) another thread of the pattern
   * wrote over another thread's value, in a W1 → W2 pattern that has evidence by its presence
   * (rootCauseOrder.readsCleared), is listed before the others — instead of the static key alone
   * deciding. On unless false (`--cleared-read off`: the static key alone; grouping on only;
   * docs/algorithms.md "Cleared read first").
   */
  clearedRead?: boolean;
  /**
   * Silent writes last (issue 38, "most runs fail"): among patterns equal in every count and length
   * (and in cleared read first), one with a *silent* write — a write that stored the value its location
   * already held (every recorded R → W or W → W pair ending in it shows the same value before and
   * after, rootCauseOrder.silentWrite), so no order of it changes what a reader sees — is listed after
   * the others. On unless false (`--silent-last off`: the static key decides; grouping on only;
   * docs/algorithms.md "Silent writes last").
   */
  silentLast?: boolean;
  /**
   * Order within a tie (issue 38, "the root cause is in passing runs too"): among patterns equal in every
   * count and length (and in cleared read first and silent writes last), one whose *order* goes with
   * failing — its share of the occurrences of its accesses (the same static accesses in any order) is
   * larger in the failing runs, one-sided Fisher p below 0.05 / the patterns tested, whether or not its
   * presence has evidence — is listed before the others; the others merely co-occur with the same runs
   * (ranking/orderEvidence.ts, docs/algorithms.md "Order within a tie"). On unless false (since session 15;
   * `--order-ties off`: the static key alone, the order before it; grouping on only).
   */
  orderTies?: boolean;
  /**
   * Pair before its combination (issue 38, "a combination adds an access the failure does not need"): a
   * single-variable combination (three accesses, P4–P8) with evidence is scored on the counts of a pair it
   * contains — two of its accesses by its two threads, in its order, a pair present in every run the
   * combination is — when that pair has evidence (by presence or order), and is then listed right after it
   * instead of above it (ranking/pairFirst.ts; the combination keeps its own counts). Off unless true
   * (`--pair-first on`; grouping on only; docs/algorithms.md "Pair before its combination": off by default
   * because it also lists a real atomicity violation, R1 W2 R1, after its first pair).
   */
  pairFirst?: boolean;
}

export type WindowWrites = 'adjacent' | 'latest';

export const DEFAULT_OPTIONS: AnalysisOptions = {
  strategy: 'unicorn',
  accessWindow: 5,
  pairWindow: 100,
  formula: 'jaccard',
  happensBefore: true,
  grouping: true,
  testCode: [],
  windowWrites: 'adjacent',
  // absence: off (absent)
};

export function validateOptions(o: Partial<AnalysisOptions>): AnalysisOptions {
  const r = { ...DEFAULT_OPTIONS, ...o };
  if (r.strategy !== 'unicorn' && r.strategy !== 'falcon') throw new Error(`unknown strategy "${r.strategy}" (use unicorn or falcon)`);
  if (!FORMULAS.includes(r.formula)) throw new Error(`unknown formula "${r.formula}" (use ${FORMULAS.join(', ')})`);
  if (!Number.isInteger(r.accessWindow) || r.accessWindow < 2) throw new Error(`access window must be an integer ≥ 2, got ${r.accessWindow}`);
  if (!Number.isInteger(r.pairWindow) || r.pairWindow < 0) throw new Error(`pair window must be an integer ≥ 0, got ${r.pairWindow}`);
  if (typeof r.happensBefore !== 'boolean') throw new Error(`happensBefore must be true or false, got ${JSON.stringify(r.happensBefore)}`);
  if (typeof r.grouping !== 'boolean') throw new Error(`grouping must be true or false, got ${JSON.stringify(r.grouping)}`);
  if (!Array.isArray(r.testCode) || r.testCode.some((g) => typeof g !== 'string')) throw new Error('testCode must be a list of glob strings');
  if (r.callLocations !== undefined && typeof r.callLocations !== 'boolean') throw new Error(`callLocations must be true or false, got ${JSON.stringify(r.callLocations)}`);
  if (!r.callLocations) delete r.callLocations;
  if (r.absence !== undefined && typeof r.absence !== 'boolean') throw new Error(`absence must be true or false, got ${JSON.stringify(r.absence)}`);
  // (off: not in the options at all, so results and reports read as before the option existed)
  if (!r.absence) delete r.absence;
  if (r.order !== undefined && typeof r.order !== 'boolean') throw new Error(`order must be true or false, got ${JSON.stringify(r.order)}`);
  // (on: not in the options at all, so results and reports read as before the option existed)
  if (r.order !== false) delete r.order;
  if (r.startOrder !== undefined && typeof r.startOrder !== 'boolean') throw new Error(`startOrder must be true or false, got ${JSON.stringify(r.startOrder)}`);
  // (on: not in the options at all, so results and reports read as before the option existed)
  if (r.startOrder !== false) delete r.startOrder;
  if (r.discovery !== undefined && typeof r.discovery !== 'boolean') throw new Error(`discovery must be true or false, got ${JSON.stringify(r.discovery)}`);
  // (on: not in the options at all, so results and reports read as before the option existed)
  if (r.discovery !== false) delete r.discovery;
  if (r.symptomsLast !== undefined && typeof r.symptomsLast !== 'boolean') throw new Error(`symptomsLast must be true or false, got ${JSON.stringify(r.symptomsLast)}`);
  // (off: not in the options at all, so results and reports read as before the option existed)
  if (!r.symptomsLast) delete r.symptomsLast;
  if (r.clearedRead !== undefined && typeof r.clearedRead !== 'boolean') throw new Error(`clearedRead must be true or false, got ${JSON.stringify(r.clearedRead)}`);
  // (on: not in the options at all, so results and reports read as before the option existed)
  if (r.clearedRead !== false) delete r.clearedRead;
  if (r.silentLast !== undefined && typeof r.silentLast !== 'boolean') throw new Error(`silentLast must be true or false, got ${JSON.stringify(r.silentLast)}`);
  // (on: not in the options at all, so results and reports read as before the option existed)
  if (r.silentLast !== false) delete r.silentLast;
  if (r.orderTies !== undefined && typeof r.orderTies !== 'boolean') throw new Error(`orderTies must be true or false, got ${JSON.stringify(r.orderTies)}`);
  // (on: not in the options at all, so the default's options — and the analysis cache's key — stay one value)
  if (r.orderTies !== false) delete r.orderTies;
  if (r.pairFirst !== undefined && typeof r.pairFirst !== 'boolean') throw new Error(`pairFirst must be true or false, got ${JSON.stringify(r.pairFirst)}`);
  // (off: not in the options at all, so results and reports read as before the option existed)
  if (!r.pairFirst) delete r.pairFirst;
  if (r.windowWrites !== 'adjacent' && r.windowWrites !== 'latest') throw new Error(`windowWrites must be "adjacent" or "latest", got ${JSON.stringify(r.windowWrites)}`);
  return r;
}

export interface RunResult {
  file: string;
  execution: string;
  outcome: Outcome;
  outcomeReason?: string;
  outcomeDetail?: string;
  program?: string;
  test?: string;
  seed?: string;
  /** the noise plan of the run (header.recorder.options.plan, written by `braid record --plan`) */
  plan?: { name: string; file?: string };
  events: number;
  /** pattern ids (PatternRegistry) found in this run, ascending (typed: a busy workspace has millions) */
  patterns: Int32Array;
  /** per entry of `patterns`: how many times the pattern occurred in this run (absent: once each, e.g. an older summary) */
  occurrences?: Int32Array;
  /**
   * per entry of `patterns`: how many of its occurrences were overtaken — made by a first thread that
   * started after the other (ranking/startOrderEvidence.ts); absent: not counted (an older summary)
   */
  overtaken?: Int32Array;
  /** failing runs: global index of the failure point (first FAIL event or the outcome's failAt), when known */
  failPoint?: number;
  /** failing runs: pattern ids whose every occurrence in this run ends after the failure point */
  afterFailure?: number[];
  /** failing runs: the thread of the first uncaught exception, with its trace name (for the views) */
  failingThread?: { id: number; name: string };
  /** failing runs: what failed — the assertion or exception message and where (runFailure.ts; issue 30) */
  failure?: RunFailure;
  stats: CollectorStats;
  uncaught: UncaughtInfo[];
  /** events the recorder dropped in this run (its writer fell behind); 0 normally */
  droppedEvents: number;
  /** what the run's forcing plan achieved (the agent's `forcing` line, docs/trace-format.md), when it had one */
  forcing?: ForcingReport;
}

/** Passes every event on to the collector and keeps the first FAIL event's kind, detail and location (the run's failure). */
class FirstFailEvent implements TraceVisitor {
  first: FailureSources['failEvent'];
  constructor(private readonly inner: TraceVisitor) {}
  header(h: Parameters<NonNullable<TraceVisitor['header']>>[0], s: TraceSymbols): void {
    this.inner.header?.(h, s);
  }
  event(ev: TraceEvent, s: TraceSymbols, line: number): void {
    if (ev.kind === EventKind.Fail && this.first === undefined) {
      const loc = ev.b >= 0 ? s.locs.get(ev.b) : undefined;
      this.first = {
        kind: ev.a >= 0 ? FAIL_KINDS[ev.a] : undefined,
        detail: typeof ev.value === 'string' ? ev.value : undefined,
        location: loc && loc.line > 0 ? { file: loc.file, line: loc.line, ...(loc.method ? { method: loc.method } : {}) } : undefined,
      };
    }
    this.inner.event(ev, s, line);
  }
}

export interface PatternAccess {
  /** thread role: 1 = the thread of the first access */
  thread: 1 | 2;
  type: 'R' | 'W';
  variable: string;
  file: string;
  line: number;
  method: string;
  /** value read or written at the first occurrence (when the trace records values) */
  value?: unknown;
  /** name of the thread (trace `def thread`) of this access at the pattern's first occurrence, when the trace names it */
  threadName?: string;
  /** call stack of the first occurrence, bottom first (may be empty) */
  stack: { file: string; line: number; method: string }[];
  /**
   * When the access is in library code (JDK, …): the library location;
   * `file`, `line` and `method` are then its nearest caller in the user's
   * code, where heat, hover, code lens and clicks go.
   */
  library?: { file: string; line: number; method: string };
  /** a library call recorded at this user line (trace loc.call), e.g. "java.util.HashMap.put" */
  call?: string;
  /** the line makes other library calls too: `call` is one of them, maybe not this access's (LocInfo.mixedCalls) */
  mixedCalls?: boolean;
  /** the access is in test code */
  harness?: boolean;
}

export interface RankedPattern {
  rank: number;
  score: number;
  /** "P1".."P17" */
  id: string;
  /** access types in execution order, e.g. "RWR" */
  kind: string;
  category: PatternCategory;
  failed: number;
  passed: number;
  accesses: PatternAccess[];
  /** stable static signature */
  key: string;
  /** one-sided p-value of Fisher's exact test on failed/passed runs */
  pValue: number;
  /** cause, or a consequence of the failure (symptom), or made only of test code (harness) */
  group: PatternGroup;
  /**
   * evidence that it goes with failing (Fisher p < 0.05 and missing from some passing runs;
   * rootCauseOrder.hasEvidence); patterns without are listed after every pattern with (grouping on)
   */
  evidence?: boolean;
  /**
   * evidence by absence (options.absence): the pattern is missing from the failing runs and present in
   * the passing ones; p is the one-sided Fisher p of its absence (failing runs without it against
   * passing runs without it). Listed among the patterns with evidence (`evidence` true).
   */
  absence?: { pValue: number };
  /**
   * evidence by order (options.order): the pattern occurs in passing runs too, but takes a larger share
   * of its accesses' occurrences in the failing runs (its other orders: the same static accesses in
   * another order); p is the one-sided Fisher p of that table. Listed among the patterns with evidence.
   */
  order?: {
    pValue: number;
    failing: number;
    failingAll: number;
    passing: number;
    passingAll: number;
    /**
     * evidence by start order (options.startOrder): `failing`/`passing` count the runs with an occurrence
     * overtaken (`overtaken` true: the first thread started after the other) or in start order (false),
     * of the runs the pattern is in (`failingAll`/`passingAll`); p is that variant's presence p
     */
    start?: { overtaken: boolean };
  };
  /**
   * pair before its combination (options.pairFirst): this combination is scored on the counts of a pair it
   * contains (its key and counts), which has evidence; it is listed right after that pair. Its own counts
   * stay in failed/passed.
   */
  pair?: { key: string; failed: number; passed: number };
  /** tie group: patterns of the same group and score over the same methods (1-based, in list order) */
  tie: number;
  /** number of patterns in this pattern's tie group */
  tieSize: number;
  /** id in the analyzer's registry (not stable across processes) */
  index: number;
}

export interface AnalysisResult {
  options: AnalysisOptions;
  executions: { total: number; failed: number; passed: number };
  /**
   * Every ranked pattern, described. From `Analyzer.rank()` this is described on first use
   * (all of them): code that shows only some patterns uses `ranking` instead.
   */
  patterns: RankedPattern[];
  /**
   * The compact ranked list (Analyzer.rank(); not enumerable, so it neither crosses to
   * another thread nor into JSON): row k is `patterns[k]`, described by `ranking.describe(k)`.
   */
  ranking?: RankedList<RankedPattern>;
  runs: RunResult[];
  diagnostics: Diagnostic[];
  /** a sentence for the user when the result needs explaining (e.g. no failing runs) */
  message?: string;
  /** a plain warning when the result rests on too few failing runs or the first pattern's p-value is ≥ 0.01 */
  confidence?: string;
  /** the test driver code of the runs (testDriver.ts), when some entry class drives code elsewhere; GRIFFIN reads it */
  drivers?: DriverRule;
  stats: { events: number; pairs: number; patterns: number; latePairs: number; orderedPairs: number };
}

const CAUSE = PATTERN_GROUPS.indexOf('cause');
const HARNESS = PATTERN_GROUPS.indexOf('harness');
const SYMPTOM = PATTERN_GROUPS.indexOf('symptom');
/** methods numbered below this make small methods keys (tieKeyOf): a set of ≤ 2 is a number below 2^14 */
const SMALL_METHODS = 127;
const MAX_PATTERN_LENGTH = Math.max(...PATTERNS.map((d) => d.kind.length));
/** per pattern number (1..17): the index of the other thread's write its last access reads, else -1 (rootCauseOrder.endsInReadOf) */
const READ_OF = Int8Array.from([-1, ...PATTERNS.map((d) => endsInReadOf(d))]);

/** An analyzer's state (Analyzer.exportState / importState). */
export interface AnalyzerState {
  registry: RegistryColumns;
  runs: EncodedRun[];
  /** traces with problems and no run */
  unreadable: { file: string; diagnostics: Diagnostic[] }[];
}

export class Analyzer {
  readonly options: AnalysisOptions;
  readonly registry = new PatternRegistry();
  private readonly runs = new Map<string, RunResult>();
  private readonly fileDiagnostics = new Map<string, Diagnostic[]>();
  /** content hashes of trace files whose execution id collides with another's */
  private readonly contentHashes = new Map<string, string>();
  /** described call stacks, shared by all patterns (read-only) */
  private readonly framesCache = new Map<number, { file: string; line: number; method: string; harness?: boolean }[]>();
  /** one frame object per location (read-only) */
  private readonly frameCache = new Map<number, { file: string; line: number; method: string; harness?: boolean }>();
  private readonly testCode: TestCodeClassifier;
  /** trace files whose header names the Node.js recorder (the no-pattern hints then speak of files and packages) */
  private readonly nodeTraces = new Set<string>();
  /** where library code ends and the user's code begins (the language server may pass its source roots' view) */
  get isLibrary(): LibraryPredicate {
    return this.libraryPredicate;
  }
  set isLibrary(p: LibraryPredicate) {
    // the methods accesses are shown in depend on it: forget them
    this.libraryPredicate = p;
    this.userMethods.clear();
    this.locMethodNos = new Int32Array(0);
    this.tieKeys = new Int32Array(0);
    this.libraryLocs = new Uint8Array(0);
  }
  private libraryPredicate: LibraryPredicate = isLibraryCode;

  constructor(options: Partial<AnalysisOptions> = {}) {
    this.options = validateOptions(options);
    this.registry.callLocations = this.options.callLocations === true;
    this.testCode = new TestCodeClassifier(this.options.testCode);
  }

  private collector(): RunCollector {
    const o = this.options;
    return o.strategy === 'falcon'
      ? new FalconCollector(this.registry, o.accessWindow)
      : new UnicornCollector(this.registry, o.accessWindow, o.pairWindow, o.happensBefore, { adjacentWrites: o.windowWrites === 'adjacent' });
  }

  /**
   * Reads and analyzes one trace; replaces an earlier result for the file.
   * `readerThread`: parse in a worker thread while this one collects (same result, trace/traceReaderThread.ts).
   */
  async addTrace(file: string, how: { readerThread?: boolean } = {}): Promise<RunResult | undefined> {
    const collector = this.collector();
    const failEvent = new FirstFailEvent(collector);
    let r: Awaited<ReturnType<typeof readTrace>>;
    try {
      r = await (how.readerThread ? readTraceInThread : readTrace)(file, failEvent);
    } catch (e) {
      collector.close?.();
      throw e;
    }
    const diags = [...r.diagnostics];
    this.runs.delete(file);
    this.contentHashes.delete(file);
    if (!r.ok || !r.header || !r.outcome) {
      collector.close?.();
      this.fileDiagnostics.set(file, diags);
      return undefined;
    }
    const found = collector.finish();
    const stats = collector.stats();
    if (r.droppedEvents > 0) {
      diags.push({
        severity: 'warning',
        file,
        message: `the recorder dropped ${r.droppedEvents} events of this run (its trace writer fell behind); patterns of this run may be missing`,
      });
    }
    this.fileDiagnostics.set(file, diags);
    const seed = r.header.recorder?.options?.seed;
    if (r.header.recorder?.name === 'braid-node-recorder') this.nodeTraces.add(file);
    else this.nodeTraces.delete(file);
    let failPoint: number | undefined;
    let afterFailure: number[] | undefined;
    if (r.outcome === 'fail') {
      if (r.firstFail !== undefined) failPoint = r.firstFail;
      if (r.failAt !== undefined && (failPoint === undefined || r.failAt < failPoint)) failPoint = r.failAt;
      if (failPoint !== undefined) {
        afterFailure = [];
        for (const id of found.ids) if (found.earliestEnd(id) > failPoint) afterFailure.push(id);
        afterFailure.sort((a, b) => a - b);
      }
    }
    const ids = Int32Array.from(found.sortedIds());
    const occurrences = new Int32Array(ids.length);
    const overtaken = new Int32Array(ids.length);
    for (let k = 0; k < ids.length; k++) {
      occurrences[k] = found.occurrences(ids[k]);
      overtaken[k] = found.overtakings(ids[k]);
    }
    const run: RunResult = {
      file,
      execution: r.header.execution,
      outcome: r.outcome,
      outcomeReason: r.outcomeReason,
      outcomeDetail: r.outcomeDetail,
      program: r.header.program,
      test: r.header.test,
      seed: seed === undefined ? undefined : String(seed),
      ...planOfRun(r.header.recorder?.options?.plan),
      events: r.eventCount,
      patterns: ids,
      occurrences,
      overtaken,
      failPoint,
      afterFailure,
      ...(r.outcome === 'fail' && r.uncaught[0]?.thread !== undefined
        ? { failingThread: { id: r.uncaught[0].thread, name: r.symbols.threads.get(r.uncaught[0].thread)?.name ?? `thread ${r.uncaught[0].thread}` } }
        : {}),
      stats,
      uncaught: r.uncaught,
      droppedEvents: r.droppedEvents,
      ...(r.forcing ? { forcing: r.forcing } : {}),
    };
    const failure = runFailure({
      outcome: r.outcome,
      reason: r.outcomeReason,
      detail: r.outcomeDetail,
      message: r.outcomeMessage,
      location: r.outcomeLocation,
      failEvent: failEvent.first,
      uncaught: r.uncaught,
    });
    if (failure) run.failure = failure;
    this.runs.set(file, run);
    await this.hashCollisions(run);
    return run;
  }

  /**
   * Adds the runs of a summary (runs analyzed in another process or on
   * another machine, server/src/engine/summary/): their patterns are
   * re-interned here by stable key, so the result is the one of reading
   * their traces here, in the summary's order. Replaces earlier results for
   * the same files. `file` renames the runs' trace files (e.g. to where a
   * cached trace is now). Throws when the summary was made by another engine
   * version or with other collection options.
   */
  addSummary(summary: SummaryFile, file?: (stored: string) => string): RunResult[] {
    if (summary.engine !== ENGINE_VERSION) throw new Error(`made by engine version "${summary.engine}", this Braid has "${ENGINE_VERSION}": analyze its traces again`);
    const diff = optionMismatch(summary.options, this.options);
    if (diff) throw new Error(`made with other analysis options: ${diff}; analyze its traces again with the same options`);
    const merged = (this.merger ??= new SummaryMerger(this.registry)).merge(summary, file);
    for (const m of merged) {
      const f = m.run.file;
      this.runs.delete(f);
      this.contentHashes.delete(f);
      this.runs.set(f, m.run);
      this.fileDiagnostics.set(f, m.diagnostics);
      if (m.hash) this.contentHashes.set(f, m.hash);
    }
    return merged.map((m) => m.run);
  }

  private merger: SummaryMerger | undefined;

  /** Records a trace that could not be analyzed (its problems, no run). */
  addUnreadable(file: string, diagnostics: Diagnostic[]): void {
    this.runs.delete(file);
    this.contentHashes.delete(file);
    this.fileDiagnostics.set(file, diagnostics);
  }

  /** Remembers the SHA-1 of a trace's bytes (carried by summaries). */
  setTraceHash(file: string, hash: string): void {
    if (this.runs.has(file)) this.contentHashes.set(file, hash);
  }

  /**
   * The runs (all, or those of `files`) as one summary, in the order they
   * were added: what `braid summarize` writes and the worker threads send.
   */
  toSummary(files?: string[]): SummaryFile {
    const runs = files ? files.map((f) => this.runs.get(f)).filter((r): r is RunResult => r !== undefined) : [...this.runs.values()];
    return encodeRuns(
      this.registry,
      runs.map((run) => ({ run, diagnostics: this.fileDiagnostics.get(run.file) ?? [], hash: this.contentHashes.get(run.file) })),
      this.options,
    );
  }

  removeTrace(file: string): void {
    this.runs.delete(file);
    this.nodeTraces.delete(file);
    this.contentHashes.delete(file);
    this.fileDiagnostics.delete(file);
  }

  /**
   * The runs, each execution counted once: when two traces have the same
   * execution id, the one read later is skipped — with a note when the two
   * files have the same content (a copy), with an error naming both files
   * when they differ.
   */
  runResults(): RunResult[] {
    return this.uniqueRuns().runs.sort((a, b) => a.execution.localeCompare(b.execution, undefined, { numeric: true }) || a.file.localeCompare(b.file));
  }

  private uniqueRuns(): { runs: RunResult[]; diagnostics: Diagnostic[] } {
    const byExec = new Map<string, RunResult>();
    const runs: RunResult[] = [];
    const diagnostics: Diagnostic[] = [];
    for (const r of this.runs.values()) {
      const first = byExec.get(r.execution);
      if (!first) {
        byExec.set(r.execution, r);
        runs.push(r);
        continue;
      }
      const a = this.contentHashes.get(first.file);
      const same = a !== undefined && a === this.contentHashes.get(r.file);
      diagnostics.push(
        same
          ? { severity: 'info', file: r.file, message: `same content as ${displayPath(first.file)} (execution id "${r.execution}"); counted once` }
          : {
              severity: 'error',
              file: r.file,
              message: `execution id "${r.execution}" is used by both ${displayPath(first.file)} and ${displayPath(r.file)} with different content; ${displayPath(r.file)} is skipped (give each run its own execution id)`,
            },
      );
    }
    return { runs, diagnostics };
  }

  /** Hashes the files of every run sharing `run`'s execution id (only on a collision: one extra read). */
  private async hashCollisions(run: RunResult): Promise<void> {
    const same = [...this.runs.values()].filter((r) => r.execution === run.execution);
    if (same.length < 2) return;
    for (const r of same)
      if (!this.contentHashes.has(r.file)) {
        try {
          this.contentHashes.set(r.file, await fileHash(r.file));
        } catch {
          // a run from a summary whose trace is not on this machine: told apart as different content
        }
      }
  }

  diagnostics(): Diagnostic[] {
    const out: Diagnostic[] = [];
    for (const d of this.fileDiagnostics.values()) out.push(...d);
    out.push(...this.uniqueRuns().diagnostics);
    return out;
  }

  /** Pattern id → indices (in runResults() order) of the runs containing it. */
  coverage(runs = this.runResults()): Map<number, number[]> {
    const m = new Map<number, number[]>();
    runs.forEach((r, k) => {
      for (const p of r.patterns) {
        let l = m.get(p);
        if (!l) m.set(p, (l = []));
        l.push(k);
      }
    });
    return m;
  }

  /**
   * UNICORN Step 3: counts, suspiciousness, competition ranking; then groups, tie groups and p-values.
   * The list is compact (`result.ranking`, typed arrays); patterns are described only when shown
   * (`result.ranking.describe(k)`). `result.patterns` describes every pattern on first use (small
   * results, tests); reports, GRIFFIN and the language server use the ranking.
   */
  rank(): AnalysisResult {
    const runs = this.runResults();
    const totalFailed = runs.filter((r) => r.outcome === 'fail').length;
    const totalPassed = runs.length - totalFailed;
    const reg = this.registry;
    const n = reg.patternCount;
    const failed = new Int32Array(n);
    const passed = new Int32Array(n);
    // (only when some run knows its failure point)
    const failedAfter = runs.some((r) => r.afterFailure?.length) ? new Int32Array(n) : undefined;
    for (const r of runs) {
      const m = r.outcome === 'fail' ? failed : passed;
      const ps = r.patterns;
      for (let k = 0; k < ps.length; k++) m[ps[k]]++;
      if (r.afterFailure && failedAfter) for (const p of r.afterFailure) failedAfter[p]++;
    }
    const grouping = this.options.grouping;
    const formula = this.options.formula;
    // order within a tie (options.orderTies): the occurrence counts of evidence by order, for every pattern
    const orderTies = grouping && this.options.orderTies !== false;
    const counts =
      grouping && (this.options.order !== false || orderTies) && totalFailed > 0 && totalPassed > 0
        ? this.orderCounts(runs, failed, passed, totalFailed, totalPassed, orderTies, this.options.order !== false && this.options.startOrder !== false)
        : undefined;
    const order = this.options.order !== false ? counts : undefined;
    const tieOrder = orderTies ? counts?.tieOrder : undefined;
    this.refreshTestLocs();
    this.refreshAccessLocs();
    // The order of rootCauseOrder.orderPatterns, ranks of listRanks, ties of tieGroups, in typed arrays:
    // patterns are bucketed by their (group, failed, passed, length) — the sort keys before the static key —
    // the few buckets are sorted, and the patterns are placed bucket by bucket in static-key order.
    const F1 = totalFailed + 1;
    const P1 = totalPassed + 1;
    const L = MAX_PATTERN_LENGTH + 1;
    // sections: a group code (cause, harness, symptom), + 3 for a pattern without evidence (listed after all with)
    // (× 2: evidence by order has buckets of its own, scored on its weighted passing runs)
    // (× 2 with cleared read first: a pattern reading the empty value the other thread wrote has a bucket of its own)
    const clearedRead = grouping && this.options.clearedRead !== false;
    const R = clearedRead ? 2 : 1;
    // (× 2 with silent writes last: a pattern with a write of the value already there has a bucket of its own)
    const silentLast = grouping && this.options.silentLast !== false;
    const S = silentLast ? 2 : 1;
    const silent = silentLast ? this.silentWrites() : undefined;
    // (× 2 with order within a tie: a pattern whose order goes with failing has a bucket of its own)
    const T = tieOrder ? 2 : 1;
    const codes = 12 * F1 * P1 * L * R * S * T;
    const G = PATTERN_GROUPS.length;
    // per (failed, passed): 0 unknown, 1 evidence, 2 none, 3 evidence by absence (options.absence) — a
    // typed table when small (one lookup per pattern), else a Map
    const absence = grouping && this.options.absence === true;
    const symptomsLast = grouping && this.options.symptomsLast === true;
    // evidence among many patterns: a presence p-value is evidence only when it is a discovery (Benjamini–Hochberg, ranking/falseDiscovery.ts)
    const discoveryCut = grouping && this.options.discovery !== false && totalFailed > 0 ? presenceDiscoveryCutoff(failed, passed, totalFailed, totalPassed) : Infinity;
    const presenceEvidence = (f: number, p: number) => hasEvidence(f, p, totalFailed, totalPassed) && (discoveryCut === Infinity || fisherOneSided(f, p, totalFailed, totalPassed) <= discoveryCut);
    const evidenceCode = (f: number, p: number) =>
      presenceEvidence(f, p) ? 1 : absence && hasAbsenceEvidence(f, p, totalFailed, totalPassed) ? 3 : 2;
    const evidenceDense = F1 * P1 <= 1 << 22 ? new Uint8Array(F1 * P1) : undefined;
    const evidenceMemo = evidenceDense ? undefined : new Map<number, number>();
    const evidenceOf = (f: number, p: number) => {
      const k = f * P1 + p;
      if (evidenceDense) {
        if (evidenceDense[k] === 0) evidenceDense[k] = evidenceCode(f, p);
        return evidenceDense[k];
      }
      let e = evidenceMemo!.get(k);
      if (e === undefined) evidenceMemo!.set(k, (e = evidenceCode(f, p)));
      return e;
    };
    // per static access: 1 when it is a write of the empty value over another thread's non-empty one (a W1 → W2 pattern's W2)
    // and that W1 → W2 pattern has evidence by its presence (the clear goes with failing, not a consumer's routine clear)
    const clearing = clearedRead ? this.clearingWrites(failed, passed, (f, p) => evidenceOf(f, p) === 1) : undefined;
    const dense = codes <= 1 << 22 ? new Int32Array(codes) : undefined;
    const sparse = dense ? undefined : new Map<number, number>();
    // per pattern id: its bucket (-1: in no run), and its methods key (grouping)
    const bucketOf = new Int32Array(2 * n).fill(-1);
    // per bucket: group, failed, passed, length, score, size
    let bG: number[] = [];
    let bF: number[] = [];
    let bP: number[] = [];
    let bL: number[] = [];
    // per bucket: 1 when its patterns read the empty value the other thread wrote (cleared read first)
    let bR: number[] = [];
    // per bucket: 1 when its patterns have a silent write (silent writes last)
    let bS: number[] = [];
    // per bucket: 1 when its patterns' order goes with failing (order within a tie)
    let bT: number[] = [];
    let bSize: number[] = [];
    // per bucket: 1 when its evidence is its absence (listed after presence at an equal score)
    let bA: number[] = [];
    let count = 0;
    // per pattern id: its evidence code (0: in no run; 1 presence, 2 none, 3 absence, 4 order), group code and
    // the passing runs it is scored on — read by the bucket pass below, and by pair before its combination first
    const evidenceIds = new Uint8Array(n);
    const groupIds = new Uint8Array(n);
    const scoredPassed = new Int32Array(n);
    for (let id = 0; id < n; id++) {
      const f = failed[id];
      const p = passed[id];
      if (f === 0 && p === 0) continue;
      let e = grouping ? evidenceOf(f, p) : 1;
      if (e === 2 && order && order.evidenced[id] !== 0) e = 4;
      const gc = grouping ? this.groupCodeOf(id, f, failedAfter ? failedAfter[id] : 0) : 0;
      // symptoms last: a consequence of the failure is no evidence of a cause (listed after every cause)
      if (symptomsLast && gc === SYMPTOM) e = 2;
      evidenceIds[id] = e;
      groupIds[id] = gc;
      // evidence by order: scored on its passing runs weighted by how much rarer its order is in them (orderEvidence.weightedPassed)
      scoredPassed[id] = e === 4 ? order!.weightedPassed[id] : p;
    }
    // pair before its combination (options.pairFirst): a combination is scored on the counts of a pair it
    // contains that has evidence (ranking/pairFirst.ts)
    const pairFirst = grouping && this.options.pairFirst === true && totalFailed > 0;
    const sortKey = (id: number) => suspiciousness(formula, failed[id], scoredPassed[id], totalFailed, totalPassed);
    const asPair = pairFirst
      ? pairFirstOf(
          reg,
          n,
          (id) => evidenceIds[id] === 1 || evidenceIds[id] === 4,
          // (the bucket order below, lengths aside: score, presence before order, fewer passing, more failing runs)
          (s, c) =>
            sortKey(s) < sortKey(c) ||
            (sortKey(s) === sortKey(c) &&
              ((evidenceIds[s] === 4 ? 1 : 0) - (evidenceIds[c] === 4 ? 1 : 0) || scoredPassed[s] - scoredPassed[c] || failed[c] - failed[s]) > 0),
          (a, b) => groupIds[a] === groupIds[b],
        )
      : undefined;
    for (let id = 0; id < n; id++) {
      if (evidenceIds[id] === 0) continue;
      count++;
      const q = asPair && asPair[id] >= 0 ? asPair[id] : id;
      const f = failed[q];
      const p = passed[q];
      const e = evidenceIds[q];
      const gc = groupIds[q];
      const g = gc + (e === 2 ? G : 0);
      const len = reg.patternDef(id).kind.length;
      const pw = scoredPassed[q];
      const rl = clearedRead && this.readsCleared(id, clearing!) ? 1 : 0;
      const sl = silentLast && this.hasSilentWrite(id, silent!) ? 1 : 0;
      const tl = tieOrder ? tieOrder[id] : 0;
      const code = (((((((e === 4 ? 6 : 0) + g) * F1 + f) * P1 + pw) * L + len) * R + rl) * S + sl) * T + tl;
      let b = dense ? dense[code] - 1 : (sparse!.get(code) ?? -1);
      if (b < 0) {
        b = bSize.length;
        if (dense) dense[code] = b + 1;
        else sparse!.set(code, b);
        bG.push(g);
        // scored and ordered on the counts of its absence when that is its evidence
        bF.push(e === 3 ? totalFailed - f : f);
        bP.push(e === 3 ? totalPassed - p : pw);
        bL.push(len);
        bR.push(rl);
        bS.push(sl);
        bT.push(tl);
        // evidence by absence or by order: after the patterns whose evidence is their presence, at an equal score
        bA.push(e === 3 || e === 4 ? 1 : 0);
        bSize.push(0);
      }
      bSize[b]++;
      bucketOf[2 * id] = b;
    }
    const B = bSize.length;
    const bScore = new Float64Array(B);
    for (let b = 0; b < B; b++) bScore[b] = totalFailed === 0 ? 0 : suspiciousness(formula, bF[b], bP[b], totalFailed, totalPassed);
    const buckets = Array.from({ length: B }, (_, b) => b);
    if (!grouping) {
      buckets.sort((a, b) => bScore[b] - bScore[a] || bF[b] - bF[a] || bP[a] - bP[b] || bL[b] - bL[a]);
    } else {
      const dir = this.tieOrder === 'shorter' ? 1 : -1;
      buckets.sort((a, b) => bG[a] - bG[b] || bScore[b] - bScore[a] || bA[a] - bA[b] || bP[a] - bP[b] || bF[b] - bF[a] || dir * (bL[a] - bL[b]) || bR[b] - bR[a] || bS[a] - bS[b] || bT[b] - bT[a]);
    }
    const bStart = new Int32Array(B);
    for (let q = 0, at = 0; q < B; q++) {
      bStart[buckets[q]] = at;
      at += bSize[buckets[q]];
    }
    // methods keys computed in id order (the registry's columns read in order), kept next to the
    // bucket (one read per pattern below, in key order)
    if (grouping) for (let id = 0; id < n; id++) if (bucketOf[2 * id] >= 0) bucketOf[2 * id + 1] = this.tieKeyOf(id);
    const rowIds = new Int32Array(count);
    const rowBucket = new Int32Array(count);
    const rowTie = grouping ? new Int32Array(count) : undefined;
    const keyOrder = (this.keyOrder ??= new StaticKeyOrder(reg)).order();
    for (let q = 0; q < keyOrder.length; q++) {
      const id = keyOrder[q];
      const b = bucketOf[2 * id];
      if (b < 0) continue;
      const at = bStart[b]++;
      rowIds[at] = id;
      rowBucket[at] = b;
      if (rowTie) rowTie[at] = bucketOf[2 * id + 1];
    }
    const bGroup = Uint8Array.from(bG);
    bG = bF = bP = bL = bR = bS = bT = bSize = bA = [];
    const ranking = new RankedList<RankedPattern>(count, (list, k) => {
      const d = this.describe(list.ids[k], list.ranks[k], list.scores[k], list.failed[k], list.passed[k], totalFailed, totalPassed, list.group(k));
      d.tie = list.ties[k];
      d.tieSize = list.tieSizes[k];
      d.evidence = list.evidence[k] === 1;
      if (absence && d.evidence && evidenceOf(d.failed, d.passed) === 3)
        d.absence = { pValue: fisherOneSided(totalFailed - d.failed, totalPassed - d.passed, totalFailed, totalPassed) };
      const id = list.ids[k];
      if (asPair && asPair[id] >= 0) d.pair = { key: reg.patternKey(asPair[id]), failed: failed[asPair[id]], passed: passed[asPair[id]] };
      if (order && d.evidence && order.evidenced[id] !== 0 && evidenceOf(d.failed, d.passed) === 2) {
        const start = order.startTests.get(id);
        if (start) {
          // (start order: failing/passing count the variant's runs, of the runs the pattern is in)
          d.order = { pValue: start.pValue, failing: start.failed, failingAll: d.failed, passing: start.passed, passingAll: d.passed, start: { overtaken: start.overtaken } };
        } else {
          const g = order.groupOf[id];
          d.order = { pValue: order.pValue[id], failing: order.occF[id], failingAll: order.groupF[g], passing: order.occP[id], passingAll: order.groupP[g] };
        }
      }
      return d;
    });
    placeRows(ranking, { ids: rowIds, bucket: rowBucket, bucketScore: bScore, bucketGroup: bGroup, tieKey: rowTie, failed, passed, scratch: bucketOf });
    if (order) {
      // per row: the p-value of its evidence by order (NaN: its evidence, if any, is not its order), for GRIFFIN's leads
      const op = (ranking.orderP = new Float64Array(count).fill(NaN));
      for (let k = 0; k < count; k++) {
        const id = ranking.ids[k];
        // (evidence by start order is a ranking signal only: a pattern in every run whose start order merely
        // leans with failing must not become a GRIFFIN lead that merges the bugs whose runs it spans)
        if (ranking.evidence[k] === 1 && order.evidenced[id] === 1 && evidenceOf(ranking.failed[k], ranking.passed[k]) === 2) op[k] = order.pValue[id];
      }
    }
    let message: string | undefined;
    // the hints speak the recorder's language: files and packages for JS/TS, classes for Java
    const js = runs.length > 0 && runs.every((r) => this.nodeTraces.has(r.file));
    if (runs.length === 0) message = 'No traces could be analyzed.';
    // no pattern at all: what happened and what to do (issue 30, point 6: an empty list is not a clean result)
    else if (ranking.length === 0 && runs.every((r) => r.events === 0))
      message = js
        ? `The ${runs.length} run${runs.length === 1 ? '' : 's'} recorded no event: no JavaScript or TypeScript file of the program was instrumented. Record again with its files in braid.record.include (braid record --include 'src/**/*.js'); code of a package is recorded when package.json lists it in dependencies, or named as --include node_modules/<package>.`
        : `The ${runs.length} run${runs.length === 1 ? '' : 's'} recorded no event: no class of the program was instrumented. Record again with your packages in braid.record.include (braid record --include).`;
    else if (ranking.length === 0)
      message = js
        ? `No access pattern in the ${runs.length} run${runs.length === 1 ? '' : 's'}: no shared variable or collection of the recorded files was accessed by two tasks. Check that braid.record.include (braid record --include) names the files whose tasks share state; for code inside a package that is not in package.json's dependencies, add --include node_modules/<package>.`
        : `No access pattern in the ${runs.length} run${runs.length === 1 ? '' : 's'}: no shared variable of the recorded classes was accessed by two threads. Check that braid.record.include (braid record --include) names the classes whose threads share data.`;
    else if (totalFailed === 0)
      message = `None of the ${runs.length} runs failed, so every pattern scores 0. Record more runs (or raise the noise) until some fail.`;
    else if (totalPassed === 0)
      message = `All ${runs.length} runs failed; with no passing run to compare with, scores cannot tell patterns apart. Record with less noise (a smaller --noise, or braid.record.noise) or with a driver that fails less often, until some runs pass.`;
    // (a first pattern with evidence by absence: the counts of its absence)
    const firstAbsent = absence && ranking.length > 0 && ranking.evidence[0] === 1 && evidenceOf(ranking.failed[0], ranking.passed[0]) === 3;
    const firstF = ranking.length ? (firstAbsent ? totalFailed - ranking.failed[0] : ranking.failed[0]) : 0;
    const firstP = ranking.length ? (firstAbsent ? totalPassed - ranking.passed[0] : ranking.passed[0]) : 0;
    // (a first pattern with evidence by order: its order p-value)
    const firstOrderP = order && ranking.length && ranking.evidence[0] === 1 && evidenceOf(ranking.failed[0], ranking.passed[0]) === 2 ? order.evidenceP(ranking.ids[0]) : NaN;
    const firstCause =
      ranking.length && ranking.group(0) === 'cause'
        ? { failed: firstF, passed: firstP, pValue: Number.isNaN(firstOrderP) ? fisherOneSided(firstF, firstP, totalFailed, totalPassed) : firstOrderP }
        : undefined;
    const confidence = confidenceNote(totalFailed, totalPassed, firstCause);
    let events = 0;
    let pairs = 0;
    let late = 0;
    let ordered = 0;
    for (const r of runs) {
      events += r.events;
      pairs += r.stats.pairs;
      late += r.stats.latePairs;
      ordered += r.stats.orderedPairs ?? 0;
    }
    const result = {
      options: this.options,
      executions: { total: runs.length, failed: totalFailed, passed: totalPassed },
      runs,
      diagnostics: this.diagnostics(),
      message,
      confidence,
      stats: { events, pairs, patterns: ranking.length, latePairs: late, orderedPairs: ordered },
      ...(this.drivers.rule.entries.length ? { drivers: this.drivers.rule } : {}),
    } as AnalysisResult;
    return withRanking(result, ranking);
  }

  /** per pattern id: its order group + 1 (the patterns over the same static accesses; 0: not computed yet); kept across rank() calls */
  private orderGroups = new Int32Array(0);
  private readonly orderGroupIds = new Map<string, number>();

  /** The order group of pattern `id`: its static accesses, sorted (any order, any thread roles). */
  private orderGroupOf(id: number): number {
    if (id < this.orderGroups.length && this.orderGroups[id] > 0) return this.orderGroups[id] - 1;
    if (id >= this.orderGroups.length) {
      const g = new Int32Array(Math.max(1024, this.registry.patternCount, 2 * id + 2));
      g.set(this.orderGroups);
      this.orderGroups = g;
    }
    const reg = this.registry;
    const n = reg.patternDef(id).kind.length;
    const a = this.keyScratch;
    for (let k = 0; k < n; k++) {
      const v = reg.patternAccessAt(id, k);
      let q = k;
      while (q > 0 && a[q - 1] > v) {
        a[q] = a[q - 1];
        q--;
      }
      a[q] = v;
    }
    let key = String(a[0]);
    for (let k = 1; k < n; k++) key += ',' + a[k];
    let g = this.orderGroupIds.get(key);
    if (g === undefined) this.orderGroupIds.set(key, (g = this.orderGroupIds.size));
    this.orderGroups[id] = g + 1;
    return g;
  }

  /**
   * Evidence by order (ranking/orderEvidence.ts): per pattern id, its occurrences in the failing and
   * passing runs, those of its order group, and the one-sided Fisher p-value of its share (1: not
   * tested). Tested: patterns in a failing run without evidence by presence whose accesses occur in
   * another order too; the threshold is 0.05 / the number tested.
   */
  private orderCounts(runs: readonly RunResult[], failed: Int32Array, passed: Int32Array, totalFailed: number, totalPassed: number, ties = false, startOrder = false) {
    const n = this.registry.patternCount;
    const occF = new Float64Array(n);
    const occP = new Float64Array(n);
    // evidence by start order: per pattern, the runs of its variants, overtaken and in start order (only when every run counted them)
    const byStart = startOrder && runs.every((r) => r.overtaken !== undefined);
    const overF = byStart ? new Int32Array(n) : undefined;
    const overP = byStart ? new Int32Array(n) : undefined;
    const inF = byStart ? new Int32Array(n) : undefined;
    const inP = byStart ? new Int32Array(n) : undefined;
    for (const r of runs) {
      const fail = r.outcome === 'fail';
      const m = fail ? occF : occP;
      const ps = r.patterns;
      const occ = r.occurrences;
      for (let k = 0; k < ps.length; k++) m[ps[k]] += occ ? occ[k] : 1;
      if (overF && overP && inF && inP && r.overtaken) {
        const o = fail ? overF : overP;
        const i = fail ? inF : inP;
        const ov = r.overtaken;
        for (let k = 0; k < ps.length; k++) {
          if (ov[k] > 0) o[ps[k]]++;
          if ((occ ? occ[k] : 1) > ov[k]) i[ps[k]]++;
        }
      }
    }
    const groupOf = new Int32Array(n).fill(-1);
    for (let id = 0; id < n; id++) if (failed[id] + passed[id] > 0) groupOf[id] = this.orderGroupOf(id);
    const G = this.orderGroupIds.size;
    const groupF = new Float64Array(G);
    const groupP = new Float64Array(G);
    for (let id = 0; id < n; id++) {
      const g = groupOf[id];
      if (g < 0) continue;
      groupF[g] += occF[id];
      groupP[g] += occP[id];
    }
    const pValue = new Float64Array(n).fill(1);
    const tested: number[] = [];
    for (let id = 0; id < n; id++) {
      const g = groupOf[id];
      if (g < 0 || failed[id] === 0 || groupF[g] + groupP[g] === occF[id] + occP[id]) continue;
      if (hasEvidence(failed[id], passed[id], totalFailed, totalPassed)) continue;
      tested.push(id);
    }
    for (const id of tested) {
      const g = groupOf[id];
      pValue[id] = orderPValue({ failing: occF[id], failingOther: groupF[g] - occF[id], passing: occP[id], passingOther: groupP[g] - occP[id] });
    }
    const threshold = orderThreshold(tested.length);
    // per pattern id: 1 evidence by order, 2 evidence by start order, 0 neither
    const evidenced = new Uint8Array(n);
    // per pattern with evidence by order: its passing runs weighted by its share of its accesses' occurrences in them against that in the failing runs
    const weightedPassed = new Int32Array(n);
    for (const id of tested) {
      if (!(pValue[id] < threshold)) continue;
      const g = groupOf[id];
      evidenced[id] = 1;
      weightedPassed[id] = weightedPassedRuns(passed[id], { failing: occF[id], failingOther: groupF[g] - occF[id], passing: occP[id], passingOther: groupP[g] - occP[id] });
    }
    // evidence by start order (ranking/startOrderEvidence.ts): patterns with neither evidence by presence nor by order
    const startTests = new Map<number, StartOrderVariant>();
    if (overF && overP && inF && inP) {
      const candidates: number[] = [];
      for (let id = 0; id < n; id++) {
        if (failed[id] === 0 || evidenced[id] !== 0) continue;
        const r = { failingOvertaken: overF[id], failingInOrder: inF[id], passingOvertaken: overP[id], passingInOrder: inP[id] };
        if (!startOrderTestable(r) || hasEvidence(failed[id], passed[id], totalFailed, totalPassed)) continue;
        candidates.push(id);
      }
      const t = startOrderThreshold(candidates.length);
      for (const id of candidates) {
        const v = startOrderVariant({ failingOvertaken: overF[id], failingInOrder: inF[id], passingOvertaken: overP[id], passingInOrder: inP[id] }, totalFailed, totalPassed, t);
        if (!v) continue;
        evidenced[id] = 2;
        startTests.set(id, v);
        // scored as its variant
        weightedPassed[id] = variantScoredPassed(failed[id], v, totalFailed);
      }
    }
    /** the p-value of a pattern's evidence by order or by start order */
    const evidenceP = (id: number): number => startTests.get(id)?.pValue ?? pValue[id];
    // order within a tie (options.orderTies): per pattern id, 1 when its order goes with failing — the same
    // test over every pattern in a failing run whose accesses occur in another order too, presence evidence
    // or not, at 0.05 / the number of those patterns
    let tieOrder: Uint8Array | undefined;
    if (ties) {
      tieOrder = new Uint8Array(n);
      let m = 0;
      for (let id = 0; id < n; id++) {
        const g = groupOf[id];
        if (g >= 0 && failed[id] > 0 && groupF[g] + groupP[g] !== occF[id] + occP[id]) m++;
      }
      const t = orderThreshold(m);
      for (let id = 0; id < n; id++) {
        const g = groupOf[id];
        if (g < 0 || failed[id] === 0 || groupF[g] + groupP[g] === occF[id] + occP[id]) continue;
        const p = orderPValue({ failing: occF[id], failingOther: groupF[g] - occF[id], passing: occP[id], passingOther: groupP[g] - occP[id] });
        if (p < t) tieOrder[id] = 1;
      }
    }
    return { occF, occP, groupOf, groupF, groupP, pValue, threshold, weightedPassed, tieOrder, evidenced, startTests, evidenceP };
  }

  /** per static access: its loc (registry.accesses[s].loc, copied in id order: patterns read it in any order) */
  private accessLocs = new Int32Array(0);
  private accessLocsFor = 0;

  private refreshAccessLocs(): void {
    const accesses = this.registry.accesses;
    const A = accesses.length;
    if (A > this.accessLocs.length) {
      const grown = new Int32Array(Math.max(A, this.accessLocs.length * 2, 1024));
      grown.set(this.accessLocs.subarray(0, this.accessLocsFor));
      this.accessLocs = grown;
    }
    for (let s = this.accessLocsFor; s < A; s++) this.accessLocs[s] = accesses[s].loc;
    this.accessLocsFor = A;
  }

  /** per loc: 0 not known yet, 1 user code, 2 library code (isLibrary) */
  private libraryLocs = new Uint8Array(0);

  private isLibraryLoc(locId: number): boolean {
    if (locId >= this.libraryLocs.length) {
      const grown = new Uint8Array(Math.max(locId + 1, this.libraryLocs.length * 2, 1024));
      grown.set(this.libraryLocs);
      this.libraryLocs = grown;
    }
    let v = this.libraryLocs[locId];
    if (v === 0) {
      const loc = this.registry.locs[locId];
      this.libraryLocs[locId] = v = this.isLibrary(loc.file, loc.method) ? 2 : 1;
    }
    return v === 2;
  }

  /** per pattern id: its interned methods key + 1 (0: not computed yet); kept across rank() calls */
  private tieKeys = new Int32Array(0);
  /** interned role method sets (a set of ≤ 2 method numbers packed in a number, or its text) */
  private readonly methodSetNos = new Map<number | string, number>();
  /** interned unordered pairs of role method sets → methods key number */
  private readonly tieKeyNos = new Map<number | string, number>();
  /** the same for pairs of sets of ≤ 2 methods numbered below SMALL_METHODS (no set interning) */
  private readonly smallTieKeyNos = new NumberIdMap();
  private tieKeyCount = 0;
  /** the patterns in static-key order (the last tie-break of the listed order), kept across rank() calls */
  private keyOrder: StaticKeyOrder | undefined;

  /**
   * The pattern's methods key, interned, computed once per pattern: equal for two patterns exactly when
   * rootCauseOrder.methodsKey of their described accesses is (each role's set of methods, the two roles
   * unordered).
   */
  private tieKeyOf(id: number): number {
    if (id < this.tieKeys.length && this.tieKeys[id] > 0) return this.tieKeys[id] - 1;
    const reg = this.registry;
    const roles = reg.patternDef(id).roles;
    const n = roles.length;
    const scratch = this.keyScratch.length >= 2 * n ? this.keyScratch : (this.keyScratch = new Int32Array(2 * n));
    // role 1's method numbers in scratch[0..n1), role 2's in scratch[n..n+n2), each sorted and unique
    let n1 = 0;
    let n2 = 0;
    for (let k = 0; k < n; k++) {
      const loc = this.accessLocs[reg.patternAccessAt(id, k)];
      // the stack only matters for an access in library code
      const m = loc < this.locMethodNos.length && this.locMethodNos[loc] > 0 ? this.locMethodNos[loc] - 1 : this.userMethodNo(loc, reg.patternStackAt(id, k));
      const base = roles[k] === 1 ? 0 : n;
      const len = base === 0 ? n1 : n2;
      let q = base + len;
      let dup = false;
      for (let j = base; j < base + len; j++) if (scratch[j] === m) dup = true;
      if (dup) continue;
      while (q > base && scratch[q - 1] > m) {
        scratch[q] = scratch[q - 1];
        q--;
      }
      scratch[q] = m;
      if (base === 0) n1++;
      else n2++;
    }
    let no: number | undefined;
    if (n1 <= 2 && n2 <= 2 && (n1 === 0 || scratch[n1 - 1] < SMALL_METHODS) && (n2 === 0 || scratch[n + n2 - 1] < SMALL_METHODS)) {
      // common case, one map lookup: each role's set as a number below SMALL_METHODS², the pair below 2^28
      const c1 = n1 === 0 ? 0 : n1 === 1 ? scratch[0] + 1 : (scratch[0] + 1) * SMALL_METHODS + scratch[1] + 1;
      const c2 = n2 === 0 ? 0 : n2 === 1 ? scratch[n] + 1 : (scratch[n] + 1) * SMALL_METHODS + scratch[n + 1] + 1;
      const pair = c1 < c2 ? c1 * 2 ** 14 + c2 : c2 * 2 ** 14 + c1;
      no = this.smallTieKeyNos.get(pair);
      if (no < 0) this.smallTieKeyNos.set(pair, (no = this.tieKeyCount++));
    } else {
      const s1 = this.methodSetNo(scratch, 0, n1);
      const s2 = this.methodSetNo(scratch, n, n2);
      const lo = Math.min(s1, s2);
      const hi = Math.max(s1, s2);
      const pair: number | string = hi < 2 ** 15 ? lo * 2 ** 15 + hi : `${lo},${hi}`;
      no = this.tieKeyNos.get(pair);
      if (no === undefined) this.tieKeyNos.set(pair, (no = this.tieKeyCount++));
    }
    if (id >= this.tieKeys.length) {
      const grown = new Int32Array(Math.max(id + 1, this.tieKeys.length * 2, 1024));
      grown.set(this.tieKeys);
      this.tieKeys = grown;
    }
    this.tieKeys[id] = no + 1;
    return no;
  }

  /** The number of a sorted set of method numbers (scratch[from..from+len)), interned. */
  private methodSetNo(scratch: Int32Array, from: number, len: number): number {
    // small integer keys (fast maps) for up to 2 methods numbered below 2^14 - 2; otherwise the set's text
    const lim = 2 ** 14 - 2;
    let key: number | string;
    if (len === 0) key = 0;
    else if (len === 1 && scratch[from] < lim) key = scratch[from] + 1;
    else if (len === 2 && scratch[from + 1] < lim) key = (scratch[from] + 1) * 2 ** 14 + scratch[from + 1] + 1;
    else {
      key = '';
      for (let j = 0; j < len; j++) key += (j ? ',' : '') + scratch[from + j];
    }
    let no = this.methodSetNos.get(key);
    if (no === undefined) this.methodSetNos.set(key, (no = this.methodSetNos.size));
    return no;
  }

  private keyScratch = new Int32Array(8);
  /** per loc outside library code: its method's number + 1 (0: not known yet, or library code) */
  private locMethodNos = new Int32Array(0);

  /** The number of the method an access is shown in (userMethod, interned). */
  private userMethodNo(locId: number, stack: number): number {
    if (locId < this.locMethodNos.length && this.locMethodNos[locId] > 0) return this.locMethodNos[locId] - 1;
    const m = this.methodNo(this.userMethod(locId, stack));
    if (typeof this.userMethods.get(locId) === 'string') {
      if (locId >= this.locMethodNos.length) {
        const grown = new Int32Array(Math.max(locId + 1, this.locMethodNos.length * 2, 1024));
        grown.set(this.locMethodNos);
        this.locMethodNos = grown;
      }
      this.locMethodNos[locId] = m + 1;
    }
    return m;
  }

  private readonly methodNos = new Map<string, number>();
  private methodNo(method: string): number {
    let n = this.methodNos.get(method);
    if (n === undefined) this.methodNos.set(method, (n = this.methodNos.size));
    return n;
  }

  /** one method name per loc outside library code; per (loc, stack) inside it */
  private readonly userMethods = new Map<number, string | Map<number, string>>();

  /** The method an access is shown in: its own, or its nearest caller in the user's code (describe's `method`). */
  private userMethod(locId: number, stack: number): string {
    const known = this.userMethods.get(locId);
    if (typeof known === 'string') return known;
    const loc = this.registry.locs[locId];
    if (known === undefined && !this.isLibrary(loc.file, loc.method)) {
      this.userMethods.set(locId, loc.method);
      return loc.method;
    }
    let byStack = known as Map<number, string> | undefined;
    if (!byStack) this.userMethods.set(locId, (byStack = new Map()));
    let m = byStack.get(stack);
    if (m === undefined) {
      const user = nearestUserFrame(loc, this.frames(stack), this.isLibrary);
      byStack.set(stack, (m = user ? user.method : loc.method));
    }
    return m;
  }

  /** Order of tied patterns within one score (measurements: docs/algorithms.md). */
  tieOrder: TieOrder = 'shorter';

  /** per pattern id: 0 not known yet, 1 some access outside test code, 2 every access in test code */
  private harnessFlags = new Uint8Array(0);
  /** per loc: 0 not known yet, 1 code under test, 2 test code */
  private testLocs = new Uint8Array(0);
  /** the test driver of the runs (testDriver.ts), from their entry classes and the patterns' code */
  private readonly drivers = new DriverDetector(this.registry);

  /**
   * A later trace or summary may mark a known loc as test code (`loc.harness`): the locs and
   * patterns known as code under test are then asked again. New runs and patterns may change the
   * driver code (testDriver.ts): then every loc and pattern is asked again.
   */
  private refreshTestLocs(): void {
    const locs = this.registry.locs;
    let changed = false;
    for (let l = 0; l < this.testLocs.length && l < locs.length; l++)
      if (this.testLocs[l] === 1 && locs[l].harness) {
        this.testLocs[l] = 0;
        changed = true;
      }
    const rule = this.drivers.refresh({
      programs: [...this.runs.values()].map((r) => r.program),
      isLibraryLoc: (l) => this.isLibraryLoc(l),
      library: this.libraryPredicate,
      declared: (l) => this.testCode.declared(locs[l]),
      force: changed,
    });
    if (rule) {
      this.testCode.setDrivers(rule);
      this.testLocs.fill(0);
      changed = true;
    }
    if (changed) {
      this.harnessFlags.fill(0);
      this.frameCache.clear();
      this.framesCache.clear();
    }
  }

  /** The loc is test code (testCode.isTestCode, asked once per loc; see refreshTestLocs). */
  private isTestLoc(locId: number): boolean {
    if (locId >= this.testLocs.length) {
      const grown = new Uint8Array(Math.max(locId + 1, this.testLocs.length * 2, 1024));
      grown.set(this.testLocs);
      this.testLocs = grown;
    }
    if (this.testLocs[locId] === 0) this.testLocs[locId] = this.testCode.isTestCode(this.registry.locs[locId]) ? 2 : 1;
    return this.testLocs[locId] === 2;
  }

  /**
   * The pattern's group, an index into PATTERN_GROUPS: harness when every access is test code; symptom when
   * seen in failing runs, and in each of them only after the failure point; otherwise a cause. Whether a
   * pattern is test code is computed once per pattern.
   */
  /**
   * Whether the pattern's last access reads the empty value (null, undefined) that the other thread's
   * write of the pattern wrote over another thread's non-empty value (`clearing`, clearingWrites), at
   * the first occurrences (rootCauseOrder.readsCleared, without a closure).
   */
  private readsCleared(id: number, clearing: Uint8Array): boolean {
    const reg = this.registry;
    const d = reg.patternDef(id);
    const w = READ_OF[d.n];
    return w >= 0 && clearing[reg.patternAccessAt(id, w)] === 1 && isEmptyValue(reg.patternValueAt(id, d.kind.length - 1)) && isEmptyValue(reg.patternValueAt(id, w));
  }

  /**
   * Per static access: 1 when some W1 → W2 pattern (P3) has it as W2 writing the empty value over W1's
   * non-empty one (first occurrence) — a write that cleared what another thread had put there
   * (rootCauseOrder.clearsOther) — in a W1 → W2 pattern that has evidence by its presence (`evidence`
   * of its failing and passing runs): a clear that goes with failing, not a consumer's routine
   * take-and-clear in every run (tcprequest). Reused across rank() calls, grown with the registry.
   */
  private clearingWrites(failed: ArrayLike<number>, passed: ArrayLike<number>, evidence: (f: number, p: number) => boolean): Uint8Array {
    const reg = this.registry;
    const A = reg.accesses.length;
    if (this.clearing.length < A) this.clearing = new Uint8Array(Math.max(A, this.clearing.length * 2, 1024));
    else this.clearing.fill(0);
    for (let id = 0, n = reg.patternCount; id < n; id++) {
      if (reg.patternDef(id).n !== 3 || failed[id] === 0) continue;
      if (!evidence(failed[id], passed[id])) continue;
      if (clearsOther(reg.patternValueAt(id, 0), reg.patternValueAt(id, 1))) this.clearing[reg.patternAccessAt(id, 1)] = 1;
    }
    return this.clearing;
  }

  private clearing = new Uint8Array(0);

  /**
   * Per static access: 1 when it is a silent write — some R1 → W2 (P1) or W1 → W2 (P3) pattern ends in
   * it, and every one of them with recorded values shows its value already there before it (the
   * first access, adjacent in the location's run, has the same value; rootCauseOrder.silentWrite). 2:
   * some such pattern shows it changing the value, or it or the access before it is a library call
   * (`loc.call`: the recorded value of Map.set, fs.writeFile, emit is its key, path or event name). Reused across rank() calls, grown with the registry.
   */
  private silentWrites(): Uint8Array {
    const reg = this.registry;
    const A = reg.accesses.length;
    if (this.silent.length < A) this.silent = new Uint8Array(Math.max(A, this.silent.length * 2, 1024));
    else this.silent.fill(0);
    const s = this.silent;
    for (let id = 0, n = reg.patternCount; id < n; id++) {
      const pn = reg.patternDef(id).n;
      if (pn !== 1 && pn !== 3) continue;
      const before = reg.patternValueAt(id, 0);
      const value = reg.patternValueAt(id, 1);
      if (before === undefined || value === undefined) continue;
      const w = reg.patternAccessAt(id, 1);
      if (s[w] === 2) continue;
      // a library call's value is its key, path or event name (Map.set, fs.writeFile, on), not what it stores
      if (reg.locs[reg.accesses[w].loc].call !== undefined || reg.locs[reg.accesses[reg.patternAccessAt(id, 0)].loc].call !== undefined) {
        s[w] = 2;
        continue;
      }
      s[w] = silentWrite(before, value) ? 1 : 2;
    }
    return s;
  }

  private silent = new Uint8Array(0);

  /** Whether some write of the pattern is silent (silentWrites). */
  private hasSilentWrite(id: number, silent: Uint8Array): boolean {
    const reg = this.registry;
    const d = reg.patternDef(id);
    for (let k = 0; k < d.kind.length; k++) if (d.kind[k] === 'W' && silent[reg.patternAccessAt(id, k)] === 1) return true;
    return false;
  }

  private groupCodeOf(id: number, failedRuns: number, failedAfter: number): number {
    if (id >= this.harnessFlags.length) {
      const grown = new Uint8Array(Math.max(id + 1, this.harnessFlags.length * 2, 1024));
      grown.set(this.harnessFlags);
      this.harnessFlags = grown;
    }
    let h = this.harnessFlags[id];
    if (h === 0) {
      const reg = this.registry;
      h = 2;
      for (let k = 0, len = reg.patternDef(id).kind.length; k < len; k++) {
        if (!this.isTestLoc(this.accessLocs[reg.patternAccessAt(id, k)])) {
          h = 1;
          break;
        }
      }
      this.harnessFlags[id] = h;
    }
    if (h === 2) return HARNESS;
    if (failedRuns > 0 && failedAfter === failedRuns) return SYMPTOM;
    return CAUSE;
  }

  /** A call stack as reported (bottom first, deep stacks cut around a marker frame), shared by every pattern. */
  private frames(stack: number): { file: string; line: number; method: string; harness?: boolean }[] {
    if (stack < 0) return [];
    let f = this.framesCache.get(stack);
    if (!f) {
      const reg = this.registry;
      f = reportedFrames(reg.stackFrames(stack)).map((l) => {
        if (l < 0) return { file: '', line: 0, method: `… ${-l} frames …` };
        let frame = this.frameCache.get(l);
        if (!frame) {
          const loc = reg.locs[l];
          // the recorder's test-code mark goes with the frame: GRIFFIN never names a test frame's method while code under test is on the stack
          const f: { file: string; line: number; method: string; harness?: boolean } = { file: loc.file, line: loc.line, method: loc.method };
          if (loc.harness) f.harness = true;
          this.frameCache.set(l, (frame = f));
        }
        return frame;
      });
      this.framesCache.set(stack, f);
    }
    return f;
  }

  describe(
    id: number,
    rank: number,
    score: number,
    failed: number,
    passed: number,
    totalFailed = 0,
    totalPassed = 0,
    group: PatternGroup = 'cause',
  ): RankedPattern {
    const reg = this.registry;
    // the registry's columns read directly (no array per column)
    const def = reg.patternDef(id);
    const accesses: PatternAccess[] = [];
    for (let k = 0; k < def.kind.length; k++) {
      const a = reg.accesses[reg.patternAccessAt(id, k)];
      const loc = reg.locs[a.loc];
      const stack = this.frames(reg.patternStackAt(id, k));
      const user = this.isLibraryLoc(a.loc) ? nearestUserFrame(loc, stack, this.isLibrary) : undefined;
      const access: PatternAccess = {
        thread: def.roles[k],
        type: a.write ? 'W' : 'R',
        variable: reg.variables[a.variable],
        file: user ? user.file : loc.file,
        line: user ? user.line : loc.line,
        method: user ? user.method : loc.method,
        stack,
      };
      const value = reg.patternValueAt(id, k);
      const name = reg.patternThreadNameAt(id, k);
      if (value !== undefined) access.value = value;
      if (name !== undefined) access.threadName = name;
      if (user) access.library = { file: loc.file, line: loc.line, method: loc.method };
      if (loc.call !== undefined) access.call = loc.call;
      if (loc.mixedCalls) access.mixedCalls = true;
      if (this.isTestLoc(a.loc)) access.harness = true;
      accesses.push(access);
    }
    return {
      rank,
      score,
      id: def.id,
      kind: def.kind,
      category: def.category,
      failed,
      passed,
      accesses,
      key: reg.patternKey(id),
      index: id,
      pValue: fisherOneSided(failed, passed, totalFailed, totalPassed),
      group,
      tie: 0,
      tieSize: 1,
    };
  }

  // ---- workspace snapshot (summary/workspaceSnapshot.ts): the whole state out and back in ----

  /** Everything this analyzer knows (registry, runs in the order added, traces' problems, content hashes). */
  exportState(): AnalyzerState {
    return {
      registry: this.registry.exportColumns(),
      runs: [...this.runs.values()].map((run) => ({ run, diagnostics: this.fileDiagnostics.get(run.file) ?? [], hash: this.contentHashes.get(run.file) })),
      unreadable: [...this.fileDiagnostics].filter(([f]) => !this.runs.has(f)).map(([file, diagnostics]) => ({ file, diagnostics })),
    };
  }

  /** Makes a new analyzer (nothing added yet) the one exported: the same ids, runs and problems. */
  importState(s: AnalyzerState): void {
    if (this.runs.size || this.fileDiagnostics.size || this.registry.patternCount) throw new Error('importState needs a new analyzer');
    this.registry.importColumns(s.registry);
    const n = this.registry.patternCount;
    for (const { run, diagnostics, hash } of s.runs) {
      for (const list of [run.patterns, run.afterFailure ?? []])
        for (let k = 0; k < list.length; k++) if (!(list[k] >= 0 && list[k] < n)) throw new Error(`run ${run.file}: pattern id ${list[k]} out of range`);
      this.runs.set(run.file, run);
      this.fileDiagnostics.set(run.file, diagnostics);
      if (hash) this.contentHashes.set(run.file, hash);
    }
    for (const { file, diagnostics } of s.unreadable) if (!this.runs.has(file)) this.fileDiagnostics.set(file, diagnostics);
  }
}

/**
 * Gives `result` its compact ranking (not enumerable) and a `patterns` list
 * described on first read (then kept); assigning `patterns` replaces it
 * (e.g. the language server keeps only the top patterns).
 */
export function withRanking(result: AnalysisResult, ranking: RankedList<RankedPattern>): AnalysisResult {
  Object.defineProperty(result, 'ranking', { value: ranking, enumerable: false, writable: true, configurable: true });
  Object.defineProperty(result, 'patterns', {
    enumerable: true,
    configurable: true,
    get(this: AnalysisResult) {
      const all = ranking.describeRange();
      Object.defineProperty(this, 'patterns', { value: all, enumerable: true, writable: true, configurable: true });
      return all;
    },
    set(this: AnalysisResult, v: RankedPattern[]) {
      Object.defineProperty(this, 'patterns', { value: v, enumerable: true, writable: true, configurable: true });
    },
  });
  return result;
}

/**
 * Frames shown per call stack in reports: a deeper stack keeps its bottom and
 * top REPORTED_STACK_FRAMES / 2 frames around one marker frame
 * (`… N frames …`), so reports stay proportional to the patterns, not to
 * patterns × depth (traces keep up to 1,024 frames per stack).
 */
export const REPORTED_STACK_FRAMES = 128;

/** Loc ids of a reported stack; a negative entry -N stands for N frames left out. */
function reportedFrames(ids: number[]): number[] {
  if (ids.length <= REPORTED_STACK_FRAMES) return ids;
  const half = REPORTED_STACK_FRAMES / 2;
  return [...ids.slice(0, half), -(ids.length - REPORTED_STACK_FRAMES), ...ids.slice(ids.length - half)];
}

/** Analyzes trace files and folders (searched for *.trace.jsonl[.gz]). */
export async function analyzeTraceFiles(inputs: string[], options: Partial<AnalysisOptions> = {}): Promise<AnalysisResult> {
  const analyzer = new Analyzer(options);
  const { files, diagnostics } = await findTraceFiles(inputs);
  for (const f of files) await analyzer.addTrace(f);
  const result = analyzer.rank();
  result.diagnostics.unshift(...diagnostics);
  if (files.length === 0 && diagnostics.length === 0) {
    result.diagnostics.push({ severity: 'error', file: inputs.join(' '), message: 'no trace files (*.trace.jsonl, *.trace.jsonl.gz) found' });
  }
  return result;
}

/** SHA-1 of a file's bytes, streamed. */
export function fileHash(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha1');
    createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/**
 * The noise plan named in a trace header (`recorder.options.plan`: `{name, file}`, or the plan
 * file's path alone). Untrusted input: anything else is no plan; strings are cut to 500 chars.
 */
export function planOfRun(v: unknown): { plan?: { name: string; file?: string } } {
  const cut = (x: string) => x.slice(0, 500);
  if (typeof v === 'string' && v) return { plan: { name: cut(v.replace(/\\/g, '/').split('/').pop()!.replace(/\.json$/i, '') || v), file: cut(v) } };
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  const o = v as Record<string, unknown>;
  const file = typeof o.file === 'string' && o.file ? cut(o.file) : undefined;
  const name = typeof o.name === 'string' && o.name ? cut(o.name) : file ? planOfRun(file).plan?.name : undefined;
  return name ? { plan: { name, ...(file ? { file } : {}) } } : {};
}
