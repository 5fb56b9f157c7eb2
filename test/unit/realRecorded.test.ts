/**
 * The real corpus (issue 38, bench/real/README.md): every truth.json is well formed and follows the
 * held-out rule, and on every committed recording (test/fixtures/real/<id>) what holds is checked:
 * rank 1 is the root cause and GRIFFIN's bug 1 names a fixed method first, except on the misses
 * listed below with their reason — a listed miss that starts to hold fails too, so the list stays
 * true. Figures: npm run eval -- --set real.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { heldOutById, realSubjects, recordedRoot, scoreRecording, truthProblems } from '../../bench/realCorpus';

/** Recordings in which no run failed (exposure, issue 41): nothing to rank; id → what was seen (none now). */
const NO_FAILURE: Record<string, string> = {};
/** Known misses on the committed recordings: id → why rank 1 is not the root cause. */
const RANK_MISSES: Record<string, string> = {
  'opossum-stuck': 'the symbol-keyed state is recorded now (CircuitBreaker[Symbol(state)]), but the patterns on it are in passing runs only (F0/P65): the timer\'s HALF_OPEN write (line 183) never happens in a failing run; the root cause is 3rd',
  'sonic-end': 'held out: root cause 2nd',
  'wfa-order': 'held out: the renames go through slide and graceful-fs, which are not recorded',
  'sonic-reopen': '7 of 100 runs failed (braid record\'s defaults, 2026-11-30): the root cause (_opening / the \'ready\' listener list / fs.close before fs.write) ranks 11th (F2/P18); rank 1 is SonicBoom._writing (R :223 / W :108, F3/P0), a consequence of the EBADF write',
  'micrometer-latefilter': 'held out: root cause 2nd',
  'queue-stopstart': 'root cause 3rd (W running = false in stop :111 → R running in next :83, F39/P61: in every run, what differs is the order, not the presence); rank 1 is W pending++ in start :101 / W pending-- in next :69 with the same counts',
  'genpool-destroy': 'held out: no pattern is the root cause: the _allObjects Set calls are recorded (Set.size in spareResourceCapacity :563, Set.delete in _destroy :127, Set.add :294) but form no pattern; the first five (F57/P0) are the waiting queue\'s list (DoublyLinkedList.insertBeginning :26-30, the enqueue of acquire into the empty list / remove :70-81 by the request\'s timeout), the wait that follows the missing dispense',
  'javautil-multikeyresize': 'held out: root cause 13th (F56/P144, in most passing runs too); rank 1 is a four-access pattern on a bucket\'s chain (R AtomicReferenceArray.get :3115, W .set :3138) with MultiKey.hash (W :451 in the key\'s constructor, R :3126), F24/P18',
  'phcommons-annotationcache': 'held out: root cause 4th (W :95 computeIfAbsent / W :104 put of the cache\'s HashMap, F71/P28: in every run, 71 of 99 failing); the first three are four-access patterns that add the registry\'s W s_bDefaultInstantiated :92 (getInstance) to the same HashMap accesses, F67/P27 and F70/P28',
  'async-prioritydrain': 'no pattern at all (47 of 100 runs failed): the early drain is a read of q.drain in the empty batch\'s setImmediate (priorityQueue.js:24) with no recorded write to pair with (the driver sets q.drain), and the fix adds a read (q.idle() in push) that the buggy release never makes; numRunning\'s writes (process :164, _next :89) form no pattern either',
  'micrometer-obscontext': 'root cause 2nd (W HashMap.clear :1043 / W computeIfAbsent :1036, F6/P11: in 11 passing runs too); rank 1 adds the clearer\'s put("thread", "done") W :962 to the same pair (F5/P3)',
  'rxjava3-singletimeout': 'held out, fresh (session 24, second set): the driver\'s d.dispose() after the lost timeout (DisposableHelper.dispose\'s getAndSet, :121) writes the observer in every failing run and in no passing run, so 116R/121W ties the root cause (116R/79W, 116R/79W/117W) at score 1 and is listed first; the root cause is 3rd',
  'persist-setitem': 'fresh (session 24, second set): no pattern — both racing fs.writeFile calls of the key\'s file (local-storage.js:323) start in the test\'s one task; they overlap in libuv\'s thread pool, which the recorder does not see as tasks, and the only cross-task pair (the write and getItem\'s read :302) is ordered',
  'caffeine-weakvalueput': 'fresh (session 24): nearly every run fails under braid test\'s defaults (188 of 200): the root cause (R PW.java:80 / W :89) is in all 12 passing runs too (p = 1, no evidence) and ranks 7th; first is the maintenance task\'s drainStatus write read by a reader (BoundedLocalCache.java:4092/4084), on evidence by order',
  'tarn-destroywait': 'fresh (session 24): root cause 6th (WW free :119/:119, F51/P9); rank 1 is the reaper stopping itself once it emptied the pool (W interval :291 after R :283, F56/P0), a consequence; the root-cause order W free :119 → R free :144 is in every run (F56/P44), what differs is its value (an empty array)',
  'micrometer-otlpindexcache': 'held out: rank 1 is a four-access pattern on both static caches (W computeIfAbsent DefaultExponentialHistogramSnapShot.java:84 and IndexProviderFactory.java:41, two of each, F106/P28), the root cause of neither bug alone; index-provider-cme\'s is 2nd (F169/P31), empty-snapshot-cme\'s 3rd (F157/P31)',
};
/** Known misses: id → why bug 1's first suspicious method is not a fixed method. */
const METHOD_MISSES: Record<string, string> = {
  'opossum-stuck': 'no GRIFFIN bug: no pattern on the circuit\'s state has evidence (the failing runs lack the timer\'s write)',
  'sonic-reopen': 'bug 1 names SonicBoom.end and release (the write path after the EBADF); the fix is in openFile and SonicBoom.reopen',
  'wfa-order': 'held out: no GRIFFIN bug with evidence; its weak bug (the first pattern, in every failing run) names getTmpname for both tasks',
  'javautil-multikeyresize': 'held out: MultiKeyMap.putInternal is named for both threads; the fix is in getStripeLock (the stripe from the table read before the lock) and putNoLock',
  'spring-mimelru': 'nearly every run fails under braid test\'s defaults (353 of 354; the noise widens the remove-then-add window that plain runs hit in 0 of 10): the root cause is first (F342/P1) but has no evidence against one passing run, so no GRIFFIN bug',
  'mutex-release': 'held out: bug 1 names Semaphore.isLocked and the releaser closure _currentReleaser (made in _dispatch); the fix is in Semaphore.release',
  'genpool-destroy': 'held out: bug 1 names Queue.push for both tasks (the waiting queue); the fix adds a _dispense() call to Pool.destroy, an action that never happens in the failing runs',
  'micrometer-promcollect': 'no GRIFFIN bug with evidence: the root-cause pattern (children.stream() → children.add) is in 255 of 255 passing runs too; its weak bug (in every failing run) names MicrometerCollector.collect and add; the fix is the field\'s initializer (MicrometerCollector.<init>)',
  'phcommons-annotationcache': 'held out: bug 1 names HashCodeImplementationRegistry.getHashCode for both threads (the frame above the registry\'s getInstance write of the first pattern); the fix is in AnnotationUsageCache.hasAnnotation',
  'async-prioritydrain': 'no GRIFFIN bug: no pattern (see RANK_MISSES); the fix is in priorityQueue\'s q.push',
  'cache2k-manageriter': 'held out, fresh (session 24, second set): bug 1 names CacheManagerImpl.newCache (the add) and the driver\'s for-each; the fix is in CacheManagerImpl.iterator, whose HashSet.iterator call pairs with the add in only 1 failing run (rank 9, no evidence)',
  'cache2k-peekduringput': 'fresh (session 24, second set): bug 1 (shaped as a lost update between two finishFetch writes) names BaseCache.finishFetch and peekEntryInternal; the fix is in BaseCache.put, the caller of startFetch/finishFetch one frame up',
  'hutool-expiredremove': 'fresh (session 24, second set): bug 1\'s first method is AbstractCache.putWithoutLock (the writer\'s HashMap.put at :91, not changed by the fix); the second, removeWithoutLock, is a fixed method (the real change is in StampedCache.get/remove)',
  'reactor-bufferdiscard': 'held out, fresh (session 24, second set): bug 1 (iteration while modified) names BufferPredicateSubscriber.onNext (the add at :224 is in tryOnNext, which onNext calls) and Operators.onDiscardMultiple (called from cancel); the fix changed tryOnNext and cancel',
  'rxjava3-singletimeout': 'held out, fresh (session 24, second set): bug 1 names DisposableHelper.dispose (the test\'s dispose of the stuck observer) first; the fixed TimeoutMainObserver.run is its second method',
  'persist-setitem': 'fresh (session 24, second set): no GRIFFIN bug (no pattern); the fix adds a write queue to setItem/updateItem',
  'caffeine-weakvalueput': 'fresh (session 24): bug 1 names BoundedLocalCache.maintenance and afterRead (the drain-status pattern); the fix is in the weak-value node\'s getValue/setValue (PW)',
  'tarn-destroywait': 'fresh (session 24): bug 1 names Pool._startReaping and _stopReaping (the consequence pattern on interval); the fix adds the tracking of pending destroys to Pool._destroy and the wait for them to Pool.destroy, an action that never happens in the buggy release',
  'steno-earlycb': 'fresh (session 24): bug 1 names writeFile (the exported wrapper both writes go through, index.js:64) for both tasks; the accesses and the fix are in Writer.write and its rename callback',
  'fastq-drained': 'held out, fresh (session 24): re-recorded once calls through an assigned field were recorded (R drain :157 / W :272 is rank 1 now, F17/P0); bug 1 names release in fastqueue first (the hook\'s caller) and drained in queueAsPromised second, the fixed method',
  'st4-groupload': 'fresh (session 24): bug 1 names STGroup.getInstanceOf and defineTemplateOrRegion, around the first pattern (the NOT_FOUND_ST put at STGroup.java:234 → the parse\'s templates.get at :281, the poisoned map); the fix is in STGroupFile.load, whose alreadyLoaded pattern (W :135 → R :128, F93/P0) ranks 2nd',
  'httpcore-stalepool': 'held out, fresh (session 24): bug 1 names AbstractConnPool.closeExpired (the evictor) first and getPoolEntryBlocking second (through the synthetic access$300 since this session); the fix is in getPoolEntryBlocking',
  'micrometer-obscontext': 'bug 1 names Observation$Context.clear and computeIfAbsent (the racing calls); the fix is the map\'s initializer (Context.<init>: a ConcurrentHashMap), the micrometer-promcollect shape',
};

