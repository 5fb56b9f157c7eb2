/**
 * The test driver, wherever it lives (issue 27, point 4; server/src/engine/testDriver.ts): the
 * entry class of the recorded command (trace header `program`) is driver code — its `main`, the
 * lambdas written in it, its nested classes and callbacks, everything in its source file — when
 * the patterns show code under test in other files; a single-file program is code under test
 * throughout. Each scenario is also analyzed without the entry class (program `fixture`, the
 * rule then has nothing to go on) to show what the rule changes, so the tests can fail.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Analyzer, AnalysisOptions, AnalysisResult, analyzeTraceFiles, RankedPattern } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { TestCodeClassifier } from '../../server/src/engine/testCode';
import { DriverCode, entryClassOf, entryScriptOf } from '../../server/src/engine/testDriver';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const STRESS = 'pool/PoolStress.java';
const POOL = 'pool/Pool.java';
/** an access of the driver: `pool.PoolStress.<method>` in PoolStress.java (a caller frame with @from) */
const drv = (method: string, from = '') => `@file=${STRESS} @method=pool.PoolStress.${method}${from ? ` @from=${from}` : ''}`;
/** an access of the library, called from the driver's lambda at PoolStress.java:<line> */
const lib = (method: string, line = 21) => `@file=${POOL} @method=pool.Pool.${method} @from=${STRESS}:${line}:pool.PoolStress.lambda$main$0`;

function runs(pass: string[], fail: string[], program: string, nPass = 8, nFail = 8, failAlt?: string[]): BuiltTrace[] {
  const out: BuiltTrace[] = [];
  for (let k = 0; k < nPass; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: pass, program });
  for (let k = 0; k < nFail; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: k === 0 && failAlt ? failAlt : fail, program });
  return out;
}

const onlyIn = (p: RankedPattern, file: string) => p.accesses.every((a) => a.file === file);
const touches = (p: RankedPattern, file: string) => p.accesses.some((a) => a.file === file);
const firstCause = (r: AnalysisResult) => r.patterns.find((p) => p.group === 'cause');

/**
 * pool.PoolStress drives pool.Pool (a lost update on Pool.free, in 7 of 8 failing runs) and races
 * on its own counters: `done` in a lambda of main, `served` in its nested Worker class, `returned`
 * in an anonymous callback the pool calls — in every failing run and no passing one.
 */
function stressRuns(program: string): BuiltTrace[] {
  const driverRaces = [
    `W1 pool.PoolStress.done S30 ${drv('lambda$main$0')}`,
    `W2 pool.PoolStress.done S30 ${drv('lambda$main$0')}`,
    `W1 pool.PoolStress$Worker.served S40 @file=${STRESS} @method=pool.PoolStress$Worker.run`,
    `W2 pool.PoolStress$Worker.served S40 @file=${STRESS} @method=pool.PoolStress$Worker.run`,
    `W1 pool.PoolStress.returned S50 @file=${STRESS} @method=pool.PoolStress$1.onReturn @from=${POOL}:9:pool.Pool.release`,
    `W2 pool.PoolStress.returned S50 @file=${STRESS} @method=pool.PoolStress$1.onReturn @from=${POOL}:9:pool.Pool.release`,
  ];
  const serial = [`R1 pool.Pool.free S5 ${lib('take')}`, `W1 pool.Pool.free S6 ${lib('put', 22)}`, `R2 pool.Pool.free S5 ${lib('take')}`, `W2 pool.Pool.free S6 ${lib('put', 22)}`];
  const lost = [`R1 pool.Pool.free S5 ${lib('take')}`, `R2 pool.Pool.free S5 ${lib('take')}`, `W1 pool.Pool.free S6 ${lib('put', 22)}`, `W2 pool.Pool.free S6 ${lib('put', 22)}`];
  const pass = [...serial, `W1 pool.PoolStress.done S30 ${drv('lambda$main$0')}`];
  return runs(pass, [...lost, ...driverRaces], program, 8, 8, [...serial, ...driverRaces]);
}

