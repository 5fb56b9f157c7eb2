/**
 * SARIF 2.1.0 output: one result per top pattern, its accesses as
 * locations (in execution order, the first also the primary location), and
 * rank and score in the message.
 */
import { AnalysisResult, RankedPattern } from '../analysis';
import { rankedRows } from '../ranking/rankedList';
import { JsonRows } from './jsonStream';
import { PATTERNS } from '../unicorn/patternCatalog';
import { formatP } from '../ranking/rootCauseOrder';

const GROUP_WORDS = { cause: 'cause', harness: 'harness (test code only)', symptom: 'symptom (after the failure point)' } as const;

const TOOL_VERSION = '0.1.0';

export function sarifReport(r: AnalysisResult, top = 20, uriBase?: string): object {
  const log = sarifReportSections(r, top, uriBase);
  const run = log.runs[0];
  return { ...log, runs: [{ ...run, results: (run.results as JsonRows).toArray() }] };
}

/** The SARIF log with its results as rows described while they are written (report/jsonStream.ts). */
export function sarifReportSections(r: AnalysisResult, top = 20, uriBase?: string) {
  // the top patterns of each group, and those tied with the first (up to TIE_CAP rows: rankedList.topCount)
  const rows = rankedRows(r);
  const perGroup = new Map<string, number>();
  const shown: number[] = [];
  const firstRows = rows.topCount(top);
  const tiedLeftOut = rows.tiedLeftOut(top);
  for (let k = 0; k < rows.length; k++) {
    const g = rows.group(k);
    const n = perGroup.get(g) ?? 0;
    perGroup.set(g, n + 1);
    if (n < top || (k < firstRows && rows.tiedWithFirst(k))) shown.push(k);
  }
  const rules = PATTERNS.map((p) => ({
    id: p.id,
    name: `${p.category.replace(/(^|[\s-])(\w)/g, (_m, a: string, b: string) => a.replace(/[\s-]/, '') + b.toUpperCase())}${p.kind}`,
    shortDescription: { text: `${p.kind} ${p.category} pattern` },
    fullDescription: { text: `Memory-access pattern ${p.id} (${p.notation}) of Park's Table 1: ${p.category} violation candidate.` },
    help: { text: `Accesses ${p.notation} interleaved between two threads. Check whether these accesses must be atomic or ordered.` },
    defaultConfiguration: { level: 'warning' },
  }));
  const result = (p: RankedPattern) => {
    const locations = p.accesses.map((a, k) => ({
      id: k,
      physicalLocation: {
        artifactLocation: { uri: toUri(a.file), ...(uriBase ? { uriBaseId: 'SRCROOT' } : {}) },
        region: { startLine: Math.max(1, a.line) },
      },
      message: {
        text: `${k + 1}. thread ${a.thread} ${a.type === 'W' ? 'writes' : 'reads'} ${a.variable}${a.method ? ` in ${a.method}` : ''}${
          a.library ? ` (${a.library.file}:${a.library.line} in ${a.library.method}, called from here)` : a.call ? ` (call ${a.call})` : ''
        }`,
      },
    }));
    return {
      ruleId: p.id,
      ruleIndex: p.id ? Number(p.id.slice(1)) - 1 : 0,
      level: p.group !== 'cause' || p.evidence === false ? 'note' : p.rank === 1 && p.score > 0 ? 'error' : 'warning',
      message: {
        text: `Rank ${p.rank}, suspiciousness ${p.score.toFixed(3)} (${r.options.formula}), p = ${formatP(p.pValue)}: ${p.id} ${p.kind} ${p.category} pattern seen in ${p.failed} failing and ${p.passed} passing runs; group ${GROUP_WORDS[p.group]}${p.evidence === false ? ' — no evidence that it goes with failing (p ≥ 0.05 or in nearly every passing run)' : ''}${p.tieSize > 1 ? `, one of ${p.tieSize} tied patterns over the same methods` : ''}.`,
      },
      locations: locations.slice(0, 1).map(({ physicalLocation }) => ({ physicalLocation })),
      relatedLocations: locations,
      partialFingerprints: { braidPatternKey: p.key },
      properties: { rank: p.rank, score: p.score, pValue: p.pValue, group: p.group, evidence: p.evidence !== false, tie: p.tie, tieSize: p.tieSize, failed: p.failed, passed: p.passed, kind: p.kind },
    };
  };
  const results = new JsonRows(shown.length, (j) => result(rows.describe(shown[j])));
  return sarifLog({
    rules,
    results,
    uriBase,
    properties: {
      executions: r.executions,
      formula: r.options.formula,
      strategy: r.options.strategy,
      happensBefore: r.options.happensBefore,
      ...(r.confidence ? { confidence: r.confidence } : {}),
      ...(tiedLeftOut > 0 ? { tiedLeftOut } : {}),
    },
  });
}

/** The SARIF 2.1.0 log of one Braid run: the tool, its rules, the results and run properties. */
export function sarifLog(run: { rules: unknown[]; results: unknown[] | JsonRows; properties: Record<string, unknown>; uriBase?: string }) {
  const { rules, results, properties, uriBase } = run;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Braid',
            version: TOOL_VERSION,
            semanticVersion: TOOL_VERSION,
            informationUri: 'https://github.com/braid-dev/braid',
            rules,
          },
        },
        ...(uriBase ? { originalUriBaseIds: { SRCROOT: { uri: uriBase.endsWith('/') ? uriBase : uriBase + '/' } } } : {}),
        results,
        properties,
      },
    ],
  };
}

function toUri(file: string): string {
  return file
    .replace(/\\/g, '/')
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}
