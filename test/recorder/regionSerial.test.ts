/**
 * The threads' regions serialised, the counterfactual of a symmetric pattern of one access per thread
 * (issue 40; forcingPlan.ts regionSerialForcing, the agent's force.waits[].afterOwn): fixture
 * `forcing.LruTouch` moves a key to a queue's tail with remove then add. `W1 W2` at the remove forced —
 * the second remove between the first thread's remove and its add — leaves the key twice; serialised —
 * the second remove after the first thread's add — does not, and its order is met (imposed).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { forcingPlan, type ForceOrder, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { fixturesDir, prepare, record } from './recorderHarness';

before(() => prepare());

const FILE = 'forcing/LruTouch.java';
const line = readFileSync(path.join(fixturesDir, FILE), 'utf8')
  .split('\n')
  .findIndex((l) => l.includes('// @force remove')) + 1;

const remove = (thread: 1 | 2) => ({ thread, type: 'W' as const, variable: 'java.util.concurrent.ConcurrentLinkedQueue', file: FILE, line, method: 'forcing.LruTouch.touch', call: 'java.util.concurrent.ConcurrentLinkedQueue.remove' });
const p: ForcedPattern = { key: 'W1 W2', id: 'P3', kind: 'WW', rank: 1, accesses: [remove(1), remove(2)], roleThreads: { 1: ['reader-*'], 2: ['reader-*'] } };

async function forced(name: string, order: ForceOrder, runs: number) {
  const file = path.join(tempDir(), `${name}.json`);
  const plan = forcingPlan(name, p, order);
  await writeNoisePlan(file, plan);
  return record(name, 'forcing.LruTouch', { runs, noise: 0, include: ['forcing'], plan: { file, plan } });
}

test('W1 W2 at the remove: forced inside the other thread\'s remove-then-add the key is doubled; the regions serialised (imposed) it is not', async () => {
  assert.ok(line > 0, 'LruTouch.java has // @force remove');
  const runs = 4;
  const inside = await forced('regions-forced', 'pattern', runs);
  assert.ok(inside.failed >= runs - 1, `forced: ${inside.failed}/${runs} failed: ${JSON.stringify(inside.runs.map((r) => r.forcing))}`);
  const serial = await forced('regions-serialised', 'opposite', runs);
  const met = serial.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(met >= runs - 1, `serialised: imposed in ${met}/${runs}: ${JSON.stringify(serial.runs.map((r) => r.forcing))}`);
  assert.ok(serial.failed <= 1, `serialised: ${serial.failed}/${runs} failed`);
});
