/**
 * Confirm by Forcing where one place is passed twice per run and the pattern's access follows only
 * its second pass (issue 40, docs/recorder-node.md "Forcing", "Which pass"): test/fixtures/node/passorder
 * — two connections are added to a pool's linked list by the same `then` callback of connect(); the
 * first pass adds to the empty list (`tail = node`, pool.mjs:13), the second appends after the first
 * connection (`tail = node`, :16). close() walks the list and reads `tail` only for a node it finds
 * (:23). The root cause: close() read `tail` before the second connection was appended (R :23 → W :16,
 * the connection is never closed). generic-pool's clear() (bench/real/node/genpool-clear) has this
 * shape.
 *
 * Before, the group's runs learned that the append followed half of the callback's passes and held
 * the callback at every pass: the first connection was held waiting for a read of `tail` that needs
 * it in the list, close() walked the empty list meanwhile, and the root cause was "not forced". Now
 * the runs learn per pass (the 1st, 2nd, … pass of a place in a run) and hold only the second: the
 * root cause is confirmed; with `BRAID_NODE_LEARN_PASS=0` (the earlier rule) it is still not
 * confirmed. The decoy (the first connection's `tail` write before the second's, in every run) is not
 * confirmed. On a committed recording (30 runs with wide noise 0.5, 3 failed), through the CLI
 * (test/helpers/nodeConfirmFixture.ts). Counts of runs, no timing. Needs dist/braid.js and
 * dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { keyOf, nodeConfirmFixture } from '../helpers/nodeConfirmFixture';

const fixture = nodeConfirmFixture('passorder', 'node-pass-forcing', ['node', 'app.mjs']);
let rootCause = '';
let decoy = '';

before(() => {
  const patterns = fixture.patterns();
  rootCause = keyOf(patterns, { type: 'R', variable: 'Pool.tail', file: 'pool.mjs', line: 23 }, { type: 'W', variable: 'Pool.tail', file: 'pool.mjs', line: 16 });
  decoy = keyOf(patterns, { type: 'W', variable: 'Pool.tail', file: 'pool.mjs', line: 13 }, { type: 'W', variable: 'Pool.tail', file: 'pool.mjs', line: 16 });
});

test.after(() => fixture.cleanUp());

const confirm = fixture.confirm;

test('an access that follows only the second pass of a callback is held at that pass: the root cause is confirmed', () => {
  const j = confirm('rootcause', rootCause);
  assert.equal(j.verdict, 'confirmed', JSON.stringify(j));
  // the group's first runs (one per job) learn where the append follows; the others hold there
  assert.ok(j.forced.forcedOk >= 5 && j.forced.failed >= 5, `forced in most runs, and they fail: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite !== null && j.opposite.forcedOk >= 5 && j.opposite.failed <= 1, `the opposite order imposed, and it passes: ${JSON.stringify(j.opposite)}`);
});

test('with BRAID_NODE_LEARN_PASS=0 (every pass of a learned place held) the root cause is not confirmed', () => {
  const j = confirm('everypass', rootCause, { BRAID_NODE_LEARN_PASS: '0' });
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
});

test('the decoy of the same program is not confirmed', () => {
  const j = confirm('decoy', decoy);
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
  assert.notEqual(j.verdict, 'confirms the window', JSON.stringify(j));
});
