/**
 * `braid analyze --format json`: the documented JSON shape (docs/cli.md).
 * `jsonReportSections` gives the report with its pattern list as rows
 * described while they are written (report/jsonStream.ts); `jsonReport` is
 * the same report as one object.
 */
import { AnalysisResult, RankedPattern } from '../analysis';
import { rankedRows } from '../ranking/rankedList';
import { JsonRows, materialize } from './jsonStream';

export interface JsonReportOptions {
  top?: number;
  /** extra top-level sections (e.g. GRIFFIN's bugs) */
  extra?: Record<string, unknown>;
}

export function jsonPattern(p: RankedPattern) {
  return {
    rank: p.rank,
    score: round(p.score),
    id: p.id,
    kind: p.kind,
    category: p.category,
    failed: p.failed,
    passed: p.passed,
    pValue: p.pValue,
    group: p.group,
    evidence: p.evidence !== false,
    tie: p.tie,
    tieSize: p.tieSize,
    accesses: p.accesses.map((a) => ({
      thread: a.thread,
      type: a.type,
      variable: a.variable,
      file: a.file,
      line: a.line,
      method: a.method,
      stack: a.stack,
      ...(a.value !== undefined ? { value: a.value } : {}),
      ...(a.library ? { library: a.library } : {}),
      ...(a.call !== undefined ? { call: a.call } : {}),
      ...(a.mixedCalls ? { mixedCalls: true } : {}),
      ...(a.harness ? { harness: true } : {}),
    })),
    key: p.key,
    // braid analyze --confirm: the verdict of forcing the pattern (docs/confirm.md)
    ...((p as { confirmation?: unknown }).confirmation ? { confirmation: (p as { confirmation?: unknown }).confirmation } : {}),
  };
}

/**
 * The report's top-level sections in order; `patterns` is a JsonRows list
 * (`--top N`: the first N and those tied with the first, up to TIE_CAP in all), described
 * one at a time when written.
 */
export function jsonReportSections(r: AnalysisResult, o: JsonReportOptions = {}): Record<string, unknown> {
  const rows = rankedRows(r);
  const n = rows.topCount(o.top);
  return {
    tool: 'braid',
    formatVersion: 1,
    options: r.options,
    executions: r.executions,
    message: r.message,
    confidence: r.confidence,
    groups: { ...rows.groupCounts },
    patterns: new JsonRows(n, (k) => jsonPattern(rows.describe(k))),
    totalPatterns: rows.length,
    // rows tied with the first that --top left out (beyond TIE_CAP), when any
    ...(rows.tiedLeftOut(o.top) > 0 ? { tiedLeftOut: rows.tiedLeftOut(o.top) } : {}),
    runs: new JsonRows(r.runs.length, (k) => {
      const x = r.runs[k];
      return {
        execution: x.execution,
        file: x.file,
        outcome: x.outcome,
        reason: x.outcomeReason,
        events: x.events,
        patterns: x.patterns.length,
        seed: x.seed,
        ...(x.failPoint !== undefined ? { failPoint: x.failPoint } : {}),
        ...(x.failure ? { failure: x.failure } : {}),
      };
    }),
    ...(o.extra ?? {}),
    diagnostics: r.diagnostics,
    stats: r.stats,
  };
}

/** The whole report as one object (every listed pattern described). */
export function jsonReport(r: AnalysisResult, o: JsonReportOptions = {}): object {
  return materialize(jsonReportSections(r, o));
}

export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
