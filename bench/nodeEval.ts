/**
 * The Node.js recorder on the Node.js subjects (issue 32; test/fixtures/node/<name>/, truth.json):
 * each subject recorded N times with noise from its own folder (so that its files are not under
 * `test/`, which the analysis would take for test code), analyzed, and scored: the position of the
 * first root-cause pattern (all accesses on `// @bug` lines), and the GRIFFIN bugs found against the
 * bugs of truth.json.
 *
 *   node --import tsx bench/nodeEval.ts [subject...] [--runs N] [--noise P]
 *
 * Figures are printed, never asserted. Needs dist/ (node scripts/build.mjs).
 */
import { readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles, patternAt, patternCount, RankedPattern } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { bugLinesIn, isRootCause } from '../test/helpers/rootCause';

const root = path.resolve(__dirname, '..');
const args = process.argv.slice(2);
const value = (name: string, d: string) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : d;
};
const runs = value('--runs', '40');
const noise = value('--noise', '0.3');
const named = args.filter((a, k) => !a.startsWith('--') && !['--runs', '--noise'].includes(args[k - 1]));
const base = path.join(root, 'test/fixtures/node');
const subjects = readdirSync(base).filter((n) => existsSync(path.join(base, n, 'truth.json')) && (!named.length || named.includes(n)));

async function main() {
  console.log(`| subject | runs (failed) | patterns | first root-cause pattern | bugs in truth | GRIFFIN bugs | seconds |`);
  console.log(`|---|---|---:|---:|---:|---:|---:|`);
  for (const name of subjects) {
    const dir = path.join(base, name);
    const truth = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8'));
    const prefix = `test/fixtures/node/${name}/`;
    const command = String(truth.command).split(' ').map((w) => (w.startsWith(prefix) ? w.slice(prefix.length) : w));
    const out = path.join(os.tmpdir(), `braid-node-eval-${name}`);
    rmSync(out, { recursive: true, force: true });
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'record', '--runs', runs, '--noise', noise, '--seed', '1000', '--jobs', '2', '--timeout', '30', '--out', out, '--', ...command], { cwd: dir, encoding: 'utf8' });
    const seconds = (Date.now() - t0) / 1000;
    if (r.status !== 0) {
      console.log(`| ${name} | record failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-1)[0]} | | | | | |`);
      continue;
    }
    const { files } = await findTraceFiles([out]);
    const result = await analyzeTraceFiles(files);
    const bugs = bugLinesIn(dir, ['.js', '.mjs', '.cjs', '.ts']).map((b) => ({ ...b }));
    const n = patternCount(result);
    let first = 0;
    for (let k = 0; k < n; k++) if (isRootCause(patternAt<RankedPattern>(result, k)!, bugs)) { first = k + 1; break; }
    const found = result.executions.failed ? explainBugs(undefined, result, {}).filter((b) => !b.evidence?.weak).length : 0;
    console.log(`| ${name} | ${result.executions.total} (${result.executions.failed}) | ${n} | ${first || '–'} | ${Object.keys(truth.bugs ?? {}).length} | ${found} | ${seconds.toFixed(1)} |`);
  }
}

void main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
