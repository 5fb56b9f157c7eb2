/**
 * Confirm by Forcing and Check the Fix on a JS/TS program (issue 42, docs/confirm.md,
 * docs/recorder-node.md "Forcing"): real `node --import tsx --test` runs of
 * test/fixtures/node/balancemap (withdraw() reads a balance from a Map, awaits the audit, writes it
 * back), through the CLI. The runs get the Node.js recorder, which holds a task at its awaits and
 * async calls until the other task has made its access: the lost withdrawal is confirmed (forced
 * runs fail, the opposite order does not), a wrong fix (the balance read again after the audit, an
 * await still before the write) is not fixed, the right one (read, check and write in one turn of
 * the event loop) is fixed. Needs dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs)
 * and tsx in the repository's node_modules (the copies live under test-output/ for that).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist', 'braid.js');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'balancemap');
const work = path.join(root, 'test-output', 'recorder', `node-confirm-${process.pid}`);
const command = ['node', '--import', 'tsx', '--test', 'src/accounts.test.ts'];

/** A copy of the subject with `fix` (a file of fixes/) as its src/accounts.ts. */
function copy(name: string, fix?: string): string {
  const dir = path.join(work, name);
  cpSync(fixture, dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  if (fix) cpSync(path.join(dir, 'fixes', fix), path.join(dir, 'src', 'accounts.ts'));
  return dir;
}

function braid(cwd: string, args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 600_000 });
}

let recording = '';

before(() => {
  assert.ok(existsSync(cli), 'dist/braid.js is built (node scripts/build.mjs)');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const dir = copy('original');
  recording = path.join(dir, 'recorded');
  const r = braid(dir, ['record', '--runs', '12', '--noise', '0.5', '--seed', '1', '--jobs', '2', '--out', recording, '--', ...command]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const failed = /(\d+) passed, (\d+) failed/.exec(r.stdout);
  assert.ok(failed && Number(failed[2]) > 0, `the recording has failing runs\n${r.stdout}${r.stderr}`);
});

test('braid confirm on a JS/TS command: the lost withdrawal across the await is confirmed — forced runs fail, the opposite order does not; the forcing report comes from the Node.js recorder', () => {
  const dir = path.join(work, 'original');
  const r = braid(dir, ['confirm', recording, '--runs', '10', '--jobs', '2', '--format', 'json', '--', ...command]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const j = JSON.parse(r.stdout);
  assert.equal(j.verdict, 'confirmed', r.stdout);
  assert.equal(j.pattern.rank, 1);
  assert.ok(j.forced.failed >= 9 && j.forced.forcedOk >= 9, `forced runs fail ≥ 90 %: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite.runs > 0 && j.opposite.failed <= 1, `the opposite order fails ≤ 10 %: ${JSON.stringify(j.opposite)}`);
  // the forced failing run is the lost withdrawal, and its trace carries the Node recorder's forcing line
  assert.ok(j.failingRun && existsSync(j.failingRun.trace), JSON.stringify(j.failingRun));
  const trace = readFileSync(j.failingRun.trace, 'utf8');
  assert.match(trace, /"recorder":\{"name":"braid-node-recorder"/);
  const forcing = JSON.parse(trace.split('\n').find((l) => l.startsWith('{"forcing"'))!).forcing;
  assert.equal(forcing.ok, true, JSON.stringify(forcing));
  assert.equal(forcing.order, 'pattern');
  assert.match(trace, /both withdrawals taken/);
});

test('Check the Fix on a JS/TS command: a wrong fix (read again after the audit, an await before the write) is not fixed; the right fix is fixed', () => {
  const wrong = copy('wrong', 'wrong.ts');
  const w = braid(wrong, ['confirm', '--baseline', recording, '--runs', '10', '--jobs', '2', '--format', 'json', '--', ...command]);
  const wj = JSON.parse(w.stdout || '{}');
  assert.ok(wj.fix === 'not fixed' || wj.fix === 'could not check', `never fixed: ${w.stdout}${w.stderr}`);
  assert.equal(wj.fix, 'not fixed', w.stdout);
  assert.ok(wj.forced.runs > 0, `forced runs finished: ${JSON.stringify(wj.forced)}`);
  assert.ok(wj.after.runs > 0 && wj.after.failed > 0, `the noise runs after the wrong fix still fail: ${JSON.stringify(wj.after)}`);

  const right = copy('right', 'right.ts');
  const f = braid(right, ['confirm', '--baseline', recording, '--runs', '10', '--jobs', '2', '--format', 'json', '--', ...command]);
  assert.equal(f.status, 0, f.stdout + f.stderr);
  const fj = JSON.parse(f.stdout);
  assert.equal(fj.fix, 'fixed', f.stdout);
  assert.ok(fj.forced.runs > 0 && fj.forced.forcedOk > 0, `the interleaving was forced on the fixed code: ${JSON.stringify(fj.forced)}`);
  assert.equal(fj.forced.failed, 0);
  assert.ok(fj.after.runs >= 10 && fj.after.failed === 0, JSON.stringify(fj.after));
});
