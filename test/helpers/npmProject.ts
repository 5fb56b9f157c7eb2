/**
 * Real Node.js project layouts for the recorder's runner tests (issue 42 item 3): a project under
 * test-output/npm-runners/<name> with its package.json files and sources written, its dependencies
 * installed from the npm registry once and kept between runs (reinstalled only when a package.json
 * changes), and the balancemap race recorded in it with the runner's own command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns, type RecordSummary } from '../../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const balancemap = path.join(repoRoot, 'test', 'fixtures', 'node', 'balancemap');
const runners = path.join(repoRoot, 'test-output', 'npm-runners');

/**
 * The project `name`: `pkg` as its package.json, `files` (paths relative to the project, a
 * workspace package's package.json among them) written, `npm install` run when any package.json
 * differs from the installed one. The recording folder `out` is emptied.
 */
export function npmProject(name: string, pkg: object, files: Record<string, string>): string {
  const dir = path.join(runners, name);
  mkdirSync(dir, { recursive: true });
  const all: Record<string, string> = { 'package.json': JSON.stringify(pkg, null, 2) + '\n', ...files };
  const manifests = Object.keys(all)
    .filter((f) => path.basename(f) === 'package.json')
    .sort()
    .map((f) => `${f}\n${all[f]}`)
    .join('\n');
  const stamp = path.join(dir, 'node_modules', '.braid-manifests');
  const installed = existsSync(path.join(dir, 'node_modules', '.package-lock.json')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === manifests;
  for (const [f, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  if (!installed) {
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
    assert.equal(r.status, 0, `npm install in ${dir}: ${r.stdout}${r.stderr}`);
    writeFileSync(stamp, manifests);
  }
  for (const out of ['out', 'out-2', 'out-3']) rmSync(path.join(dir, out), { recursive: true, force: true });
  return dir;
}

/** The balancemap test in a runner's words: `imports`, then `test(…)` with `expect` (vitest, jest) or node's assert (mocha, node:test). */
export function balancemapTest(imports: string, opts: { check?: 'expect' | 'assert'; test?: string } = {}): string {
  const check = opts.check === 'assert' ? "assert.equal(accounts.balance('alice'), 20, 'both withdrawals taken');" : "expect(accounts.balance('alice')).toBe(20);";
  return `${imports}

const audit = {
  async record() {
    await new Promise((resolve) => setImmediate(resolve)); // the audit log's write
  },
};

async function later(f) {
  await new Promise((resolve) => setImmediate(resolve)); // the second request arrives a little later
  return f();
}

${opts.test ?? 'test'}('two withdrawals are both taken', async () => {
  const accounts = new Accounts(audit);
  accounts.open('alice', 100);
  await Promise.all([accounts.withdraw('alice', 30), later(() => accounts.withdraw('alice', 50))]);
  ${check}
});
`;
}

/** balancemap's Accounts (src/accounts.ts, its lines kept) as an ES module in JavaScript. */
export function accountsEsm(): string {
  return readFileSync(path.join(balancemap, 'js', 'accounts.js'), 'utf8').replace('class Accounts {', 'export class Accounts {').replace('module.exports = { Accounts };', '');
}

/**
 * Records `command` in `dir` (`runs` runs, noise 0.5, 2 jobs), checks that failing and passing runs
 * were recorded and that the first pattern is balancemap's check (line 24) and write (line 27) of
 * `file`; returns the first recording's summary and the analysis. A recording whose runs all failed or
 * all passed (the failure rate depends on the machine's timing: 2 of 12 seen) is followed by another
 * with the next seed, up to three, analyzed together, so the test needs evidence, not luck.
 */
export async function recordsTheRace(dir: string, command: string[], file: string, runs: number, cwd = dir) {
  const traces: string[] = [];
  let failed = 0;
  let passed = 0;
  let firstRecording: RecordSummary | undefined;
  for (let round = 1; round <= 3 && (failed === 0 || passed === 0); round++) {
    const s: RecordSummary = await recordRuns(parseRecordArgs(['--runs', String(runs), '--jobs', '2', '--noise', '0.5', '--seed', String(round), '--out', path.join(dir, round === 1 ? 'out' : `out-${round}`), '--', ...command], cwd));
    assert.equal(s.notReached, undefined, `the program was reached: ${JSON.stringify(s.notReached)}`);
    assert.equal(s.total, runs);
    firstRecording ??= s;
    traces.push(...s.traces);
    failed += s.failed;
    passed += s.passed;
  }
  assert.ok(failed > 0 && passed > 0, `failing and passing runs: ${failed} failed, ${passed} passed`);
  const s = firstRecording!;
  const r = await analyzeTraceFiles(traces);
  const first = r.patterns[0];
  assert.ok(first, 'a pattern');
  const spots = first.accesses.map((a) => `${a.type} ${a.file}:${a.line}`);
  assert.deepEqual([...new Set(spots)].sort(), [`R ${file}:24`, `W ${file}:27`], `first pattern: ${spots.join(' | ')}`);
  return { summary: s, analysis: r };
}
