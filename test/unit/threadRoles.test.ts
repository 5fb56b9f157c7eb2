/**
 * The threads of the instance the failing runs had (issue 40; engine/confirm/threadRoles.ts): read
 * from the failing traces only, the last instance of the pattern's first change of role names the
 * threads by role (numbers as `*`); main's setup instance, present in every run, is left out, and the
 * plans name the threads on every access of the role (ForcingOptions.byThread false: none).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { roleName, threadRoles, withThreadRoles } from '../../server/src/engine/confirm/threadRoles';
import { forceSection, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';

const VAR = 'forcing.SetupThenWorkers$Circuit.state';
const FILE = 'forcing/SetupThenWorkers.java';
const METHOD = 'forcing.SetupThenWorkers$Circuit.transition';

/** A Java agent's trace: `events` as [thread, kind, line] (kind W/R of VAR at FILE:line), names per thread id, the outcome. */
function trace(dir: string, name: string, threads: Record<number, string>, events: [number, 'R' | 'W', number][], outcome: 'pass' | 'fail', fail?: number): string {
  const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: name, program: 'forcing.SetupThenWorkers', recorder: { name: 'braid-java-agent', version: '0.1.0', options: {} } })];
  for (const [id, n] of Object.entries(threads)) lines.push(JSON.stringify({ def: 'thread', id: Number(id), name: n }));
  lines.push(JSON.stringify({ def: 'var', id: 1, name: VAR }));
  lines.push(JSON.stringify({ def: 'loc', id: 1, file: FILE, line: 22, method: METHOD }));
  lines.push(JSON.stringify({ def: 'loc', id: 2, file: FILE, line: 26, method: 'forcing.SetupThenWorkers$Circuit.reportFailure' }));
  let i = 0;
  for (const [t, kind, line] of events) lines.push(JSON.stringify([++i, t, kind, 1, line === 22 ? 1 : 2, null, 7]));
  if (fail !== undefined) lines.push(JSON.stringify([++i, fail, 'FAIL', 2, null, 'exit', 'exit code 3']));
  lines.push(JSON.stringify({ outcome }));
  const file = path.join(dir, `${name}.trace.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const W = (thread: 1 | 2) => ({ thread, type: 'W' as const, variable: VAR, file: FILE, line: 22, method: METHOD });
const pattern: ForcedPattern = { key: 'W1 W2', id: 'P3', kind: 'WW', rank: 1, accesses: [W(1), W(2)] };

function recording(): string[] {
  const dir = tempDir('braid-roles-');
  const setup: [number, 'R' | 'W', number][] = [
    [1, 'W', 22],
    [1, 'W', 22],
  ];
  return [
    // failing: both workers passed the check, then both wrote; worker numbers differ between runs
    trace(dir, 'run-0', { 1: 'main', 2: 'worker-1', 3: 'worker-2' }, [...setup, [2, 'R', 26], [3, 'R', 26], [2, 'W', 22], [3, 'W', 22]], 'fail', 1),
    trace(dir, 'run-1', { 1: 'main', 4: 'worker-11', 5: 'worker-12' }, [...setup, [5, 'R', 26], [4, 'R', 26], [5, 'W', 22], [4, 'W', 22]], 'fail', 1),
    // passing: main's setup then one worker's write, the other worker found the circuit OPEN
    trace(dir, 'run-2', { 1: 'main', 2: 'worker-1', 3: 'worker-2', 9: 'reporter' }, [...setup, [2, 'R', 26], [2, 'W', 22], [3, 'R', 26], [9, 'W', 22]], 'pass'),
  ];
}

test('roleName: numbers become *, other characters stay', () => {
  assert.equal(roleName('pool-1-thread-12'), 'pool-*-thread-*');
  assert.equal(roleName('main'), 'main');
  assert.equal(roleName('slow-call-0'), 'slow-call-*');
});

test('threadRoles: the failing runs\' last instance names the two workers by role, not main (whose setup instance every run has)', async () => {
  const r = await threadRoles(pattern, recording());
  assert.ok(r);
  assert.deepEqual(r.threads, { 1: ['worker-*'], 2: ['worker-*'] });
  assert.equal(r.failingRead, 2);
  assert.equal(r.withInstance, 2);
  // the passing run's reporter (its only instance) is not read: passing runs may have other instances
  assert.match(r.reason, /not main$/);
});

test('threadRoles: nothing when the failing runs\' instance names every thread that made the accesses, or no failing run has one', async () => {
  const dir = tempDir('braid-roles-');
  const onlyWorkers = trace(dir, 'w', { 2: 'worker-1', 3: 'worker-2' }, [[2, 'W', 22], [3, 'W', 22]], 'fail', 2);
  assert.equal(await threadRoles(pattern, [onlyWorkers]), undefined);
  const passing = trace(dir, 'p', { 1: 'main', 2: 'worker-1', 3: 'worker-2' }, [[1, 'W', 22], [2, 'W', 22], [3, 'W', 22]], 'pass');
  assert.equal(await threadRoles(pattern, [passing]), undefined);
});

test('the plans name the threads on every access of a role (guards too), the counterfactual\'s alike; byThread false names none', async () => {
  const p = await withThreadRoles(pattern, recording());
  assert.deepEqual(p.roleThreads, { 1: ['worker-*'], 2: ['worker-*'] });
  const order = { ...p, accesses: [{ ...W(1), type: 'R' as const }, W(2)] };
  for (const o of ['pattern', 'opposite'] as const) {
    const s = forceSection(order, o);
    for (const a of s.accesses) assert.deepEqual(a.threads, ['worker-*'], `${o}: ${JSON.stringify(a)}`);
  }
  assert.ok(forceSection(order, 'pattern').accesses.length > 2, 'the order pair has its guard');
  for (const a of forceSection(order, 'pattern', { byThread: false }).accesses) assert.equal(a.threads, undefined);
});
