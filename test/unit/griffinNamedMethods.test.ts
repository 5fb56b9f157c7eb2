/**
 * Where GRIFFIN's suspicious method per thread lands when the access runs in a callback or in a
 * dependency of the package under test (issue 38 item 5; docs/griffin.md "Suspicious methods"):
 * outOfCallbacks.ts and outOfDependencies.ts, on synthetic patterns, each rule also with its option off.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { CoverageMatrix } from '../../server/src/engine/griffin/coverageMatrix';
import { suspiciousMethods } from '../../server/src/engine/griffin/suspiciousMethods';
import { explainMatrix } from '../../server/src/engine/griffin/griffin';
import { lambdaOf } from '../../server/src/engine/griffin/outOfCallbacks';
import { isSyntheticAccessor, throughSyntheticAccessor } from '../../server/src/engine/griffin/throughSyntheticAccessors';
import { npmPackageOf, packageUnderTest } from '../../server/src/engine/griffin/outOfDependencies';
import { pat, Acc } from '../helpers/handMatrix';

function runsOf(failing: number, passing: number) {
  return [...Array.from({ length: failing }, (_, k) => ({ execution: `F${k + 1}`, failing: true })), ...Array.from({ length: passing }, (_, k) => ({ execution: `P${k + 1}`, failing: false }))];
}

const members = [{ row: 0, flip: false }];
const on = { outOfHelpers: true };

function methods(accesses: Acc[], options: Parameters<typeof suspiciousMethods>[3] = on): string[] {
  const p = pat(0, 'P1', accesses.length === 2 ? 'order' : 'single-variable atomicity', accesses);
  const m = new CoverageMatrix([p], runsOf(1, 1), [[0], []]);
  return suspiciousMethods(m, members, undefined, options).map((x) => x.method);
}

test('lambdaOf reads javac\'s synthetic names', () => {
  assert.deepEqual(lambdaOf('a.B.lambda$get$0'), { cls: 'a.B', enclosing: 'get' });
  assert.deepEqual(lambdaOf('a.B$C.lambda$new$12'), { cls: 'a.B$C', enclosing: '<init>' });
  assert.deepEqual(lambdaOf('a.B.lambda$static$0'), { cls: 'a.B', enclosing: '<clinit>' });
  assert.equal(lambdaOf('a.B.get'), undefined);
  assert.equal(lambdaOf('coalesceAsync/<anonymous>'), undefined);
});

test('out of callbacks: a listener lambda (run through its class\' own lock helper) names the method of another class that runs it', () => {
  const M = 'org/x/Meter.java';
  const C = 'org/x/Composite.java';
  const accesses: Acc[] = [
    [1, 'R', 'org.x.Meter.children', ['T.java:41:org.t.T.lambda$t$0', 'org/x/Counter.java:31:org.x.Counter.increment', `${M}:47:org.x.Meter.forEachChild`]],
    [2, 'W', 'org.x.Meter.children', ['T.java:40:org.t.T.lambda$t$0', 'org/x/Registry.java:585:org.x.Registry.getOrCreate', `${C}:65:org.x.Composite.lambda$new$1`, `${C}:184:org.x.Composite.lock`, `${C}:65:org.x.Composite.lambda$null$0`, `${M}:76:org.x.Meter.add`]],
  ];
  assert.deepEqual(methods(accesses), ['org.x.Counter.increment', 'org.x.Registry.getOrCreate']);
  // without the rule: the lambda that calls the structure's add
  assert.deepEqual(methods(accesses, { ...on, outOfCallbacks: false }), ['org.x.Counter.increment', 'org.x.Composite.lambda$null$0']);
});

test('out of callbacks: a lambda names its enclosing method when that is on the stack (handed to another class\' compute)', () => {
  const stack = ['T.java:9:org.t.T.run', 'org/x/Cache.java:10:org.x.Cache.get', 'org/x/Store.java:30:org.x.Store.compute', 'org/x/Cache.java:12:org.x.Cache.lambda$get$0'];
  const accesses: Acc[] = [
    [1, 'R', 'org.x.Cache.size', stack],
    [2, 'W', 'org.x.Cache.size', stack],
    [1, 'W', 'org.x.Cache.size', stack],
  ];
  assert.deepEqual(methods(accesses), ['org.x.Cache.get', 'org.x.Cache.get']);
  assert.deepEqual(methods(accesses, { ...on, outOfCallbacks: false }), ['org.x.Cache.lambda$get$0', 'org.x.Cache.lambda$get$0']);
});

test('out of callbacks: a thread\'s body (a lambda run by the JDK, or main\'s lambda) stays', () => {
  const worker = ['java/lang/Thread.java:833:java.lang.Thread.run', 'org/x/Job.java:12:org.x.Job.lambda$start$0'];
  assert.deepEqual(
    methods([
      [1, 'R', 'org.x.Job.count', worker],
      [2, 'W', 'org.x.Job.count', worker],
      [1, 'W', 'org.x.Job.count', worker],
    ]),
    ['org.x.Job.lambda$start$0', 'org.x.Job.lambda$start$0'],
  );
  const main = ['Main.java:5:app.Main.main', 'app/Runner.java:9:app.Runner.run', 'Main.java:7:app.Main.lambda$main$0'];
  assert.deepEqual(
    methods([
      [1, 'R', 'app.Main.shared', main],
      [2, 'W', 'app.Main.shared', main],
      [1, 'W', 'app.Main.shared', main],
    ]),
    ['app.Main.lambda$main$0', 'app.Main.lambda$main$0'],
  );
});

test('npmPackageOf and packageUnderTest', () => {
  assert.equal(npmPackageOf('node_modules/cache-manager/dist/caching.js'), 'cache-manager');
  assert.equal(npmPackageOf('/p/node_modules/a/node_modules/@s/b/x.js'), '@s/b');
  assert.equal(npmPackageOf('src/app.js'), '');
  const f = (file: string, method = 'm') => ({ file, line: 1, method });
  const all = () => true;
  assert.equal(packageUnderTest([[f('node_modules/a/x.js'), f('node_modules/b/y.js')]], all), 'a');
  assert.equal(packageUnderTest([[f('node_modules/a/x.js')], [f('node_modules/b/y.js')]], all), undefined, 'stacks that disagree');
  assert.equal(packageUnderTest([[f('test/t.js', 'test'), f('node_modules/b/y.js')]], (x) => x.method !== 'test'), 'b', 'test frames are skipped');
});

test('out of dependencies: a race inside a dependency names the deepest frame of the package under test (the outermost code under test)', () => {
  const CM = 'node_modules/cache-manager/dist/caching.js';
  const PC = 'node_modules/promise-coalesce/dist/coalesce.js';
  const accesses: Acc[] = [
    [1, 'R', 'Map', [`${CM}:47:wrap`, `${PC}:23:coalesceAsync`]],
    [2, 'W', 'Map', [`${CM}:47:wrap`, `${PC}:14:coalesceAsync`, `${PC}:35:coalesceAsync/<anonymous>`]],
  ];
  assert.deepEqual(methods(accesses), ['wrap', 'wrap']);
  assert.deepEqual(methods(accesses, { ...on, outOfDependencies: false, asyncWindowOwner: false }), ['coalesceAsync', 'coalesceAsync/<anonymous>']);
  // the project's own code calls the package: the project is under test
  const own: Acc[] = [
    [1, 'R', 'Map', ['src/server.js:10:serve', `${PC}:23:coalesceAsync`]],
    [2, 'W', 'Map', ['src/server.js:10:serve', `${PC}:14:coalesceAsync`, `${PC}:35:coalesceAsync/<anonymous>`]],
  ];
  assert.deepEqual(methods(own), ['serve', 'serve']);
  // the test calls the dependency itself: it is the package under test, its function stays
  const direct: Acc[] = [
    [1, 'R', 'Map', [`${PC}:23:coalesceAsync`]],
    [2, 'W', 'Map', [`${PC}:14:coalesceAsync`, `${PC}:35:coalesceAsync/<anonymous>`]],
  ];
  assert.deepEqual(methods(direct, { ...on, asyncWindowOwner: false }), ['coalesceAsync', 'coalesceAsync/<anonymous>']);
  // (both tasks go through coalesceAsync, the function that made the callback: it owns the window)
  assert.deepEqual(methods(direct), ['coalesceAsync', 'coalesceAsync']);
});

test('out of a class\' own helpers: a helper that only stores a library object its class holds names the class\' method the outside called (rxjava2: onComplete, not setCurrent)', () => {
  const B = 'io/x/Processor.java';
  const AR = 'java.util.concurrent.atomic.AtomicReference';
  const accesses: Acc[] = [
    [1, 'R', AR, ['T.java:37:org.t.T.lambda$t$1', 'io/x/Flowable.java:13013:io.x.Flowable.subscribe', `${B}:158:io.x.Processor.subscribeActual`]],
    [2, 'W', AR, ['T.java:32:org.t.T.lambda$t$0', `${B}:215:io.x.Processor.onComplete`, `${B}:414:io.x.Processor.terminate`, `${B}:425:io.x.Processor.setCurrent`]],
  ];
  assert.deepEqual(methods(accesses), ['io.x.Processor.subscribeActual', 'io.x.Processor.onComplete']);
  assert.deepEqual(methods(accesses, { ...on, outOfOwnHelpers: false }), ['io.x.Processor.subscribeActual', 'io.x.Processor.setCurrent']);
  // a read-modify-write (both types on the lane) is not a helper: it stays
  const rmw: Acc[] = [
    [1, 'R', AR, accesses[1][3]],
    [2, 'W', AR, accesses[0][3]],
    [1, 'W', AR, accesses[1][3]],
  ];
  assert.deepEqual(methods(rmw), ['io.x.Processor.setCurrent', 'io.x.Processor.subscribeActual']);
  // called directly by another class: no own helpers to walk out of
  const direct: Acc[] = [
    [1, 'R', AR, accesses[0][3]],
    [2, 'W', AR, ['T.java:32:org.t.T.lambda$t$0', `${B}:425:io.x.Processor.setCurrent`]],
  ];
  assert.deepEqual(methods(direct), ['io.x.Processor.subscribeActual', 'io.x.Processor.setCurrent']);
});

test('out of a structure\'s classes: a list\'s iterator racing with the list\'s insert names the class both lanes go through (generic-pool: Pool.clear, not the iterator\'s helper)', () => {
  const L = 'node_modules/generic-pool/lib';
  const accesses: Acc[] = [
    [1, 'R', 'DoublyLinkedList.tail', [`${L}/Pool.js:509:Pool.clear`, `${L}/DequeIterator.js:8:DequeIterator.next`, `${L}/DoublyLinkedListIterator.js:59:DoublyLinkedListIterator.next`, `${L}/DoublyLinkedListIterator.js:89:DoublyLinkedListIterator._isCursorDetached`]],
    [2, 'W', 'DoublyLinkedList.tail', [`${L}/Pool.js:268:Pool._createResource`, `${L}/Pool.js:286:Pool._handleNewResource`, `${L}/Pool.js:457:Pool._addPooledResourceToAvailableObjects`, `${L}/Deque.js:45:Deque.push`, `${L}/DoublyLinkedList.js:36:DoublyLinkedList.insertEnd`, `${L}/DoublyLinkedList.js:48:DoublyLinkedList.insertAfter`]],
  ];
  assert.deepEqual(methods(accesses), ['Pool.clear', 'Pool._addPooledResourceToAvailableObjects']);
  assert.deepEqual(methods(accesses, { ...on, outOfStructureClasses: false }), ['DoublyLinkedListIterator._isCursorDetached', 'DoublyLinkedList.insertAfter']);
  // the class both lanes reach declares the raced field: that is the structure itself, the lanes stay
  const own: Acc[] = [
    [1, 'R', 'Pool.tail', accesses[0][3]],
    [2, 'W', 'Pool.tail', accesses[1][3]],
  ];
  assert.deepEqual(methods(own), ['DoublyLinkedListIterator._isCursorDetached', 'DoublyLinkedList.insertAfter']);
  // a lane that reads and writes (no accessor) stays, and so does the other
  const rmw: Acc[] = [accesses[0], accesses[1], [1, 'W', 'DoublyLinkedList.tail', accesses[0][3]]];
  assert.deepEqual(methods(rmw), ['DoublyLinkedListIterator._isCursorDetached', 'DoublyLinkedList.insertAfter']);
});

test('the function that owns the window: two Node.js tasks whose stacks go through one function of the package under test name it (lru-cache: #backgroundFetch, not set and #delete)', () => {
  const I = 'node_modules/lru-cache/dist/esm/index.js';
  const accesses: Acc[] = [
    [1, 'R', 'Stack.length', [`${I}:1271:LRUCache.fetch`, `${I}:1135:LRUCache.#backgroundFetch`, `${I}:929:LRUCache.set`]],
    [2, 'W', 'Stack.length', [`${I}:1271:LRUCache.fetch`, `${I}:1135:LRUCache.#backgroundFetch`, `${I}:1151:cb`, `${I}:1194:fetchFail`, `${I}:1462:LRUCache.#delete`, `${I}:118:Stack.push`]],
  ];
  assert.deepEqual(methods(accesses), ['LRUCache.#backgroundFetch', 'LRUCache.#backgroundFetch']);
  assert.deepEqual(methods(accesses, { ...on, asyncWindowOwner: false }), ['LRUCache.set', 'LRUCache.#delete']);
  // threads (Java) share no frame of the code that started them: the rule does not apply to them
  const java: Acc[] = [
    [1, 'R', 'a.Cache.size', ['a/Cache.java:10:a.Cache.fetch', 'a/Cache.java:20:a.Cache.set']],
    [2, 'W', 'a.Cache.size', ['a/Cache.java:10:a.Cache.fetch', 'a/Cache.java:30:a.Cache.delete']],
  ];
  assert.deepEqual(methods(java), ['a.Cache.set', 'a.Cache.delete']);
  // no common frame (the tasks were started by the test): the lanes keep their methods
  const apart: Acc[] = [
    [1, 'R', 'Stack.length', [`${I}:929:LRUCache.set`]],
    [2, 'W', 'Stack.length', [`${I}:1462:LRUCache.#delete`, `${I}:118:Stack.push`]],
  ];
  assert.deepEqual(methods(apart), ['LRUCache.set', 'LRUCache.#delete']);
});

test('an order violation between Node.js tasks names the reader first (it awaits or re-checks), of two writes the second; threads name the writer', () => {
  const runs = runsOf(10, 10);
  const cover = runs.map((r) => (r.failing ? [0] : []));
  const first = (accesses: Acc[]) => {
    const m = new CoverageMatrix([pat(0, 'P1', 'order', accesses)], runs, cover);
    const [bug] = explainMatrix(m);
    return bug.suspiciousMethods.map((x) => x.method);
  };
  // generic-pool: clear reads the free list before a pending create's continuation adds to it
  assert.deepEqual(first([
    [1, 'R', 'List.tail', ['lib/Pool.js:509:Pool.clear']],
    [2, 'W', 'List.tail', ['lib/Pool.js:275:then callback of create in Pool._createResource']],
  ]), ['Pool.clear', 'then callback of create in Pool._createResource']);
  // lokijs: an update sets the dirty flag, the save's callback clears it afterwards: the clearing moves
  assert.deepEqual(first([
    [1, 'W', 'Collection.dirty', ['lib/loki.js:5326:update']],
    [2, 'W', 'Collection.dirty', ['lib/loki.js:2522:saveDatabasecallback']],
  ]), ['saveDatabasecallback', 'update']);
  // threads: the write came at the wrong time (assign before the reader starts)
  assert.deepEqual(first([
    [1, 'R', 'a.Branch.account', ['a/Teller.java:20:a.Teller.run']],
    [2, 'W', 'a.Branch.account', ['a/Branch.java:12:a.Branch.open']],
  ]), ['a.Branch.open', 'a.Teller.run']);
});

test('an atomic call racing with itself names the caller below the atomic method\'s class, which decides to make it (resilience4j: HalfOpenState.checkIfThresholdsExceeded, not stateTransition)', () => {
  const S = 'io/x/StateMachine.java';
  const stack = ['T.java:68:t.T.lambda$caller$0', `${S}:161:io.x.StateMachine.onError`, `${S}:695:io.x.StateMachine$HalfOpen.onError`, `${S}:712:io.x.StateMachine$HalfOpen.checkIfThresholdsExceeded`, `${S}:265:io.x.StateMachine.transitionToOpen`, `${S}:241:io.x.StateMachine.stateTransition`];
  const accesses: Acc[] = [
    [1, 'W', 'java.util.concurrent.atomic.AtomicReference', stack],
    [2, 'W', 'java.util.concurrent.atomic.AtomicReference', stack],
  ];
  assert.deepEqual(methods(accesses), ['io.x.StateMachine$HalfOpen.checkIfThresholdsExceeded', 'io.x.StateMachine$HalfOpen.checkIfThresholdsExceeded']);
  assert.deepEqual(methods(accesses, { ...on, outOfAtomicCalls: false }), ['io.x.StateMachine.stateTransition', 'io.x.StateMachine.stateTransition']);
  // a lane that reads the atomic and then writes it composes the check itself: it stays
  const getThenSet: Acc[] = [
    [1, 'R', 'java.util.concurrent.atomic.AtomicReference', stack],
    [2, 'W', 'java.util.concurrent.atomic.AtomicReference', stack],
    [1, 'W', 'java.util.concurrent.atomic.AtomicReference', stack],
  ];
  assert.deepEqual(methods(getThenSet), ['io.x.StateMachine.stateTransition', 'io.x.StateMachine.stateTransition']);
  // a plain field (not a java.util.concurrent object) is a real race inside the method: it stays
  const field: Acc[] = [
    [1, 'W', 'io.x.StateMachine.state', stack],
    [2, 'W', 'io.x.StateMachine.state', stack],
  ];
  assert.deepEqual(methods(field), ['io.x.StateMachine.stateTransition', 'io.x.StateMachine.stateTransition']);
  // the two lanes in different methods (an atomic written by two operations): not this rule (out of the class'
  // own helper: the writer's lane names the class' method its caller called)
  const apart: Acc[] = [
    [1, 'W', 'java.util.concurrent.atomic.AtomicReference', stack],
    [2, 'W', 'java.util.concurrent.atomic.AtomicReference', ['T.java:70:t.T.lambda$caller$1', `${S}:300:io.x.StateMachine.reset`]],
  ];
  assert.deepEqual(methods(apart), ['io.x.StateMachine.transitionToOpen', 'io.x.StateMachine.reset']);
});

test('the write the reader saw: a read that got another write\'s value names that replacing write (lokijs: the save callback\'s clearing, made in saveDatabaseInternal), first', () => {
  const runs = runsOf(10, 10);
  const cover = runs.map((r) => (r.failing ? [0, 1] : []));
  const update = ['lib/loki.js:5326:Collection.update'];
  const clearing = (helperClass: string) => [
    'lib/loki.js:2551:Loki.saveDatabase',
    'lib/loki.js:2501:Loki.saveDatabaseInternal',
    'lib/loki.js:2224:LokiFsAdapter.saveDatabase',
    'lib/loki.js:2227:writeFileCallback in LokiFsAdapter.saveDatabase',
    'lib/loki.js:2522:saveDatabasecallback in Loki.saveDatabaseInternal',
    `lib/loki.js:2643:${helperClass}.autosaveClearFlags`,
  ];
  const bug1 = (values: { w?: unknown; r?: unknown; w2?: unknown }, options: Parameters<typeof explainMatrix>[1] = {}, helperClass = 'Loki') => {
    const read = pat(0, 'P1', 'order', [
      [1, 'W', 'Collection.dirty', update],
      [2, 'R', 'Collection.dirty', ['lib/loki.js:1656:Loki.close', 'lib/loki.js:2628:Loki.autosaveDirty']],
    ]);
    const write = pat(1, 'P2', 'order', [
      [1, 'W', 'Collection.dirty', update],
      [2, 'W', 'Collection.dirty', clearing(helperClass)],
    ]);
    read.accesses[0].value = values.w;
    read.accesses[1].value = values.r;
    write.accesses[0].value = values.w;
    write.accesses[1].value = values.w2;
    const m = new CoverageMatrix([read, write], runs, cover);
    const [bug] = explainMatrix(m, options);
    return bug.suspiciousMethods.map((x) => `${x.thread}:${x.method}`);
  };
  const saw = { w: true, r: false, w2: false };
  assert.deepEqual(bug1(saw), ['2:saveDatabasecallback in Loki.saveDatabaseInternal', '1:Collection.update']);
  // the option off: the reader, as before
  assert.deepEqual(bug1(saw, { overwrittenWrite: false }), ['2:Loki.autosaveDirty', '1:Collection.update']);
  // the read saw the first write's value, or no values were recorded: no replacing write
  assert.deepEqual(bug1({ w: true, r: true, w2: false }), ['2:Loki.autosaveDirty', '1:Collection.update']);
  assert.deepEqual(bug1({}), ['2:Loki.autosaveDirty', '1:Collection.update']);
  // the other write stored another value than the one read: not the write the reader saw
  assert.deepEqual(bug1({ w: true, r: false, w2: 7 }), ['2:Loki.autosaveDirty', '1:Collection.update']);
  // a helper of another class than the callback's maker stays the named method
  assert.deepEqual(bug1(saw, {}, 'Flags'), ['2:Flags.autosaveClearFlags', '1:Collection.update']);
});

test('a timer\'s callback is no accessor\'s caller, and a function that makes one lane\'s access itself, run in another task, owns no window (pg-pool: Pool._remove, not release for both)', () => {
  const named = (accesses: Acc[], tasks: (string | undefined)[], options: Parameters<typeof suspiciousMethods>[3] = on) => {
    const p = pat(0, 'P1', 'order', accesses);
    p.accesses.forEach((a, k) => (a.threadName = tasks[k]));
    const m = new CoverageMatrix([p], runsOf(1, 1), [[0], []]);
    return suspiciousMethods(m, members, undefined, options).map((x) => x.method);
  };
  const accesses: Acc[] = [
    [1, 'W', 'Array', ['lib/pool.js:34:release']],
    [2, 'R', 'Array', ['lib/pool.js:17:release', 'lib/pool.js:28:setTimeout callback in release', 'lib/pool.js:117:Pool._remove']],
  ];
  const tasks = ['Test Pool.constructor #5', 'setTimeout callback in release #8'];
  assert.deepEqual(named(accesses, tasks), ['release', 'Pool._remove']);
  // each rule off: the accessor goes to the timer's callback; the window owner names release for both
  assert.deepEqual(named(accesses, tasks, { ...on, notIntoTaskCallbacks: false }), ['release', 'setTimeout callback in release']);
  assert.deepEqual(named(accesses, tasks, { ...on, ownerMakesNoAccess: false }), ['release', 'release']);
  // the access made in the function's own async task (after an await) is in a window of that call: it owns it;
  // so it does when the trace names no tasks
  assert.deepEqual(named(accesses, ['async release #5', 'setTimeout callback in release #8']), ['release', 'release']);
  assert.deepEqual(named(accesses, [undefined, undefined]), ['release', 'release']);
});

test('the writer takes over what the reader left: a waiter queued by the reader and taken by the writer\'s method names the writer first (metautil Pool: release, not next)', () => {
  const runs = runsOf(10, 10);
  const next = ['lib/pool.js:51:Pool.capture', 'lib/pool.js:16:Pool.next'];
  const push = ['lib/pool.js:51:Pool.capture', 'lib/pool.js:14:Pool.next', 'lib/pool.js:24:Pool.next/<anonymous>'];
  const release = (line: number) => [`lib/pool.js:${line}:Pool.release`];
  // the lead: next reads available (0) before release's available++; the hand-over: next pushes a waiter on
  // the queue, release shifts it off after its write
  const bug1 = (handOver: Acc[] | undefined, options: Parameters<typeof explainMatrix>[1] = {}, handOverRuns = { failing: 10, passing: 0 }) => {
    const rows = [pat(0, 'P1', 'order', [
      [1, 'R', 'Pool.available', next],
      [2, 'W', 'Pool.available', release(61)],
    ])];
    if (handOver) rows.push(pat(1, 'P2', 'order', handOver));
    let f = 0;
    let q = 0;
    const cover = runs.map((r) => {
      const c = r.failing ? [0] : [];
      if (handOver && (r.failing ? f++ < handOverRuns.failing : q++ < handOverRuns.passing)) c.push(1);
      return c;
    });
    const m = new CoverageMatrix(rows, runs, cover);
    const [bug] = explainMatrix(m, options);
    return bug.suspiciousMethods.map((x) => `${x.thread}:${x.method}`);
  };
  const queued: Acc[] = [
    [1, 'W', 'Array', push],
    [2, 'W', 'Array', release(63)],
  ];
  assert.deepEqual(bug1(queued), ['2:Pool.release', '1:Pool.next']);
  // the option off, or no hand-over among the bug's patterns: the reader first (the order rule)
  assert.deepEqual(bug1(queued, { handOff: false }), ['1:Pool.next', '2:Pool.release']);
  assert.deepEqual(bug1(undefined), ['1:Pool.next', '2:Pool.release']);
  // the reader's lane only reads what the writer then changes (generic-pool's clear reading the list the
  // create extends): nothing was left for the writer
  assert.deepEqual(bug1([
    [1, 'R', 'Array', next],
    [2, 'W', 'Array', release(63)],
  ]), ['1:Pool.next', '2:Pool.release']);
  // the writer's lane takes nothing: the other access is outside the writer's method
  assert.deepEqual(bug1([
    [1, 'W', 'Array', push],
    [2, 'W', 'Array', ['lib/pool.js:70:Pool.drain']],
  ]), ['1:Pool.next', '2:Pool.release']);
  // the hand-over pattern in fewer of the failing runs than the lead: not the lead's hand-over
  assert.deepEqual(bug1(queued, {}, { failing: 6, passing: 0 }), ['1:Pool.next', '2:Pool.release']);
  // the same shape between Java threads: the writer is named first already (the order rule for threads)
  const javaBug = explainMatrix(new CoverageMatrix([
    pat(0, 'P1', 'order', [
      [1, 'R', 'a.Pool.available', ['a/Pool.java:16:a.Pool.next']],
      [2, 'W', 'a.Pool.available', ['a/Pool.java:61:a.Pool.release']],
    ]),
  ], runs, runs.map((r) => (r.failing ? [0] : []))))[0];
  assert.deepEqual(javaBug.suspiciousMethods.map((x) => x.method), ['a.Pool.release', 'a.Pool.next']);
});

test('through synthetic accessors: a lane named by javac\'s access$N names the private method it forwards to, with its lines (httpcore-stalepool\'s waiter), also two accessors deep; an access in the accessor itself, or two callees, keep it', () => {
  const P = 'org/x/Pool.java';
  const frames = (spec: string[]) => spec.map((x) => { const [file, line, method] = x.split(':'); return { file, line: Number(line), method }; });
  const waiter = (line: number) => frames(['T.java:71:org.t.T.lambda$t$0', `${P}:253:org.x.Pool$2.get`, `${P}:70:org.x.Pool.access$300`, `${P}:${line}:org.x.Pool.getEntryBlocking`, `${P}:166:org.x.Pool.getPool`]);
  const sm = { thread: 1 as const, method: 'org.x.Pool.access$300', file: P, line: 70, lines: [70], commonStack: [], rule: 3 as const };
  const moved = throughSyntheticAccessor(sm, [waiter(321), waiter(340), frames(['T.java:88:org.t.T.lambda$t$1', `${P}:424:org.x.Pool.release`])]);
  assert.equal(moved.method, 'org.x.Pool.getEntryBlocking');
  assert.deepEqual(moved.lines, [321, 340]);
  assert.deepEqual(moved.commonStack.map((f) => f.method), ['org.t.T.lambda$t$0', 'org.x.Pool$2.get', 'org.x.Pool.access$300', 'org.x.Pool.getEntryBlocking']);
  const deep = frames(['T.java:1:org.t.T.run', 'org/x/A.java:5:org.x.A$B.run', 'org/x/A.java:2:org.x.A.access$000', 'org/x/A.java:3:org.x.A$C.access$100', 'org/x/A.java:30:org.x.A$C.step']);
  assert.equal(throughSyntheticAccessor({ ...sm, method: 'org.x.A.access$000', file: 'org/x/A.java' }, [deep]).method, 'org.x.A$C.step');
  // a field read through the accessor itself: the access is in it
  assert.equal(throughSyntheticAccessor(sm, [waiter(321).slice(0, 3)]).method, 'org.x.Pool.access$300');
  const other = frames(['T.java:71:org.t.T.lambda$t$0', `${P}:70:org.x.Pool.access$300`, `${P}:90:org.x.Pool.other`]);
  assert.equal(throughSyntheticAccessor(sm, [waiter(321), other]).method, 'org.x.Pool.access$300');
  assert.equal(isSyntheticAccessor('a.B$C.access$1200'), true);
  assert.equal(isSyntheticAccessor('a.B.accessor'), false);
});
