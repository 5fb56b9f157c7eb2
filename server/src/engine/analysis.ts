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
import { Diagnostic, Outcome, UncaughtInfo } from './trace/traceFormat';
import { readTrace } from './trace/traceReader';
import { readTraceInThread } from './trace/traceReaderThread';
import { findTraceFiles } from './traceDiscovery';
import { PatternRegistry } from './unicorn/patternRegistry';
import { CollectorStats, RunCollector, UnicornCollector } from './unicorn/unicornCollector';
import { FalconCollector } from './falcon/falconCollector';
import { Formula, FORMULAS, suspiciousness } from './ranking/suspiciousness';
import { PatternCategory } from './unicorn/patternCatalog';
import { fisherOneSided } from './ranking/fisherExact';
import { TestCodeClassifier } from './testCode';
import { isLibraryCode, LibraryPredicate, nearestUserFrame } from './libraryCode';
import { PATTERN_GROUPS, PatternGroup, TieOrder, confidenceNote } from './ranking/rootCauseOrder';
import { sameScore } from './ranking/competitionRanking';
import { RankedList } from './ranking/rankedList';
export { patternAt, patternCount } from './ranking/rankedList';
import { encodeRuns, SummaryMerger } from './summary/runSummary';
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
}

export const DEFAULT_OPTIONS: AnalysisOptions = {
  strategy: 'unicorn',
  accessWindow: 5,
  pairWindow: 100,
  formula: 'jaccard',
  happensBefore: true,
  grouping: true,
  testCode: [],
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
  /** pattern ids (PatternRegistry) found in this run */
  patterns: number[];
  /** failing runs: global index of the failure point (first FAIL event or the outcome's failAt), when known */
  failPoint?: number;
  /** failing runs: pattern ids whose every occurrence in this run ends after the failure point */
  afterFailure?: number[];
  /** failing runs: the thread of the first uncaught exception, with its trace name (for the views) */
  failingThread?: { id: number; name: string };
  stats: CollectorStats;
  uncaught: UncaughtInfo[];
  /** events the recorder dropped in this run (its writer fell behind); 0 normally */
  droppedEvents: number;
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
  stats: { events: number; pairs: number; patterns: number; latePairs: number; orderedPairs: number };
}

