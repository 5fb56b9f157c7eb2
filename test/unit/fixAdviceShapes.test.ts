/**
 * Fix advice by shape (server/src/engine/griffin/fixAdvice.ts, issue 27 point 6): each shape from a
 * small synthetic trace set (six failing runs with the interleaving, six passing runs without),
 * analyzed and explained by GRIFFIN as `braid analyze` does, with the exact headline — the plain
 * sentence saying what each thread did, with the recorded values — and the shape's own first fix
 * step; then the headlines of committed recordings (test/fixtures/recorded/).
 *
 * Events use test/helpers/traceBuilder.ts's notation plus `@value=JSON` (the value read or
 * written, as the Java agent records it: numbers, null, strings, "Type@id" for an object); thread
 * names other than T1/T2 are given per test.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs, Bug } from '../../server/src/engine/griffin/griffin';
import { buildTraceText, tempDir } from '../helpers/traceBuilder';

interface Runs {
  /** the events of every failing run */
  fail: string[];
  /** the events of every passing run (of every other one when `passAlt` is given) */
  pass: string[];
  /** the events of the other passing runs */
  passAlt?: string[];
  /** thread id → name (default T<id>) */
  names?: Record<number, string>;
}

/** A trace with values (`@value=JSON`, without spaces) and thread names; traceBuilder writes the rest. */
function traceText(execution: string, outcome: 'pass' | 'fail', events: string[], names: Record<number, string> = {}): string {
  const values = new Map<number, unknown>();
  const plain = events.map((e, k) => {
    const m = / @value=(\S+)/.exec(e);
    if (!m) return e;
    values.set(k + 1, JSON.parse(m[1])); // traceBuilder numbers the events 1, 2, … in order
    return e.replace(m[0], '');
  });
  return buildTraceText({ execution, outcome, events: plain })
    .split('\n')
    .map((line) => {
      if (line.startsWith('{"def":"thread"')) {
        const d = JSON.parse(line) as { id: number; name: string };
        return names[d.id] ? JSON.stringify({ ...d, name: names[d.id] }) : line;
      }
      if (!line.startsWith('[')) return line;
      const ev = JSON.parse(line) as unknown[];
      if (!values.has(ev[0] as number)) return line;
      // [i, t, "R"|"W", var, loc, stack, obj, elem, value]
      while (ev.length < 8) ev.push(ev.length === 5 ? null : ev.length === 6 ? 0 : -1);
      if (ev[7] === null) ev[7] = -1;
      ev[8] = values.get(ev[0] as number);
      return JSON.stringify(ev);
    })
    .join('\n');
}

async function bugsOf(runs: Runs, count = 6): Promise<Bug[]> {
  const dir = tempDir('braid-advice-');
  for (let k = 0; k < count; k++) {
    writeFileSync(path.join(dir, `f${k}.trace.jsonl`), traceText(`f${k}`, 'fail', runs.fail, runs.names));
    writeFileSync(path.join(dir, `p${k}.trace.jsonl`), traceText(`p${k}`, 'pass', k % 2 && runs.passAlt ? runs.passAlt : runs.pass, runs.names));
  }
  const result = await analyzeTraceFiles([dir]);
  return explainBugs(undefined, result).filter((b) => !b.evidence.weak);
}

async function onlyBug(runs: Runs): Promise<Bug> {
  const bugs = await bugsOf(runs);
  assert.equal(bugs.length, 1, bugs.map((b) => `${b.advice.shape}: ${b.advice.headline}`).join(' | '));
  return bugs[0];
}

/** `@file=F @method=M` for every access of one method */
const at = (file: string, method: string) => `@file=${file} @method=${method}`;

