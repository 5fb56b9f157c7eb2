/**
 * A hold before the lock a held access is made under (issue 40, the shape of metrics-rescale; docs/noise.md
 * "Forcing plans", beforeLock), on real JVM runs of test/fixtures/java/forcing/LockedRescale: the race
 * R1 (the reader's read of `start` under the read lock) → W2 (the rescaler's write under the write lock)
 * — and the same with one monitor (`synchronized`). Held at its write, the rescaler holds the lock the
 * reader needs: the hold ends for the lock and the pattern is "not forced". Held before it takes the
 * lock (the place lockedHold.ts reads from the recording: `site`, and `oppositeSite` for the opposite
 * order's reader), the reader reads the old `start` first and every forced run fails; the opposite order
 * (the reader held before its lock until the write) passes. A hold before a lock delays all the thread
 * does under it (on metrics-rescale a decoy was "confirmed" that way), so these runs alone do not tell the
 * order from the delay: "confirms the window" (`sameDelay: false`, confirmRuns.ts). The same-delay control
 * (the rescaler held before its lock as long, until the reader is held before its own, which then waits
 * for the write) passes, so the order is "confirmed".
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { confirmPattern } from '../../server/src/recorder/runs/confirmRuns';
import { forceSection, forcingPlan, sameDelaySection, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, root } from './recorderHarness';

before(() => prepare());

const FILE = 'forcing/LockedRescale.java';
function tagLine(name: string): number {
  const k = readFileSync(path.join(fixturesDir, FILE), 'utf8')
    .split('\n')
    .findIndex((l) => l.trimEnd().endsWith(`// @force ${name}`));
  assert.ok(k >= 0, `LockedRescale.java has // @force ${name}`);
  return k + 1;
}

/** R1 (update's read of start) → W2 (rescale's write), held before the locks taken at `writeLock` (pattern) and `readLock` (opposite). */
function rescalePattern(cls: string, tags: { read: string; write: string; readLock: string; writeLock: string }): ForcedPattern {
  const m = (name: string) => `forcing.LockedRescale$${cls}.${name}`;
  const variable = `forcing.LockedRescale$${cls}.start`;
  return {
    key: `rescale-${cls}`,
    id: 'P1',
    kind: 'RW',
    rank: 1,
    evidence: true,
    accesses: [
      { thread: 1, type: 'R', variable, file: FILE, line: tagLine(tags.read), method: m('update') },
      { thread: 2, type: 'W', variable, file: FILE, line: tagLine(tags.write), method: m('rescale') },
    ],
    lockedHold: {
      reason: 'the hold is inside the lock',
      site: { file: FILE, line: tagLine(tags.writeLock), method: m('rescale') },
      oppositeSite: { file: FILE, line: tagLine(tags.readLock), method: m('update') },
    },
  };
}

const options = (mode: string, seed: number) => ({
  command: ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.LockedRescale', mode],
  cwd: root,
  include: ['forcing'],
  exclude: [],
  runs: 10,
  noise: 0,
  timeoutSeconds: 30,
  jobs: 2,
  seed,
  name: `LockedRescale-${mode}`,
  outRoot: tempDir(),
});

const groups = (c: Awaited<ReturnType<typeof confirmPattern>>) => `${c.verdict}: ${c.reason}`;

test('the plan holds the pattern’s wait and the opposite’s before the lock acquisitions (beforeLock), not at the accesses inside them', () => {
  const p = rescalePattern('RwReservoir', { read: 'read', write: 'write', readLock: 'readlock', writeLock: 'writelock' });
  const own = forceSection(p, 'pattern');
  assert.deepEqual(own.waits[0], { at: 1, for: 0, sameObject: true, beforeLock: p.lockedHold!.site });
  assert.equal(own.waits.slice(1).some((w) => w.beforeLock), false, 'the guard stays at the access');
  assert.deepEqual(forceSection(p, 'opposite').waits, [{ at: 0, for: 1, sameObject: true, beforeLock: p.lockedHold!.oppositeSite }]);
  // without a place, the holds stay at the accesses (and the verdict cannot be refuted: lockedHold.test.ts)
  const { site: _s, oppositeSite: _o, ...reason } = p.lockedHold!;
  assert.equal(forceSection({ ...p, lockedHold: reason }, 'pattern').waits[0].beforeLock, undefined);
});

test('the same-delay control: the opposite order’s plan, and the pattern’s first thread held before its lock until the other thread is held before its own (ready)', () => {
  const p = rescalePattern('RwReservoir', { read: 'read', write: 'write', readLock: 'readlock', writeLock: 'writelock' });
  assert.deepEqual(sameDelaySection(p)!.waits, [
    { at: 1, for: 0, sameObject: true, ready: true, optional: true, beforeLock: p.lockedHold!.site },
    { at: 0, for: 1, sameObject: true, beforeLock: p.lockedHold!.oppositeSite },
  ]);
  const { oppositeSite: _o, ...noOpposite } = p.lockedHold!;
  assert.equal(sameDelaySection({ ...p, lockedHold: noOpposite }), undefined, 'no place before the other thread’s lock: no control');
});

