/**
 * `braid confirm` on real JVM runs (issue 28, docs/confirm.md): the committed recording's first pattern
 * confirmed by forcing (CLI, JSON), a pattern on a lock-protected field not forced, check the fix
 * (a real fix says fixed, `volatile` on a lost update not fixed, applied to a copy of the subject's
 * sources), `braid analyze --confirm` listing the confirmed cause first, and the debug configuration's
 * vmArgs run with plain `java`.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles, patternAt, RankedPattern } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { confirmPattern, FIRST_LOOK } from '../../server/src/recorder/runs/confirmRuns';
import { checkFix } from '../../server/src/recorder/runs/fixCheck';
import { forcingPlan } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, root } from './recorderHarness';

const cli = path.join(root, 'dist/braid.js');
const jar = path.join(root, 'dist/braid-agent.jar');

before(() => prepare());

async function first(pkg: string): Promise<RankedPattern> {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures/recorded', pkg)]);
  const r = await analyzeTraceFiles(files);
  return { ...patternAt<RankedPattern>(r, 0)!, rank: 1 };
}

const base = (main: string, include: string, cp = classesDir) => ({
  command: ['java', ...FAST_JVM, '-cp', cp, main],
  cwd: root,
  include: [include],
  exclude: [],
  runs: 12,
  noise: 0,
  timeoutSeconds: 30,
  jobs: 2,
  seed: 77,
  name: include,
  outRoot: tempDir(),
});

test('braid confirm: the committed recording’s first pattern (a lost update) is confirmed — forced runs fail, the opposite order does not; JSON as documented', () => {
  const r = spawnSync(process.execPath, [cli, 'confirm', path.join(root, 'test/fixtures/recorded/joinresults'), '--runs', '12', '--format', 'json', '--seed', '5', '--include', 'joinresults', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'joinresults.Tickets'], {
    cwd: tempDir(),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  const j = JSON.parse(r.stdout);
  assert.equal(j.verdict, 'confirmed', r.stdout);
  assert.deepEqual(Object.keys(j).slice(0, 8), ['verdict', 'pattern', 'forced', 'opposite', 'control', 'pValue', 'reason', 'folder']);
  assert.equal(j.pattern.rank, 1);
  assert.ok(j.forced.failed >= 11 && j.forced.forcedOk >= 11, JSON.stringify(j.forced));
  assert.ok(j.opposite.failed <= 1, JSON.stringify(j.opposite));
  assert.ok(j.pValue < 0.01);
  // the forced failing run is kept, outside .braid/traces, for Reproduce
  assert.ok(j.failingRun && existsSync(j.failingRun.trace), JSON.stringify(j.failingRun));
  assert.match(j.folder, /\.braid[\\/]confirm[\\/]/);
  const forcing = readFileSync(j.failingRun.trace, 'utf8').split('\n').find((l) => l.startsWith('{"forcing"'));
  assert.match(String(forcing), /"ok":true/);
});

test('a pattern on a lock-protected field is not forced (the hold ends for the lock), never confirmed', async () => {
  // LockedUpdate: the same read-modify-write as a lost update, inside synchronized
  const line = readFileSync(path.join(fixturesDir, 'forcing/LockedUpdate.java'), 'utf8').split('\n').findIndex((l) => l.includes('// @force locked')) + 1;
  assert.ok(line > 0);
  const a = (thread: 1 | 2, type: 'R' | 'W') => ({ thread, type, variable: 'forcing.LockedUpdate$Counter.count', file: 'forcing/LockedUpdate.java', line, method: 'forcing.LockedUpdate$Counter.increment' });
  const p = { key: 'locked', id: 'P7', kind: 'RWW', rank: 1, accesses: [a(1, 'R'), a(2, 'W'), a(1, 'W')] };
  const c = await confirmPattern(p, { ...base('forcing.LockedUpdate', 'forcing'), runs: 8 });
  assert.equal(c.verdict, 'not forced', c.reason);
  assert.match(c.reason, /blocked on forcing\.LockedUpdate\$Counter \(monitor\)/);
  assert.ok(c.runsSpent <= 8, 'stops after the first runs: the answer is in');
});

test('two looks (issue 43: Confirm in ≤ 30 s): with 20 runs per group a clear root cause is confirmed after half of each group — 30 runs, not 60', async () => {
  const p = await first('joinresults');
  const c = await confirmPattern(p, { ...base('joinresults.Tickets', 'joinresults'), runs: 20, seed: 5 });
  assert.equal(c.verdict, 'confirmed', c.reason);
  assert.deepEqual([c.forced.runs, c.opposite?.runs, c.control?.runs], [10, 10, 10], c.reason);
  assert.equal(c.runsSpent, 30);
  assert.ok(c.pValue < FIRST_LOOK.alpha, `${c.pValue}`);
  assert.match(c.reason, /after half the runs: the rest were not needed/);
  // the first look's runs and the folder of each group as one look would have them
  assert.ok(existsSync(path.join(c.folder, 'forced')) && !existsSync(path.join(c.folder, 'forced-more')), c.folder);
});

/** A copy of a subject's package with one edit, compiled (the fixtures' classes on the class path). */
function fixedBuild(pkg: string, file: string, find: string, replace: string): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  const text = readFileSync(path.join(fixturesDir, pkg, file), 'utf8');
  assert.ok(text.includes(find), `${file} has ${find}`);
  writeFileSync(path.join(dir, 'src', file), text.replace(find, replace));
  const out = path.join(dir, 'classes');
  const javac = spawnSync('javac', ['-g', '-cp', classesDir, '-d', out, path.join(dir, 'src', file)], { encoding: 'utf8' });
  assert.equal(javac.status, 0, javac.stderr);
  return `${out}${path.delimiter}${classesDir}`;
}

