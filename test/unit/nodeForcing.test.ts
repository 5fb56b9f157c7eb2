/**
 * The Node.js recorder's forcing (server/src/recorder/node/forcing.ts, docs/recorder-node.md
 * "Forcing"): the waits of a forcing plan at a task's suspension points — held until another task's
 * access, skipped when a held task waits for this one's access, timed out, and reported in the
 * agent's `{"forcing":…}` line. Tasks and accesses are driven by hand (no process).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { ForcedTask, NodeForceSpec, NodeForcing, sameFunction } from '../../server/src/recorder/node/forcing';
import { forceLearnFile } from '../../server/src/recorder/node/nodeRunner';

const at = { file: 'src/accounts.ts', method: 'Accounts.withdraw' };
/** R1 W2 W1 of a lost update (the plan braid confirm writes, guard included) */
const lostUpdate = (waitMs = 200): NodeForceSpec => ({
  order: 'pattern',
  waitMs,
  times: 1,
  accesses: [
    { role: 1, type: 'R', variable: 'Map', ...at, line: 24, call: 'Map.get' },
    { role: 2, type: 'W', variable: 'Map', ...at, line: 27, call: 'Map.set' },
    { role: 1, type: 'W', variable: 'Map', ...at, line: 27, call: 'Map.set' },
    { role: 1, type: 'RW', variable: 'Map', ...at, line: 24, anywhere: true },
  ],
  waits: [
    { at: 1, for: 0, sameObject: true },
    { at: 3, for: 1, since: 0, sameObject: true },
    { at: 2, for: 1, since: 0, sameObject: true },
  ],
});
const task = (): ForcedTask => ({ forceLast: null, forceObj: null, forceSite: -1, forceAfter: 0, forcePending: -1 });
const get = { ...at, line: 24, call: 'Map.get' };
const set = { ...at, line: 27, call: 'Map.set' };

test('matching: an access matches the plan accesses of its variable, type, file, line, method and call; anywhere matches the variable', () => {
  const f = new NodeForcing(lostUpdate());
  assert.equal(f.computeMask(1, false, 'Map', get), 0b1001);
  assert.equal(f.computeMask(2, true, 'Map', set), 0b1110);
  assert.equal(f.computeMask(3, true, 'Map', { ...set, call: 'Map.delete' }), 0b1000, 'another call at the line: only the guard');
  assert.equal(f.computeMask(4, false, 'Set', get), 0);
  assert.equal(f.maskOf(2), 0b1110, 'cached');
  assert.equal(f.upcomingAt(7, () => ({ ...at, line: 26 })), 0b0110, 'after the await at line 26: the writes');
  assert.equal(f.upcomingAt(8, () => ({ ...at, line: 23 })), 0b0111, 'at the function start: all three');
  assert.equal(f.upcomingAt(9, () => ({ file: 'src/other.ts', method: 'x', line: 1 })), 0);
  // a recording made in another folder: the files are path endings of each other
  assert.equal(f.computeMask(5, false, 'Map', { ...get, file: 'app/src/accounts.ts' }), 0b1001);
  assert.equal(f.computeMask(6, false, 'Map', { ...get, file: 'xsrc/accounts.ts' }), 0b1000, 'not a path ending: only the guard');
});

test("matching across recorder versions: a plan from an older recording names a nested function or an object literal's method without its maker", () => {
  assert.equal(sameFunction('release', 'release in fastqueue'), true);
  assert.equal(sameFunction('[Symbol.asyncIterator] in pMapIterable', '[Symbol.asyncIterator]'), true);
  assert.equal(sameFunction('trySpawn in [Symbol.asyncIterator]', 'trySpawn in [Symbol.asyncIterator] in pMapIterable'), true);
  assert.equal(sameFunction('get in makeA', 'get in makeB'), false, 'two makers today: two functions');
  assert.equal(sameFunction('release', 'releaseAll'), false);
  assert.equal(sameFunction('release', 'Pool.release'), false);
  const old = lostUpdate();
  old.accesses = old.accesses.map((a) => ({ ...a, method: 'withdraw' }));
  const f = new NodeForcing(old);
  assert.equal(f.computeMask(1, false, 'Map', { ...get, method: 'withdraw in makeAccounts' }), 0b1001, "today's name of the older recording's function");
  assert.equal(f.upcomingAt(7, () => ({ ...at, method: 'withdraw in makeAccounts', line: 26 })), 0b0110);
  assert.equal(f.computeMask(2, false, 'Map', { ...get, method: 'deposit in makeAccounts' }), 0b1000, 'another function: only the guard');
});

