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
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { terminalLine } from '../outputEscaping';

const GROUP_WORDS = { cause: 'cause', harness: 'harness (test code only)', symptom: 'symptom (after the failure point)' } as const;

const TOOL_VERSION = '0.1.0';

/** Where SARIF locations are relative to, and the count of locations dropped because their paths leave it. */
export interface SarifPaths {
  /** the repository's folder (default: uriBase when it is a file: URI, else the working directory) */
  root?: string;
  /** incremented for each location dropped (counted while the results are written) */
  dropped?: { count: number };
}

export function sarifReport(r: AnalysisResult, top = 20, uriBase?: string, paths: SarifPaths = {}): object {
  const log = sarifReportSections(r, top, uriBase, paths);
  const run = log.runs[0];
  return { ...log, runs: [{ ...run, results: (run.results as JsonRows).toArray() }] };
}

/**
 * The pattern's interleaving step by step (issue 30): one threadFlow per thread role, each access in
 * its thread's flow with its place in the whole interleaving (`executionOrder`, 1-based), so code
 * scanning can replay it. Thread flows are named by the thread's name when the trace has one.
 */
function codeFlow(p: RankedPattern, locations: { physicalLocation?: unknown; message: { text: string } }[]) {
  const roles = [...new Set(p.accesses.map((a) => a.thread))].sort((a, b) => a - b);
  return {
    message: { text: `${p.id} ${p.kind}: ${p.accesses.map((a) => `${a.type}${a.thread}`).join(' → ')}` },
    threadFlows: roles.map((role) => {
      const name = p.accesses.find((a) => a.thread === role && a.threadName)?.threadName;
      return {
        id: `T${role}`,
        message: { text: `thread ${role}${name ? ` (${name})` : ''}` },
        locations: p.accesses.flatMap((a, k) =>
          a.thread === role
            ? [{ executionOrder: k + 1, location: { ...(locations[k].physicalLocation ? { physicalLocation: locations[k].physicalLocation } : {}), message: locations[k].message } }]
            : [],
        ),
      };
    }),
  };
}

