/**
 * A check the held thread's access depends on (issue 40, pool2-returnclose; engine/confirm/guardChain.ts):
 * the returner reads `closed`, then links its object into the deque; the closer writes `closed`, then
 * unlinks. The pattern `R1 first → W2 first` holds the returner's link for the closer's unlink; the
 * failing runs show the returner's read of `closed` before the closer's write, so every plan also holds
 * the closer's write until the returner has read `closed` (fresh, optional), the counterfactuals too.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GuardChainReader } from '../../server/src/engine/confirm/guardChain';
import { scanFailingTraces } from '../../server/src/engine/confirm/failingTraceScan';
import { withFailingRunFacts } from '../../server/src/engine/confirm/failingRunFacts';
import { forceSection, forcingPlan, sameDelaySection, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { tempDir } from '../helpers/traceBuilder';
import { confirmJson, confirmText } from '../../server/src/cli/confirmCommand';
import type { Confirmation } from '../../server/src/recorder/runs/confirmRuns';
import type { PerCallResult } from '../../server/src/recorder/runs/confirmPerCall';
import type { RankedPattern } from '../../server/src/engine/analysis';

const DEQUE = 'pool.Deque';
const POOL = 'pool.Pool';
const FIRST = `${DEQUE}.first`;
const CLOSED = `${POOL}.closed`;
const IDLE = `${POOL}.idleCount`;
const DF = 'pool/Deque.java';
const PF = 'pool/Pool.java';

// locations: [id, file, line, method]
const LOCS: [number, string, number, string][] = [
  [1, DF, 259, `${DEQUE}.unlinkFirst`],
  [2, DF, 219, `${DEQUE}.linkFirst`],
  [3, PF, 618, `${POOL}.isClosed`],
  [4, PF, 709, `${POOL}.close`],
  [5, PF, 640, `${POOL}.returnObject`],
  [6, PF, 700, `${POOL}.close`],
];
// variables: name → id
const VARS: Record<string, number> = { [FIRST]: 1, [CLOSED]: 2, [IDLE]: 3 };
const RETURNER = 2;
const CLOSER = 3;

type Ev = [thread: number, kind: 'R' | 'W', variable: string, loc: number];
const unlink: Ev = [CLOSER, 'R', FIRST, 1];
const link: Ev = [RETURNER, 'W', FIRST, 2];
const check: Ev = [RETURNER, 'R', CLOSED, 3];
const close: Ev = [CLOSER, 'W', CLOSED, 4];
const closerCheck: Ev = [CLOSER, 'R', CLOSED, 6];
const idleRead: Ev = [RETURNER, 'R', IDLE, 5];
const idleWrite: Ev = [CLOSER, 'W', IDLE, 4];

/** A Java agent's trace of `events` (each on object 7), failing after them or passing. */
function trace(dir: string, name: string, events: Ev[], outcome: 'pass' | 'fail'): string {
  const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: name, program: 'pool.Test', recorder: { name: 'braid-java-agent', version: '0.1.0', options: {} } })];
  lines.push(JSON.stringify({ def: 'thread', id: 1, name: 'main' }), JSON.stringify({ def: 'thread', id: RETURNER, name: 'returner' }), JSON.stringify({ def: 'thread', id: CLOSER, name: 'closer' }));
  for (const [name, id] of Object.entries(VARS)) lines.push(JSON.stringify({ def: 'var', id, name }));
  for (const [id, file, line, method] of LOCS) lines.push(JSON.stringify({ def: 'loc', id, file, line, method }));
  let i = 0;
  for (const [t, kind, v, loc] of events) lines.push(JSON.stringify([++i, t, kind, VARS[v], loc, null, 7]));
  if (outcome === 'fail') lines.push(JSON.stringify([++i, 1, 'FAIL', 2, null, 'exit', 'exit code 1']));
  lines.push(JSON.stringify({ outcome }));
  const file = path.join(dir, `${name}.trace.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const at = (thread: 1 | 2, type: 'R' | 'W', loc: number) => {
  const [, file, line, method] = LOCS[loc - 1];
  return { thread, type, variable: FIRST, file, line, method };
};
const pattern: ForcedPattern = { key: 'R1 W2', id: 'P1', kind: 'RW', rank: 1, accesses: [at(1, 'R', 1), at(2, 'W', 2)] };

/** Failing runs: the returner's check before the close, the unlink, then the link. Passing: the check after the close. */
function recording(failing = 3): string[] {
  const dir = tempDir('braid-guard-');
  const files: string[] = [];
  for (let k = 0; k < failing; k++) {
    // the closer's own check of `closed` and a write the returner read earlier (idleCount) are in the
    // runs too; idleCount's write comes after the unlink: not a guard
    files.push(trace(dir, `fail-${k}`, [idleRead, closerCheck, check, close, unlink, idleWrite, link], 'fail'));
  }
  files.push(trace(dir, 'pass-0', [closerCheck, close, unlink, check], 'pass'));
  return files;
}

async function guardOf(files: string[]) {
  const reader = new GuardChainReader(pattern);
  await scanFailingTraces(files, [reader]);
  return reader.answer();
}

test('guardChain: the returner\'s read of closed before the closer\'s write, which precedes the unlink, in the failing runs', async () => {
  const g = await guardOf(recording());
  assert.ok(g);
  assert.deepEqual(g.guard, {
    variable: CLOSED,
    read: { file: PF, line: 618, method: `${POOL}.isClosed` },
    write: { file: PF, line: 709, method: `${POOL}.close` },
  });
  assert.equal(g.withGuard, 3);
  assert.equal(g.withInstance, 3);
});

test('guardChain: none when most failing runs read the guard after the write, or in an earlier round of the held access', async () => {
  const dir = tempDir('braid-guard-');
  const late = [0, 1].map((k) => trace(dir, `late-${k}`, [close, check, unlink, link], 'fail'));
  const early = trace(dir, 'early', [check, close, unlink, link], 'fail');
  assert.equal(await guardOf([...late, early]), undefined, '1 of 3 is not most');
  // the read is from the returner's previous return (before its previous link): not this round's check
  const earlier = [0, 1].map((k) => trace(dir, `round-${k}`, [check, link, close, unlink, link], 'fail'));
  assert.equal(await guardOf(earlier), undefined);
  // a write after the awaited access does not guard it
  const after = [0, 1].map((k) => trace(dir, `after-${k}`, [check, unlink, close, link], 'fail'));
  assert.equal(await guardOf(after), undefined);
});

test('every plan holds the guard\'s write until the held thread\'s guard read (fresh, optional, never last), the counterfactuals too; guardChain false: none', async () => {
  const p = await withFailingRunFacts(pattern, recording());
  assert.ok(p.guard);
  const site = { file: DF, line: 350, method: `${DEQUE}.offerFirst` };
  const q: ForcedPattern = { ...p, lockedHold: { reason: 'inside the deque lock', site, oppositeSite: { file: DF, line: 494, method: `${DEQUE}.pollFirst` } } };
  for (const s of [forceSection(q, 'pattern'), forceSection(q, 'opposite'), sameDelaySection(q)!]) {
    const read = s.accesses.findIndex((a) => a.variable === CLOSED && a.type === 'R');
    const write = s.accesses.findIndex((a) => a.variable === CLOSED && a.type === 'W');
    assert.deepEqual(s.accesses[read], { role: 2, type: 'R', variable: CLOSED, file: PF, line: 618, method: `${POOL}.isClosed` }, s.order);
    assert.deepEqual(s.accesses[write], { role: 1, type: 'W', variable: CLOSED, file: PF, line: 709, method: `${POOL}.close` }, s.order);
    assert.deepEqual(s.waits.find((w) => w.at === write), { at: write, for: read, sameObject: true, fresh: true, optional: true }, s.order);
    assert.notEqual(s.waits[s.waits.length - 1].at, write, `${s.order}: not the last wait`);
  }
  const forced = forceSection(q, 'pattern');
  // the pattern's own waits are as without the guard, the last one still last (it stops forcing)
  const plain = forceSection({ ...q, guard: undefined }, 'pattern');
  assert.deepEqual(forced.waits.slice(1), plain.waits);
  assert.deepEqual(forced.accesses.slice(0, plain.accesses.length), plain.accesses);
  assert.equal(forced.waits.find((w) => w.at === 1)?.beforeLock?.line, 350, 'the hold before the lock stays');
  // the agent's plan format takes it
  validateNoisePlan(forcingPlan('guard', q, 'pattern'), 'guard.json');
  validateNoisePlan(forcingPlan('guard', q, 'opposite'), 'guard.json');
  // off: as without a guard
  assert.deepEqual(forceSection(q, 'pattern', { guardChain: false }), plain);
  // anyLine: the guard's lines too
  assert.ok(forceSection(q, 'pattern', { anyLine: true }).accesses.every((a) => a.line === 0));
});

test('guardChain on pool2-returnclose\'s committed recording: the returner\'s isClosed() before close()\'s write of closed', async () => {
  const dir = path.join(__dirname, '../fixtures/real/pool2-returnclose');
  const files = readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(dir, f));
  const lbd = 'org.apache.commons.pool2.impl.LinkedBlockingDeque';
  const F = 'org/apache/commons/pool2/impl/LinkedBlockingDeque.java';
  const rank1: ForcedPattern = {
    key: 'P1',
    id: 'P1',
    kind: 'RW',
    rank: 1,
    accesses: [
      { thread: 1, type: 'R', variable: `${lbd}.first`, file: F, line: 259, method: `${lbd}.unlinkFirst` },
      { thread: 2, type: 'W', variable: `${lbd}.first`, file: F, line: 219, method: `${lbd}.linkFirst` },
    ],
  };
  const reader = new GuardChainReader(rank1);
  await scanFailingTraces(files, [reader]);
  const g = reader.answer();
  assert.ok(g, 'a guard');
  assert.equal(g.guard.variable, 'org.apache.commons.pool2.impl.BaseGenericObjectPool.closed');
  assert.equal(g.guard.read.line, 618);
  assert.equal(g.guard.write.line, 709);
});

test('braid confirm names the guard it forced (text escaped for the terminal, JSON as given)', () => {
  const guard = { variable: 'pool.Pool.closed\u001b[31m', read: { file: PF, line: 618, method: `${POOL}.isClosed` }, write: { file: PF, line: 709, method: `${POOL}.close` } };
  const c = {
    verdict: 'confirmed',
    pattern: { rank: 1, key: 'R1 W2', id: 'P1' },
    forced: { runs: 20, failed: 19, forcedOk: 19 },
    guard,
    pValue: 0.001,
    reason: 'forcing it makes the failure happen',
    folder: '/tmp/x',
    plan: '/tmp/x/plans/pattern.json',
    runsSpent: 20,
    seconds: 1,
  } as unknown as Confirmation;
  const p = { id: 'P1', kind: 'RW', accesses: pattern.accesses.map((a) => ({ ...a, stack: [] })) } as unknown as RankedPattern;
  const text = confirmText(c, p, ['java', 'pool.Test']);
  assert.match(text, /with the held thread's check first: the write of pool\.Pool\.closed\\x1b\[31m at Pool\.java:709 waited for its read at Pool\.java:618/);
  assert.ok(!text.includes('\u001b'), 'no raw escape reaches the terminal');
  assert.deepEqual(confirmJson(c as PerCallResult).guard, guard);
  assert.equal(confirmJson({ ...c, guard: undefined } as PerCallResult).guard, undefined);
});

test('a publication on micrometer-composite\'s committed recording: the other thread\'s lookup of meterMap after the held thread published the counter there', async () => {
  const dir = path.join(__dirname, '../fixtures/real/micrometer-composite');
  const files = readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(dir, f));
  const acm = 'io.micrometer.core.instrument.composite.AbstractCompositeMeter';
  const F = 'io/micrometer/core/instrument/composite/AbstractCompositeMeter.java';
  const rank1: ForcedPattern = {
    key: 'P1',
    id: 'P1',
    kind: 'RW',
    rank: 1,
    accesses: [
      { thread: 1, type: 'R', variable: `${acm}.children`, file: F, line: 47, method: `${acm}.forEachChild` },
      { thread: 2, type: 'W', variable: `${acm}.children`, file: F, line: 76, method: `${acm}.add` },
    ],
  };
  const reader = new GuardChainReader(rank1);
  await scanFailingTraces(files, [reader]);
  const g = reader.answer();
  assert.ok(g, 'a guard');
  assert.equal(g.guard.kind, 'publication');
  assert.equal(g.guard.variable, 'io.micrometer.core.instrument.MeterRegistry.meterMap');
  assert.equal(g.guard.write.line, 576);
  assert.equal(g.guard.read.line, 550);
  // the other thread's lookup only from the test's registration: the listener registers the child meter
  // through the same lookup (a child registry's meterMap), with the same four nearest call sites
  assert.deepEqual(
    g.guard.callers?.map((c) => c.method.slice(c.method.lastIndexOf('.') + 1)),
    ['registerMeterIfNecessary', 'registerMeterIfNecessary', 'counter', 'register', 'lambda$concurrentRegistrationKeepsEveryIncrement$0'],
  );
  // every plan: the held thread's write (role 2) and the other thread's read (role 1), the read held until the write
  const q = { ...rank1, guard: g.guard };
  for (const order of ['pattern', 'opposite'] as const) {
    const s = forceSection(q, order);
    const w = s.waits[0];
    assert.deepEqual({ at: s.accesses[w.at].type, role: s.accesses[w.at].role, for: s.accesses[w.for].type, forRole: s.accesses[w.for].role }, { at: 'R', role: 1, for: 'W', forRole: 2 });
    assert.equal(s.accesses[w.at].line, 550);
    assert.equal(s.accesses[w.for].line, 576);
    assert.deepEqual({ fresh: w.fresh, optional: w.optional, sameObject: w.sameObject }, { fresh: true, optional: true, sameObject: true });
    assert.equal(s.accesses[w.at].callers?.length, 5, 'the lookup from the call sites of the instance');
    assert.equal(forceSection(q, order, { byCaller: false }).accesses[w.at].callers, undefined);
    validateNoisePlan(forcingPlan('publication', q, order), 'publication.json');
  }
});

test('braid confirm names a publication it forced', () => {
  const guard = { kind: 'publication' as const, variable: 'reg.Registry.map', read: { file: PF, line: 550, method: `${POOL}.lookup` }, write: { file: PF, line: 576, method: `${POOL}.publish` } };
  const c = { verdict: 'confirmed', pattern: { rank: 1, key: 'R1 W2', id: 'P1' }, forced: { runs: 20, failed: 19, forcedOk: 19 }, guard, pValue: 0.001, reason: 'r', folder: '/tmp/x', plan: '/tmp/x/p.json', runsSpent: 20, seconds: 1 } as unknown as Confirmation;
  const p = { id: 'P1', kind: 'RW', accesses: pattern.accesses.map((a) => ({ ...a, stack: [] })) } as unknown as RankedPattern;
  assert.match(confirmText(c, p, ['java', 'x']), /with the held thread's publication first: the read of reg\.Registry\.map at Pool\.java:550 waited for its write at Pool\.java:576/);
  assert.deepEqual(confirmJson(c as PerCallResult).guard, guard);
});