const subjects = realSubjects();

test('real corpus: every truth.json is well formed, names its fix and follows the held-out rule', () => {
  for (const s of subjects) assert.deepEqual(truthProblems(s.truth, s.id), [], `${s.id}: ${s.error ?? ''}`);
});

test('real corpus: the held-out rule splits by id alone (SHA-1 of the id)', () => {
  // fixed values: the rule must not change once subjects were split by it
  assert.equal(heldOutById('a'), false);
  const ids = Array.from({ length: 300 }, (_, k) => `subject-${k}`);
  const held = ids.filter(heldOutById).length;
  assert.ok(held > 70 && held < 130, `about a third held out, got ${held} of 300`);
});

for (const s of subjects) {
  const dir = path.join(recordedRoot, s.id);
  if (!existsSync(dir)) continue;
  test(`real corpus, committed recording of ${s.id} (${s.truth.subject}): rank 1 and bug 1's method as recorded`, async () => {
    const result = await analyzeTraceFiles([dir], { testCode: s.run.testCode ?? [] });
    assert.equal(result.diagnostics.filter((d) => d.severity === 'error').length, 0, JSON.stringify(result.diagnostics.slice(0, 3)));
    const score = scoreRecording(s.truth, result, explainBugs(undefined, result));
    if (NO_FAILURE[s.id]) assert.equal(score.failed, 0, `${s.id} is listed as a recording without failing runs (${NO_FAILURE[s.id]}) but has some: remove it from NO_FAILURE`);
    else assert.ok(score.failed > 0, 'the recording has failing runs');
    const listing = result.patterns
      .slice(0, 5)
      .map((p) => `${p.id} ${p.group} F${p.failed}/P${p.passed} p=${p.pValue.toExponential(1)} ${p.accesses.map((a) => `${a.thread}${a.type} ${a.file}:${a.line}`).join(' ')}`)
      .join('\n');
    if (RANK_MISSES[s.id]) assert.ok(!score.rank1, `${s.id} is listed as a rank miss (${RANK_MISSES[s.id]}) but rank 1 is now the root cause: remove it from RANK_MISSES`);
    else assert.ok(score.rank1, `rank 1 is not the root cause of ${s.id} (root cause at ${score.bugs.map((b) => b.rootPosition).join(', ')}):\n${listing}`);
    if (METHOD_MISSES[s.id]) assert.ok(!score.methodFirst, `${s.id} is listed as a method miss (${METHOD_MISSES[s.id]}) but now names a fixed method: remove it`);
    else assert.ok(score.methodFirst, `bug 1's first suspicious method of ${s.id} is ${score.bug1Methods[0] ?? 'none'}, not one of ${Object.values(s.truth.bugs).flatMap((b) => b.fixMethods).join(', ')}`);
  });
}
