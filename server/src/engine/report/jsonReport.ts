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
    pValue: p.pValue,
    group: p.group,
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
      ...(a.harness ? { harness: true } : {}),
    })),
    key: p.key,
  };
}

export function jsonReport(r: AnalysisResult, o: JsonReportOptions = {}): object {
  let patterns = r.patterns;
  if (o.top !== undefined) {
    // never cut a tie group of the first rank
    let n = Math.min(o.top, patterns.length);
    const first = patterns[0];
    while (first && n < patterns.length && patterns[n].group === first.group && patterns[n].rank === first.rank) n++;
    patterns = patterns.slice(0, n);
  }
  return {
    tool: 'braid',
    formatVersion: 1,
    options: r.options,
    executions: r.executions,
    message: r.message,
    confidence: r.confidence,
    groups: {
      cause: r.patterns.filter((p) => p.group === 'cause').length,
      harness: r.patterns.filter((p) => p.group === 'harness').length,
      symptom: r.patterns.filter((p) => p.group === 'symptom').length,
    },
    patterns: patterns.map(jsonPattern),
    totalPatterns: r.patterns.length,
    runs: r.runs.map((x) => ({
      execution: x.execution,
      file: x.file,
      outcome: x.outcome,
      reason: x.outcomeReason,
      events: x.events,
      patterns: x.patterns.length,
      seed: x.seed,
      ...(x.failPoint !== undefined ? { failPoint: x.failPoint } : {}),
    })),
    ...(o.extra ?? {}),
    diagnostics: r.diagnostics,
    stats: r.stats,
  };
}

export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