test('a driver main class in the library package racing on its own fields: its patterns are harness, not causes', async () => {
  const dir = writeTraces(stressRuns('pool.PoolStress'));
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(r.drivers, { entries: [{ entry: 'pool.PoolStress', files: [STRESS] }] });
  const driverOnly = r.patterns.filter((p) => onlyIn(p, STRESS));
  // the lambda of main, the nested Worker class and the anonymous callback the pool calls
  for (const v of ['pool.PoolStress.done', 'pool.PoolStress$Worker.served', 'pool.PoolStress.returned'])
    assert.ok(
      driverOnly.some((p) => p.accesses[0].variable === v),
      `a pattern on ${v}`,
    );
  for (const p of driverOnly) {
    assert.equal(p.group, 'harness', `${p.id} on ${p.accesses[0].variable}`);
    assert.ok(p.accesses.every((a) => a.harness));
  }
  assert.ok(!r.patterns.some((p) => p.group === 'cause' && !touches(p, POOL)), 'no cause without the library');
  assert.ok(r.patterns.filter((p) => onlyIn(p, POOL)).every((p) => p.group === 'cause' && p.accesses.every((a) => !a.harness)));
  const first = firstCause(r)!;
  assert.ok(onlyIn(first, POOL) && first.accesses[0].variable === 'pool.Pool.free', 'the lost update of the pool is the first cause');

  // without the entry class, the driver's counter race (every failing run, no passing one) is the first cause
  const blind = await analyzeTraceFiles([writeTraces(stressRuns('fixture'))]);
  assert.equal(blind.drivers, undefined);
  assert.ok(onlyIn(blind.patterns[0], STRESS) && blind.patterns[0].group === 'cause', 'blamed: the driver');
  assert.ok(!blind.patterns.some((p) => p.group === 'harness'));
});

