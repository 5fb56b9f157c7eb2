/**
 * A library call that calls back or traverses, awaited by another thread's mutation (issue 40 item 3;
 * forcingPlan.ts callsBack, the agent's force.accesses[].atNext): the race is the mutation *during* the
 * call, and the recorder writes a call when it begins. Forced as any call (the held mutation after the
 * awaited call returned) these patterns cannot fail; counted at the awaiting thread's next recorded
 * access — inside the stream's traversal or the mapping function — they fail in every run.
 *   - forcing.ScrapeWhileAdd: `children.stream().map(Child::value).collect(…)` then another thread's
 *     `add` (micrometer #345): ConcurrentModificationException at the end of the traversal;
 *   - forcing.ClearDuringCompute: `computeIfAbsent(key, State::new)` then another thread's `clear()`
 *     (micrometer #3874): ConcurrentModificationException after the mapping function.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { callsBack, forcingPlan, type ForcedPattern, type ForcingOptions } from '../../server/src/engine/confirm/forcingPlan';
import { confirmPattern } from '../../server/src/recorder/runs/confirmRuns';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, record, root } from './recorderHarness';

before(() => prepare());

const tag = (file: string, name: string) => readFileSync(path.join(fixturesDir, file), 'utf8').split('\n').findIndex((l) => l.includes(`// @force ${name}`)) + 1;

type Access = ForcedPattern['accesses'][number];
const SCRAPE = 'forcing/ScrapeWhileAdd.java';
const CLEAR = 'forcing/ClearDuringCompute.java';
// the collect, exactly at its call (the line also calls stream() and map(): a per-call refinement, callRefinement.ts)
const collect: Access = { thread: 1, type: 'R', variable: 'java.util.ArrayList', file: SCRAPE, line: tag(SCRAPE, 'collect'), method: 'forcing.ScrapeWhileAdd.collect', call: 'java.util.stream.Stream.collect', mixedCalls: true, exactCall: true };
const add: Access = { thread: 2, type: 'W', variable: 'java.util.ArrayList', file: SCRAPE, line: tag(SCRAPE, 'add'), method: 'forcing.ScrapeWhileAdd.add', call: 'java.util.ArrayList.add' };
const scrape: ForcedPattern = { key: 'collect-add', id: 'P1', kind: 'RW', rank: 1, evidence: true, accesses: [collect, add] };
const lookup = (thread: 1 | 2): Access => ({ thread, type: 'W', variable: 'java.util.HashMap', file: CLEAR, line: tag(CLEAR, 'lookup'), method: 'forcing.ClearDuringCompute.state', call: 'java.util.HashMap.computeIfAbsent' });
const clear = (thread: 1 | 2): Access => ({ thread, type: 'W', variable: 'java.util.HashMap', file: CLEAR, line: tag(CLEAR, 'clear'), method: 'forcing.ClearDuringCompute.clear', call: 'java.util.HashMap.clear' });
const lookupThenClear: ForcedPattern = { key: 'lookup-clear', id: 'P3', kind: 'WW', rank: 1, evidence: true, accesses: [lookup(1), clear(2)] };
/** micrometer-obscontext's rank 1: a clear, the lookup, a clear */
const chain: ForcedPattern = { key: 'clear-lookup-clear', id: 'P8', kind: 'WWW', rank: 1, evidence: true, accesses: [clear(1), lookup(2), clear(1)] };