export class Analyzer {
  readonly options: AnalysisOptions;
  readonly registry = new PatternRegistry();
  private readonly runs = new Map<string, RunResult>();
  private readonly fileDiagnostics = new Map<string, Diagnostic[]>();
  /** content hashes of trace files whose execution id collides with another's */
  private readonly contentHashes = new Map<string, string>();
  /** described call stacks, shared by all patterns (read-only) */
  private readonly framesCache = new Map<number, { file: string; line: number; method: string }[]>();
  /** one frame object per location (read-only) */
  private readonly frameCache = new Map<number, { file: string; line: number; method: string }>();
  private readonly testCode: TestCodeClassifier;
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
    this.testCode = new TestCodeClassifier(this.options.testCode);
  }

  private collector(): RunCollector {
    const o = this.options;
    return o.strategy === 'falcon'
      ? new FalconCollector(this.registry, o.accessWindow)
      : new UnicornCollector(this.registry, o.accessWindow, o.pairWindow, o.happensBefore);
  }

  /**
   * Reads and analyzes one trace; replaces an earlier result for the file.
   * `readerThread`: parse in a worker thread while this one collects (same result, trace/traceReaderThread.ts).
   */
  async addTrace(file: string, how: { readerThread?: boolean } = {}): Promise<RunResult | undefined> {
    const collector = this.collector();
    let r: Awaited<ReturnType<typeof readTrace>>;
    try {
      r = await (how.readerThread ? readTraceInThread : readTrace)(file, collector);
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
      patterns: found.sortedIds(),
      failPoint,
      afterFailure,
      ...(r.outcome === 'fail' && r.uncaught[0]?.thread !== undefined
        ? { failingThread: { id: r.uncaught[0].thread, name: r.symbols.threads.get(r.uncaught[0].thread)?.name ?? `thread ${r.uncaught[0].thread}` } }
        : {}),
      stats,
      uncaught: r.uncaught,
      droppedEvents: r.droppedEvents,
    };
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
    const n = reg.patterns.length;
    const failed = new Int32Array(n);
    const passed = new Int32Array(n);
    const failedAfter = new Int32Array(n);
    for (const r of runs) {
      const m = r.outcome === 'fail' ? failed : passed;
      for (const p of r.patterns) m[p]++;
      if (r.afterFailure) for (const p of r.afterFailure) failedAfter[p]++;
    }
    const grouping = this.options.grouping;
    // compact rows (typed arrays): the order of rootCauseOrder.orderPatterns, ranks of listRanks, ties of tieGroups
    let count = 0;
    for (let id = 0; id < n; id++) if (failed[id] !== 0 || passed[id] !== 0) count++;
    const ids = new Int32Array(count);
    const score = new Float64Array(count);
    const group = new Uint8Array(count);
    const length = new Int32Array(count);
    const keys: string[] = new Array(count);
    const fr = new Int32Array(count);
    const pr = new Int32Array(count);
    for (let id = 0, k = 0; id < n; id++) {
      const f = failed[id];
      const p = passed[id];
      if (f === 0 && p === 0) continue;
      const info = reg.patterns[id];
      ids[k] = id;
      fr[k] = f;
      pr[k] = p;
      score[k] = totalFailed === 0 ? 0 : suspiciousness(this.options.formula, f, p, totalFailed, totalPassed);
      group[k] = grouping ? PATTERN_GROUPS.indexOf(this.groupOf(id, f, failedAfter[id])) : 0;
      length[k] = info.accesses.length;
      keys[k] = info.key;
      k++;
    }
    const order = Array.from({ length: count }, (_, k) => k);
    const byKey = (a: number, b: number) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0);
    if (!grouping) {
      order.sort((a, b) => score[b] - score[a] || fr[b] - fr[a] || pr[a] - pr[b] || length[b] - length[a] || byKey(a, b));
    } else {
      const dir = this.tieOrder === 'shorter' ? 1 : -1;
      order.sort(
        (a, b) =>
          group[a] - group[b] ||
          score[b] - score[a] ||
          pr[a] - pr[b] ||
          fr[b] - fr[a] ||
          dir * (length[a] - length[b]) ||
          byKey(a, b),
      );
    }
    const ranking = new RankedList<RankedPattern>(count, (list, k) => {
      const d = this.describe(list.ids[k], list.ranks[k], list.scores[k], list.failed[k], list.passed[k], totalFailed, totalPassed, list.group(k));
      d.tie = list.ties[k];
      d.tieSize = list.tieSizes[k];
      return d;
    });
    // runs of equal (group, score): one competition rank; within a run, one tie group per methods key (grouping on)
    let j = 0;
    let tieNo = 0;
    for (let start = 0; start < count; ) {
      const a = order[start];
      let end = start + 1;
      while (end < count && sameScore(score[order[end]], score[order[end - 1]]) && (!grouping || group[order[end]] === group[a])) end++;
      const rank = start + 1;
      const put = (k: number, tie: number, size: number) => {
        const id = ids[k];
        ranking.set(j++, id, rank, score[k], failed[id], passed[id], PATTERN_GROUPS[group[k]], tie, size);
      };
      if (!grouping || end - start === 1) {
        for (let q = start; q < end; q++) put(order[q], ++tieNo, 1);
      } else {
        // tie groups: scores equal to the first of the run (tieGroups), a sub-run of the rank's run
        for (let sub = start; sub < end; ) {
          let subEnd = sub + 1;
          while (subEnd < end && sameScore(score[order[subEnd]], score[order[sub]])) subEnd++;
          const buckets = new Map<number, number[]>();
          for (let q = sub; q < subEnd; q++) {
            const mk = subEnd - sub === 1 ? 0 : this.tieKeyOf(ids[order[q]]);
            const bucket = buckets.get(mk);
            if (bucket) bucket.push(order[q]);
            else buckets.set(mk, [order[q]]);
          }
          for (const members of buckets.values()) {
            tieNo++;
            for (const k of members) put(k, tieNo, members.length);
          }
          sub = subEnd;
        }
      }
      start = end;
    }
    let message: string | undefined;
    if (runs.length === 0) message = 'No traces could be analyzed.';
    else if (totalFailed === 0)
      message = `None of the ${runs.length} runs failed, so every pattern scores 0. Record more runs (or raise the noise) until some fail.`;
    else if (totalPassed === 0) message = `All ${runs.length} runs failed; with no passing run to compare with, scores cannot tell patterns apart well.`;
    const firstCause =
      ranking.length && ranking.group(0) === 'cause'
        ? { failed: ranking.failed[0], passed: ranking.passed[0], pValue: fisherOneSided(ranking.failed[0], ranking.passed[0], totalFailed, totalPassed) }
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
    } as AnalysisResult;
    return withRanking(result, ranking);
  }

  /**
   * A key equal for two patterns exactly when rootCauseOrder.methodsKey of their described accesses is
   * (each role's set of methods, the two roles unordered), made of interned method numbers.
   */
  private methodsKeyOf(id: number): string {
    const reg = this.registry;
    const info = reg.patterns[id];
    const n = info.accesses.length;
    const scratch = this.keyScratch.length >= 2 * n ? this.keyScratch : (this.keyScratch = new Int32Array(2 * n));
    // role 1's method numbers in scratch[0..n1), role 2's in scratch[n..n+n2), each sorted and unique
    let n1 = 0;
    let n2 = 0;
    for (let k = 0; k < n; k++) {
      const m = this.userMethodNo(reg.accesses[info.accesses[k]].loc, info.stacks[k]);
      const base = info.roles[k] === 1 ? 0 : n;
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
    let k1 = '';
    for (let j = 0; j < n1; j++) k1 += (j ? ',' : '') + scratch[j];
    let k2 = '';
    for (let j = 0; j < n2; j++) k2 += (j ? ',' : '') + scratch[n + j];
    return k1 <= k2 ? `${k1}|${k2}` : `${k2}|${k1}`;
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
  private readonly tieKeyNos = new Map<string, number>();

  /** The pattern's interned methods key (methodsKeyOf), computed once per pattern. */
  private tieKeyOf(id: number): number {
    if (id < this.tieKeys.length && this.tieKeys[id] > 0) return this.tieKeys[id] - 1;
    const key = this.methodsKeyOf(id);
    let no = this.tieKeyNos.get(key);
    if (no === undefined) this.tieKeyNos.set(key, (no = this.tieKeyNos.size));
    if (id >= this.tieKeys.length) {
      const grown = new Int32Array(Math.max(id + 1, this.tieKeys.length * 2, 1024));
      grown.set(this.tieKeys);
      this.tieKeys = grown;
    }
    this.tieKeys[id] = no + 1;
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

  /**
   * harness: every access is test code; symptom: seen in failing runs, and
   * in each of them only after the failure point; otherwise a cause.
   */
  private groupOf(id: number, failedRuns: number, failedAfter: number): PatternGroup {
    const reg = this.registry;
    const info = reg.patterns[id];
    let allTest = true;
    for (const s of info.accesses) {
      const loc = reg.locs[reg.accesses[s].loc];
      if (!this.testCode.isTestCode(loc)) {
        allTest = false;
        break;
      }
    }
    if (allTest) return 'harness';
    if (failedRuns > 0 && failedAfter === failedRuns) return 'symptom';
    return 'cause';
  }

  /** A call stack as reported (bottom first, deep stacks cut around a marker frame), shared by every pattern. */
  private frames(stack: number): { file: string; line: number; method: string }[] {
    if (stack < 0) return [];
    let f = this.framesCache.get(stack);
    if (!f) {
      const reg = this.registry;
      f = reportedFrames(reg.stackFrames(stack)).map((l) => {
        if (l < 0) return { file: '', line: 0, method: `… ${-l} frames …` };
        let frame = this.frameCache.get(l);
        if (!frame) {
          const loc = reg.locs[l];
          this.frameCache.set(l, (frame = { file: loc.file, line: loc.line, method: loc.method }));
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
    const info = reg.patterns[id];
    const frames = (stack: number) => this.frames(stack);
    return {
      rank,
      score,
      id: info.def.id,
      kind: info.def.kind,
      category: info.def.category,
      failed,
      passed,
      accesses: info.accesses.map((s, k) => {
        const a = reg.accesses[s];
        const loc = reg.locs[a.loc];
        const stack = frames(info.stacks[k]);
        const user = this.isLibraryLoc(a.loc) ? nearestUserFrame(loc, stack, this.isLibrary) : undefined;
        const access: PatternAccess = {
          thread: info.roles[k],
          type: a.write ? 'W' : 'R',
          variable: reg.variables[a.variable],
          file: user ? user.file : loc.file,
          line: user ? user.line : loc.line,
          method: user ? user.method : loc.method,
          stack,
          ...(info.values[k] !== undefined ? { value: info.values[k] } : {}),
        };
        if (info.threadNames[k] !== undefined) access.threadName = info.threadNames[k];
        if (user) access.library = { file: loc.file, line: loc.line, method: loc.method };
        if (loc.call !== undefined) access.call = loc.call;
        if (this.testCode.isTestCode(loc)) access.harness = true;
        return access;
      }),
      key: info.key,
      index: id,
      pValue: fisherOneSided(failed, passed, totalFailed, totalPassed),
      group,
      tie: 0,
      tieSize: 1,
    };
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
