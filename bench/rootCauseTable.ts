/**
 * Issue 11's closing table: for each subject with committed traces
 * (test/fixtures/recorded/<subject>/, manifest.json), the position of the
 * first root-cause pattern (all accesses on `// @bug` lines of
 * test/fixtures/java/<subject>/) before — the thesis' UNICORN (--hb none,
 * grouping off) — and after (defaults), with the first pattern's score,
 * p-value and failed/passed runs; and the two tie orders compared.
 *   node --import tsx bench/rootCauseTable.ts [subject...]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Analyzer, AnalysisResult } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { formatP, TieOrder } from '../server/src/engine/ranking/rootCauseOrder';
import { bugLinesIn, BugLine, firstRootPosition, isRootCause } from '../test/helpers/rootCause';

const root = path.resolve(__dirname, '..');
const recorded = process.env.BRAID_RECORDED ?? path.join(root, 'test/fixtures/recorded');
const sources = process.env.BRAID_SOURCES ?? path.join(root, 'test/fixtures/java');
const manifestPath = path.join(recorded, 'manifest.json');
if (!existsSync(manifestPath)) {
  console.log('root-cause table: no committed traces (test/fixtures/recorded/manifest.json); run scripts/record-subjects.mjs');
  process.exit(0);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, { testCode?: string[]; runs: number; failed: number; passed: number }>;
const only = process.argv.slice(2);

function nonRootTied(r: AnalysisResult, bugs: BugLine[]): number {
  const first = r.patterns[0];
  if (!first) return 0;
  return r.patterns.filter((p) => p.group === first.group && p.rank === first.rank && !isRootCause(p, bugs)).length;
}

async function analyze(dir: string, options: ConstructorParameters<typeof Analyzer>[0], orders: TieOrder[]): Promise<AnalysisResult[]> {
  const a = new Analyzer(options);
  const { files } = await findTraceFiles([dir]);
  for (const f of files) await a.addTrace(f);
  return orders.map((o) => {
    a.tieOrder = o;
    return a.rank();
  });
}

(async () => {
  const rows: string[][] = [['subject', 'runs F/P', 'before pos', 'before rank', 'before non-root tied', 'after pos', 'non-root tied', 'score', 'p-value', 'first F/P', 'group', 'ordered pairs', 'longer-first pos', 'longer non-root tied']];
  // subjects of the manifest, and any other recorded folder (a recording in progress)
  // and the other committed recordings of a subject with @bug lines (test/fixtures/traces/<pkg>)
  const others = path.join(root, 'test/fixtures/traces');
  const extra = readdirSync(others).filter((d) => statSync(path.join(others, d)).isDirectory() && existsSync(path.join(sources, d)) && !existsSync(path.join(recorded, d)));
  const pkgs = [...new Set([...Object.keys(manifest), ...readdirSync(recorded).filter((d) => statSync(path.join(recorded, d)).isDirectory()), ...extra])].sort();
  for (const pkg of pkgs) {
    if (only.length && !only.includes(pkg)) continue;
    const dir = extra.includes(pkg) ? path.join(others, pkg) : path.join(recorded, pkg);
    const bugs = bugLinesIn(sources).filter((b) => b.file.startsWith(pkg + '/'));
    const testCode = manifest[pkg]?.testCode ?? [];
    const [before] = await analyze(dir, { happensBefore: false, grouping: false, windowWrites: 'latest', testCode }, ['shorter']);
    const [after, longer] = await analyze(dir, { testCode }, ['shorter', 'longer']);
    const bp = firstRootPosition(before, bugs);
    const ap = firstRootPosition(after, bugs);
    const lp = firstRootPosition(longer, bugs);
    const f = after.patterns[0];
    rows.push([
      pkg,
      `${after.executions.failed}/${after.executions.passed}`,
      bp ? String(bp) : '—',
      bp ? String(before.patterns[bp - 1].rank) : '—',
      String(nonRootTied(before, bugs)),
      ap ? String(ap) : '—',
      String(nonRootTied(after, bugs)),
      f ? f.score.toFixed(3) : '—',
      f ? formatP(f.pValue) : '—',
      f ? `${f.failed}/${f.passed}` : '—',
      f ? f.group : '—',
      String(after.stats.orderedPairs),
      lp ? String(lp) : '—',
      String(nonRootTied(longer, bugs)),
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) console.log(r.map((x, c) => x.padEnd(widths[c])).join('  '));
})();