test('lost update: both threads read the same value and each wrote its result (R1 W2 W1, numbers)', async () => {
  const C = at('Counter.java', 'app.Counter.hit');
  const b = await onlyBug({
    fail: [`R1 app.Counter.count S11 ${C} @value=0`, `R2 app.Counter.count S11 ${C} @value=0`, `W2 app.Counter.count S12 ${C} @value=1`, `W1 app.Counter.count S12 ${C} @value=1`],
    pass: [`R1 app.Counter.count S11 ${C} @value=0`, `W1 app.Counter.count S12 ${C} @value=1`, `R2 app.Counter.count S11 ${C} @value=1`, `W2 app.Counter.count S12 ${C} @value=2`],
  });
  assert.equal(b.advice.shape, 'lost-update');
  assert.equal(b.advice.headline, 'Both threads read `count` = 0 at Counter.java:11, then each wrote 1 at line 12: one update is lost.');
  assert.match(b.advice.steps[0], /^Make the read-modify-write of Counter\.count one atomic step: an AtomicInteger .* instead of the read at Counter\.java:11 and the write at Counter\.java:12 in Counter\.hit\./);
  assert.match(b.advice.steps.join('\n'), /LongAdder/);
  assert.equal(b.kind, 'atomicity-violation', 'the kind is unchanged');
});

test('one update statement run twice by a thread (count++ in a loop): a lost update whichever pattern leads — W1 W2 W1, W1 R2 W1 — never "between Hit.java:17 and Hit.java:17" (issue 43)', async () => {
  const H = at('HitCounter.java', 'app.HitCounter.hit');
  const c = `app.HitCounter.count S17 ${H}`;
  // thread 1 increments twice, thread 2 once in between: its update is overwritten (one recording led with W1 W2 W1 …)
  const writes = await onlyBug({
    fail: [`R1 ${c} @value=0`, `W1 ${c} @value=1`, `R1 ${c} @value=1`, `R2 ${c} @value=1`, `W2 ${c} @value=2`, `W1 ${c} @value=2`],
    pass: [`R1 ${c} @value=0`, `W1 ${c} @value=1`, `R1 ${c} @value=1`, `W1 ${c} @value=2`, `R2 ${c} @value=2`, `W2 ${c} @value=3`],
  });
  // … another with W1 R2 W1: thread 2 read between thread 1's two updates
  const read = await onlyBug({
    fail: [`R1 ${c} @value=0`, `W1 ${c} @value=1`, `R2 ${c} @value=1`, `R1 ${c} @value=1`, `W1 ${c} @value=2`, `W2 ${c} @value=2`],
    pass: [`R1 ${c} @value=0`, `W1 ${c} @value=1`, `R1 ${c} @value=1`, `W1 ${c} @value=2`, `R2 ${c} @value=2`, `W2 ${c} @value=3`],
  });
  for (const b of [writes, read]) {
    assert.equal(b.advice.shape, 'lost-update', b.advice.headline);
    assert.match(b.advice.headline, /update is lost\.$/);
    assert.match(b.advice.steps[0], /^Make the read-modify-write of HitCounter\.count one atomic step: an AtomicInteger/);
    assert.doesNotMatch(b.advice.steps.join('\n'), /between HitCounter\.java:17 and HitCounter\.java:17/);
  }
});

test('check-then-act: the second write continues from the first (1 → 0 → -1): a stale check, not a lost update', async () => {
  const S = at('Shop.java', 'app.Shop.take');
  const b = await onlyBug({
    fail: [`R1 app.Shop.stock S22 ${S} @value=1`, `R2 app.Shop.stock S22 ${S} @value=1`, `W2 app.Shop.stock S23 ${S} @value=0`, `W1 app.Shop.stock S23 ${S} @value=-1`],
    pass: [`R1 app.Shop.stock S22 ${S} @value=1`, `W1 app.Shop.stock S23 ${S} @value=0`, `R2 app.Shop.stock S22 ${S} @value=0`],
  });
  assert.equal(b.advice.shape, 'check-then-act');
  assert.equal(b.advice.headline, 'Both threads read `stock` = 1 at Shop.java:22, then each wrote it at line 23 (0, then -1): both acted on the same check, which no longer held for the second.');
  assert.match(b.advice.steps[0], /^Make Shop\.take \(Shop\.java:22–23\) atomic: guard it with a lock/);
  assert.match(b.advice.steps[1], /compare-and-set/);
});

