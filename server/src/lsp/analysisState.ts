/**
 * One analysis result as the language features use it: ranked patterns as
 * DTOs with workspace URIs, an index source file → line → patterns (for
 * hover, heat and diagnostics), runs, and GRIFFIN's bugs with URIs.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnalysisResult, RankedPattern, RunResult } from '../engine/analysis';
import type { SourceResolver } from '../workspace/sourceResolver';
import type { AnalysisSummaryDto, LineScoresParams, PatternAccessDto, PatternDto, RunDto } from './protocol';
import { DEFAULT_MIN_SCORE, isWeakPattern } from './weakPatterns';

export interface SuspiciousMethodView {
  bug: number;
  thread: number;
  method: string;
  file: string;
  line: number;
  fsPath?: string;
  /** best rank among the bug's patterns */
  rank?: number;
  /** the methods (below it on the stacks) holding the lane's accesses: the suspicious method's contents */
  accessing: string[];
  /** the lane's thread name (role of the bug's best pattern), when the traces name it */
  threadName?: string;
}

export function fileUri(fsPath: string): string {
  return pathToFileURL(fsPath).href;
}

export class AnalysisState {
  readonly patterns: PatternDto[];
  /** fsPath → 1-based line → indices into `patterns`, best rank first */
  readonly lines = new Map<string, Map<number, number[]>>();
  readonly runs: RunDto[];
  readonly bugs: Record<string, unknown>[];
  readonly methods: SuspiciousMethodView[] = [];
  private readonly byKey = new Map<string, number>();

  constructor(
    readonly result: AnalysisResult,
    rawBugs: unknown[],
    readonly resolver: SourceResolver,
    /** all ranked patterns, of which `patterns` holds the best */
    readonly totalPatterns = result.patterns.length,
    /** braid.views.minScore: weaker patterns (weakPatterns.ts) get no heat, hover, code lens or diagnostic */
    minScore = DEFAULT_MIN_SCORE,
  ) {
    const fsPathOf = (file: string) => resolver.resolve(file);
    this.patterns = result.patterns.map((p, k) => {
      this.byKey.set(p.key, k);
      const dto = toPatternDto(p, fsPathOf);
      if (isWeakPattern(p, result.executions.passed, minScore)) dto.weak = true;
      return dto;
    });
    this.patterns.forEach((p, k) => {
      // the line index feeds hover and heat, which leave weak patterns out when asked (patternsAt): a weak
      // pattern confirmed by forcing is weak no more (ConfirmState.decorate)
      const seen = new Set<string>();
      for (const a of result.patterns[k].accesses) {
        const fsPath = fsPathOf(a.file);
        if (!fsPath) continue;
        const id = `${fsPath}:${a.line}`;
        if (seen.has(id)) continue;
        seen.add(id);
        let byLine = this.lines.get(fsPath);
        if (!byLine) this.lines.set(fsPath, (byLine = new Map()));
        let l = byLine.get(a.line);
        if (!l) byLine.set(a.line, (l = []));
        l.push(k); // patterns are in rank order already
      }
    });
    this.runs = result.runs.map((r) => toRunDto(r, fsPathOf));
    this.bugs = rawBugs.map((b) => withUris(b, fsPathOf) as Record<string, unknown>);
    const runByExecution = new Map(this.runs.map((r) => [r.execution, r]));
    for (const b of this.bugs) {
      // what the bug's failing runs reported (issue 30): each distinct failure with its number of runs, most frequent first
      if (Array.isArray(b.failingRuns)) b.failures = failuresOf((b.failingRuns as unknown[]).map((e) => runByExecution.get(String(e))));
      const id = typeof b.id === 'number' ? b.id : this.bugs.indexOf(b) + 1;
      const idx = Array.isArray(b.patterns) ? (b.patterns as unknown[]).filter((x): x is number => typeof x === 'number') : [];
      const ranks = idx.map((i) => result.patterns[i]?.rank).filter((r): r is number => typeof r === 'number');
      const rank = ranks.length ? Math.min(...ranks) : undefined;
      const sms = Array.isArray(b.suspiciousMethods) ? (b.suspiciousMethods as Record<string, unknown>[]) : [];
      const best = Array.isArray(b.patternKeys) && typeof b.patternKeys[0] === 'string' ? this.patternByKey(b.patternKeys[0]) : undefined;
      // the graph's lanes are the roles of the bug's best pattern: named after their threads (`copier (T1)`)
      const lanes = b.graph && typeof b.graph === 'object' && Array.isArray((b.graph as { lanes?: unknown }).lanes) ? ((b.graph as { lanes: Record<string, unknown>[] }).lanes) : [];
      for (const lane of lanes) {
        const name = best?.accesses.find((a) => a.thread === Number(lane?.thread) && a.threadName)?.threadName;
        if (name && lane) lane.label = `${name} (T${Number(lane.thread)})`;
      }
      for (const sm of sms) {
        const file = String(sm.file ?? '');
        // one meaning of "suspicious method" in every view: GRIFFIN's method, with the accessing methods as its contents
        const lane = Number(sm.thread ?? 0);
        sm.accessing = accessingMethods(b.graph, lane, String(sm.method ?? ''));
        const threadName = best?.accesses.find((a) => a.thread === lane && a.threadName)?.threadName;
        if (threadName) sm.threadName = threadName;
        this.methods.push({
          accessing: sm.accessing as string[],
          ...(threadName ? { threadName } : {}),
          bug: id,
          thread: Number(sm.thread ?? 0),
          method: String(sm.method ?? ''),
          file,
          line: Number(sm.line ?? 0),
          fsPath: fsPathOf(file),
          rank,
        });
      }
    }
  }

