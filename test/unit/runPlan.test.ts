/**
 * The noise plan of a run as the analysis reads it from the trace header
 * (`recorder.options.plan`, written by `braid record --plan`): untrusted input, so anything but a
 * name or a file is no plan (server/src/engine/analysis.ts planOfRun). Expected values by hand.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { planOfRun } from '../../server/src/engine/analysis';

test('a plan {name, file}, a bare file path, or nothing', () => {
  assert.deepEqual(planOfRun({ name: 'checkout', file: '/ws/.braid/plans/checkout.json' }), { plan: { name: 'checkout', file: '/ws/.braid/plans/checkout.json' } });
  assert.deepEqual(planOfRun({ file: 'C:\\ws\\.braid\\plans\\Bank.json' }), { plan: { name: 'Bank', file: 'C:\\ws\\.braid\\plans\\Bank.json' } });
  assert.deepEqual(planOfRun('.braid/plans/lost.json'), { plan: { name: 'lost', file: '.braid/plans/lost.json' } });
  assert.deepEqual(planOfRun({ name: 'only-a-name' }), { plan: { name: 'only-a-name' } });
  for (const bad of [undefined, null, 0, '', [], ['a'], {}, { name: 3 }, { name: '', file: 7 }]) assert.deepEqual(planOfRun(bad), {}, JSON.stringify(bad));
  assert.equal(planOfRun({ name: 'x'.repeat(2000) }).plan?.name.length, 500, 'long strings are cut');
});
