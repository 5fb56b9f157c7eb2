/**
 * GRIFFIN's suspicious method for a resource with no owning class (a file path of the Node.js
 * recorder, server/src/engine/griffin/suspiciousMethods.ts "out of helpers"): a storage's load
 * (only reads) and save (only writes) are the resource's accessors; the method named is their
 * caller, where the check-then-act is (tokencache's CacheServer.get).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { writeTraces, BuiltTrace } from '../helpers/traceBuilder';

const F = 'cache.mjs';
const load = (t: number) => `R${t} file S15 @file=${F} @method=Storage.load @from=${F}:38:Cache.get`;
const save = (t: number) => `W${t} file S24 @file=${F} @method=Storage.save @from=${F}:60:Cache.set`;

test('a load/save pair on a file: the suspicious methods are the callers, not the storage', async () => {
  const runs: BuiltTrace[] = [];
  // failing runs: task 1 loads the file before task 2 saves it; passing runs: the other order
  for (let k = 0; k < 8; k++) runs.push({ execution: `F${k}`, outcome: 'fail', events: [load(1), save(2)], program: 'main.mjs' });
  for (let k = 0; k < 8; k++) runs.push({ execution: `P${k}`, outcome: 'pass', events: [save(2), load(1)], program: 'main.mjs' });
  const r = await analyzeTraceFiles([writeTraces(runs)]);
  const bugs = explainBugs(undefined, r, {});
  assert.ok(bugs.length >= 1);
  const methods = bugs[0].suspiciousMethods.map((m) => m.method).sort();
  assert.deepEqual(methods, ['Cache.get', 'Cache.set']);
  // a field of a class keeps the thesis' rule: its accessor in its own class is still moved only when the class owns the field
  const owned = await analyzeTraceFiles([
    writeTraces(runs.map((t) => ({ ...t, events: t.events.map((e) => e.replace(' file ', ' Storage.data ')) }))),
  ]);
  const ownedMethods = explainBugs(undefined, owned, {})[0].suspiciousMethods.map((m) => m.method).sort();
  assert.ok(ownedMethods.every((m) => m.startsWith('Cache.')), ownedMethods.join(', '));
});

test('out of helpers never moves into test code: a getter and a remover of the raced field called from a JUnit test\'s lambdas stay named (log4j2 LOG4J2-3159 shape: the recorder\'s test-code mark is on the stacks\' frames)', async () => {
  const T = 'real/MarkerTest.java';
  const read = (t: number) => `R${t} lib.Marker.parents S237 @file=lib/Marker.java @method=lib.Marker.getParents @from=${T}:37:real.MarkerTest.lambda$test$1:H`;
  const remove = (t: number) => `W${t} lib.Marker.parents S193 @file=lib/Marker.java @method=lib.Marker.remove @from=${T}:30:real.MarkerTest.lambda$test$0:H`;
  const runs: BuiltTrace[] = [];
  for (let k = 0; k < 8; k++) runs.push({ execution: `F${k}`, outcome: 'fail', events: [remove(1), read(2)], program: 'junit-platform-console-standalone.jar' });
  for (let k = 0; k < 8; k++) runs.push({ execution: `P${k}`, outcome: 'pass', events: [read(2), remove(1)], program: 'junit-platform-console-standalone.jar' });
  const r = await analyzeTraceFiles([writeTraces(runs)]);
  const bugs = explainBugs(undefined, r, {});
  assert.ok(bugs.length >= 1);
  assert.deepEqual(bugs[0].suspiciousMethods.map((m) => m.method).sort(), ['lib.Marker.getParents', 'lib.Marker.remove']);
});
