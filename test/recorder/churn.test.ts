/**
 * Thread churn (issue 12): programs that start thousands of short-lived threads, or hundreds of
 * threads that each record many events, complete under the agent and lose no event. Before the fix
 * each dead thread kept its last event chunk, and the program hung once those filled the budget
 * (about 1,000 short threads, or 64 threads with more than 256 events each).
 * Only hang guards here (the run's time limit), no timing assertion.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classesDir, FAST_JVM, prepare, record } from './recorderHarness';

before(() => prepare());

interface Counted {
  writes: number;
  ends: number;
  dropped: number;
  outcome: { outcome: string; reason: string; detail?: string };
}

/** Counts the writes of churn.Churn.slot, the END events and the dropped-event markers of a trace. */
function countTrace(file: string): Counted {
  const lines = readFileSync(file, 'utf8').split('\n');
  let slotVar = -1;
  let writes = 0;
  let ends = 0;
  let dropped = 0;
  let outcome: Counted['outcome'] | undefined;
  for (const line of lines) {
    if (line.startsWith('[')) {
      const e = JSON.parse(line);
      if (e[2] === 'W' && e[3] === slotVar) writes++;
      else if (e[2] === 'END') ends++;
    } else if (line.startsWith('{"def":"var"')) {
      const d = JSON.parse(line);
      if (d.name === 'churn.Churn.slot') slotVar = d.id;
    } else if (line.startsWith('{"dropped"')) dropped += JSON.parse(line).dropped;
    else if (line.startsWith('{"outcome"')) outcome = JSON.parse(line);
  }
  assert.ok(outcome, `${file}: no outcome line`);
  return { writes, ends, dropped, outcome };
}

async function churn(name: string, threads: number, writes: number, parallel: number, agentOptions: string[] = []): Promise<Counted> {
  const s = await record(name, 'churn.Churn', {
    agentOptions,
    runs: 1,
    jobs: 1,
    noise: 0,
    include: ['churn'],
    timeoutSeconds: 300, // hang guard only: the fixed recorder takes seconds
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'churn.Churn', String(threads), String(writes), String(parallel)],
  });
  assert.equal(s.traces.length, 1, 'one trace');
  return countTrace(s.traces[0]);
}

test('10,000 short-lived threads x 10 events: the run completes and every event is in the trace', { timeout: 400_000 }, async () => {
  const c = await churn('churn-short', 10_000, 10, 50);
  assert.deepEqual(c.outcome.outcome, 'pass', `run outcome: ${JSON.stringify(c.outcome)}`);
  assert.equal(c.dropped, 0, 'no event dropped');
  assert.equal(c.writes, 100_000);
  // every worker thread ended in the trace (main's END may come from the shutdown hook too)
  assert.ok(c.ends >= 10_000, `${c.ends} END events`);
});

test('200 threads x 10,000 events: the run completes and every event is in the trace', { timeout: 400_000 }, async () => {
  const c = await churn('churn-long', 200, 10_000, 200);
  assert.deepEqual(c.outcome.outcome, 'pass', `run outcome: ${JSON.stringify(c.outcome)}`);
  assert.equal(c.dropped, 0, 'no event dropped');
  assert.equal(c.writes, 2_000_000);
  assert.ok(c.ends >= 200, `${c.ends} END events`);
});

test('bounded back-pressure (maxWaitMs=0): the run completes, and every write is either in the trace or counted as dropped', { timeout: 400_000 }, async () => {
  const c = await churn('churn-nowait', 200, 10_000, 200, ['maxWaitMs=0']);
  assert.deepEqual(c.outcome.outcome, 'pass', `run outcome: ${JSON.stringify(c.outcome)}`);
  assert.ok(c.writes <= 2_000_000, `${c.writes} writes`);
  // dropped events may also be START/JOIN/END or the main thread's array writes, hence ≥
  assert.ok(c.writes + c.dropped >= 2_000_000, `${c.writes} writes in the trace + ${c.dropped} dropped`);
});