test('a class with main that is also the class under test (one source file): nothing is driver code', async () => {
  // hits.HitCounter: main's lambdas call hit() (the bug), and main's lambda races itself (as unsafelist.UnsafeList)
  const hc = (method: string) => `@file=hits/HitCounter.java @method=hits.HitCounter.${method} @from=hits/HitCounter.java:30:hits.HitCounter.lambda$main$0`;
  const own = '@file=hits/HitCounter.java @method=hits.HitCounter.lambda$main$0';
  const nested = '@file=hits/HitCounter.java @method=hits.HitCounter$Page.touch @from=hits/HitCounter.java:31:hits.HitCounter.lambda$main$0';
  // another top-level class declared in the same file
  const sameFile = '@file=hits/HitCounter.java @method=hits.Tally.add @from=hits/HitCounter.java:34:hits.HitCounter.lambda$main$0';
  const pass = [`R1 hits.HitCounter.hits S17 ${hc('hit')}`, `W1 hits.HitCounter.hits S18 ${hc('hit')}`, `R2 hits.HitCounter.hits S17 ${hc('hit')}`, `W2 hits.HitCounter.hits S18 ${hc('hit')}`];
  const fail = [
    `R1 hits.HitCounter.hits S17 ${hc('hit')}`,
    `R2 hits.HitCounter.hits S17 ${hc('hit')}`,
    `W1 hits.HitCounter.hits S18 ${hc('hit')}`,
    `W2 hits.HitCounter.hits S18 ${hc('hit')}`,
    `W1 hits.HitCounter.seen S33 ${own}`,
    `W2 hits.HitCounter.seen S33 ${own}`,
    `W1 hits.HitCounter$Page.views S40 ${nested}`,
    `W2 hits.HitCounter$Page.views S40 ${nested}`,
    `W1 hits.Tally.total S45 ${sameFile}`,
    `W2 hits.Tally.total S45 ${sameFile}`,
    // and library code (the JDK's ArrayList, recorded with --include java.util.ArrayList)
    `W1 java.util.ArrayList.size S455 @file=java/util/ArrayList.java @method=java.util.ArrayList.add @from=hits/HitCounter.java:35:hits.HitCounter.lambda$main$0`,
    `W2 java.util.ArrayList.size S455 @file=java/util/ArrayList.java @method=java.util.ArrayList.add @from=hits/HitCounter.java:35:hits.HitCounter.lambda$main$0`,
  ];
  const dir = writeTraces(runs(pass, fail, 'hits.HitCounter'));
  const r = await analyzeTraceFiles([dir]);
  assert.equal(r.drivers, undefined, 'the entry class is all the code there is');
  assert.ok(r.patterns.length > 0 && r.patterns.every((p) => p.group === 'cause' && p.accesses.every((a) => !a.harness)));
  for (const m of ['hits.HitCounter.hit', 'hits.HitCounter.lambda$main$0', 'hits.HitCounter$Page.touch', 'hits.Tally.add'])
    assert.ok(
      r.patterns.some((p) => p.accesses.every((a) => a.method === m)),
      `${m} is ranked as code under test`,
    );

  // the same program with a second source file under test: HitCounter is now the driver of it
  const store = (t: number) => `W${t} hits.Store.size S8 @file=hits/Store.java @method=hits.Store.add @from=hits/HitCounter.java:32:hits.HitCounter.lambda$main$0`;
  const other = [store(1), store(2)];
  const r2 = await analyzeTraceFiles([writeTraces(runs([...pass, ...other], [...fail, ...other], 'hits.HitCounter'))]);
  assert.deepEqual(r2.drivers, { entries: [{ entry: 'hits.HitCounter', files: ['hits/HitCounter.java'] }] });
  // (an access inside library code is classified by its own location: ArrayList's stays code under test)
  assert.ok(r2.patterns.filter((p) => onlyIn(p, 'hits/HitCounter.java') && p.accesses.every((a) => !a.library)).every((p) => p.group === 'harness'));
  assert.ok(r2.patterns.some((p) => p.accesses.every((a) => a.method === 'hits.Tally.add') && p.group === 'harness'), 'a class of the driver file');
  // code elsewhere that is itself test code (the recorder's mark, a glob) is not code under test the entry could drive
  const marked = [`W1 hits.Check.calls S3 @file=hits/Check.java @method=hits.Check.ok @harness`, `W2 hits.Check.calls S3 @file=hits/Check.java @method=hits.Check.ok @harness`];
  const helper = await analyzeTraceFiles([writeTraces(runs(pass, [...fail, ...marked], 'hits.HitCounter'))]);
  assert.equal(helper.drivers, undefined);
  assert.ok(helper.patterns.filter((p) => onlyIn(p, 'hits/HitCounter.java')).every((p) => p.group === 'cause'));
  const globbed = await analyzeTraceFiles([writeTraces(runs(pass, [...fail, ...other], 'hits.HitCounter'))], { testCode: ['hits/Store.java'] });
  assert.equal(globbed.drivers, undefined);
  // … unless the user says it is code under test
  const r3 = await analyzeTraceFiles([writeTraces(runs([...pass, ...other], [...fail, ...other], 'hits.HitCounter'))], { testCode: ['!hits.HitCounter.*'] });
  assert.ok(r3.patterns.filter((p) => p.accesses.every((a) => a.method === 'hits.HitCounter.hit')).every((p) => p.group === 'cause'));
  assert.ok(r3.patterns.filter((p) => p.accesses.every((a) => a.method === 'hits.HitCounter$Page.touch')).every((p) => p.group === 'harness'), '`*` stays within the class');
});

test('the user decides first: `!` globs keep code under test, globs name test code, the last matching glob wins', async () => {
  const dir = writeTraces(stressRuns('pool.PoolStress'));
  const group = (r: AnalysisResult, v: string) => [...new Set(r.patterns.filter((p) => p.accesses.every((a) => a.variable === v)).map((p) => p.group))];
  // the driver's lambda said to be code under test (by method; by file for the whole driver)
  const lambda = await analyzeTraceFiles([dir], { testCode: ['!pool.PoolStress.lambda$main$*'] });
  assert.deepEqual(group(lambda, 'pool.PoolStress.done'), ['cause']);
  assert.deepEqual(group(lambda, 'pool.PoolStress$Worker.served'), ['harness']);
  const file = await analyzeTraceFiles([dir], { testCode: ['!**/PoolStress.java'] });
  assert.ok(file.patterns.every((p) => p.group === 'cause'));
  // the other way: the library's method said to be test code; then the last matching glob wins
  const take = await analyzeTraceFiles([dir], { testCode: ['pool.Pool.*'] });
  assert.deepEqual(group(take, 'pool.Pool.free'), ['harness']);
  const last = await analyzeTraceFiles([dir], { testCode: ['pool.**', '!pool.Pool.*'] });
  assert.deepEqual(group(last, 'pool.Pool.free'), ['cause']);
  assert.deepEqual(group(last, 'pool.PoolStress.done'), ['harness']);
  const first = await analyzeTraceFiles([dir], { testCode: ['!pool.Pool.*', 'pool.**'] });
  assert.deepEqual(group(first, 'pool.Pool.free'), ['harness']);

  // a `!` glob beats the recorder's mark too
  const c = new TestCodeClassifier(['!shop.InventoryTest.*']);
  assert.equal(c.isTestCode({ file: 'shop/InventoryTest.java', method: 'shop.InventoryTest.race', harness: true }), false);
  assert.equal(c.isTestCode({ file: 'proj/src/test/java/shop/X.java', method: 'shop.X.run' }), true);
  assert.equal(c.declared({ file: 'shop/Inventory.java', method: 'shop.Inventory.add' }), undefined);
});