  patternByKey(key: string): PatternDto | undefined {
    const k = this.byKey.get(key);
    return k === undefined ? undefined : this.patterns[k];
  }

  rankedByKey(key: string): RankedPattern | undefined {
    const k = this.byKey.get(key);
    return k === undefined ? undefined : this.result.patterns[k];
  }

  /** Patterns with an access at this line of this file, best rank first. */
  /** The patterns on a line in rank order, weak ones left out (weakPatterns.ts). */
  patternsAt(fsPath: string, line: number): number[] {
    return (this.lines.get(fsPath)?.get(line) ?? []).filter((k) => !this.patterns[k].weak);
  }

  /** A failing run (else any run) that contains the pattern. */
  runWithPattern(key: string): RunResult | undefined {
    const p = this.rankedByKey(key);
    if (!p) return undefined;
    const has = (r: RunResult) => binaryIncludes(r.patterns, p.index);
    return this.result.runs.find((r) => r.outcome === 'fail' && has(r)) ?? this.result.runs.find(has);
  }

  /** The trace files of the runs that contain the pattern, failing runs first (the manifest of the traces being confirmed). */
  runFilesWithPattern(key: string): string[] {
    const p = this.rankedByKey(key);
    if (!p) return [];
    const runs = this.result.runs.filter((r) => binaryIncludes(r.patterns, p.index));
    return [...runs.filter((r) => r.outcome === 'fail'), ...runs.filter((r) => r.outcome !== 'fail')].map((r) => r.file);
  }

  summary(state: AnalysisSummaryDto['state'] = 'done'): AnalysisSummaryDto {
    return {
      state,
      executions: this.result.executions,
      topScore: this.result.patterns[0]?.score ?? 0,
      patternCount: this.totalPatterns,
      // bugs with weak evidence (one or two failing runs) are not counted
      bugCount: this.bugs.filter((b) => !(b.evidence as { weak?: boolean } | undefined)?.weak).length,
      message: this.result.message,
      confidence: this.result.confidence,
    };
  }

  lineScores(): LineScoresParams {
    const files: LineScoresParams['files'] = [];
    for (const [fsPath, byLine] of this.lines) {
      const lines: { line: number; score: number; rank: number }[] = [];
      for (const [line, idx] of byLine) {
        const first = idx.find((k) => !this.patterns[k].weak);
        if (first === undefined) continue;
        const best = this.patterns[first];
        if (best.score > 0) lines.push({ line, score: best.score, rank: best.rank });
      }
      if (lines.length) files.push({ uri: fileUri(fsPath), lines: lines.sort((a, b) => a.line - b.line) });
    }
    return { files };
  }
}

