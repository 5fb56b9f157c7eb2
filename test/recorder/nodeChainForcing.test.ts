/**
 * Confirm by Forcing where a request's own earlier access would meet its own later hold (issue 40,
 * session 15; docs/recorder-node.md "Forcing", "Happens-before"): test/fixtures/node/ownchain — two
 * requests share a gate of one slot (lib/gate.mjs, the shape of metautil's Semaphore, bench/real/node/
 * metautil-semaphore); the driver, outside the recording's include list, calls `await gate.enter()`, so
 * enter() is a task of its own and the request's leave() runs in the driver's continuation. The root
 * cause: the second request reads the free count (R :14, 0: it waits) before the first one's leave()
 * counts the slot free (W :24), which then hands it over without taking it back.
 *
 * Forcing holds the first request's leave() until another task has read the count. Before, "another
 * task" was any task but the held one: the request's own enter() read — which happens before its
 * leave() in its async chain (enter's resolution → the driver's continuation) — met the wait at once,
 * the order was never imposed, and the root cause was refuted (forced 0 of 5 failing). Now a
 * performance that happens before the held point by the recorder's happens-before is not the other
 * side: the first request waits for the second one's read, and the root cause is confirmed;
 * `BRAID_NODE_FORCE_HB=0` keeps the earlier rule (not confirmed). The decoy (enter's write of a free
 * slot before another request's leave(), in every passing run) is not confirmed. On a committed
 * recording (30 runs, seed 1000, 7 failed), through the CLI. Counts of runs, no timing. Needs
 * dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { keyOf, nodeConfirmFixture } from '../helpers/nodeConfirmFixture';

const fixture = nodeConfirmFixture('ownchain', 'node-chain-forcing', ['node', 'app.mjs']);
let rootCause = '';
let decoy = '';

before(() => {
  const patterns = fixture.patterns();
  rootCause = keyOf(patterns, { type: 'R', variable: 'Gate.free', file: 'lib/gate.mjs', line: 14 }, { type: 'W', variable: 'Gate.free', file: 'lib/gate.mjs', line: 24 });
  decoy = keyOf(patterns, { type: 'W', variable: 'Gate.free', file: 'lib/gate.mjs', line: 15 }, { type: 'W', variable: 'Gate.free', file: 'lib/gate.mjs', line: 24 });
});

test.after(() => fixture.cleanUp());

test("a request's own earlier read does not meet the hold of its own leave(): the root cause is confirmed", () => {
  // 20 runs a group: the unforced runs fail more often on a loaded machine (4 of 10 once, with forced 8 of
  // 10: p = 0.085 against forced, so "refuted"); with 20 the forced group's lead is clear under load too
  const j = fixture.confirm('rootcause', rootCause, {}, 20);
  assert.equal(j.verdict, 'confirmed', JSON.stringify(j));
  // the group's first runs (one per job) learn where leave() is holdable; the others hold there
  // (a group may stop at its first look, 10 runs, once the verdict is decided)
  const most = (g: { runs: number }) => Math.max(5, Math.ceil(g.runs / 2));
  assert.ok(j.forced.forcedOk >= most(j.forced) && j.forced.failed >= most(j.forced), `forced in most runs, and they fail: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite !== null && j.opposite.forcedOk >= most(j.opposite) && j.opposite.failed <= Math.max(1, Math.floor(j.opposite.runs / 10)), `the opposite order imposed, and it passes: ${JSON.stringify(j.opposite)}`);
});

test('with BRAID_NODE_FORCE_HB=0 (any other task meets a wait) the root cause is not confirmed', () => {
  const j = fixture.confirm('nohb', rootCause, { BRAID_NODE_FORCE_HB: '0' });
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
});

test('the decoy of the same program is not confirmed', () => {
  const j = fixture.confirm('decoy', decoy);
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
  assert.notEqual(j.verdict, 'confirms the window', JSON.stringify(j));
});
