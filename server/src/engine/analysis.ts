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
import { findTraceFiles } from './traceDiscovery';
import { PatternRegistry } from './unicorn/patternRegistry';
import { CollectorStats, RunCollector, UnicornCollector } from './unicorn/unicornCollector';
import { FalconCollector } from './falcon/falconCollector';
import { Formula, FORMULAS, suspiciousness } from './ranking/suspiciousness';
import { competitionRanks } from './ranking/competitionRanking';
import { PatternCategory } from './unicorn/patternCatalog';

export type Strategy = 'unicorn' | 'falcon';

export interface AnalysisOptions {
  strategy: Strategy;
  /** access window size w (UNICORN Step 1, FALCON window) */
  accessWindow: number;
  /** pair window size (UNICORN Step 2) */
  pairWindow: number;
  formula: Formula;
}

export const DEFAULT_OPTIONS: AnalysisOptions = {
  strategy: 'unicorn',
  accessWindow: 5,
  pairWindow: 100,
  formula: 'jaccard',
};

export function validateOptions(o: Partial<AnalysisOptions>): AnalysisOptions {
  const r = { ...DEFAULT_OPTIONS, ...o };
  if (r.strategy !== 'unicorn' && r.strategy !== 'falcon') throw new Error(`unknown strategy "${r.strategy}" (use unicorn or falcon)`);
  if (!FORMULAS.includes(r.formula)) throw new Error(`unknown formula "${r.formula}" (use ${FORMULAS.join(', ')})`);
  if (!Number.isInteger(r.accessWindow) || r.accessWindow < 2) throw new Error(`access window must be an integer ≥ 2, got ${r.accessWindow}`);
  if (!Number.isInteger(r.pairWindow) || r.pairWindow < 0) throw new Error(`pair window must be an integer ≥ 0, got ${r.pairWindow}`);
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
  events: number;
  /** pattern ids (PatternRegistry) found in this run */
  patterns: number[];
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
  /** call stack of the first occurrence, bottom first (may be empty) */
  stack: { file: string; line: number; method: string }[];
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
  /** id in the analyzer's registry (not stable across processes) */
  index: number;
}

export interface AnalysisResult {
  options: AnalysisOptions;
  executions: { total: number; failed: number; passed: number };
  patterns: RankedPattern[];
  runs: RunResult[];
  diagnostics: Diagnostic[];
  /** a sentence for the user when the result needs explaining (e.g. no failing runs) */
  message?: string;
  stats: { events: number; pairs: number; patterns: number; latePairs: number };
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

  constructor(options: Partial<AnalysisOptions> = {}) {
    this.options = validateOptions(options);
  }

  private collector(): RunCollector {
    const o = this.options;
    return o.strategy === 'falcon' ? new FalconCollector(this.registry, o.accessWindow) : new UnicornCollector(this.registry, o.accessWindow, o.pairWindow);
  }

  /** Reads and analyzes one trace; replaces an earlier result for the file. */
  async addTrace(file: string): Promise<RunResult | undefined> {
    const collector = this.collector();
    const r = await readTrace(file, collector);
    const diags = [...r.diagnostics];
    this.runs.delete(file);
    this.contentHashes.delete(file);
    if (!r.ok || !r.header || !r.outcome) {
      this.fileDiagnostics.set(file, diags);
      return undefined;
    }
    const found = collector.finish();
    const stats = collector.stats();
    if (stats.latePairs > 0) {
      diags.push({
        severity: 'warning',
        file,
        message: `${stats.latePairs} memory-access pairs arrived after the pair ordering buffer was full; they were combined approximately`,
      });
    }
    if (r.droppedEvents > 0) {
      diags.push({
        severity: 'warning',
        file,
        message: `the recorder dropped ${r.droppedEvents} events of this run (its trace writer fell behind); patterns of this run may be missing`,
      });
    }
    this.fileDiagnostics.set(file, diags);
    const seed = r.header.recorder?.options?.seed;
    const run: RunResult = {
      file,
      execution: r.header.execution,
      outcome: r.outcome,
      outcomeReason: r.outcomeReason,
      outcomeDetail: r.outcomeDetail,
      program: r.header.program,
      test: r.header.test,
      seed: seed === undefined ? undefined : String(seed),
      events: r.eventCount,
      patterns: found.ids.slice().sort((a, b) => a - b),
      stats,
      uncaught: r.uncaught,
      droppedEvents: r.droppedEvents,
    };
    this.runs.set(file, run);
    await this.hashCollisions(run);
    return run;
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
    for (const r of same) if (!this.contentHashes.has(r.file)) this.contentHashes.set(r.file, await fileHash(r.file));
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

  /** UNICORN Step 3: counts, suspiciousness, competition ranking. */
  rank(): AnalysisResult {
    const runs = this.runResults();
    const totalFailed = runs.filter((r) => r.outcome === 'fail').length;
    const totalPassed = runs.length - totalFailed;
    const failed = new Map<number, number>();
    const passed = new Map<number, number>();
    for (const r of runs) {
      const m = r.outcome === 'fail' ? failed : passed;
      for (const p of r.patterns) m.set(p, (m.get(p) ?? 0) + 1);
    }
    const ids = new Set<number>([...failed.keys(), ...passed.keys()]);
    const reg = this.registry;
    const rows = [...ids].map((id) => {
      const f = failed.get(id) ?? 0;
      const p = passed.get(id) ?? 0;
      return { id, f, p, score: totalFailed === 0 ? 0 : suspiciousness(this.options.formula, f, p, totalFailed, totalPassed), info: reg.patterns[id] };
    });
    rows.sort(
      (a, b) =>
        b.score - a.score ||
        b.f - a.f ||
        a.p - b.p ||
        b.info.accesses.length - a.info.accesses.length ||
        (a.info.key < b.info.key ? -1 : a.info.key > b.info.key ? 1 : 0),
    );
    const ranks = competitionRanks(rows.map((r) => r.score));
    const patterns: RankedPattern[] = rows.map((r, k) => this.describe(r.id, ranks[k], r.score, r.f, r.p));
    let message: string | undefined;
    if (runs.length === 0) message = 'No traces could be analyzed.';
    else if (totalFailed === 0)
      message = `None of the ${runs.length} runs failed, so every pattern scores 0. Record more runs (or raise the noise) until some fail.`;
    else if (totalPassed === 0) message = `All ${runs.length} runs failed; with no passing run to compare with, scores cannot tell patterns apart well.`;
    let events = 0;
    let pairs = 0;
    let late = 0;
    for (const r of runs) {
      events += r.events;
      pairs += r.stats.pairs;
      late += r.stats.latePairs;
    }
    return {
      options: this.options,
      executions: { total: runs.length, failed: totalFailed, passed: totalPassed },
      patterns,
      runs,
      diagnostics: this.diagnostics(),
      message,
      stats: { events, pairs, patterns: patterns.length, latePairs: late },
    };
  }

  describe(id: number, rank: number, score: number, failed: number, passed: number): RankedPattern {
    const reg = this.registry;
    const info = reg.patterns[id];
    const frames = (stack: number) => {
      if (stack < 0) return [];
      let f = this.framesCache.get(stack);
      if (!f) {
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
    };
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
        return {
          thread: info.roles[k],
          type: a.write ? 'W' : 'R',
          variable: reg.variables[a.variable],
          file: loc.file,
          line: loc.line,
          method: loc.method,
          stack: frames(info.stacks[k]),
          ...(info.values[k] !== undefined ? { value: info.values[k] } : {}),
        };
      }),
      key: info.key,
      index: id,
    };
  }
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
function fileHash(file: string): Promise<string> {
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
