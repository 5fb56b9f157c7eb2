/**
 * GRIFFIN's suspicious methods, option `callbackMakerHelpers` (docs/griffin.md "Out of a helper its class'
 * callback calls"): a lane whose accesses all sit in one method of a class, all writes or all reads, called
 * by a callback nested in another method of the same class, names that callback (its maker decided when
 * the helper runs). loki-dirty (design part of the real corpus, committed recording) with order within a
 * tie on (the default since session 15): the lead is the update's `dirty = true` → the save callback's `dirty = false` in
 * `Loki.autosaveClearFlags`, called by `saveDatabasecallback in Loki.saveDatabaseInternal` (the fix).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';

test('loki-dirty with order within a tie (the default): the clearing lane names the save callback with the rule, Loki.autosaveClearFlags without', async () => {
  const dir = path.resolve(__dirname, '../fixtures/real/loki-dirty');
  const result = await analyzeTraceFiles([dir]);
  const on = explainBugs(undefined, result);
  const off = explainBugs(undefined, result, { callbackMakerHelpers: false });
  assert.equal(on[0].suspiciousMethods[0].method, 'saveDatabasecallback in Loki.saveDatabaseInternal');
  assert.equal(off[0].suspiciousMethods[0].method, 'Loki.autosaveClearFlags');
  // the other lane is the update either way
  assert.deepEqual(on[0].suspiciousMethods.slice(1).map((m) => m.method), off[0].suspiciousMethods.slice(1).map((m) => m.method));
});

test('loki-dirty with --order-ties off: bug 1 names the save callback first either way (the write the reader saw)', async () => {
  const dir = path.resolve(__dirname, '../fixtures/real/loki-dirty');
  const result = await analyzeTraceFiles([dir], { orderTies: false });
  for (const o of [{}, { callbackMakerHelpers: false }]) assert.equal(explainBugs(undefined, result, o)[0].suspiciousMethods[0].method, 'saveDatabasecallback in Loki.saveDatabaseInternal');
});