test('plans: an awaited call that calls back counts at its thread’s next access, the held call when it begins; not in a counterfactual, not with callbacks false', () => {
  for (const [file, name] of [[SCRAPE, 'collect'], [SCRAPE, 'add'], [CLEAR, 'lookup'], [CLEAR, 'clear']]) assert.ok(tag(file, name) > 0, `${file} // @force ${name}`);
  assert.ok(callsBack({ call: 'java.util.stream.Stream.collect' }) && callsBack({ call: 'java.util.HashMap.computeIfAbsent' }) && callsBack({ call: 'java.util.ArrayList.forEach' }) && callsBack({ call: 'java.util.ArrayList.stream' }));
  assert.ok(!callsBack({ call: 'java.util.concurrent.ConcurrentHashMap.compute' }) && !callsBack({ call: 'java.util.stream.Stream.collect', variable: 'java.util.concurrent.CopyOnWriteArrayList' }) && !callsBack({ call: 'java.util.Vector.forEach', variable: 'java.util.Vector' }), 'thread-safe collections: a call is atomic to the others');
  assert.ok(!callsBack({ call: 'java.util.HashMap.get' }) && !callsBack({ call: 'java.util.ArrayList.add' }) && !callsBack({ call: 'java.util.stream.Stream.map' }) && !callsBack({}));
  const f = forcingPlan('p', scrape, 'pattern').force;
  assert.equal(f.accesses[0].atNext, true);
  assert.equal(f.accesses[1].atStart, true);
  assert.ok(f.waits.some((w) => w.ready && w.at === 0 && w.for === 1), JSON.stringify(f.waits));
  assert.ok(f.waits.some((w) => !w.ready && w.at === 1 && w.for === 0 && w.fresh), 'the held add waits for a collect begun after it arrived');
  assert.ok(!f.waits.some((w) => w.since === 0), 'the window the collect opens closes inside it: no wait of the scraper for the add');
  // R1 W2 R1 over two forEach calls as recorded (resilience4j-eventconsumers): the second forEach no longer waits
  // for the add (held there, it would let the add go between the calls); the add waits for a forEach begun after it
  const each = { ...collect, call: 'java.util.ArrayList.forEach', mixedCalls: undefined, exactCall: undefined };
  const rwr = forcingPlan('p', { ...scrape, kind: 'RWR', accesses: [each, add, each] }, 'pattern').force;
  assert.deepEqual(rwr.waits.map((w) => [w.at, w.for, !!w.ready, !!w.fresh, w.since ?? null]), [[0, 1, true, false, null], [1, 0, false, true, null]]);
  const opposite = forcingPlan('p', scrape, 'opposite').force;
  assert.ok(!opposite.accesses.some((a) => a.atNext || a.atStart), 'the counterfactual keeps each call after the other returned');
  const off = forcingPlan('p', scrape, 'pattern', { callbacks: false }).force;
  assert.ok(!off.accesses.some((a) => a.atNext || a.atStart), 'callbacks: false, as before');
  // a read call awaited by a read: nothing to race
  const rr = forcingPlan('p', { ...scrape, accesses: [collect, { ...add, type: 'R', call: 'java.util.ArrayList.size' }] }, 'pattern').force;
  assert.ok(!rr.accesses.some((a) => a.atNext));
  // two calls of one method (isLibraryOverlap): forced as an overlap, as before
  const both = forcingPlan('p', { ...lookupThenClear, accesses: [lookup(1), lookup(2)] }, 'pattern').force;
  assert.ok(!both.accesses.some((a) => a.atNext) && both.accesses[0].atStart);
});

async function forced(name: string, main: string, p: ForcedPattern, runs: number, o: ForcingOptions = {}) {
  const file = path.join(tempDir(), `${name}.json`);
  const plan = forcingPlan(name, p, 'pattern', o);
  await writeNoisePlan(file, plan);
  return record(name, `forcing.${main}`, { runs, noise: 0, include: ['forcing'], plan: { file, plan } });
}

const reports = (s: Awaited<ReturnType<typeof forced>>) => JSON.stringify(s.runs.map((r) => [r.outcome, r.forcing?.ok, r.forcing?.waits?.map((w) => `${w.at}<${w.for}:${w.met}/${w.timedOut}`)]));

for (const [name, main, p] of [
  ['stream-collect-then-add', 'ScrapeWhileAdd', scrape],
  ['computeIfAbsent-then-clear', 'ClearDuringCompute', lookupThenClear],
  ['clear-computeIfAbsent-clear', 'ClearDuringCompute', chain],
] as const) {
  test(`${name}: counted inside the call every forced run fails; counted when the call returned (callbacks false) none does`, async () => {
    const runs = 3;
    const during = await forced(`${name}-during`, main, p, runs);
    assert.ok(during.runs.filter((r) => r.forcing?.ok).length >= runs - 1, reports(during));
    assert.ok(during.failed >= runs - 1, `inside the call: ${during.failed}/${runs} failed ${reports(during)}`);
    for (const r of during.runs.filter((x) => x.outcome === 'fail')) assert.equal(r.detail, 'exit code 3');
    const after = await forced(`${name}-after`, main, p, runs, { callbacks: false });
    assert.equal(after.failed, 0, `after the call returned: ${after.failed}/${runs} failed ${reports(after)}`);
  });
}

test('braid confirm: the collect then the add is confirmed (forced inside the traversal; the opposite order, each call after the other, passes)', async () => {
  const c = await confirmPattern(scrape, {
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.ScrapeWhileAdd'],
    cwd: root,
    include: ['forcing'],
    exclude: [],
    runs: 6,
    noise: 0,
    timeoutSeconds: 30,
    jobs: 2,
    seed: 7,
    name: 'ScrapeWhileAdd',
    outRoot: tempDir(),
  });
  const say = `${c.verdict}: ${c.reason}`;
  assert.ok(c.forced.failed >= 5, say);
  assert.ok(c.opposite && c.opposite.failed === 0, say);
  assert.equal(c.verdict, 'confirmed', say);
});