export function toPatternDto(p: RankedPattern, fsPathOf: (file: string) => string | undefined): PatternDto {
  const uri = (file: string) => {
    const f = fsPathOf(file);
    return f ? fileUri(f) : undefined;
  };
  return {
    rank: p.rank,
    score: p.score,
    id: p.id,
    kind: p.kind,
    category: p.category,
    failed: p.failed,
    passed: p.passed,
    key: p.key,
    pValue: p.pValue,
    group: p.group,
    ...(p.evidence === false ? { evidence: false } : {}),
    tie: p.tie,
    tieSize: p.tieSize,
    accesses: p.accesses.map(
      (a): PatternAccessDto => ({
        thread: a.thread,
        // the engine's thread name at the first occurrence (optional: older engines and unnamed threads have none)
        ...(typeof (a as { threadName?: unknown }).threadName === 'string' ? { threadName: (a as { threadName?: string }).threadName } : {}),
        type: a.type,
        variable: a.variable,
        file: a.file,
        line: a.line,
        method: a.method,
        uri: uri(a.file),
        stack: a.stack.map((f) => ({ ...f, uri: uri(f.file) })),
        ...(a.library ? { library: a.library } : {}),
        ...(a.call !== undefined ? { call: a.call } : {}),
        ...(a.mixedCalls ? { mixedCalls: true } : {}),
        ...(a.harness ? { harness: true } : {}),
        ...(a.value !== undefined ? { value: a.value } : {}),
      }),
    ),
  };
}

export function toRunDto(r: RunResult, fsPathOf: (file: string) => string | undefined = () => undefined): RunDto {
  return {
    execution: r.execution,
    file: r.file,
    outcome: r.outcome,
    reason: r.outcomeReason,
    events: r.events,
    patterns: r.patterns.length,
    seed: r.seed,
    ...(r.plan ? { plan: r.plan } : {}),
    // "… in thread 3" → "… in thread copier": the thread's name, as every other view shows it
    detail: r.failingThread && r.outcomeDetail ? r.outcomeDetail.replace(new RegExp(`in thread ${r.failingThread.id}$`), `in thread ${r.failingThread.name}`) : r.outcomeDetail,
    ...(r.failingThread ? { failingThread: r.failingThread } : {}),
    ...(r.failPoint !== undefined ? { failPoint: r.failPoint } : {}),
    ...(r.failure ? { failure: withUris(r.failure, fsPathOf) as RunDto['failure'] } : {}),
    program: r.program,
    test: r.test,
    uri: fileUri(path.resolve(r.file)),
  };
}

/** The distinct failures (message and location) of some runs, with their counts, most frequent first (at most 5). */
export function failuresOf(runs: readonly (RunDto | undefined)[]): { reason: string; message?: string; location?: { file: string; line: number; method?: string; uri?: string }; runs: number }[] {
  const byKey = new Map<string, { reason: string; message?: string; location?: { file: string; line: number; method?: string; uri?: string }; runs: number }>();
  for (const r of runs) {
    const f = r?.failure;
    if (!f || (!f.message && !f.location)) continue;
    const key = JSON.stringify([f.message, f.location?.file, f.location?.line]);
    const known = byKey.get(key);
    if (known) known.runs++;
    else byKey.set(key, { ...f, runs: 1 });
  }
  return [...byKey.values()].sort((a, b) => b.runs - a.runs).slice(0, 5);
}

/** Deep copy that adds `uri` next to every `file` string that resolves. */
export function withUris(v: unknown, fsPathOf: (file: string) => string | undefined, depth = 0): unknown {
  if (depth > 20 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withUris(x, fsPathOf, depth + 1));
  if (v instanceof Map) return withUris(Object.fromEntries(v), fsPathOf, depth);
  if (v instanceof Set) return withUris([...v], fsPathOf, depth);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = withUris(x, fsPathOf, depth + 1);
  if (typeof out.file === 'string' && out.uri === undefined) {
    const f = fsPathOf(out.file);
    if (f) out.uri = fileUri(f);
  }
  return out;
}

/** The methods holding the accesses of one lane of a bug graph (braid/bugs' `graph`), in graph order, without `suspicious` itself. */
export function accessingMethods(graph: unknown, lane: number, suspicious: string): string[] {
  const out: string[] = [];
  const nodes = graph && typeof graph === 'object' && Array.isArray((graph as { nodes?: unknown }).nodes) ? ((graph as { nodes: unknown[] }).nodes as Record<string, unknown>[]) : [];
  for (const n of nodes) {
    if (!n || Number(n.thread) !== lane || !Array.isArray(n.accesses)) continue;
    for (const a of n.accesses as Record<string, unknown>[]) {
      const m = typeof a?.method === 'string' ? a.method : '';
      if (m && m !== suspicious && !out.includes(m)) out.push(m);
    }
  }
  return out;
}

function binaryIncludes(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === x) return true;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
