/**
 * Two calls of one library method that is not thread-safe (issue 40, indriya-picache; forcingPlan.ts
 * isLibraryOverlap, the agent's force.accesses[].atStart): fixture `forcing.SlowMemo` fills a static
 * HashMap with computeIfAbsent and a slow mapping function, the second thread 50 ms after the first.
 * `W1 W2` at the call forced as an overlap — the second call released once the first has begun — throws
 * ConcurrentModificationException; the counterfactual, the calls serialised (the second released once the
 * first returned), does not.
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

const FILE = 'forcing/SlowMemo.java';
const line = readFileSync(path.join(fixturesDir, FILE), 'utf8')
  .split('\n')
  .findIndex((l) => l.includes('// @force memo')) + 1;

const call = (thread: 1 | 2) => ({ thread, type: 'W' as const, variable: 'java.util.HashMap', file: FILE, line, method: 'forcing.SlowMemo.of', call: 'java.util.HashMap.computeIfAbsent' });
const p: ForcedPattern = { key: 'W1 W2', id: 'P3', kind: 'WW', rank: 1, accesses: [call(1), call(2)] };

async function forced(name: string, order: ForceOrder, runs: number) {
  const file = path.join(tempDir(), `${name}.json`);
  const plan = forcingPlan(name, p, order);
  await writeNoisePlan(file, plan);
  return record(name, 'forcing.SlowMemo', { runs, noise: 0, include: ['forcing'], plan: { file, plan } });
}

test('two computeIfAbsent calls forced to overlap throw; serialised (the counterfactual) they do not', async () => {
  assert.ok(line > 0, 'SlowMemo.java has // @force memo');
  const runs = 4;
  const overlap = await forced('overlap-forced', 'pattern', runs);
  const met = overlap.runs.filter((r) => r.forcing?.ok).length;
  assert.ok(met >= runs - 1, `overlap met in ${met}/${runs}: ${JSON.stringify(overlap.runs.map((r) => r.forcing))}`);
  assert.ok(overlap.failed >= runs - 1, `overlap: ${overlap.failed}/${runs} failed`);
  for (const r of overlap.runs.filter((x) => x.outcome === 'fail')) assert.equal(r.detail, 'exit code 3');
  const serial = await forced('overlap-serialised', 'opposite', runs);
  assert.ok(serial.failed <= 1, `serialised: ${serial.failed}/${runs} failed`);
});
