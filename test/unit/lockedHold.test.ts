/**
 * lockedHold.ts (issue 40, metrics-rescale): a pattern whose first hold is inside a lock that the other
 * thread's access needs is "not forced", never "refuted" — read from the recording's lock events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { PatternAccess } from '../../server/src/engine/analysis';
import { lockedHold, withLockedHold } from '../../server/src/engine/confirm/lockedHold';
import { writeTraces } from '../helpers/traceBuilder';
import { validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { nodeRecorderOptions } from '../../server/src/recorder/node/nodeRunner';

const at = (thread: 1 | 2, type: 'R' | 'W', line: number): PatternAccess => ({ thread, type, variable: 'start', file: 'Fixture.java', line, method: `Fixture.m${line}`, stack: [] });
/** the rescale shape: the updater reads `start` under the read lock (8), the rescaler writes it under the write lock (9) */
const pattern = { key: 'rw', id: 'P1', kind: 'RW', rank: 1, accesses: [at(1, 'R', 96), at(2, 'W', 166)] };
const files = (dir: string) => readdirSync(dir).map((f) => path.join(dir, f));

function rescale(writeLock: number, overlap = false): string[] {
  return [
    'ACQ1 8 S20', 'R1 start S96', ...(overlap ? [] : ['REL1 8 S21']),
    `ACQ2 ${writeLock} S189`, 'R2 start S165', 'W2 start S166', 'REL2 9 S190',
    ...(overlap ? ['REL1 8 S21'] : []), 'FAIL1',
  ];
}

test('a hold inside a lock that excludes the lock of the awaited access: found, with the place the lock is taken', async () => {
  const dir = writeTraces([{ execution: 'f1', outcome: 'fail', events: rescale(9) }, { execution: 'p1', outcome: 'pass', events: ['R1 start S96', 'W2 start S166'] }]);
  const h = await lockedHold(pattern, files(dir));
  assert.ok(h, 'found');
  assert.equal(h.heldAt, 'Fixture.java:166');
  assert.equal(h.lockAt, 'Fixture.java:189');
  assert.equal(h.awaitedAt, 'Fixture.java:96');
  assert.match(h.reason, /inside the lock taken at Fixture\.java:189/);
  // where the held thread takes that lock (the plan holds it there), and the reader's lock for the opposite order's wait
  assert.deepEqual(h.site, { file: 'Fixture.java', line: 189, method: 'Fixture.m189' });
  assert.deepEqual(h.oppositeSite, { file: 'Fixture.java', line: 20, method: 'Fixture.m20' });
  const withHold = (await withLockedHold(pattern, files(dir))).lockedHold;
  assert.match(withHold?.reason ?? '', /held before it takes that lock/);
  assert.deepEqual(withHold?.site, h.site);
  assert.deepEqual(withHold?.oppositeSite, h.oppositeSite);
});

test('a lock taken in a helper the held access’s method calls (the recording’s ACQ stacks): the place is narrowed to that method’s callers (within) — metrics-rescale’s lockForRegularUsage, called by update and by getSnapshot', async () => {
  const dir = path.join(__dirname, '../fixtures/real/metrics-rescale');
  const traces = readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(dir, f));
  const F = 'com/codahale/metrics/ExponentiallyDecayingReservoir.java';
  const C = 'com.codahale.metrics.ExponentiallyDecayingReservoir';
  const v = `${C}.startTime`;
  const rank1 = { accesses: [{ thread: 1 as const, type: 'R' as const, variable: v, file: F, line: 96, method: `${C}.update`, stack: [] }, { thread: 2 as const, type: 'W' as const, variable: v, file: F, line: 166, method: `${C}.rescale`, stack: [] }] };
  const h = await lockedHold(rank1, traces, 4);
  assert.ok(h, 'found');
  // the rescaler's write lock is taken in lockForRescale, which only rescale calls; the updater's read lock in lockForRegularUsage
  assert.deepEqual(h.site, { file: F, line: 189, method: `${C}.lockForRescale`, within: `${C}.rescale` });
  assert.deepEqual(h.oppositeSite, { file: F, line: 193, method: `${C}.lockForRegularUsage`, within: `${C}.update` });
  // a lock taken in the access's own method needs no narrowing
  const own = await lockedHold(pattern, files(writeTraces([{ execution: 'f1', outcome: 'fail', events: rescale(9) }])));
  assert.equal(own?.site?.within, undefined);
});

