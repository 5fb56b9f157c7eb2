/**
 * Where GRIFFIN's suspicious method per thread lands when the access runs in a callback or in a
 * dependency of the package under test (issue 38 item 5; docs/griffin.md "Suspicious methods"):
 * outOfCallbacks.ts and outOfDependencies.ts, on synthetic patterns, each rule also with its option off.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { CoverageMatrix } from '../../server/src/engine/griffin/coverageMatrix';
import { suspiciousMethods } from '../../server/src/engine/griffin/suspiciousMethods';
import { lambdaOf } from '../../server/src/engine/griffin/outOfCallbacks';
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
  assert.deepEqual(methods(accesses, { ...on, outOfDependencies: false }), ['coalesceAsync', 'coalesceAsync/<anonymous>']);
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
  assert.deepEqual(methods(direct), ['coalesceAsync', 'coalesceAsync/<anonymous>']);
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
