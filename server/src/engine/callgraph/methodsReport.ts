/**
 * `braid methods` output: a text table, JSON (`methods [{rank, score, method, file, line, edge}]`)
 * and SARIF (one result per top method, at its declaration).
 */
import type { CallGraphResult } from './localizationProcess';
import type { RankedMethod } from './methodRanking';
import { sarifLog, SarifPaths, sarifUris } from '../report/sarifReport';
import { terminalLine } from '../outputEscaping';


export function methodsJsonReport(r: CallGraphResult, top?: number): object {
  const methods = top === undefined ? r.methods : r.methods.slice(0, top);
  return {
    executions: r.executions,
    representation: r.representation,
    balance: r.balance,
    methods: methods.map((m) => ({
      rank: m.rank,
      score: round(m.score),
      method: m.method,
      file: m.file,
      line: m.line,
      loc: m.loc,
      locSource: m.locSource,
      runs: m.runs,
      edge: m.edge
        ? {
            kind: m.edge.kind,
            source: m.edge.source,
            target: m.edge.target,
            text: m.edge.text,
            failedRuns: m.edge.failedRuns,
            passedRuns: m.edge.passedRuns,
            meanFailed: round(m.edge.meanFailed),
            meanPassed: round(m.edge.meanPassed),
          }
        : null,
    })),
    ...(r.message ? { message: r.message } : {}),
    diagnostics: r.diagnostics,
    stats: { ...r.stats, readMs: Math.round(r.stats.readMs), rankMs: Math.round(r.stats.rankMs) },
  };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function shortMethod(m: string): string {
  const parts = m.split('.');
  return parts.length > 2 ? parts.slice(-2).join('.') : m;
}

export function edgeSummary(m: RankedMethod): string {
  const e = m.edge;
  if (!e) return '(calls nothing)';
  const arrow = e.text.slice(e.source.length + 1, e.text.length - e.target.length - 1);
  return `${arrow} ${shortMethod(e.target)} · ${e.meanFailed.toFixed(2)}/failed vs ${e.meanPassed.toFixed(2)}/passed run`;
}

export function methodsTextReport(r: CallGraphResult, top = 20): string {
  const ex = r.executions;
  const out: string[] = [];
  out.push(
    `Braid call-graph method ranking (seed 003): ${ex.total} runs (${ex.failed} failed, ${ex.passed} passed), ` +
      `${r.representation} graph, InfoGain with ${r.balance === 'weights' ? 'class-balanced run weights' : r.balance === 'subsample' ? `balanced subsample (${ex.used} runs)` : 'unbalanced runs'}`,
  );
  out.push(`${r.stats.vertices} methods, ${r.stats.edges} distinct edges, ${r.stats.calls} calls`);
  if (r.message) out.push(r.message);
  out.push('');
  const rows = r.methods.slice(0, top);
  if (!rows.length) {
    if (ex.total > 0) out.push('No methods: the traces have no ENTER events and no call stacks.');
    return out.map(terminalLine).join('\n').trimEnd();
  }
  out.push('rank  score   LOC  method / where / edge');
  for (const m of rows) {
    out.push(
      `${String(m.rank).padStart(4)}  ${m.score.toFixed(3)}  ${String(m.loc).padStart(4)}${m.locSource === 'span' ? '~' : ' '} ${m.method}  (${m.file}:${m.line}; in ${m.runs.failed} failed, ${m.runs.passed} passed runs)`,
    );
    out.push(`${' '.repeat(19)}${edgeSummary(m)}`);
  }
  if (r.methods.length > rows.length) out.push(`… ${r.methods.length - rows.length} more methods (--top N)`);
  if (rows.some((m) => m.locSource === 'span')) out.push('~ LOC from the span of recorded lines (source not found)');
  return out.map(terminalLine).join('\n');
}

export function methodsSarifReport(r: CallGraphResult, top = 20, paths: SarifPaths = {}): object {
  // a path leaving the repository (absolute outside it, UNC, ../) is dropped from the location (sarifReport.ts)
  const uriOf = sarifUris(undefined, paths);
  const results = r.methods
    .slice(0, top)
    .filter((m) => m.file)
    .map((m) => {
      const uri = uriOf(m.file);
      return {
        ruleId: 'BRAID-CG1',
        ruleIndex: 0,
        level: m.rank === 1 && m.score > 0 ? 'warning' : 'note',
        message: {
          text: `Rank ${m.rank}, suspiciousness ${m.score.toFixed(3)} (InfoGain, ${r.representation} graph): ${m.method}${m.edge ? `, edge ${m.edge.text} (${m.edge.meanFailed.toFixed(2)} per failed vs ${m.edge.meanPassed.toFixed(2)} per passed run)` : ''}.`,
        },
        locations: [
          {
            ...(uri !== undefined ? { physicalLocation: { artifactLocation: { uri }, region: { startLine: Math.max(1, m.line) } } } : {}),
            logicalLocations: [{ fullyQualifiedName: m.method, kind: 'function' }],
          },
        ],
        partialFingerprints: { braidMethod: m.method },
        properties: { rank: m.rank, score: m.score, loc: m.loc, edge: m.edge?.text },
      };
    });
  return sarifLog({
    rules: [
      {
        id: 'BRAID-CG1',
        name: 'SuspiciousMethodByCallGraph',
        shortDescription: { text: 'Method whose calls discriminate failing from passing runs' },
        fullDescription: {
          text: 'The InfoGain of the weight of one of the method\'s outgoing call-graph edges (call, next-call, inter- or intra-thread) with respect to pass/fail (Oßner and Böhm, seed 003).',
        },
        help: { text: 'Inspect the method and the reported edge: a call made more or less often in failing runs, or an interleaving of calls that differs.' },
        defaultConfiguration: { level: 'note' },
      },
    ],
    results,
    properties: { executions: r.executions, representation: r.representation, balance: r.balance },
  });
}