test('the plan format: beforeLock is a lock acquisition {file, line, method}, not with since or fresh (with ready: the same-delay control); the Node recorder refuses it by name', () => {
  const plan = (waits: unknown[]) => ({
    format: 'braid-noise-plan', version: 1, name: 'x', noise: { kind: 'yield' }, points: [],
    force: { order: 'pattern', waitMs: 300, times: 1, accesses: [{ role: 1, type: 'R', variable: 'v', file: 'A.java', line: 1, method: 'm' }, { role: 2, type: 'W', variable: 'v', file: 'A.java', line: 2, method: 'm' }, { role: 1, type: 'R', variable: 'v', file: 'A.java', line: 1, method: 'm' }], waits },
  });
  const lock = { file: 'A.java', line: 5, method: 'A.m' };
  const ok = plan([{ at: 1, for: 0, sameObject: true, beforeLock: lock }]);
  assert.deepEqual(validateNoisePlan(ok, 'x.json').force?.waits[0].beforeLock, lock);
  assert.throws(() => validateNoisePlan(plan([{ at: 2, for: 1, since: 0, sameObject: true, beforeLock: lock }]), 'x.json'), /x\.json: force\.waits\[0\]\.beforeLock: cannot go with since or fresh/);
  const ready = plan([{ at: 1, for: 0, sameObject: true, ready: true, optional: true, beforeLock: lock }, { at: 0, for: 1, sameObject: true, beforeLock: lock }]);
  assert.deepEqual(validateNoisePlan(ready, 'x.json').force?.waits[0].beforeLock, lock, 'ready with beforeLock: held before the lock until a partner is held');
  assert.throws(() => validateNoisePlan(plan([{ at: 1, for: 0, sameObject: true, beforeLock: 'A.java:5' }]), 'x.json'), /force\.waits\[0\]\.beforeLock: must be an object \{"file", "line", "method"\}/);
  assert.throws(() => validateNoisePlan(plan([{ at: 1, for: 0, sameObject: true, beforeLock: { ...lock, line: 0 } }]), 'x.json'), /force\.waits\[0\]\.beforeLock\.line: must be a whole number ≥ 1/);
  assert.throws(() => validateNoisePlan(plan([{ at: 1, for: 0, sameObject: true, beforeLock: { ...lock, method: '' } }]), 'x.json'), /force\.waits\[0\]\.beforeLock\.method: must be a non-empty string/);
  const within = plan([{ at: 1, for: 0, sameObject: true, beforeLock: { ...lock, within: 'p.A.update' } }]);
  assert.deepEqual(validateNoisePlan(within, 'x.json').force?.waits[0].beforeLock, { ...lock, within: 'p.A.update' });
  assert.throws(() => validateNoisePlan(plan([{ at: 1, for: 0, sameObject: true, beforeLock: { ...lock, within: 'update' } }]), 'x.json'), /force\.waits\[0\]\.beforeLock\.within: must be a method name "pkg\.Class\.method"/);
  const options = { noise: 0, include: [], exclude: [], cwd: '/tmp', name: 'x', plan: { plan: validateNoisePlan(ok, 'x.json') } };
  assert.throws(() => nodeRecorderOptions('/hook.mjs', { out: '', execution: 'e', seed: '1' }, options), /force\.waits\[0\]\.beforeLock \(a hold before a lock acquisition\) is for the Java agent only/);
});

test('no locked hold: no lock at the held access, the awaited access made without a lock, two locks held at once, or passing runs only', async () => {
  const none = async (events: string[], outcome: 'fail' | 'pass' = 'fail') => lockedHold(pattern, files(writeTraces([{ execution: 'r', outcome, events }])));
  assert.equal(await none(['R1 start S96', 'W2 start S166', 'FAIL1']), undefined, 'no locks');
  assert.equal(await none(['R1 start S96', 'ACQ2 9 S189', 'W2 start S166', 'REL2 9 S190', 'FAIL1']), undefined, 'the reader takes no lock');
  assert.equal(await none(rescale(9, true)), undefined, 'the two locks were held at the same time: they do not exclude each other');
  assert.equal(await none(rescale(9), 'pass'), undefined, 'no failing run');
  // the same lock on both sides excludes itself
  assert.ok(await none(['ACQ1 9 S20', 'R1 start S96', 'REL1 9 S21', 'ACQ2 9 S189', 'W2 start S166', 'REL2 9 S190', 'FAIL1']));
  assert.equal((await withLockedHold(pattern, [])).lockedHold, undefined);
});