/** The SARIF log with its results as rows described while they are written (report/jsonStream.ts). */
export function sarifReportSections(r: AnalysisResult, top = 20, uriBase?: string, paths: SarifPaths = {}) {
  const uriOf = sarifUris(uriBase, paths);
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
    // a path leaving the repository (absolute outside it, UNC, ../) is dropped from its location; the message stays
    const locations = p.accesses.map((a, k) => {
      const uri = uriOf(a.file);
      return {
        id: k,
        ...(uri !== undefined
          ? { physicalLocation: { artifactLocation: { uri, ...(uriBase ? { uriBaseId: 'SRCROOT' } : {}) }, region: { startLine: Math.max(1, a.line) } } }
          : {}),
        message: {
          text: `${k + 1}. thread ${a.thread} ${a.type === 'W' ? 'writes' : 'reads'} ${a.variable}${a.method ? ` in ${a.method}` : ''}${
            a.library ? ` (${a.library.file}:${a.library.line} in ${a.library.method}, called from here)` : a.call ? ` (call ${a.call})` : ''
          }${uri === undefined ? ' (its file is outside the repository: no location)' : ''}`,
        },
      };
    });
    // the primary location: the first access whose path is inside the repository
    const primary = locations.find((l) => l.physicalLocation);
    return {
      ruleId: p.id,
      ruleIndex: p.id ? Number(p.id.slice(1)) - 1 : 0,
      level: verdictOf(p) === 'confirmed' ? 'error' : verdictOf(p) || p.group !== 'cause' || p.evidence === false ? 'note' : p.rank === 1 && p.score > 0 ? 'error' : 'warning',
      message: {
        text: `Rank ${p.rank}, suspiciousness ${p.score.toFixed(3)} (${r.options.formula}), p = ${formatP(p.pValue)}: ${p.id} ${p.kind} ${p.category} pattern seen in ${p.failed} failing and ${p.passed} passing runs; group ${GROUP_WORDS[p.group]}${p.evidence === false ? ' — no evidence that it goes with failing (p ≥ 0.05 or in nearly every passing run)' : ''}${p.tieSize > 1 ? `, one of ${p.tieSize} tied patterns over the same methods` : ''}.${verdictOf(p) ? ` Forcing its interleaving: ${verdictOf(p)} — ${(p as { confirmation?: { reason: string } }).confirmation!.reason}.` : ''}`,
      },
      locations: primary ? [{ physicalLocation: primary.physicalLocation }] : [],
      relatedLocations: locations,
      codeFlows: [codeFlow(p, locations)],
      partialFingerprints: { braidPatternKey: p.key },
      properties: { rank: p.rank, score: p.score, pValue: p.pValue, group: p.group, evidence: p.evidence !== false, tie: p.tie, tieSize: p.tieSize, failed: p.failed, passed: p.passed, kind: p.kind, ...((p as { confirmation?: unknown }).confirmation ? { confirmation: (p as { confirmation?: unknown }).confirmation } : {}) },
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
      windowWrites: r.options.windowWrites ?? 'adjacent',
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

/** The CLI's stderr line for `count` SARIF locations dropped because their paths leave the repository `root`. */
export function droppedLocationsWarning(count: number, root = process.cwd()): string {
  return terminalLine(
    `braid: warning: ${count} SARIF location${count === 1 ? '' : 's'} dropped: ${count === 1 ? 'its path leaves' : 'their paths leave'} the repository (${root}): absolute outside it, UNC, a URI or climbing out with ..; the results keep their messages`,
  );
}

/** `sarifArtifactUri` against the root of `uriBase`/`paths`, counting the paths dropped in `paths.dropped`. */
export function sarifUris(uriBase: string | undefined, paths: SarifPaths = {}): (file: string) => string | undefined {
  let root = paths.root;
  if (root === undefined && uriBase?.startsWith('file:')) {
    try {
      root = fileURLToPath(uriBase);
    } catch {
      // not a local file URI: the working directory
    }
  }
  const base = root ?? process.cwd();
  return (file) => {
    const uri = sarifArtifactUri(file, base);
    if (uri === undefined && paths.dropped) paths.dropped.count++;
    return uri;
  };
}

/**
 * The SARIF artifact URI of a trace path, relative to the repository `root` (code scanning resolves
 * it against the checkout), or undefined when the path leaves the repository: absolute outside
 * `root`, UNC (`\\host\share\x.java`, `//host/…`), a URI (`file:///…`, `https://…`), or climbing
 * out with `..`. Backslashes are path separators; each segment is percent-encoded.
 */
export function sarifArtifactUri(file: string, root: string): string | undefined {
  let f = file.replace(/\\/g, '/');
  if (f === '' || f.startsWith('//')) return undefined;
  const drive = (s: string) => /^[A-Za-z]:/.exec(s)?.[0].toLowerCase();
  const fileDrive = drive(f);
  if (!fileDrive && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(f)) return undefined;
  if (fileDrive || f.startsWith('/')) {
    const r = root.replace(/\\/g, '/');
    if (fileDrive !== drive(r)) return undefined;
    const abs = fileDrive ? f.slice(2) : f;
    if (!abs.startsWith('/')) return undefined; // C:x.java: relative to a drive's current folder
    f = path.posix.relative(path.posix.normalize(fileDrive ? r.slice(2) : r), path.posix.normalize(abs));
    if (path.posix.isAbsolute(f)) return undefined;
  }
  const n = path.posix.normalize(f);
  if (n === '.' || n === '..' || n.startsWith('../') || n.endsWith('/')) return undefined;
  return n
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** The verdict of `braid analyze --confirm` on a pattern (docs/confirm.md), when it was forced. */
function verdictOf(p: object): string | undefined {
  return (p as { confirmation?: { verdict: string } }).confirmation?.verdict;
}