for (const shape of [
  { mode: 'rw', cls: 'RwReservoir', tags: { read: 'read', write: 'write', readLock: 'readlock', writeLock: 'writelock' }, what: 'a write under a ReentrantReadWriteLock’s write lock racing a read under its read lock', sameDelay: true },
  { mode: 'sync', cls: 'SyncReservoir', tags: { read: 'syncread', write: 'syncwrite', readLock: 'synclock', writeLock: 'syncwritelock' }, what: 'the same under one monitor (synchronized blocks)', sameDelay: false },
]) {
  test(`${shape.what}: held before the lock is taken, the order is forced and fails, the opposite passes — ${shape.sameDelay ? 'and the same delay without the order passes: confirmed' : 'without the same-delay control, the window, not a proof of the order'}`, async () => {
    const c = await confirmPattern(rescalePattern(shape.cls, shape.tags), { ...options(shape.mode, 41), sameDelay: shape.sameDelay });
    assert.ok(c.forced.forcedOk >= 8 && c.forced.failed >= 8, `the pattern's order met and failing: ${groups(c)}`);
    assert.ok(c.opposite && c.opposite.forcedOk >= 5, `the opposite order imposed: ${groups(c)}`);
    assert.ok(c.opposite!.failed <= 2, `the opposite order passes: ${groups(c)}`);
    if (shape.sameDelay) {
      // the rescaler held before its lock until the reader is held before its own: the same delay, the reader reads after the write
      assert.ok(c.sameDelay && c.sameDelay.forcedOk >= 6, `the same-delay control imposed: ${groups(c)}`);
      assert.ok(c.sameDelay!.failed <= 2, `the same delay without the order passes: ${groups(c)}`);
      assert.equal(c.verdict, 'confirmed', groups(c));
      assert.match(c.reason, /the same delay without the order \d+\/\d+ .*the order, not the delay, makes the failure/);
    } else {
      // the order matters in these runs, but a hold before a lock delays all the thread does under it: the window at most (confirmRuns.ts)
      assert.equal(c.sameDelay, undefined);
      assert.equal(c.verdict, 'confirms the window', groups(c));
      assert.match(c.reason, /forced by holding a thread before it takes the lock at LockedRescale\.java:\d+, which delays all it does under that lock/);
    }
  });
}

test('a lock helper that another thread calls too (metrics-rescale’s lockForRegularUsage, by update and getSnapshot): only a thread inside the held access’s method is held before it (beforeLock.within), so the opposite order is imposed on the updater, not on the snapshot', async () => {
  const tags = { read: 'helperread', write: 'helperwrite', readLock: 'helperlock', writeLock: 'helperwritelock' };
  const base = rescalePattern('HelperReservoir', tags);
  const m = (name: string) => `forcing.LockedRescale$HelperReservoir.${name}`;
  // what lockedHold.ts reads from a recording (the ACQ's stack: the lock taken in a helper the access's method calls)
  const p: ForcedPattern = {
    ...base,
    lockedHold: {
      ...base.lockedHold!,
      oppositeSite: { file: FILE, line: tagLine(tags.readLock), method: m('lockForRegularUsage'), within: m('update') },
    },
  };
  assert.deepEqual(forceSection(p, 'opposite').waits[0].beforeLock, p.lockedHold!.oppositeSite);
  const c = await confirmPattern(p, options('helper', 43));
  assert.ok(c.forced.forcedOk >= 8 && c.forced.failed >= 8, `the pattern's order met and failing: ${groups(c)}`);
  // without within, the snapshot thread is held before the helper's lock in the updater's role and the updater goes on unheld: the opposite order is not imposed
  assert.ok(c.opposite && c.opposite.forcedOk >= 5, `the opposite order imposed on the updater: ${groups(c)}`);
  assert.ok(c.opposite!.failed <= 2, `the opposite order passes: ${groups(c)}`);
});

test('the agent checks beforeLock as braid record does: a bad one is named and the program runs without forcing', () => {
  const p = rescalePattern('RwReservoir', { read: 'read', write: 'write', readLock: 'readlock', writeLock: 'writelock' });
  const plan = forcingPlan('bad-lock', p, 'pattern');
  (plan.force.waits[0] as unknown as Record<string, unknown>).beforeLock = { file: FILE, line: 0, method: 'm' };
  const dir = tempDir();
  const file = path.join(dir, 'bad-lock.json');
  writeFileSync(file, JSON.stringify(plan));
  const jar = path.join(root, 'dist/braid-agent.jar');
  const r = spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=out=${path.join(dir, 'run.trace.jsonl')},include=forcing,plan=${file}`, '-cp', classesDir, 'forcing.LockedRescale'], { encoding: 'utf8' });
  assert.match(r.stderr, /\[braid-agent\] bad noise plan .*bad-lock\.json: force\.waits\[0\]\.beforeLock\.line: must be a whole number ≥ 1; the program runs without noise or forcing/);
});