test('GRIFFIN names code under test, not the driver, when the driver is the top of the common stack', async () => {
  // the lost update spans two pool methods, take and put, called from two lines of the driver's lambda:
  // the top of the two accesses' common call stack is PoolStress.lambda$main$0
  const dir = writeTraces(stressRuns('pool.PoolStress'));
  const methods = (r: AnalysisResult) => explainBugs(undefined, r).flatMap((b) => b.suspiciousMethods.map((m) => m.method));
  const named = methods(await analyzeTraceFiles([dir]));
  assert.ok(named.length > 0);
  assert.ok(!named.some((m) => m.startsWith('pool.PoolStress')), `named: ${named.join(', ')}`);
  const blind = methods(await analyzeTraceFiles([writeTraces(stressRuns('fixture'))]));
  assert.ok(blind.some((m) => m.startsWith('pool.PoolStress')), `without the entry class the driver is named: ${blind.join(', ')}`);
});

test('the rule follows the runs: a later trace that shows the library makes the entry class a driver; summaries agree', async () => {
  const all = stressRuns('pool.PoolStress');
  const dir = writeTraces(all);
  const files = readdirSync(dir).sort().map((f) => path.join(dir, f));
  const a = new Analyzer();
  // first a run of the driver alone (a passing run: no library access, one thread writes done)
  const driverAlone = writeTraces([{ execution: 'D0', outcome: 'fail', events: [`W1 pool.PoolStress.done S30 ${drv('lambda$main$0')}`, `W2 pool.PoolStress.done S30 ${drv('lambda$main$0')}`], program: 'pool.PoolStress' }]);
  await a.addTrace(path.join(driverAlone, 'D0.trace.jsonl'));
  const alone = a.rank();
  assert.equal(alone.drivers, undefined, 'only the entry class seen: it is the program');
  assert.ok(alone.patterns.every((p) => p.group === 'cause'));
  for (const f of files) await a.addTrace(f);
  const later = a.rank();
  assert.ok(later.drivers);
  assert.ok(later.patterns.filter((p) => onlyIn(p, STRESS)).every((p) => p.group === 'harness'), 'known patterns asked again');
  // the same analysis from a summary (another process) gives the same rule and groups
  const b = new Analyzer();
  b.addSummary(a.toSummary());
  const merged = b.rank();
  assert.deepEqual(merged.drivers, later.drivers);
  assert.deepEqual(
    merged.patterns.map((p) => `${p.key} ${p.group}`),
    later.patterns.map((p) => `${p.key} ${p.group}`),
  );
});

test('code under test seen only on the call stack (the library calling back the driver) is enough', async () => {
  const callback = (t: number) => `W${t} pool.PoolStress.returned S50 @file=${STRESS} @method=pool.PoolStress$1.onReturn @from=${POOL}:9:pool.Pool.release`;
  const r = await analyzeTraceFiles([writeTraces([{ execution: 'F0', outcome: 'fail', events: [callback(1), callback(2)], program: 'pool.PoolStress' }])]);
  assert.deepEqual(r.drivers?.entries.map((e) => e.entry), ['pool.PoolStress']);
  assert.ok(r.patterns.length > 0 && r.patterns.every((p) => p.group === 'harness'));
});

