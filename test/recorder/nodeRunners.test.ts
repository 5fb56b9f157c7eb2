/**
 * vitest and jest projects (issue 42 item 3, docs/recorder-node.md "Test runners"): the runners
 * installed from the npm registry into a project under test-output/ (kept between runs of this file;
 * CI has the registry), the balancemap race (withdraw() reads a balance from a Map, awaits the audit,
 * writes it back) as the runner's test, recorded with the runner's own command as the lens runs it.
 * Both runners compile the user's modules with node:vm, not Node's module loaders: before, nothing of
 * the project was recorded (vitest) or the runs failed. Each records failing runs and ranks the check
 * (`Map.get`, line 24) and the write (`Map.set`, line 27) first, on the source's lines.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and npm.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';

const root = path.resolve(__dirname, '..', '..');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'balancemap');
const runners = path.join(root, 'test-output', 'npm-runners');

/** The balancemap test in the runner's words (`test`/`expect` of vitest or jest's globals). */
const TEST_BODY = (imports: string, source: string) => `${imports}
import { Accounts } from '${source}';

const audit = {
  async record() {
    await new Promise((resolve) => setImmediate(resolve)); // the audit log's write
  },
};

async function later(f) {
  await new Promise((resolve) => setImmediate(resolve)); // the second request arrives a little later
  return f();
}

test('two withdrawals are both taken', async () => {
  const accounts = new Accounts(audit);
  accounts.open('alice', 100);
  await Promise.all([accounts.withdraw('alice', 30), later(() => accounts.withdraw('alice', 50))]);
  expect(accounts.balance('alice')).toBe(20);
});
`;

/** A project with `pkg` as its package.json, `files` written, its devDependencies installed once. */
function project(name: string, pkg: object, files: Record<string, string>): string {
  const dir = path.join(runners, name);
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  const manifest = JSON.stringify(pkg, null, 2) + '\n';
  const installed = existsSync(path.join(dir, 'node_modules', '.package-lock.json')) && existsSync(path.join(dir, 'package.json')) && readFileSync(path.join(dir, 'package.json'), 'utf8') === manifest;
  writeFileSync(path.join(dir, 'package.json'), manifest);
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  if (!installed) {
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
    assert.equal(r.status, 0, `npm install in ${dir}: ${r.stdout}${r.stderr}`);
  }
  rmSync(path.join(dir, 'out'), { recursive: true, force: true });
  return dir;
}

async function recordsTheRace(dir: string, command: string[], file: string, runs: number): Promise<void> {
  const s = await recordRuns(parseRecordArgs(['--runs', String(runs), '--jobs', '2', '--noise', '0.5', '--seed', '1', '--out', path.join(dir, 'out'), '--', ...command], dir));
  assert.equal(s.notReached, undefined, `the program was reached: ${JSON.stringify(s.notReached)}`);
  assert.equal(s.total, runs);
  assert.ok(s.failed > 0 && s.passed > 0, `failing and passing runs: ${s.failed} failed, ${s.passed} passed`);
  const r = await analyzeTraceFiles(s.traces);
  const first = r.patterns[0];
  assert.ok(first, 'a pattern');
  const spots = first.accesses.map((a) => `${a.type} ${a.file}:${a.line}`);
  assert.deepEqual([...new Set(spots)].sort(), [`R ${file}:24`, `W ${file}:27`], `first pattern: ${spots.join(' | ')}`);
}

test('a vitest project (TypeScript, vitest 2 in its devDependencies): the race is recorded on the .ts lines and ranked first', async () => {
  const dir = project('vitest', { name: 'balancemap-vitest', private: true, type: 'module', devDependencies: { vitest: '2.1.9' } }, {
    'src/accounts.ts': readFileSync(path.join(fixture, 'src', 'accounts.ts'), 'utf8'),
    'src/accounts.test.ts': TEST_BODY("import { test, expect } from 'vitest';", './accounts.js'),
  });
  await recordsTheRace(dir, ['npx', '--no', '--', 'vitest', 'run', 'src/accounts.test.ts'], 'src/accounts.ts', 16);
});

test('a jest project (CommonJS JavaScript, jest 29 in its devDependencies): the race is recorded in the test environment\'s own context and ranked first', async () => {
  const dir = project('jest', { name: 'balancemap-jest', private: true, devDependencies: { jest: '29.7.0' } }, {
    'src/accounts.js': readFileSync(path.join(fixture, 'js', 'accounts.js'), 'utf8'),
    'src/accounts.test.js': TEST_BODY('', './accounts').replace("import { Accounts } from './accounts';", "const { Accounts } = require('./accounts');"),
  });
  await recordsTheRace(dir, ['npx', '--no', '--', 'jest', '--runTestsByPath', 'src/accounts.test.js'], 'src/accounts.js', 16);
});
