/**
 * A hold before a lock (beforeLock) whose awaited access was already made (issue 40, pool2-returnclose's
 * opposite order: the returner linked before the closer reached pollFirst's lock, and the wait counted as
 * not met although the opposite order held). On real JVM runs of test/fixtures/java/forcing/InPlaceLock,
 * each mode one interleaving fixed by latches: the awaited link made after the closer's previous access of
 * the plan (its write of `closed`) and before it reached the lock is the order already in place — met,
 * `inPlace` in the forcing line, without a hold; a link older than that previous access (an earlier
 * instance) does not count; nor does one on another object. Each forcing line is checked against the
 * trace's own order of the accesses.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, root } from './recorderHarness';

before(() => prepare());

const FILE = 'forcing/InPlaceLock.java';
function tagLine(name: string): number {
  const k = readFileSync(path.join(fixturesDir, FILE), 'utf8')
    .split('\n')
    .findIndex((l) => l.trimEnd().endsWith(`// @force ${name}`));
  assert.ok(k >= 0, `InPlaceLock.java has // @force ${name}`);
  return k + 1;
}

const DEQUE = 'forcing.InPlaceLock$Deque';
const FIRST = `${DEQUE}.first`;
const CLOSED = 'forcing.InPlaceLock$Pool.closed';

/** The opposite order's plan of `R1 unlink → W2 link`: the closer held before the unlink's monitor until the returner's link; the closer's write of `closed` is its previous access of the plan. */
function plan(): object {
  return {
    format: 'braid-noise-plan',
    version: 1,
    name: 'InPlaceLock opposite',
    noise: { kind: 'yield' },
    points: [],
    force: {
      order: 'opposite',
      waitMs: 300,
      times: 1_000_000_000,
      maxTimeouts: 5,
      accesses: [
        { role: 1, type: 'R', variable: FIRST, file: FILE, line: tagLine('unlink'), method: `${DEQUE}.unlink`, threads: ['closer'] },
        { role: 2, type: 'W', variable: FIRST, file: FILE, line: tagLine('link'), method: `${DEQUE}.link`, threads: ['returner'] },
        { role: 1, type: 'W', variable: CLOSED, file: FILE, line: tagLine('close'), method: 'forcing.InPlaceLock.close', threads: ['closer'] },
      ],
      waits: [{ at: 0, for: 1, sameObject: true, beforeLock: { file: FILE, line: tagLine('unlinklock'), method: `${DEQUE}.unlink` } }],
    },
  };
}

interface Access {
  i: number;
  thread: string;
  type: 'R' | 'W';
  variable: string;
  line: number;
  obj: number;
}

/** Runs the fixture in `mode` under the plan: the forcing line's wait and the plan's accesses in trace order. */
async function run(mode: string): Promise<{ wait: { met: number; timedOut: number; inPlace?: number }; ok: boolean; reason?: string; accesses: Access[] }> {
  const dir = tempDir();
  const file = path.join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify(plan()));
  const trace = path.join(dir, `${mode}.trace.jsonl`);
  const jar = path.join(root, 'dist/braid-agent.jar');
  const r = spawnSync('java', [...FAST_JVM, `-javaagent:${jar}=out=${trace},include=forcing,plan=${file}`, '-cp', classesDir, 'forcing.InPlaceLock', mode], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const line = readFileSync(trace, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('{"forcing":'));
  assert.ok(line, `${mode}: the trace has a forcing line`);
  const forcing = (JSON.parse(line) as { forcing: { ok: boolean; reason?: string; waits: { met: number; timedOut: number; inPlace?: number }[] } }).forcing;
  const accesses: Access[] = [];
  await readTrace(trace, {
    event(ev, sym) {
      if (ev.kind !== 0 && ev.kind !== 1) return;
      const variable = sym.vars.get(ev.a)?.name ?? '';
      if (variable !== FIRST && variable !== CLOSED) return;
      accesses.push({ i: ev.i, thread: sym.threads.get(ev.t)?.name ?? '', type: ev.kind === 0 ? 'R' : 'W', variable, line: sym.locs.get(ev.b)?.line ?? 0, obj: ev.d });
    },
  });
  return { wait: forcing.waits[0], ok: forcing.ok, reason: forcing.reason, accesses };
}

/** The trace's closer write of closed, its unlink read, and the returner's link. */
function steps(accesses: Access[]): { close: Access; unlink: Access; link: Access } {
  const close = accesses.find((a) => a.thread === 'closer' && a.variable === CLOSED && a.type === 'W');
  const unlink = accesses.find((a) => a.thread === 'closer' && a.variable === FIRST && a.type === 'R' && a.line === tagLine('unlink'));
  const link = accesses.find((a) => a.thread === 'returner' && a.variable === FIRST && a.type === 'W' && a.line === tagLine('link'));
  assert.ok(close && unlink && link, `the trace has the three accesses: ${JSON.stringify(accesses)}`);
  return { close, unlink, link };
}

test('the awaited link made after the closer’s previous access of the plan, before it reached the lock: met without a hold (inPlace), as the trace’s order says', async () => {
  const r = await run('inplace');
  const { close, unlink, link } = steps(r.accesses);
  assert.ok(close.i < link.i && link.i < unlink.i && link.obj === unlink.obj, `the trace: close, then the link, then the unlink, one deque: ${JSON.stringify(r.accesses)}`);
  assert.deepEqual([r.ok, r.wait.met, r.wait.inPlace, r.wait.timedOut], [true, 1, 1, 0], JSON.stringify(r));
});

test('a link older than the closer’s previous access of the plan (an earlier instance) does not meet the wait: the closer is held as before', async () => {
  const r = await run('older');
  const { close, unlink, link } = steps(r.accesses);
  assert.ok(link.i < close.i && close.i < unlink.i, `the trace: the link, then close, then the unlink: ${JSON.stringify(r.accesses)}`);
  assert.equal(r.ok, false, JSON.stringify(r));
  assert.equal(r.wait.met, 0);
  assert.equal(r.wait.inPlace, undefined, 'no inPlace count');
  assert.equal(r.wait.timedOut, 1, 'held, and nobody linked again');
});

test('a link since the closer’s previous access but on another deque: not met, and the reason says so', async () => {
  const r = await run('other');
  const { close, unlink, link } = steps(r.accesses);
  assert.ok(close.i < link.i && link.i < unlink.i && link.obj !== unlink.obj, `the trace: the link on another deque: ${JSON.stringify(r.accesses)}`);
  assert.equal(r.ok, false);
  assert.equal(r.wait.met, 0);
  assert.match(r.reason ?? '', /went on once unheld before the lock taken at InPlaceLock\.java:\d+ .* since its previous access of the pattern, which was on another object/);
});
