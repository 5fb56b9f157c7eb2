/**
 * Where the iterator is made (issue 38 item 5; server/src/engine/griffin/iteratorMaker.ts, docs/griffin.md):
 * an iteration while modified whose iterating thread steps, in a class of the code under test, an iterator
 * that another method of that class made (its own iterator class: ExpiringMap's AbstractHashIterator, whose
 * constructor makes `entrySet().iterator()` and whose `getNext` steps it) names the method that made the
 * iterator for that thread, first. Off (`iteratorMaker: false`): the changing thread first, as before.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs, Bug, GriffinOptions } from '../../server/src/engine/griffin/griffin';
import { buildTraceText, tempDir } from '../helpers/traceBuilder';

/**
 * Six failing runs, six passing ones; the last passing run makes the iterator, the map changes and the loop
 * takes no further step (`passLast`): the iterator-making call then meets the change in a pattern (of
 * passing runs only, as in ExpiringMap's recording, where it is the 7th pattern, F0/P1).
 */
async function bugsOf(fail: string[], pass: string[], passLast: string[], options: GriffinOptions = {}): Promise<Bug[]> {
  const dir = tempDir('braid-itermaker-');
  for (let k = 0; k < 6; k++) {
    writeFileSync(path.join(dir, `f${k}.trace.jsonl`), buildTraceText({ execution: `f${k}`, outcome: 'fail', events: fail }));
    writeFileSync(path.join(dir, `p${k}.trace.jsonl`), buildTraceText({ execution: `p${k}`, outcome: 'pass', events: k === 5 ? passLast : pass }));
  }
  const result = await analyzeTraceFiles([dir]);
  return explainBugs(undefined, result, options).filter((b) => !b.evidence.weak);
}

const MAP = 'java.util.LinkedHashMap';
const put = `W2 ${MAP} S50 @file=Cache.java @method=app.Cache.put @obj=5 @call=java.util.LinkedHashMap.put @from=Writer.java:5:app.Writer.run`;

test('iteration while modified through the code\'s own iterator class: the method that made the iterator is named first', async () => {
  const make = `R1 ${MAP} S20 @file=Cache.java @method=app.Cache$ValueIter.<init> @obj=5 @call=java.util.Set.iterator @from=Reader.java:10:app.Reader.run`;
  const next = `R1 ${MAP} S30 @file=Cache.java @method=app.Cache$ValueIter.next @obj=5 @call=java.util.Iterator.next @from=Reader.java:11:app.Reader.run`;
  const fail = [make, next, put, next];
  const pass = [make, next, next, put];
  const [b, ...rest] = await bugsOf(fail, pass, [make, put]);
  assert.equal(rest.length, 0);
  assert.equal(b.advice.shape, 'iteration-while-modified');
  assert.deepEqual(
    b.suspiciousMethods.map((m) => m.method),
    ['app.Cache$ValueIter.<init>', 'app.Cache.put'],
  );
  assert.equal(b.suspiciousMethods[0].line, 20);
  assert.equal(b.advice.fixLane, b.suspiciousMethods[0].thread);
  assert.equal(b.graph.lanes.find((l) => l.thread === b.suspiciousMethods[0].thread)?.suspiciousMethod?.method, 'app.Cache$ValueIter.<init>');
  // the advice: the snapshot where the iterator is made first, the collection's type second
  assert.match(b.advice.steps[0], /^Iterate over a snapshot where the iterator is made: in the ValueIter constructor \(Cache\.java:20\), copy the LinkedHashMap under a lock .* and make the iterator over the copy;/);
  assert.match(b.advice.steps[1], /^Or make the LinkedHashMap safe to iterate while Cache\.put changes it: a ConcurrentHashMap/);
  assert.match(b.advice.steps[2], /^Or lock both/);
  assert.equal(b.advice.steps.length, 4);
  // off: the stepping method, the changing thread first (the behaviour before)
  const [off] = await bugsOf(fail, pass, [make, put], { iteratorMaker: false });
  assert.deepEqual(
    off.suspiciousMethods.map((m) => m.method),
    ['app.Cache.put', 'app.Cache$ValueIter.next'],
  );
  assert.match(off.advice.steps[0], /^Make the LinkedHashMap safe to iterate/);
  assert.match(off.advice.steps[1], /^Or iterate over a snapshot: in ValueIter\.next,/);
});

test('iteration while modified, the iterator made and stepped in one method (a for-each loop): the changing thread stays first', async () => {
  const make = `R1 ${MAP} S20 @file=Report.java @method=app.Report.print @obj=5 @call=java.util.Set.iterator @from=Reader.java:10:app.Reader.run`;
  const next = `R1 ${MAP} S21 @file=Report.java @method=app.Report.print @obj=5 @call=java.util.Iterator.next @from=Reader.java:10:app.Reader.run`;
  const [b] = await bugsOf([make, next, put, next], [make, next, next, put], [make, put]);
  assert.equal(b.advice.shape, 'iteration-while-modified');
  assert.deepEqual(
    b.suspiciousMethods.map((m) => m.method),
    ['app.Cache.put', 'app.Report.print'],
  );
});

test('iteration while modified, the iterator made in another thread body: not taken for this thread\'s', async () => {
  const make = `R1 ${MAP} S20 @file=Cache.java @method=app.Cache$ValueIter.<init> @obj=5 @call=java.util.Set.iterator @from=Other.java:3:app.Other.run`;
  const next = `R1 ${MAP} S30 @file=Cache.java @method=app.Cache$ValueIter.next @obj=5 @call=java.util.Iterator.next @from=Reader.java:11:app.Reader.run`;
  const [b] = await bugsOf([make, next, put, next], [make, next, next, put], [make, put]);
  assert.equal(b.advice.shape, 'iteration-while-modified');
  assert.equal(b.suspiciousMethods[0].method, 'app.Cache.put');
});
