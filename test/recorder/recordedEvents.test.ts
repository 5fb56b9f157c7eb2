/**
 * What the agent records (docs/recorder.md "What is recorded"), on test/fixtures/java/lifecycle/
 * Locks.java: Lock.tryLock()/lock()/unlock() as ACQ/REL at their lines, no event from the static
 * initializer, and no access of the synthetic this$0 field an inner class uses.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir, prepare, record } from './recorderHarness';

before(() => prepare());

/** 1-based line of the first source line containing `marker`. */
function lineOf(marker: string): number {
  const k = readFileSync(path.join(fixturesDir, 'lifecycle/Locks.java'), 'utf8').split('\n').findIndex((l) => l.includes(marker));
  assert.ok(k >= 0, marker);
  return k + 1;
}

test('locks are ACQ/REL at their lines; static initializers and synthetic fields are not recorded', async () => {
  const s = await record('locks', 'lifecycle.Locks', { runs: 1, include: ['lifecycle'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; method: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = lines.filter((l) => Array.isArray(l)) as unknown[][];
  const at = (kind: string) => events.filter((e) => e[2] === kind).map((e) => locs.get(e[4] as number)!.line).sort((a, b) => a - b);
  assert.deepEqual(at('ACQ'), [lineOf('// tryLock'), lineOf('// lock')].sort((a, b) => a - b));
  assert.deepEqual(at('REL'), [lineOf('// unlock after tryLock'), lineOf('// unlock after lock')].sort((a, b) => a - b));
  const accessLines = [...at('R'), ...at('W')];
  assert.ok(!accessLines.includes(lineOf('// static initializer')), 'no event from the static initializer');
  const names = [...vars.values()];
  assert.ok(!names.some((n) => n.includes('this$0')), `no synthetic field: ${names}`);
  // the inner class's own access is recorded (so the check above is not vacuous)
  assert.ok(at('R').includes(lineOf('value++;')) && at('W').includes(lineOf('value++;')));
  assert.ok(names.some((n) => n.endsWith('value')), String(names));
});

/** 1-based line of the first line of atomicref/Subscribers.java containing `marker`. */
function atomicLine(marker: string): number {
  const k = readFileSync(path.join(fixturesDir, 'atomicref/Subscribers.java'), 'utf8').split('\n').findIndex((l) => l.includes(marker));
  assert.ok(k >= 0, marker);
  return k + 1;
}

test('calls on java.util.concurrent.atomic objects are accesses of the atomic (issue 38: RxJava\'s AtomicReference state was invisible): get → R, set / incrementAndGet → W, at the call line', async () => {
  const s = await record('atomicref', 'atomicref.Subscribers', { runs: 1, include: ['atomicref'], noise: 0 });
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; call?: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = (lines.filter((l) => Array.isArray(l)) as unknown[][]).filter((e) => e[2] === 'R' || e[2] === 'W');
  const seen = events.map((e) => `${e[2]} ${vars.get(e[3] as number)} ${locs.get(e[4] as number)!.line} ${locs.get(e[4] as number)!.call ?? ''}`);
  const ref = 'java.util.concurrent.atomic.AtomicReference';
  const int = 'java.util.concurrent.atomic.AtomicInteger';
  for (const want of [
    `R ${ref} ${atomicLine('// get')} ${ref}.get`,
    `W ${ref} ${atomicLine('// set')} ${ref}.set`,
    `W ${int} ${atomicLine('// count')} ${int}.incrementAndGet`,
    `R ${ref} ${atomicLine('// final read')} ${ref}.get`,
  ])
    assert.ok(seen.includes(want), `${want} in:\n${seen.join('\n')}`);
  // two threads each get and set the one AtomicReference: the accesses of both threads are there
  const threads = new Set(events.filter((e) => vars.get(e[3] as number) === ref && locs.get(e[4] as number)!.line === atomicLine('// set')).map((e) => e[1]));
  assert.equal(threads.size, 2, 'both adding threads recorded');
});

test('calls on the adders and accumulators of java.util.concurrent.atomic are accesses of the adder (issue 38: parallel-collectors\' CountingExecutor counts in a LongAdder): increment/add/accumulate/decrement/sumThenReset/reset → W, sum/longValue/get → R, at the call line', async () => {
  const src = readFileSync(path.join(fixturesDir, 'atomicref/Tallies.java'), 'utf8').split('\n');
  const lineAt = (marker: string) => {
    const k = src.findIndex((l) => l.includes(marker));
    assert.ok(k >= 0, marker);
    return k + 1;
  };
  const s = await record('tallies', 'atomicref.Tallies', { runs: 1, include: ['atomicref'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; call?: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = (lines.filter((l) => Array.isArray(l)) as unknown[][]).filter((e) => e[2] === 'R' || e[2] === 'W');
  const seen = events.map((e) => `${e[2]} ${vars.get(e[3] as number)} ${locs.get(e[4] as number)!.line} ${locs.get(e[4] as number)!.call ?? ''}`);
  const A = 'java.util.concurrent.atomic.';
  for (const want of [
    `W ${A}LongAdder ${lineAt('// increment')} ${A}LongAdder.increment`,
    `W ${A}LongAdder ${lineAt('// add')} ${A}LongAdder.add`,
    `W ${A}LongAccumulator ${lineAt('// accumulate')} ${A}LongAccumulator.accumulate`,
    `W ${A}DoubleAdder ${lineAt('// double add')} ${A}DoubleAdder.add`,
    `W ${A}DoubleAccumulator ${lineAt('// double accumulate')} ${A}DoubleAccumulator.accumulate`,
    `R ${A}LongAdder ${lineAt('// longValue')} ${A}LongAdder.longValue`,
    `R ${A}LongAdder ${lineAt('// sum')} ${A}LongAdder.sum`,
    `R ${A}LongAccumulator ${lineAt('// get')} ${A}LongAccumulator.get`,
    `R ${A}DoubleAdder ${lineAt('// double sum')} ${A}DoubleAdder.sum`,
    `R ${A}DoubleAccumulator ${lineAt('// double get')} ${A}DoubleAccumulator.get`,
    `W ${A}LongAdder ${lineAt('// decrement')} ${A}LongAdder.decrement`,
    `W ${A}LongAdder ${lineAt('// sumThenReset')} ${A}LongAdder.sumThenReset`,
    `W ${A}LongAccumulator ${lineAt('// reset')} ${A}LongAccumulator.reset`,
  ])
    assert.ok(seen.includes(want), `${want} in:\n${seen.join('\n')}`);
  // the adder is the variable: both workers' increments and main's read are of one object
  const adder = events.filter((e) => vars.get(e[3] as number) === `${A}LongAdder`);
  assert.equal(new Set(adder.filter((e) => locs.get(e[4] as number)!.line === lineAt('// increment')).map((e) => e[1])).size, 2, 'both workers\' increments recorded');
  assert.equal(new Set(adder.map((e) => e[6])).size, 1, `one LongAdder: ${[...new Set(adder.map((e) => e[6]))].join(', ')}`);
});

test('a stream of a recorded collection stands for it: stream() and the terminal operation (sum) are reads of the list at their lines, the adder\'s add a write (issue 38: micrometer #345\'s children.stream() was not recorded)', async () => {
  const src = readFileSync(path.join(fixturesDir, 'streamread/Totals.java'), 'utf8').split('\n');
  const lineAt = (marker: string) => src.findIndex((l) => l.includes(marker)) + 1;
  const s = await record('streamread', 'streamread.Totals', { runs: 1, include: ['streamread'], noise: 0 });
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; call?: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = (lines.filter((l) => Array.isArray(l)) as unknown[][]).filter((e) => e[2] === 'R' || e[2] === 'W');
  const seen = events.map((e) => `${e[2]} ${vars.get(e[3] as number)} ${locs.get(e[4] as number)!.line} ${locs.get(e[4] as number)!.call ?? ''}`);
  for (const want of [
    `R java.util.ArrayList ${lineAt('// stream')} java.util.ArrayList.stream`,
    `R java.util.ArrayList ${lineAt('// terminal')} java.util.stream.IntStream.sum`,
    `W java.util.ArrayList ${lineAt('// add')} java.util.ArrayList.add`,
  ])
    assert.ok(seen.includes(want), `${want} in:\n${seen.join('\n')}`);
  // every stream call is of the one list: one object id for the stream's reads and the add
  const objs = new Set(events.filter((e) => vars.get(e[3] as number) === 'java.util.ArrayList').map((e) => e[6]));
  assert.equal(objs.size, 1, `one list: ${[...objs].join(', ')}`);
});

test('a JDK collection used through the library\'s own subclass or interface, and its views\' iterators, is one collection (issue 38: expiringmap 0.5.10\'s EntryMap.put and EntryLinkedHashMap.entrySet().iterator() were not recorded): put/remove → W, entrySet/hasNext/next → R of the one LinkedHashMap, the library\'s own first() no call', async () => {
  const src = readFileSync(path.join(fixturesDir, 'subtypes/EntryStore.java'), 'utf8').split('\n');
  const lineAt = (marker: string) => {
    const k = src.findIndex((l) => l.includes(marker));
    assert.ok(k >= 0, marker);
    return k + 1;
  };
  const s = await record('subtypes', 'subtypes.EntryStore', { runs: 1, include: ['subtypes'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; call?: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = (lines.filter((l) => Array.isArray(l)) as unknown[][]).filter((e) => e[2] === 'R' || e[2] === 'W');
  const seen = events.map((e) => `${e[2]} ${vars.get(e[3] as number)} ${locs.get(e[4] as number)!.line} ${locs.get(e[4] as number)!.call ?? ''}`);
  const M = 'java.util.LinkedHashMap';
  for (const want of [
    `W ${M} ${lineAt('// put')} ${M}.put`,
    `W ${M} ${lineAt('// remove')} ${M}.remove`,
    `R ${M} ${lineAt('// entrySet')} ${M}.entrySet`,
    `R ${M} ${lineAt('// entrySet')} java.util.Set.iterator`,
    `R ${M} ${lineAt('// hasNext')} java.util.Iterator.hasNext`,
    `R ${M} ${lineAt('// next')} java.util.Iterator.next`,
  ])
    assert.ok(seen.includes(want), `${want} in:\n${seen.join('\n')}`);
  assert.ok(!seen.some((l) => l.endsWith('.first')), `the library's own first() is no collection call:\n${seen.join('\n')}`);
  // the one map: the writer's puts and the reader's iteration are of one object
  const objs = new Set(events.filter((e) => vars.get(e[3] as number) === M).map((e) => e[6]));
  assert.equal(objs.size, 1, `one map: ${[...objs].join(', ')}`);
});

test('VarHandle operations on a field are accesses of that field (issue 38: stormpot\'s slot state changed by compareAndSet/setOpaque was never a write): compareAndSet/setOpaque/getAndAdd → W, getVolatile → R, the same variable and object as the plain read; a static field\'s handle too', async () => {
  const src = readFileSync(path.join(fixturesDir, 'varhandles/Slot.java'), 'utf8').split('\n');
  const lineAt = (marker: string) => {
    const k = src.findIndex((l) => l.includes(marker));
    assert.ok(k >= 0, marker);
    return k + 1;
  };
  const s = await record('varhandles', 'varhandles.Slot', { runs: 1, include: ['varhandles'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = (lines.filter((l) => Array.isArray(l)) as unknown[][]).filter((e) => e[2] === 'R' || e[2] === 'W');
  const seen = events.map((e) => `${e[2]} ${vars.get(e[3] as number)} ${locs.get(e[4] as number)!.line}`);
  for (const want of [
    `R varhandles.Slot.state ${lineAt('// plain read')}`,
    `W varhandles.Slot.state ${lineAt('// compareAndSet')}`,
    `W varhandles.Slot.state ${lineAt('// setOpaque')}`,
    `R varhandles.Slot.state ${lineAt('// getVolatile')}`,
    `W varhandles.Slot.claims ${lineAt('// getAndAdd')}`,
    `R varhandles.Slot.claims ${lineAt('// static read')}`,
  ])
    assert.ok(seen.includes(want), `${want} in:\n${seen.join('\n')}`);
  // the handle's writes and the plain read are of one object, by two threads
  const state = events.filter((e) => vars.get(e[3] as number) === 'varhandles.Slot.state');
  assert.equal(new Set(state.map((e) => e[6])).size, 1, `one slot: ${[...new Set(state.map((e) => e[6]))].join(', ')}`);
  assert.equal(new Set(state.map((e) => e[1])).size, 2, 'the claiming thread and main');
});
