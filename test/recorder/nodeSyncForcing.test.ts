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
 * noise 0.5, 1 failed), through the CLI (test/helpers/nodeConfirmFixture.ts), the patterns picked by
 * their accesses. Counts of runs, no timing. Needs dist/braid.js and dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { keyOf, nodeConfirmFixture } from '../helpers/nodeConfirmFixture';

const fixture = nodeConfirmFixture('syncboundary', 'node-sync-forcing', ['node', 'app.mjs']);
let rootCause = '';
let decoy = '';

before(() => {
  const patterns = fixture.patterns();
  rootCause = keyOf(patterns, { type: 'R', variable: 'Map', file: 'cache.mjs', line: 7 }, { type: 'W', variable: 'Map', file: 'cache.mjs', line: 16 });
  decoy = keyOf(patterns, { type: 'R', variable: 'Object.refreshes', file: 'app.mjs', line: 16 }, { type: 'W', variable: 'Object.refreshes', file: 'cache.mjs', line: 23 });
});

test.after(() => fixture.cleanUp());

test('an access in synchronous code after an await, two frames below it, is held at that await: the root cause is confirmed (was not forced)', () => {
  const j = fixture.confirm('rootcause', rootCause);
  assert.equal(j.verdict, 'confirmed', JSON.stringify(j));
  // the group's first runs (one per job) learn where the delete was last holdable; the others hold there
  assert.ok(j.forced.forcedOk >= 5 && j.forced.failed >= 5, `forced in most runs, and they fail: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite !== null && j.opposite.forcedOk >= 5 && j.opposite.failed <= 1, `the opposite order imposed, and it passes: ${JSON.stringify(j.opposite)}`);
});

test('the decoy of the same program, held the same way, is not confirmed', () => {
  const j = fixture.confirm('decoy', decoy);
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
  assert.notEqual(j.verdict, 'confirms the window', JSON.stringify(j));
});
