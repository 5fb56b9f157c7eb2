/**
 * GRIFFIN's evidence clustering, option `thirdThread` (docs/griffin.md "A third thread"): a family member
 * whose accesses all run in the method of one of the seed's lanes — that lane racing with another instance
 * of itself — gives no lane its method when each of the seed's lanes runs in one method and they differ.
 * Without the rule, aligning such a member by the access it shares with the seed put the lane's own method
 * on the other lane too, and the other lane's method was lost.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';

const methodsOf = (bugs: ReturnType<typeof explainBugs>) => bugs[0].suspiciousMethods.map((m) => `${m.thread}:${m.method}`).sort();

test('metautil-poolrelease (design part of the real corpus, committed recording): the releasing lane names Pool.release with the rule, Pool.next without', async () => {
  const dir = path.resolve(__dirname, '../fixtures/real/metautil-poolrelease');
  const result = await analyzeTraceFiles([dir]);
  // the seed: R available in Pool.next (a capture) → W available in Pool.release; its family holds
  // W available in Pool.next → R available in Pool.next (two captures: a third task)
  assert.deepEqual(methodsOf(explainBugs(undefined, result)), ['1:Pool.next', '2:Pool.release']);
  assert.deepEqual(methodsOf(explainBugs(undefined, result, { thirdThread: false })), ['1:Pool.next', '2:Pool.next']);
});

test('metautil-semaphore (committed recording): the leaving lane names Semaphore.leave with the rule', async () => {
  const dir = path.resolve(__dirname, '../fixtures/real/metautil-semaphore');
  const result = await analyzeTraceFiles([dir]);
  assert.deepEqual(methodsOf(explainBugs(undefined, result)), ['1:Semaphore.enter/<anonymous>', '2:Semaphore.leave']);
  assert.deepEqual(methodsOf(explainBugs(undefined, result, { thirdThread: false })), ['1:Semaphore.enter/<anonymous>', '2:Semaphore.enter/<anonymous>']);
});

test('a seed lane of several methods keeps every member (datasource of the bug set: returnConnection first)', async () => {
  const dir = path.resolve(__dirname, '../fixtures/bugset/datasource');
  const result = await analyzeTraceFiles([dir]);
  const on = explainBugs(undefined, result);
  const off = explainBugs(undefined, result, { thirdThread: false });
  assert.equal(on[0].suspiciousMethods[0].method, 'datasource.PooledDataSource.returnConnection');
  assert.deepEqual(methodsOf(on), methodsOf(off));
});