test('check-then-act (generic): a check re-read after the other thread changed it (R1 W2 R1)', async () => {
  const B = at('Buf.java', 'app.Buf.offer');
  const b = await onlyBug({
    fail: [`R1 app.Buf.count S19 ${B} @value=0`, `R2 app.Buf.count S19 ${B} @value=0`, `R2 app.Buf.count S20 ${B} @value=0`, `W2 app.Buf.count S21 ${B} @value=1`, `R1 app.Buf.count S20 ${B} @value=1`],
    pass: [`R1 app.Buf.count S19 ${B} @value=0`, `R1 app.Buf.count S20 ${B} @value=0`, `R2 app.Buf.count S19 ${B} @value=0`, `R2 app.Buf.count S20 ${B} @value=0`, `W2 app.Buf.count S21 ${B} @value=1`],
  });
  assert.equal(b.advice.shape, 'check-then-act');
  assert.equal(b.advice.headline, 'One thread read `count` = 0 at Buf.java:19; then the other wrote it (1) at line 21, then the first read it (1) at line 20: the first then saw a different value than the one it had checked.');
});

test('lazy initialisation: both threads saw null and each created the object; without values the same race is a lost update', async () => {
  const H = at('HitCounter.java', 'app.HitCounter.counts');
  const runs = (values: boolean): Runs => {
    const v = (x: string) => (values ? ` @value=${x}` : '');
    return {
      fail: [
        `R1 app.HitCounter.counts S11 ${H}${v('null')}`,
        `R2 app.HitCounter.counts S11 ${H}${v('null')}`,
        `W2 app.HitCounter.counts S12 ${H}${v('"java.util.HashMap@17"')}`,
        `W1 app.HitCounter.counts S12 ${H}${v('"java.util.HashMap@29"')}`,
      ],
      pass: [`R1 app.HitCounter.counts S11 ${H}${v('null')}`, `W1 app.HitCounter.counts S12 ${H}${v('"java.util.HashMap@17"')}`, `R2 app.HitCounter.counts S11 ${H}${v('"java.util.HashMap@17"')}`],
    };
  };
  const b = await onlyBug(runs(true));
  assert.equal(b.advice.shape, 'lazy-initialisation');
  assert.equal(b.advice.headline, 'Both threads read `counts` = null at HitCounter.java:11, then each wrote a new `HashMap` at line 12: one `HashMap`, and whatever was stored in it, is lost.');
  assert.match(b.advice.steps[0], /^Initialise HitCounter\.counts eagerly/);
  const all = b.advice.steps.join('\n');
  for (const fix of [/holder idiom/, /volatile.*check again/, /computeIfAbsent/]) assert.match(all, fix);
  // the shape rests on the values: unrecorded, R1 W2 W1 is told as a lost update
  const bare = await onlyBug(runs(false));
  assert.equal(bare.advice.shape, 'lost-update');
  assert.equal(bare.advice.headline, 'Both threads read `counts` at HitCounter.java:11, then each wrote it at line 12: one update is lost.');
});

test('check-then-act on a map: get then put on a HashMap', async () => {
  const H = `${at('HitCounter.java', 'app.HitCounter.hit')} @obj=7`;
  const get = `java.util.HashMap S17 ${H} @call=java.util.HashMap.get`;
  const put = `java.util.HashMap S18 ${H} @call=java.util.HashMap.put`;
  const b = await onlyBug({ fail: [`R1 ${get}`, `R2 ${get}`, `W2 ${put}`, `W1 ${put}`], pass: [`R1 ${get}`, `W1 ${put}`, `R2 ${get}`, `W2 ${put}`] });
  assert.equal(b.advice.shape, 'check-then-act-map');
  assert.equal(b.advice.headline, 'Both threads called `HashMap.get` at HitCounter.java:17 before either called `put` at line 18: the second `put` replaces the first one\'s entry, so one thread\'s update is lost.');
  assert.match(b.advice.steps[0], /one atomic call on a ConcurrentHashMap, instead of get at HitCounter\.java:17 and put at HitCounter\.java:18 in HitCounter\.hit: computeIfAbsent.*merge\(key, 1, Integer::sum\).*putIfAbsent/);
  assert.match(b.advice.summary, /^Atomicity violation on HashMap: /, 'the library object by its type, not "util.HashMap"');
  assert.match(b.advice.interleaving, /^T1 R HashMap\.get @ HitCounter\.java:17 /);
});

