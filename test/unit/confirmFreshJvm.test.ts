/**
 * `braid confirm --fresh-jvm` (docs/confirm.md "Repetitions in one JVM"): parsed, and passed on to the
 * confirmation's options (one JVM per run in every group); without it the options ask for none.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { confirmOptionsFor, parseConfirmArgs } from '../../server/src/cli/confirmCommand';

test('braid confirm --fresh-jvm: one JVM per run in every group; the default leaves the repetitions on', async () => {
  const a = parseConfirmArgs(['traces', '--fresh-jvm', '--', 'java', '-cp', 'out', 'bank.Bank']);
  assert.equal(a.freshJvm, true);
  assert.deepEqual(a.inputs, ['traces']);
  const o = await confirmOptionsFor(['traces'], a, () => {});
  assert.ok(typeof o !== 'string', String(o));
  assert.equal(o.options.freshJvm, true);
  const d = await confirmOptionsFor(['traces'], parseConfirmArgs(['traces', '--', 'java', '-cp', 'out', 'bank.Bank']), () => {});
  assert.ok(typeof d !== 'string' && d.options.freshJvm === undefined);
});