test('a lost update across an await is forced: the task in its window is held until the other task writes, the other is not held', async () => {
  const f = new NodeForcing(lostUpdate(5000));
  const a = task();
  const b = task();
  const obj = 7;
  // both read, then reach the await before their write
  f.performed(a, 0b1001, obj);
  f.performed(b, 0b1001, obj);
  const heldA = f.suspend(a, 0b0110);
  assert.ok(heldA, 'A is held in its window (no write by another task since its read)');
  let released = false;
  void heldA.then(() => (released = true));
  assert.equal(f.suspend(b, 0b0110), null, 'B is not held: A waits for the write B makes next');
  f.performed(b, 0b1110, obj);
  await heldA;
  assert.ok(released);
  // A goes on: its wait at the write is met (B wrote after A's read)
  assert.equal(f.suspend(a, 0b0110), null);
  f.performed(a, 0b1110, obj);
  const report = JSON.parse(f.reportLine()).forcing;
  assert.equal(report.ok, true, JSON.stringify(report));
  assert.equal(report.order, 'pattern');
  assert.ok(f.stopped, 'the last wait met times (1): forcing stops');
});

test('a hold that is never met times out, counts, and the report says why; after maxTimeouts the wait is disabled', async () => {
  const spec = { ...lostUpdate(20), maxTimeouts: 2 };
  const f = new NodeForcing(spec);
  const a = task();
  f.performed(a, 0b1001, 1);
  for (let k = 0; k < 2; k++) {
    const h = f.suspend(a, 0b0110);
    assert.ok(h);
    await h;
  }
  assert.equal(f.suspend(a, 0b0110), null, 'disabled after 2 unmet holds');
  const report = JSON.parse(f.reportLine()).forcing;
  assert.equal(report.ok, false);
  assert.equal(report.waits[1].timedOut, 2);
  assert.match(report.reason, /wait 0: timed out 2 times \(20 ms each\) at accounts\.ts:27 \(W Map\.set\) waiting for another task's accounts\.ts:24 \(R Map\.get\) on the same object; then disabled/);
  assert.match(report.reason, /wait 1: timed out 2 times \(20 ms each\) at any access \(R\/W Map\) waiting for another task's accounts\.ts:27 \(W Map\.set\) on the same object, which no task performed; then disabled \(maxTimeouts 2\)/);
});

test('an access performed only in synchronous code is reported as such, not as never reached', () => {
  const f = new NodeForcing(lostUpdate());
  const a = task();
  f.performed(a, 0b1110, 1);
  const report = JSON.parse(f.reportLine()).forcing;
  assert.match(report.reason, /wait 0: accounts\.ts:27 \(W Map\.set\) was performed once but never after an await, at the start of an async function or at the start of a callback/);
});

test('the opposite order: the first task is held at its start until the other task writes; the second plays the other role', async () => {
  const spec: NodeForceSpec = { ...lostUpdate(5000), order: 'opposite', times: 1_000_000_000, waits: [{ at: 0, for: 1, sameObject: true }] };
  const f = new NodeForcing(spec);
  const a = task();
  const b = task();
  const held = f.suspend(a, 0b0111);
  assert.ok(held, 'A held before its read');
  assert.equal(f.suspend(b, 0b0111), null, 'B skipped: A is held in that role');
  f.performed(b, 0b1001, 3);
  f.performed(b, 0b1110, 3);
  await held;
  const report = JSON.parse(f.reportLine()).forcing;
  assert.equal(report.waits[0].met, 1);
  assert.equal(report.waits[0].skipped, 1);
});

/** R1 → W2 of two requests (metautil's Semaphore: enter() reads the count, leave() writes it), the W held until another request read */
const enterLeave = (waitMs = 5000): NodeForceSpec => ({
  order: 'pattern',
  waitMs,
  times: 1,
  accesses: [
    { role: 1, type: 'R', variable: 'Gate.free', file: 'lib/gate.mjs', line: 14, method: 'Gate.enter' },
    { role: 2, type: 'W', variable: 'Gate.free', file: 'lib/gate.mjs', line: 24, method: 'Gate.leave' },
  ],
  waits: [{ at: 1, for: 0, sameObject: false }],
});

test("happens-before (session 15): a request's own earlier read, ordered before its hold by the recorder's tokens, is not another task's; BRAID_NODE_FORCE_HB=0 counts it", async () => {
  for (const hb of [true, false]) {
    const f = new NodeForcing(enterLeave(), { hb });
    // request A: enter() is a task of its own (`enterA`), the driver's continuation that calls leave() another (`contA`)
    const enterA = task();
    const middle = task();
    const contA = task();
    f.performed(enterA, 0b01, 1);
    // enter's resolution (SND 5) reaches the continuation through a task that did nothing else (SND 6)
    f.sent(enterA, 5);
    f.received(middle, 5);
    f.sent(middle, 6);
    f.received(contA, 6);
    const held = f.suspend(contA, 0b10);
    if (!hb) {
      assert.equal(held, null, 'without hb: the own read meets the wait at once');
      assert.equal(JSON.parse(f.reportLine()).forcing.waits[0].met, 1);
      continue;
    }
    assert.ok(held, "with hb: A's leave() is held, its own read happens before it");
    let released = false;
    void held.then(() => (released = true));
    // request B's enter() reads: another task's, not ordered before A's point
    const enterB = task();
    f.performed(enterB, 0b01, 1);
    await held;
    assert.ok(released);
    const w = JSON.parse(f.reportLine()).forcing.waits[0];
    assert.equal(w.met, 1);
    assert.equal(w.ordered, 1, 'the report counts the own read passed over');
  }
});

test('happens-before: a token sent before the read, or by a task that never learned of it, orders nothing', () => {
  const f = new NodeForcing(enterLeave());
  const a = task();
  const other = task();
  const c = task();
  // a token `a` sent before its read: it carries nothing forcing asks about
  f.performed(other, 0b10, 2);
  f.sent(a, 7);
  f.received(c, 7);
  f.performed(a, 0b01, 1);
  // a token of a task that knew only of `other`'s write (before the read): the read is not ordered by it
  f.sent(other, 8);
  f.received(c, 8);
  assert.equal(f.ordered(a, 2, c), false);
  assert.equal(f.suspend(c, 0b10), null, "the read is another task's: met at once");
  assert.equal(JSON.parse(f.reportLine()).forcing.waits[0].met, 1);
});

/** R1 → W2 where W2 is in synchronous code (a helper two frames below an await): no suspension point of its function precedes it */
const syncWrite = (): NodeForceSpec => ({
  order: 'pattern',
  waitMs: 5000,
  times: 1,
  accesses: [
    { role: 1, type: 'R', variable: 'Cache.entries', file: 'src/reader.ts', line: 10, method: 'read' },
    { role: 2, type: 'W', variable: 'Cache.entries', file: 'src/cache.ts', line: 40, method: 'Cache.clear' },
  ],
  waits: [{ at: 1, for: 0, sameObject: false }],
});
const awaitInRefresh = () => ({ file: 'src/refresher.ts', line: 12, method: 'refresh' });
const awaitElsewhere = () => ({ file: 'src/refresher.ts', line: 30, method: 'poll' });

test('an access in synchronous code is held at the last suspension point before it that earlier runs learned (issue 40), and met only once the task performs it', async () => {
  // the first run: nothing is known, the write is not held (its function has no await before it)
  const first = new NodeForcing(syncWrite());
  const w = task();
  assert.equal(first.suspend(w, 0, 3, awaitInRefresh), null);
  first.performed(w, 0b10, 1);
  assert.match(first.reportLine(), /never after an await/);
  const learned = first.boundaryLines((site) => (site === 3 ? awaitInRefresh() : awaitElsewhere()));
  assert.match(learned, /"passes":1/);
  // the next run: the writer is held at that await until the reader has read
  const next = new NodeForcing(syncWrite());
  next.loadBoundaries(learned);
  const r = task();
  const w2 = task();
  const held = next.suspend(w2, 0, 8, awaitInRefresh);
  assert.ok(held, 'held at the learned boundary');
  assert.equal(next.suspend(r, 0, 9, awaitElsewhere), null, 'another place: not held');
  next.performed(r, 0b01, 2);
  await held;
  assert.match(next.reportLine(), /"ok":false/, 'released, but not met before the held task performs the write');
  next.performed(w2, 0b10, 1);
  assert.match(next.reportLine(), /"ok":true/);
});

test('a hold at a learned boundary whose task goes on elsewhere is missed, never met (a wrong hold makes no forced run)', async () => {
  const learned = JSON.stringify({ at: 'src/refresher.ts\t12\trefresh', passes: 2, followed: { 'W Cache.entries src/cache.ts:40 Cache.clear': 1 } }) + '\n';
  const f = new NodeForcing(syncWrite());
  f.loadBoundaries(learned);
  const r = task();
  const w = task();
  const held = f.suspend(w, 0, 8, awaitInRefresh);
  assert.ok(held, 'the write followed in half of the passes: held');
  f.performed(r, 0b01, 2);
  await held;
  // the task reaches its next await without the write
  assert.equal(f.suspend(w, 0, 9, awaitElsewhere), null);
  const report = f.reportLine();
  assert.match(report, /"ok":false/);
  assert.match(report, /"missed":1/);
  assert.match(report, /went on without it/);
  // a place where the access followed in fewer than half of the passes is not a place to hold
  const rare = new NodeForcing(syncWrite());
  rare.loadBoundaries(JSON.stringify({ at: 'src/refresher.ts\t12\trefresh', passes: 3, followed: { 'W Cache.entries src/cache.ts:40 Cache.clear': 1 } }) + '\n');
  assert.equal(rare.suspend(task(), 0, 8, awaitInRefresh), null);
});

test('a place passed twice per run whose access follows only its second pass is held at its second pass only (learned per pass); BRAID_NODE_LEARN_PASS=0 holds both', async () => {
  // the first run: two tasks pass the same callback start; only the second one's pass is followed by the write
  const first = new NodeForcing(syncWrite());
  const a = task();
  const b = task();
  assert.equal(first.suspend(a, 0, 3, awaitInRefresh), null);
  assert.equal(first.suspend(b, 0, 3, awaitInRefresh), null);
  first.performed(b, 0b10, 1);
  const learned = first.boundaryLines(() => awaitInRefresh());
  assert.match(learned, /"passes":2/);
  assert.match(learned, /"nth":\[\{"passes":1,"followed":\{\}\},\{"passes":1,"followed":\{"W Cache.entries src\/cache.ts:40 Cache.clear":1\}\}\]/);
  // the next run: the first pass goes on, the second is held
  const next = new NodeForcing(syncWrite());
  next.loadBoundaries(learned);
  assert.equal(next.suspend(task(), 0, 8, awaitInRefresh), null, 'the first pass: the write never followed it');
  const held = next.suspend(task(), 0, 8, awaitInRefresh);
  assert.ok(held, 'the second pass: held');
  next.performed(task(), 0b01, 2);
  await held;
  // the earlier rule: every pass of a place where the write followed half of them
  const old = new NodeForcing(syncWrite(), { byPass: false });
  old.loadBoundaries(learned);
  const h1 = old.suspend(task(), 0, 8, awaitInRefresh);
  assert.ok(h1, 'byPass false: the first pass is held too');
  old.stop();
  await h1;
  // lines without per-pass counts (an earlier build's) are the passes together
  const plain = new NodeForcing(syncWrite());
  plain.loadBoundaries(JSON.stringify({ at: 'src/refresher.ts\t12\trefresh', passes: 2, followed: { 'W Cache.entries src/cache.ts:40 Cache.clear': 1 } }) + '\n');
  const h2 = plain.suspend(task(), 0, 8, awaitInRefresh);
  assert.ok(h2);
  plain.stop();
  await h2;
});

test('a hold at a callback start counts only what the callback does: the emitting task going on after a listener neither learns from its start nor meets its wait', () => {
  const learned = JSON.stringify({ at: 'src/refresher.ts\t12\trefresh', passes: 1, followed: { 'W Cache.entries src/cache.ts:40 Cache.clear': 1 } }) + '\n';
  const f = new NodeForcing(syncWrite());
  f.loadBoundaries(learned);
  const r = task();
  const emitter = task();
  f.performed(r, 0b01, 2);
  // the listener's start (site 8 at the learned place) in the emitting task: the wait is met at once, pending the write
  assert.equal(f.suspend(emitter, 0, 8, awaitInRefresh), null);
  // the listener returns without the write; the emitter writes afterwards, outside the listener
  f.leaveCallback(emitter, -1, 0);
  f.performed(emitter, 0b10, 1);
  const report = f.reportLine();
  assert.match(report, /"ok":false/, report);
  assert.match(report, /"missed":1/);
  assert.equal(f.boundaryLines(() => awaitInRefresh()), '', 'the write after the listener did not follow its start');
});

test('the runs of one confirmation learn in its folder (every group shares it); braid record --plan learns in its traces\' folder', () => {
  assert.equal(forceLearnFile('/w/.braid/confirm/app-P1-1/forced/app-0001.trace.jsonl.part', '/w/.braid/confirm/app-P1-1/plans/pattern.json'), '/w/.braid/confirm/app-P1-1/node-boundaries.learned');
  assert.equal(forceLearnFile('/w/.braid/confirm/app-P1-1/opposite-more/app-0011.trace.jsonl.part', '/w/.braid/confirm/app-P1-1/plans/opposite.json'), '/w/.braid/confirm/app-P1-1/node-boundaries.learned');
  assert.equal(forceLearnFile('/w/out/timer-forced/main-0001.trace.jsonl.part', '/w/fixtures/plans/timer-forced.json'), '/w/out/timer-forced/node-boundaries.learned');
  assert.equal(forceLearnFile('/w/out/x/main-0001.trace.jsonl.part', undefined), '/w/out/x/node-boundaries.learned');
});