test('check the fix: synchronized deposit is fixed; volatile balance is not (the forced interleaving still loses the update)', async () => {
  const p = await first('bank');
  const before = { runs: 100, failed: 57 };
  const real = fixedBuild('bank', 'Bank.java', '    void deposit(int amount) {', '    synchronized void deposit(int amount) {');
  const fixed = await checkFix(p, before, { ...base('bank.Bank', 'bank', real), runs: 8, recordNoise: 0.3 });
  assert.equal(fixed.verdict, 'fixed', fixed.reason);
  assert.equal(fixed.forced.failed, 0);
  assert.equal(fixed.after?.failed, 0, fixed.reason);
  const wrong = fixedBuild('bank', 'Bank.java', '    private int balance;', '    private volatile int balance;');
  const notFixed = await checkFix(p, before, { ...base('bank.Bank', 'bank', wrong), runs: 8, recordNoise: 0.3 });
  assert.equal(notFixed.verdict, 'not fixed', notFixed.reason);
  assert.match(notFixed.reason, /^still fails \d+ of \d+ runs when the interleaving is forced/);
});

test('the debug configuration’s vmArgs (agent + forcing plan) run with plain java and force the failure', async () => {
  const p = await first('bank');
  const dir = tempDir();
  const plan = path.join(dir, 'pattern.json');
  writeFileSync(plan, JSON.stringify(forcingPlan('debug', p, 'pattern')));
  const trace = path.join(dir, 'debug.trace.jsonl');
  // docs/confirm.md: "-javaagent:<jar>=out=<trace>,include=<packages>,plan=<plan>"
  const vmArgs = `-javaagent:${jar}=out=${trace},include=bank,plan=${plan}`;
  let failed = 0;
  for (let k = 0; k < 3; k++) {
    const r = spawnSync('java', [vmArgs, ...FAST_JVM, '-cp', classesDir, 'bank.Bank'], { encoding: 'utf8' });
    if (r.status === 1 && /FAIL: balance 10/.test(r.stdout)) failed++;
  }
  assert.equal(failed, 3, 'every run with the forcing plan loses a deposit');
  assert.match(readFileSync(trace, 'utf8'), /\{"forcing":\{"ok":true/);
});

test('braid analyze --confirm 2 lists the confirmed cause first and says why others lost their place', () => {
  const dir = tempDir();
  const r = spawnSync(process.execPath, [cli, 'analyze', path.join(root, 'test/fixtures/recorded/shop'), '--confirm', '2', '--confirm-runs', '10', '--no-bugs', '--format', 'json', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'shop.Shop'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  const tried = j.patterns.filter((p: { confirmation?: unknown }) => p.confirmation);
  assert.equal(tried.length, 2, r.stderr);
  assert.equal(j.patterns[0].confirmation?.verdict, 'confirmed', JSON.stringify(j.patterns[0].confirmation));
  assert.ok(readdirSync(path.join(dir, '.braid', 'confirm')).length >= 2);
});
