/**
 * Forcing holds a callback task before it starts (issue 42, docs/recorder-node.md "Forcing"): real
 * `braid record --plan` runs of test/fixtures/node/callbackhold, whose races have their second access
 * in a callback that runs synchronously to its end — a timer's expiry (`setTimeout` → `Map.delete`)
 * and an EventEmitter listener (`'done'` → `this.current = null`). The forcing plans
 * (plans/*-forced.json: the callback's write waits until the reader's check; *-opposite.json: the
 * check waits until the write) are the ones `braid confirm` writes for the pattern check → write.
 * Before the callback gate the write could not be held (the forced runs passed: "never after an
 * await…"); now the forced runs fail 10 of 10 and the opposite order 0 of 10. Counts of runs, no
 * timing. Needs dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist', 'braid.js');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'callbackhold');
const work = path.join(root, 'test-output', 'recorder', `node-callback-forcing-${process.pid}`);

interface Forced {
  passed: number;
  failed: number;
  /** the runs whose forcing report says every wait was met */
  met: number;
  /** the failures' details */
  details: string[];
}

function forced(program: string, plan: string): Forced {
  const out = path.join(work, `${program}-${plan}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const r = spawnSync(process.execPath, [cli, 'record', '--runs', '10', '--jobs', '2', '--plan', path.join('plans', `${program}-${plan}.json`), '--out', out, '--', 'node', `${program}.mjs`], {
    cwd: fixture,
    encoding: 'utf8',
    timeout: 600_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const counts = /(\d+) passed, (\d+) failed/.exec(r.stdout);
  assert.ok(counts, r.stdout + r.stderr);
  let met = 0;
  const details: string[] = [];
  for (const f of readdirSync(out).filter((n) => n.endsWith('.trace.jsonl'))) {
    for (const line of readFileSync(path.join(out, f), 'utf8').split('\n')) {
      if (line.startsWith('{"forcing"') && JSON.parse(line).forcing.ok === true) met++;
      if (line.startsWith('{"outcome":"fail"')) details.push(JSON.parse(line).detail);
    }
  }
  return { passed: Number(counts[1]), failed: Number(counts[2]), met, details };
}

test.before(() => assert.ok(existsSync(cli), 'dist/braid.js is built (node scripts/build.mjs)'));
test.after(() => rmSync(work, { recursive: true, force: true }));

test('a timer callback is held before it starts: the expiry waits until the reader has checked the entry — forced runs fail 10 of 10, the opposite order 0 of 10', () => {
  const f = forced('timer', 'forced');
  assert.equal(f.failed, 10, JSON.stringify(f));
  assert.equal(f.met, 10, `every forced run met its wait: ${JSON.stringify(f)}`);
  for (const d of f.details) assert.match(d, /TypeError: Cannot read properties of undefined \(reading 'value'\)/);
  const o = forced('timer', 'opposite');
  assert.equal(o.failed, 0, JSON.stringify(o));
  assert.equal(o.met, 10, `every opposite run met its wait: ${JSON.stringify(o)}`);
});

test('an EventEmitter listener is held before it starts: the listener that clears the job waits until the status check — forced runs fail 10 of 10, the opposite order 0 of 10', () => {
  const f = forced('listener', 'forced');
  assert.equal(f.failed, 10, JSON.stringify(f));
  assert.equal(f.met, 10, `every forced run met its wait: ${JSON.stringify(f)}`);
  for (const d of f.details) assert.match(d, /TypeError: Cannot read properties of null \(reading 'name'\)/);
  const o = forced('listener', 'opposite');
  assert.equal(o.failed, 0, JSON.stringify(o));
  assert.equal(o.met, 10, `every opposite run met its wait: ${JSON.stringify(o)}`);
});
