/**
 * GRIFFIN (thesis chapter 5): one explanation per bug from UNICORN's ranked
 * patterns.
 *   Step 1  the coverage matrix M with call stacks (coverageMatrix.ts)
 *   Step 2  cluster the failing runs per bug (Algorithm 3)
 *   Step 3  per failing-run cluster, cluster its top patterns by call stack
 *           (Algorithm 4); per pattern cluster report the suspicious methods,
 *           the bug graph and fix advice.
 *
 *   const bugs = explainBugs(analyzer, analyzer.rank());
 */
import type { Analyzer, AnalysisResult } from '../analysis';
import type { Formula } from '../ranking/suspiciousness';
import { CoverageMatrix } from './coverageMatrix';
import { clusterFailingExecutions, DEFAULT_S, DEFAULT_T } from './clusterFailingExecutions';
import { clusterSuspiciousPatterns, DEFAULT_PATTERN_TOP, PatternCluster } from './clusterSuspiciousPatterns';
import { suspiciousMethods } from './suspiciousMethods';
import { bugGraph, BugGraph } from './bugGraph';
import { BugKind, fixAdvice, FixAdvice, loc, shortMethod } from './fixAdvice';

export interface GriffinOptions {
  /** Algorithm 3: suspicious patterns compared per failing-run cluster (default 30) */
  t?: number;
  /** Algorithm 3: similarity threshold (default 0.8) */
  s?: number;
  /** Algorithm 4: patterns clustered per failing-run cluster (default 20) */
  patternTop?: number;
  /**
   * A pattern cluster becomes a bug only when its best score within the
   * failing-run cluster is at least this fraction of that cluster's best
   * score (default 0.5; 0 reports every cluster, as the thesis does).
   */
  minScoreRatio?: number;
  /** suspiciousness formula; default: the analysis' formula */
  formula?: Formula;
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

export interface Bug {
  /** 1-based, in report order */
  id: number;
  /** 1-based index of the failing-run cluster (Algorithm 3) the bug was found in */
  cluster: number;
  /** execution ids of the failing runs of that cluster */
  failingRuns: string[];
  kind: BugKind;
  /** best suspiciousness of the bug's patterns within its failing-run cluster */
  score: number;
  /** indices into result.patterns, best first */
  patterns: number[];
  /** the same patterns' stable keys (RankedPattern.key) */
  patternKeys: string[];
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
  return explainMatrix(m, { formula: analyzer?.options.formula ?? result.options.formula, ...options });
}

/** GRIFFIN Steps 2–3 on a coverage matrix (rows = the ranked patterns). */
export function explainMatrix(m: CoverageMatrix, options: GriffinOptions = {}): Bug[] {
  const formula = options.formula ?? 'jaccard';
  const ratio = options.minScoreRatio ?? 0.5;
  const failing = clusterFailingExecutions(m, { t: options.t ?? DEFAULT_T, s: options.s ?? DEFAULT_S, formula });
  // larger clusters (more frequent failures) first; ties keep run order
  const ordered = failing.map((runs, k) => ({ runs, k })).sort((a, b) => b.runs.length - a.runs.length || a.k - b.k);
  const bugs: Bug[] = [];
  ordered.forEach(({ runs }, c) => {
    const clusters: PatternCluster[] = clusterSuspiciousPatterns(m, runs, { t: options.patternTop ?? DEFAULT_PATTERN_TOP, formula });
    const best = Math.max(0, ...clusters.map((x) => x.members[0].score));
    for (const pc of clusters) {
      const score = pc.members[0].score;
      if (score <= 0 || score + 1e-12 < ratio * best) continue;
      const methods = suspiciousMethods(m, pc.members);
      const graph = bugGraph(m, pc.members, methods);
      const advice = fixAdvice(m, pc.members, methods);
      bugs.push({
        id: bugs.length + 1,
        cluster: c + 1,
        failingRuns: runs.map((r) => m.runs[r].execution),
        kind: advice.kind,
        score,
        patterns: pc.members.map((x) => x.row),
        patternKeys: pc.members.map((x) => m.patterns[x.row].key),
        suspiciousMethods: methods.map((x) => ({ thread: x.thread, method: x.method, file: x.file, line: x.line, lines: x.lines })),
        graph,
        advice,
      });
    }
  });
  return bugs;
}

/** `braid analyze` text output: one section per bug. */
export function bugsTextReport(bugs: readonly Bug[], result: AnalysisResult): string {
  const out: string[] = [];
  const failed = result.runs.filter((r) => r.outcome === 'fail').length;
  out.push(`GRIFFIN — ${bugs.length} bug${bugs.length === 1 ? '' : 's'} explaining ${failed} failing run${failed === 1 ? '' : 's'}`);
  if (!bugs.length) {
    out.push(failed === 0 ? 'No failing runs, nothing to explain.' : 'No failing run has a pattern to explain it.');
    return out.join('\n');
  }
  const explained = new Set(bugs.flatMap((b) => b.failingRuns));
  for (const b of bugs) {
    out.push('');
    out.push(`Bug ${b.id}: ${b.kind.replace(/-/g, ' ')} — ${b.failingRuns.length} failing run${b.failingRuns.length === 1 ? '' : 's'} (${runList(b.failingRuns)}), score ${b.score.toFixed(3)}`);
    if (b.suspiciousMethods.length) {
      out.push('  Suspicious methods:');
      for (const sm of b.suspiciousMethods) out.push(`    thread ${sm.thread}: ${shortMethod(sm.method)} at ${loc(sm.file, sm.lines)}`);
    }
    out.push(`  Interleaving: ${b.advice.interleaving}`);
    out.push(`  What goes wrong: ${b.advice.summary}`);
    out.push('  How to fix it (advice only):');
    b.advice.steps.forEach((s, k) => out.push(`    ${k + 1}. ${s}`));
    out.push(`  Patterns (${b.patterns.length}):`);
    for (const i of b.patterns) {
      const p = result.patterns[i];
      if (!p) continue;
      const acc = p.accesses.map((a) => `${a.type}${a.thread} ${a.variable}:${a.line}`).join(' → ');
      out.push(`    #${p.rank} ${p.id} ${p.kind} ${acc} (score ${p.score.toFixed(3)}, ${p.failed} fail / ${p.passed} pass)`);
    }
  }
  const missing = result.runs.filter((r) => r.outcome === 'fail' && !explained.has(r.execution)).map((r) => r.execution);
  if (missing.length) out.push('', `${missing.length} failing run${missing.length === 1 ? ' is' : 's are'} not explained by any bug: ${runList(missing)}`);
  return out.join('\n');
}

function runList(xs: readonly string[], max = 8): string {
  return xs.length <= max ? xs.join(', ') : `${xs.slice(0, max).join(', ')}, … ${xs.length - max} more`;
}
