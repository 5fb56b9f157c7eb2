/**
 * Locks of `Lock` subtypes (issue 40, session 15; server/java-agent/.../LockTypes.java): javac names the
 * type of the reference a call is made through, so a `lock()` on the application's own `ReentrantLock`
 * subclass is `invokevirtual TallyLock.lock` and one through an interface that extends `Lock` is
 * `invokeinterface NamedLock.lock`. The agent matched a fixed list of owners (`Lock`, `ReentrantLock`,
 * the read-write lock's two), so those calls had no ACQ/REL and the accesses under them no lock
 * (commons-pool2's `InterruptibleReentrantLock`: forcing could not hold a thread before it).
 * test/fixtures/java/sublock/Tally.java: every access of `count` must be inside an ACQ/REL of that lock.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir, prepare, record } from './recorderHarness';

before(() => prepare());

const SOURCE = readFileSync(path.join(fixturesDir, 'sublock/Tally.java'), 'utf8').split('\n');
/** 1-based line of the first line of sublock/Tally.java ending with `// marker`. */
function lineOf(marker: string): number {
  const k = SOURCE.findIndex((l) => l.trimEnd().endsWith(`// ${marker}`));
  assert.ok(k >= 0, marker);
  return k + 1;
}

test('lock/lockInterruptibly/tryLock/unlock on a ReentrantLock subclass and through an interface extending Lock are ACQ/REL, and the accesses under them hold the lock', async () => {
  const s = await record('sublock', 'sublock.Tally', { runs: 1, include: ['sublock'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = lines.filter((l) => Array.isArray(l)) as unknown[][];
  const lineOfEvent = (e: unknown[]) => locs.get(e[4] as number)!.line;
  const acqLines = new Set(events.filter((e) => e[2] === 'ACQ').map(lineOfEvent));
  const relLines = new Set(events.filter((e) => e[2] === 'REL').map(lineOfEvent));
  for (const m of ['lock', 'lockInterruptibly', 'tryLock', 'final lock']) assert.ok(acqLines.has(lineOf(m)), `ACQ at // ${m}: ${[...acqLines]}`);
  for (const m of ['unlock', 'unlock guard', 'unlock after tryLock', 'final unlock']) assert.ok(relLines.has(lineOf(m)), `REL at // ${m}: ${[...relLines]}`);
  for (const m of ['not a Lock', 'not a Lock either']) assert.ok(!acqLines.has(lineOf(m)) && !relLines.has(lineOf(m)), `no ACQ/REL at // ${m}`);
  const lockIds = new Set(events.filter((e) => e[2] === 'ACQ').map((e) => e[3]));
  assert.equal(lockIds.size, 1, 'one lock object');
  // each thread's held count of that lock, in trace order: every access of count is made while held
  const held = new Map<unknown, number>();
  let counted = 0;
  for (const e of events) {
    const t = e[1];
    if (e[2] === 'ACQ') held.set(t, (held.get(t) ?? 0) + 1);
    else if (e[2] === 'REL') held.set(t, (held.get(t) ?? 0) - 1);
    else if ((e[2] === 'R' || e[2] === 'W') && vars.get(e[3] as number) === 'sublock.Tally.count') {
      counted++;
      assert.ok((held.get(t) ?? 0) > 0, `access of count at line ${lineOfEvent(e)} by thread ${t} outside the lock`);
    }
  }
  const countLines = new Set(events.filter((e) => (e[2] === 'R' || e[2] === 'W') && vars.get(e[3] as number) === 'sublock.Tally.count').map(lineOfEvent));
  for (const m of ['under lock', 'under lockInterruptibly', 'under tryLock']) assert.ok(countLines.has(lineOf(m)), `an access of count at // ${m} (${counted} accesses)`);
  for (const [t, n] of held) assert.equal(n, 0, `thread ${t} released what it took`);
});