test('compound action on a thread-safe collection: containsKey then put on a ConcurrentHashMap', async () => {
  const R = `${at('Registry.java', 'app.Registry.register')} @obj=3`;
  const has = `java.util.concurrent.ConcurrentHashMap S10 ${R} @call=java.util.concurrent.ConcurrentHashMap.containsKey`;
  const put = `java.util.concurrent.ConcurrentHashMap S11 ${R} @call=java.util.concurrent.ConcurrentHashMap.put`;
  const b = await onlyBug({ fail: [`R1 ${has}`, `R2 ${has}`, `W2 ${put}`, `W1 ${put}`], pass: [`R1 ${has}`, `W1 ${put}`, `R2 ${has}`] });
  assert.equal(b.advice.shape, 'compound-on-thread-safe-collection');
  assert.equal(b.advice.headline, 'Both threads called `ConcurrentHashMap.containsKey` at Registry.java:10 before either called `put` at line 11: each call on the `ConcurrentHashMap` is atomic, but the two together are not.');
  assert.match(b.advice.steps[0], /^Replace the sequence \(containsKey at Registry\.java:10, then put at Registry\.java:11 in Registry\.register\) by one atomic call of the ConcurrentHashMap: computeIfAbsent, putIfAbsent, merge/);
});

test('compound action on an atomic: get then set on an AtomicReference (RxJava\'s subscriber arrays) is advised a compareAndSet loop, never an iteration', async () => {
  const A = 'java.util.concurrent.atomic.AtomicReference';
  const S = `${at('Subscribers.java', 'app.Subscribers.add')} @obj=4`;
  const get = `${A} S18 ${S} @call=${A}.get`;
  const set = `${A} S21 ${S} @call=${A}.set`;
  const b = await onlyBug({ fail: [`R1 ${get}`, `R2 ${get}`, `W2 ${set}`, `W1 ${set}`], pass: [`R1 ${get}`, `W1 ${set}`, `R2 ${get}`, `W2 ${set}`] });
  assert.equal(b.advice.shape, 'compound-on-thread-safe-collection');
  assert.equal(b.advice.headline, 'Both threads called `AtomicReference.get` at Subscribers.java:18 before either called `set` at line 21: each call on the `AtomicReference` is atomic, but the two together are not.');
  assert.match(b.advice.steps[0], /by one atomic call of the AtomicReference: updateAndGet .*compareAndSet\(expected, updated\) retried in a loop/);
  assert.match(b.advice.steps[1], /an AtomicReference has no lock of its own/);
  assert.match(b.advice.steps[2], /that is what compareAndSet is for/);
});