test('entry classes and driver lookups', () => {
  assert.equal(entryClassOf('bank.Bank'), 'bank.Bank');
  assert.equal(entryClassOf('app/bank.Bank'), 'bank.Bank');
  assert.equal(entryClassOf('/src/Bank.java'), 'Bank');
  assert.equal(entryClassOf('target/app.jar'), undefined);
  assert.equal(entryClassOf('mvn -q test'), undefined);
  assert.equal(entryClassOf(undefined), undefined);
  const d = new DriverCode({ entries: [{ entry: 'pool.PoolStress', files: ['pool/PoolStress.java'] }] });
  assert.equal(d.isDriver('pool/PoolStress.java', 'pool.PoolStress.main'), true);
  assert.equal(d.isDriver('pool\\PoolStress.java', 'pool.PoolStress.lambda$main$0'), true);
  assert.equal(d.isDriver('pool/PoolStress.java', 'pool.Helper.count'), true, 'another class of the driver file');
  assert.equal(d.isDriver('', 'pool.PoolStress$Worker.run'), true, 'a nested class by name');
  assert.equal(d.isDriver('pool/PoolStressTest.java', 'pool.PoolStressTest.run'), false);
  assert.equal(d.isDriver('pool/Pool.java', 'pool.Pool.take'), false);
});

test('a Node.js entry script drives the modules it imports: its own races are harness; a one-file script is code under test', async () => {
  // main.mjs pushes replies into its own array (a callback the library calls) and joins them; lib.mjs has the race
  const ev = (t: number, rw: string, v: string, file: string, method: string, from = '') => `${rw}${t} ${v} S${file === 'main.mjs' ? 60 : 7} @file=${file} @method=${method}${from ? ` @from=${from}` : ''}`;
  // (the builder's @from splits callers at '>': method names without <anonymous> here)
  const race = [ev(1, 'W', 'Object.msg', 'lib.mjs', 'Node.input'), ev(2, 'W', 'Object.msg', 'lib.mjs', 'Node.input'), ev(1, 'R', 'Object.msg', 'lib.mjs', 'Node.input/onData')];
  const mine = [ev(1, 'W', 'Array', 'main.mjs', 'send', 'lib.mjs:43:Node.input/onData'), ev(2, 'R', 'Array', 'main.mjs', 'report')];
  const traces = (program: string) => runs([ev(1, 'W', 'Object.msg', 'lib.mjs', 'Node.input'), ev(1, 'R', 'Object.msg', 'lib.mjs', 'Node.input/onData')], [...race, ...mine], program);
  const r = await analyzeTraceFiles([writeTraces(traces('main.mjs'))]);
  assert.deepEqual(r.drivers, { entries: [{ entry: 'main.mjs', files: ['main.mjs'] }] });
  assert.ok(r.patterns.filter((p) => touches(p, 'main.mjs')).every((p) => p.group === 'harness'));
  assert.ok(onlyIn(firstCause(r)!, 'lib.mjs'));
  // the execution's name as program (no script): nothing is driver code, the script's own race is a cause
  const before = await analyzeTraceFiles([writeTraces(traces('main'))]);
  assert.deepEqual(before.drivers?.entries ?? [], []);
  assert.ok(before.patterns.some((p) => onlyIn(p, 'main.mjs') && p.group === 'cause'));
  // one file, no modules: the script is the program under test
  const single = await analyzeTraceFiles([writeTraces(runs([], [ev(1, 'W', 'Array', 'main.mjs', 'send'), ev(2, 'R', 'Array', 'main.mjs', 'report')], 'main.mjs'))]);
  assert.ok(single.patterns.length > 0 && single.patterns.every((p) => p.group === 'cause'));
  assert.deepEqual(single.drivers?.entries ?? [], []);
  assert.equal(entryScriptOf('src/app.ts'), 'src/app.ts');
  assert.equal(entryScriptOf('main.mjs'), 'main.mjs');
  assert.equal(entryScriptOf('/abs/main.mjs'), undefined);
  assert.equal(entryScriptOf('bank.Bank'), undefined);
  const d = new DriverCode({ entries: [{ entry: 'main.mjs', files: ['main.mjs'] }] });
  assert.equal(d.isDriver('main.mjs', '<module>'), true);
  assert.equal(d.isDriver('lib.mjs', 'main.mjs.x'), false, 'a script entry has no class family');
});

// a typed use of AnalysisOptions keeps the option name checked
const _options: Partial<AnalysisOptions> = { testCode: ['!x'] };
void _options;
