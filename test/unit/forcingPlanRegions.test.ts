/**
 * The counterfactual of a symmetric pattern of one access per thread (issue 40: "for a symmetric pattern,
 * compare against forcing a different interleaving of the same window, e.g. serialising the two threads'
 * regions"; forcingPlan.ts regionSerialForcing): the second thread's access waits until the other thread
 * has made its next access of the variable after its own access of the pattern (`afterOwn`, `fresh`).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { counterfactual, forceSection, forcingPlan, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { NoisePlanError, validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';

const F = 'org/springframework/util/MimeTypeUtils.java';
const remove = (thread: 1 | 2) => ({ thread, type: 'W' as const, variable: 'java.util.concurrent.ConcurrentLinkedQueue', file: F, line: 449, method: 'org.springframework.util.MimeTypeUtils$ConcurrentLruCache.get', call: 'java.util.concurrent.ConcurrentLinkedQueue.remove' });
const p: ForcedPattern = { key: 'W1 W2', id: 'P3', kind: 'WW', rank: 1, accesses: [remove(1), remove(2)] };

test('W1 W2 at one spot: the counterfactual serialises the threads\' regions (the other thread\'s next access of the variable after its own)', () => {
  assert.equal(counterfactual(p), 'serialised');
  const s = forceSection(p, 'opposite');
  assert.equal(s.accesses.length, 3);
  assert.deepEqual(
    { role: s.accesses[2].role, type: s.accesses[2].type, anywhere: s.accesses[2].anywhere, call: s.accesses[2].call, variable: s.accesses[2].variable },
    { role: 1, type: 'RW', anywhere: true, call: undefined, variable: 'java.util.concurrent.ConcurrentLinkedQueue' },
  );
  assert.deepEqual(s.waits, [{ at: 1, for: 2, sameObject: true, fresh: true, afterOwn: 0 }]);
  validateNoisePlan(forcingPlan('regions', p, 'opposite'), 'regions.json');
  // the forced order is as before: the second access waits for the first, the first thread's next access for the second
  const forced = forceSection(p, 'pattern');
  assert.deepEqual(forced.waits[0], { at: 1, for: 0, sameObject: true });
  // off, or a Node.js recording (no afterOwn there): no counterfactual, as before
  assert.equal(counterfactual(p, { regions: false }), undefined);
  const js = { ...p, accesses: p.accesses.map((a) => ({ ...a, file: 'lib/cache.js', call: 'Map.delete' })) };
  assert.equal(counterfactual(js), undefined);
});

test('the plan format checks afterOwn: an access of the awaited role other than for, not with beforeLock or ready', () => {
  const plan = forcingPlan('regions', p, 'opposite') as unknown as { force: { waits: Record<string, unknown>[] } };
  const bad = (change: (w: Record<string, unknown>) => void, msg: RegExp) => {
    const q = structuredClone(plan);
    change(q.force.waits[0]);
    assert.throws(() => validateNoisePlan(q, 'bad.json'), (e: unknown) => e instanceof NoisePlanError && msg.test(e.message));
  };
  bad((w) => (w.afterOwn = 2), /force\.waits\[0\]\.afterOwn: must be another access of the role of for/);
  bad((w) => (w.afterOwn = 1), /afterOwn: must be another access of the role of for/);
  bad((w) => (w.afterOwn = 7), /afterOwn: must be an index/);
  bad((w) => (w.beforeLock = { file: F, line: 3, method: 'm' }), /cannot go with/);
});