test('an adder or accumulator (LongAdder, LongAccumulator) is an atomic: a get before another thread\'s accumulate is an order, never an iteration; a sum then add is advised an AtomicLong, not a compareAndSet it lacks', async () => {
  const L = 'java.util.concurrent.atomic.LongAccumulator';
  const get = `${L} S80 ${at('TestUtils.java', 'app.Counting.count')} @obj=4 @call=${L}.get`;
  const acc = `${L} S76 ${at('TestUtils.java', 'app.Counting.execute')} @obj=4 @call=${L}.accumulate`;
  const b = await onlyBug({ fail: [`R1 ${get}`, `W2 ${acc}`], pass: [`W2 ${acc}`, `R1 ${get}`], names: { 1: 'main', 2: 'dispatcher' } });
  assert.equal(b.advice.shape, 'order-violation');
  const A = 'java.util.concurrent.atomic.LongAdder';
  const S = `${at('Tally.java', 'app.Tally.bump')} @obj=6`;
  const sum = `${A} S18 ${S} @call=${A}.sum`;
  const add = `${A} S19 ${S} @call=${A}.add`;
  const c = await onlyBug({ fail: [`R1 ${sum}`, `R2 ${sum}`, `W2 ${add}`, `W1 ${add}`], pass: [`R1 ${sum}`, `W1 ${add}`, `R2 ${sum}`, `W2 ${add}`] });
  assert.equal(c.advice.shape, 'compound-on-thread-safe-collection');
  assert.match(c.advice.steps[0], /by one atomic call of the LongAdder: sumThenReset when the sequence reads then clears it; .*in an AtomicLong \(updateAndGet/);
  assert.match(c.advice.steps[2], /a LongAdder has no compareAndSet/);
});

test('iteration while modified: a reader iterates a list while a writer adds to it', async () => {
  const next = `java.util.ArrayList S20 ${at('Report.java', 'app.Report.print')} @obj=5 @call=java.util.Iterator.next`;
  const add = `java.util.ArrayList S31 ${at('Feed.java', 'app.Feed.add')} @obj=5 @call=java.util.ArrayList.add`;
  const b = await onlyBug({ fail: [`R1 ${next}`, `W2 ${add}`, `R1 ${next}`], pass: [`R1 ${next}`, `R1 ${next}`, `W2 ${add}`], names: { 1: 'reader', 2: 'writer' } });
  assert.equal(b.advice.shape, 'iteration-while-modified');
  assert.equal(
    b.advice.headline,
    'Thread `reader` was iterating over the `ArrayList` (`Iterator.next` at Report.java:20) when thread `writer` called `add` at Feed.java:31, and the loop went on (`Iterator.next` at Report.java:20): the `ArrayList` changed in the middle of the iteration.',
  );
  // the fix goes to the side that changes the collection (logback's LOGBACK-397: CopyOnWriteArrayList where
  // createChildByName creates and fills the list, not recursiveReset's loop): named first, advised first
  assert.equal(b.advice.fixLane, b.suspiciousMethods.find((m) => m.method === 'app.Feed.add')?.thread);
  assert.deepEqual(
    b.suspiciousMethods.map((m) => m.method),
    ['app.Feed.add', 'app.Report.print'],
  );
  assert.match(b.advice.steps[0], /^Make the ArrayList safe to iterate while Feed\.add changes it: a copy-on-write collection \(CopyOnWriteArrayList/);
  assert.match(b.advice.steps[1], /^Or iterate over a snapshot: in Report\.print, copy the ArrayList/);
});

test('publication: a worker reads a field the main thread assigns only after starting it; or a constructor still running', async () => {
  const names = { 1: 'main', 2: 'worker' };
  const b = await onlyBug({
    fail: [`R2 app.Worker.config S12 ${at('Worker.java', 'app.Worker.run')} @value=null`, `W1 app.Worker.config S8 ${at('Main.java', 'app.Main.main')} @value="app.Config@3"`],
    pass: [`W1 app.Worker.config S8 ${at('Main.java', 'app.Main.main')} @value="app.Config@3"`, `R2 app.Worker.config S12 ${at('Worker.java', 'app.Worker.run')} @value="app.Config@3"`],
    names,
  });
  assert.equal(b.kind, 'order-violation');
  assert.equal(b.advice.shape, 'publication');
  assert.equal(b.advice.headline, 'Thread `worker` read `config` = null at Worker.java:12 before the main thread assigned it (a `Config`) at Main.java:8: the reading thread could already see the object before the field was set.');
  assert.match(b.advice.steps[0], /^Assign Worker\.config \(Main\.java:8\) before the reading thread is started/);
  // the write in the constructor (the object escaped it): say so, and tell not to let `this` escape
  const ctor = await onlyBug({
    fail: [`R2 app.Worker.ready S15 ${at('Worker.java', 'app.Worker.run')} @value=false`, `W1 app.Worker.ready S6 ${at('Worker.java', 'app.Worker.<init>')} @from=Main.java:8:app.Main.main @value=true`],
    pass: [`W1 app.Worker.ready S6 ${at('Worker.java', 'app.Worker.<init>')} @from=Main.java:8:app.Main.main @value=true`, `R2 app.Worker.ready S15 ${at('Worker.java', 'app.Worker.run')} @value=true`],
    names,
  });
  assert.equal(ctor.advice.shape, 'publication');
  assert.equal(ctor.advice.headline, 'Thread `worker` read `ready` = false at Worker.java:15 before the main thread assigned it (true) at line 6 in the `Worker` constructor: the object was visible to another thread before its constructor had finished.');
  assert.match(ctor.advice.steps[1], /^Do not let this escape the Worker constructor/);
});

test('order violation (generic): the main thread clears a field before the worker reads it', async () => {
  const W = `app.OV.shared S43 ${at('OV.java', 'app.OV.main')}`;
  const R = `app.OV.shared S37 ${at('OV.java', 'app.OV.lambda$main$0')}`;
  const b = await onlyBug({ fail: [`W1 ${W} @value=null`, `R2 ${R} @value=null`], pass: [`R2 ${R} @value="app.OV$Conn@5"`, `W1 ${W} @value=null`], names: { 1: 'main', 2: 'worker' } });
  assert.equal(b.advice.shape, 'order-violation');
  assert.equal(b.advice.headline, 'In the failing runs, the main thread wrote `shared` = null at OV.java:43 before thread `worker` read it (null) at line 37.');
  assert.match(b.advice.steps[0], /^Enforce the intended order/);
});

test('multi-variable: one thread reads size and data around the other thread\'s update of both (R1 W2 W2 R1)', async () => {
  const V = 'app.MyVector';
  const b = await onlyBug({
    fail: [
      `R1 ${V}.size S33 ${at('VectorCopy.java', `${V}.size`)} @value=8`,
      `W2 ${V}.size S46 ${at('VectorCopy.java', `${V}.addAll`)} @value=10`,
      `W2 ${V}.data S47 ${at('VectorCopy.java', `${V}.addAll`)} @value="java.lang.Object[]@5"`,
      `R1 ${V}.data S37 ${at('VectorCopy.java', `${V}.toArray`)} @value="java.lang.Object[]@5"`,
    ],
    // passing runs show each pair of the interleaving, never the whole: only the RWWR explains the failures
    pass: [
      `R1 ${V}.data S37 ${at('VectorCopy.java', `${V}.toArray`)} @value="java.lang.Object[]@4"`,
      `R1 ${V}.size S33 ${at('VectorCopy.java', `${V}.size`)} @value=8`,
      `W2 ${V}.size S46 ${at('VectorCopy.java', `${V}.addAll`)} @value=10`,
      `W2 ${V}.data S47 ${at('VectorCopy.java', `${V}.addAll`)} @value="java.lang.Object[]@5"`,
    ],
    passAlt: [
      `W2 ${V}.size S46 ${at('VectorCopy.java', `${V}.addAll`)} @value=10`,
      `W2 ${V}.data S47 ${at('VectorCopy.java', `${V}.addAll`)} @value="java.lang.Object[]@5"`,
      `R1 ${V}.size S33 ${at('VectorCopy.java', `${V}.size`)} @value=10`,
      `R1 ${V}.data S37 ${at('VectorCopy.java', `${V}.toArray`)} @value="java.lang.Object[]@5"`,
    ],
    names: { 1: 'copier', 2: 'adder' },
  });
  assert.equal(b.advice.shape, 'multi-variable');
  assert.equal(
    b.advice.headline,
    'Thread `copier` read `size` = 8 at VectorCopy.java:33; then thread `adder` wrote `size` = 10 at line 46 and `data` at line 47, then thread `copier` read `data` at line 37: thread `copier` used `size` and `data` from two different states.',
  );
});

test('intermediate state: the other thread reads a value between two writes of one update (W1 R2 W1)', async () => {
  const b = await onlyBug({
    fail: [`W1 app.A.state S10 ${at('A.java', 'app.A.update')} @value=1`, `R2 app.A.state S20 ${at('A.java', 'app.A.read')} @value=1`, `W1 app.A.state S11 ${at('A.java', 'app.A.update')} @value=2`],
    pass: [`W1 app.A.state S10 ${at('A.java', 'app.A.update')} @value=1`, `W1 app.A.state S11 ${at('A.java', 'app.A.update')} @value=2`, `R2 app.A.state S20 ${at('A.java', 'app.A.read')} @value=2`],
  });
  assert.equal(b.advice.shape, 'intermediate-state');
  // unnamed threads (T1, T2) running different methods: by their lane numbers, as the bug's suspicious methods and graph name them
  const m = /^Thread ([12]) wrote `state` = 1 at A\.java:10; then thread ([12]) read it \(1\) at line 20, then thread \1 wrote it \(2\) at line 11: thread \2 saw a value that thread \1 had not finished with\.$/.exec(b.advice.headline);
  assert.ok(m && m[1] !== m[2], b.advice.headline);
  assert.equal(Number(m![1]), b.suspiciousMethods.find((x) => x.method === 'app.A.update')?.thread, 'the writer is named by its lane');
});

test('race inside a library call: two threads inside ArrayList.add at once', async () => {
  const lib = (field: string, line: number) => `java.util.ArrayList.${field} S${line} @file=java/util/ArrayList.java @method=java.util.ArrayList.add @from=UnsafeList.java:21:app.UnsafeList.run @obj=9`;
  const b = await onlyBug({
    fail: [`W1 ${lib('elementData', 455)}`, `W2 ${lib('elementData', 455)}`, `W2 ${lib('size', 456)}`, `W1 ${lib('size', 456)}`],
    pass: [`W1 ${lib('elementData', 455)}`, `W1 ${lib('size', 456)}`, `W2 ${lib('elementData', 455)}`, `W2 ${lib('size', 456)}`],
  });
  assert.equal(b.advice.shape, 'race-inside-library-call');
  assert.equal(b.advice.headline, 'Both threads were inside `ArrayList.add` (called at UnsafeList.java:21) at the same time: their accesses to `elementData` and `size` interleaved, and `ArrayList` is not thread-safe.');
  assert.match(b.advice.steps[0], /^Use a thread-safe replacement for the shared ArrayList/);
});

test('a headline carries no backtick of its own from the trace: names and values are cleaned, spans stay paired', async () => {
  const Q = at('Q`x.java', 'app.Q.m');
  const b = await onlyBug({
    fail: [`R1 app.Q.we\`ird S11 ${Q} @value="a\`b"`, `R2 app.Q.we\`ird S11 ${Q} @value="a\`b"`, `W2 app.Q.we\`ird S12 ${Q} @value="c"`, `W1 app.Q.we\`ird S12 ${Q} @value="d"`],
    pass: [`R1 app.Q.we\`ird S11 ${Q} @value="a\`b"`, `W1 app.Q.we\`ird S12 ${Q} @value="c"`, `R2 app.Q.we\`ird S11 ${Q} @value="c"`],
  });
  assert.equal(b.advice.headline.split('`').length % 2, 1, `paired spans: ${b.advice.headline}`);
  assert.match(b.advice.headline, /^Both threads read `we'ird` = "a'b" at Q'x\.java:11/);
});

// ---------------------------------------------------------------------------
// Committed recordings (test/fixtures/recorded/<subject>, sources in test/fixtures/java/<subject>)

const recorded = path.resolve(__dirname, '../fixtures/recorded');
async function recordedBug(subject: string): Promise<Bug> {
  const result = await analyzeTraceFiles([path.join(recorded, subject)]);
  const bugs = explainBugs(undefined, result).filter((b) => !b.evidence.weak);
  assert.ok(bugs.length >= 1, subject);
  return bugs[0];
}

test('recorded bank: a lost update of balance, read at Bank.java:11 and written at line 13 (// @bug lost-update)', async () => {
  const b = await recordedBug('bank');
  assert.equal(b.advice.shape, 'lost-update');
  assert.match(b.advice.headline, /^Both threads read `balance` = \d+ at Bank\.java:11, then each wrote \d+ at line 13: one update is lost\.$/);
});

test('recorded hashmaprace: get then put on the HashMap at HitCounter.java:17–18 (// @bug map-lost-update)', async () => {
  const b = await recordedBug('hashmaprace');
  assert.equal(b.advice.shape, 'check-then-act-map');
  assert.equal(b.advice.headline, 'Both threads called `HashMap.get` at HitCounter.java:17 before either called `put` at line 18: the second `put` replaces the first one\'s entry, so one thread\'s update is lost.');
});

test('recorded reportcache: the lazily created bucket, get at ReportBuilder.java:61 then put at line 65 (// @bug lazy-bucket)', async () => {
  const b = await recordedBug('reportcache');
  assert.equal(b.advice.shape, 'check-then-act-map');
  assert.equal(b.advice.headline, 'Both threads called `HashMap.get` at ReportBuilder.java:61 before either called `put` at line 65: the second `put` replaces the first one\'s entry, so one thread\'s update is lost.');
  assert.match(b.advice.steps[0], /computeIfAbsent/);
});

test('recorded orderviolation and airline: the threads by name, the values they saw', async () => {
  const ov = await recordedBug('orderviolation');
  assert.equal(ov.advice.shape, 'order-violation');
  assert.equal(ov.advice.headline, 'In the failing runs, the main thread wrote `shared` = null at OrderViolation.java:43 before thread `worker` read it (null) at line 37.');
  const air = await recordedBug('airline');
  assert.equal(air.advice.shape, 'check-then-act');
  assert.match(air.advice.headline, /^Both threads read `lastSeatHolder` = null at Airline\.java:14, then each wrote it at line 15 \("passenger-\d+", then "passenger-\d+"\): both acted on the same check/);
});
