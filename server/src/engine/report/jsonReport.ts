/** `braid analyze --format json`: the documented JSON shape (docs/cli.md). */
import { AnalysisResult, RankedPattern } from '../analysis';

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
    accesses: p.accesses.map((a) => ({
      thread: a.thread,
      type: a.type,
      variable: a.variable,
      file: a.file,
      line: a.line,
      method: a.method,
      stack: a.stack,
    })),
    key: p.key,
  };
}

export function jsonReport(r: AnalysisResult, o: JsonReportOptions = {}): object {
  const patterns = o.top !== undefined ? r.patterns.slice(0, o.top) : r.patterns;
  return {
    tool: 'braid',
    formatVersion: 1,
    options: r.options,
    executions: r.executions,
    message: r.message,
    patterns: patterns.map(jsonPattern),
    totalPatterns: r.patterns.length,
    runs: r.runs.map((x) => ({ execution: x.execution, file: x.file, outcome: x.outcome, reason: x.outcomeReason, events: x.events, patterns: x.patterns.length, seed: x.seed })),
    ...(o.extra ?? {}),
    diagnostics: r.diagnostics,
    stats: r.stats,
  };
}

export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
