/**
 * Confirm by Forcing of an access in synchronous code (issue 40, docs/recorder-node.md "Forcing"):
 * test/fixtures/node/syncboundary — the refresher drops the cached settings in synchronous code after
 * its await (`await …; reset(cache)` → `Cache.remove` → `Map.delete`, two frames below the await),
 * the reader checks the entry, awaits its audit, then uses it. JavaScript can hold the refresher only at
 * a suspension point, and none precedes the delete in its function: before, the forcing report said
 * "was performed once but never after an await…" and the root cause was "not forced" on every run.
 * Now the group's runs learn the last suspension point before the delete in its task (the refresher's
 * await) and hold the task there: the root cause is confirmed. The decoy of the same program (the
 * reader's read of a stats counter before the refresher's increment, next to the delete: an order that
 * never matters) is held the same way and stays not confirmed. On a committed recording (20 runs with
 * noise 0.5, 1 failed), through the CLI, the patterns picked by their accesses. Counts of runs, no
 * timing. Needs dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist', 'braid.js');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'syncboundary');
const work = path.join(root, 'test-output', 'recorder', `node-sync-forcing-${process.pid}`);
const dir = path.join(work, 'syncboundary');

function braid(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', timeout: 900_000 });
}

interface Access {
  thread: number;
  type: string;
  variable: string;
  file: string;
  line: number;
}

/** The key of the two-access pattern `a` then `b` (the reader's role first). */
function keyOf(patterns: { key: string; accesses: Access[] }[], a: Partial<Access>, b: Partial<Access>): string {
  const is = (x: Access, y: Partial<Access>) => Object.entries(y).every(([k, v]) => x[k as keyof Access] === v);
  const p = patterns.find((q) => q.accesses.length === 2 && is(q.accesses[0], a) && is(q.accesses[1], b));
  assert.ok(p, `the recording has the pattern ${JSON.stringify([a, b])}: ${patterns.map((q) => q.key).join(', ')}`);
  return p.key;
}

let rootCause = '';
let decoy = '';

before(() => {
  assert.ok(existsSync(cli), 'dist/braid.js is built (node scripts/build.mjs)');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(fixture, dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  const r = braid(['analyze', 'recorded', '--format', 'json']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const patterns = JSON.parse(r.stdout).patterns;
  rootCause = keyOf(patterns, { type: 'R', variable: 'Map', file: 'cache.mjs', line: 7 }, { type: 'W', variable: 'Map', file: 'cache.mjs', line: 16 });
  decoy = keyOf(patterns, { type: 'R', variable: 'Object.refreshes', file: 'app.mjs', line: 16 }, { type: 'W', variable: 'Object.refreshes', file: 'cache.mjs', line: 23 });
});

test.after(() => rmSync(work, { recursive: true, force: true }));

function confirm(key: string) {
  const r = braid(['confirm', 'recorded', '--pattern', key, '--runs', '10', '--jobs', '2', '--wait-ms', '2000', '--format', 'json', '--', 'node', 'app.mjs']);
  assert.ok(r.status === 0 || r.status === 1, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

test('an access in synchronous code after an await, two frames below it, is held at that await: the root cause is confirmed (was not forced)', () => {
  const j = confirm(rootCause);
  assert.equal(j.verdict, 'confirmed', JSON.stringify(j));
  // the group's first runs (one per job) learn where the delete was last holdable; the others hold there
  assert.ok(j.forced.forcedOk >= 5 && j.forced.failed >= 5, `forced in most runs, and they fail: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite.forcedOk >= 5 && j.opposite.failed <= 1, `the opposite order imposed, and it passes: ${JSON.stringify(j.opposite)}`);
});

test('the decoy of the same program, held the same way, is not confirmed', () => {
  const j = confirm(decoy);
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
  assert.notEqual(j.verdict, 'confirms the window', JSON.stringify(j));
});
