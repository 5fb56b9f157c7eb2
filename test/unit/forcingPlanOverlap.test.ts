/**
 * Two calls of one library method, one per thread (issue 40, indriya-picache: `HashMap.computeIfAbsent` on a
 * static map; forcingPlan.ts isLibraryOverlap): the race is inside the library, so the pattern is forced as
 * an overlap — the first call waits until the second thread is at its call (`ready`), the second until the first
 * has begun (`atStart`) — and its counterfactual is the
 * calls serialised (the second waits until the first returned).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { counterfactual, forceSection, forcingPlan, isLibraryOverlap, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { NoisePlanError, validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { decideVerdict } from '../../server/src/engine/confirm/confirmVerdict';

const F = 'tech/units/indriya/function/Calculus.java';
const call = (thread: 1 | 2) => ({ thread, type: 'W' as const, variable: 'java.util.HashMap', file: F, line: 150, method: 'tech.units.indriya.function.Calculus$Pi.ofNumDigits', call: 'java.util.HashMap.computeIfAbsent' });
const p: ForcedPattern = { key: 'W1 W2', id: 'P3', kind: 'WW', rank: 1, accesses: [call(1), call(2)] };

test('two calls of one library method: forced to overlap (the first call\'s start), the counterfactual the calls serialised', () => {
  assert.equal(isLibraryOverlap(p), true);
  assert.equal(counterfactual(p), 'serialised');
  const forced = forceSection(p, 'pattern');
  assert.equal(forced.accesses[0].atStart, true, 'the awaited call counts when it begins');
  assert.equal(forced.accesses[1].atStart, true, 'both calls count when they begin (the agent lets the first go on once the second has begun)');
  // the first call held until the second thread is at its call (ready), the second until the first has begun
  assert.deepEqual(forced.waits.slice(0, 2), [{ at: 0, for: 1, sameObject: true, ready: true, optional: true }, { at: 1, for: 0, sameObject: true }]);
  const serial = forceSection(p, 'opposite');
  assert.ok(serial.accesses.every((a) => !a.atStart), 'serialised: the second call waits until the first returned');
  assert.deepEqual(serial.waits, [{ at: 1, for: 0, sameObject: true }]);
  for (const order of ['pattern', 'opposite'] as const) validateNoisePlan(forcingPlan('overlap', p, order), 'overlap.json');
  // overlap false: as any W1 W2 of one access per thread — in order, the threads' regions serialised as the
  // counterfactual (forcingPlanRegions.test.ts), none with regions false either
  assert.equal(counterfactual(p, { overlap: false }), 'serialised');
  assert.equal(forceSection(p, 'opposite', { overlap: false }).waits[0].afterOwn, 0);
  assert.equal(counterfactual(p, { overlap: false, regions: false }), undefined);
  assert.ok(forceSection(p, 'pattern', { overlap: false }).accesses.every((a) => !a.atStart));
});

test('not an overlap: field writes, reads, calls of several methods on one line, other methods per thread', () => {
  const field = { ...p, accesses: p.accesses.map((a) => ({ ...a, call: undefined, variable: 'x.Y.count' })) };
  assert.equal(isLibraryOverlap(field), false);
  assert.equal(counterfactual(field, { regions: false }), undefined);
  assert.equal(isLibraryOverlap({ ...p, accesses: p.accesses.map((a) => ({ ...a, type: 'R' as const })) }), false);
  assert.equal(isLibraryOverlap({ ...p, accesses: p.accesses.map((a) => ({ ...a, mixedCalls: true })) }), false);
  assert.equal(isLibraryOverlap({ ...p, accesses: [call(1), { ...call(2), call: 'java.util.HashMap.put' }] }), false);
  assert.equal(isLibraryOverlap({ ...p, accesses: [call(1), call(2), call(1)] }), false);
  // thread-safe (resilience4j-halfopen's AtomicReference.getAndUpdate): their overlap is no race; JS calls: no call start
  const other = (c: string) => ({ ...p, accesses: p.accesses.map((a) => ({ ...a, call: c })) });
  assert.equal(isLibraryOverlap(other('java.util.concurrent.atomic.AtomicReference.getAndUpdate')), false);
  assert.equal(isLibraryOverlap(other('java.util.concurrent.ConcurrentHashMap.computeIfAbsent')), false);
  assert.equal(isLibraryOverlap(other('Map.delete')), false);
  assert.equal(isLibraryOverlap(other('java.util.ArrayList.add')), true);
});

test('the plan format: atStart is a boolean, and only on a library call\'s access', () => {
  const plan = forcingPlan('overlap', p, 'pattern') as unknown as { force: { accesses: Record<string, unknown>[] } };
  const bad = (change: (a: Record<string, unknown>) => void, msg: RegExp) => {
    const q = structuredClone(plan);
    change(q.force.accesses[0]);
    assert.throws(() => validateNoisePlan(q, 'bad.json'), (e: unknown) => e instanceof NoisePlanError && msg.test(e.message));
  };
  bad((a) => (a.atStart = 'yes'), /force\.accesses\[0\]\.atStart: must be true or false/);
  bad((a) => delete a.call, /force\.accesses\[0\]\.atStart: needs call/);
});

test('two calls forced to overlap: confirmed when serialising them prevents the failure, even if unforced runs overlap about as often; never otherwise', () => {
  const g = (failed: number, runs = 20) => ({ runs, failed, forcedOk: runs });
  const c = (failed: number, runs = 20) => ({ runs, failed });
  // indriya-picache's shape: forced 14/20, serialised 0/20, unforced 12/20
  const v = decideVerdict(g(14), g(0), c(12), { symmetric: true, overlap: true });
  assert.equal(v.verdict, 'confirmed', v.reason);
  assert.match(v.reason, /serialising them prevents it/);
  // the paper's rule alone (not an overlap, or --strict): forcing must fail more than unforced runs
  assert.notEqual(decideVerdict(g(14), g(0), c(12), { symmetric: true }).verdict, 'confirmed');
  assert.notEqual(decideVerdict(g(14), g(0), c(12), { symmetric: true, overlap: true, strict: true }).verdict, 'confirmed');
  // serialised fails as often as unforced runs: it prevents nothing
  assert.notEqual(decideVerdict(g(14), g(9), c(10), { symmetric: true, overlap: true }).verdict, 'confirmed');
  // forcing the overlap fails clearly less than unforced runs: the forcing is not what the runs had
  assert.notEqual(decideVerdict(g(5), g(0), c(19), { symmetric: true, overlap: true }).verdict, 'confirmed');
  // the serialised group not imposed: not compared
  assert.notEqual(decideVerdict(g(14), { runs: 20, failed: 0, forcedOk: 4 }, c(12), { symmetric: true, overlap: true }).verdict, 'confirmed');
});
