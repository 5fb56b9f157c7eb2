/**
 * Values (issue 12, item 5) in the trace: every write and read of churn.Churn.slot carries the
 * value written / read (hand-checked: the worker writes 0, 1, 2), and agent option values=false
 * records none.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classesDir, FAST_JVM, prepare, record } from './recorderHarness';

before(() => prepare());

async function slotEvents(name: string, agentOptions: string[]): Promise<unknown[][]> {
  const s = await record(name, 'churn.Churn', {
    runs: 1,
    include: ['churn'],
    agentOptions,
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'churn.Churn', '1', '3', '1'],
  });
  const lines = readFileSync(s.traces[0], 'utf8').split('\n');
  const slot = JSON.parse(lines.find((l) => l.includes('"name":"churn.Churn.slot"')) ?? '{}').id;
  return lines.filter((l) => l.startsWith('[')).map((l) => JSON.parse(l)).filter((e) => e[2] === 'W' && e[3] === slot);
}

test('writes carry their values: [i,t,"W",var,loc,stack,0,-1,value] for a static field', { timeout: 120_000 }, async () => {
  const ws = await slotEvents('values-on', []);
  assert.deepEqual(ws.map((e) => e[8]), [0, 1, 2]);
  assert.ok(ws.every((e) => e[6] === 0 && e[7] === -1), JSON.stringify(ws));
});

test('agent option values=false: no values', { timeout: 120_000 }, async () => {
  const ws = await slotEvents('values-off', ['values=false']);
  assert.equal(ws.length, 3);
  assert.ok(ws.every((e) => e.length === 6), JSON.stringify(ws));
});
