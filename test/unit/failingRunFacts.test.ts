/**
 * failingTraceScan.ts / failingRunFacts.ts (issue 40): what forcing learns from the failing runs — the
 * locked hold and the threads of the failing runs' instance — read in ONE pass over the traces, with
 * the same answers as the two questions asked one after the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { withFailingRunFacts } from '../../server/src/engine/confirm/failingRunFacts';
import { scanFailingTraces, type FailingTraceReader } from '../../server/src/engine/confirm/failingTraceScan';
import { withLockedHold } from '../../server/src/engine/confirm/lockedHold';
import { withThreadRoles } from '../../server/src/engine/confirm/threadRoles';
import type { ReadTraceResult } from '../../server/src/engine/trace/traceReader';
import { writeTraces } from '../helpers/traceBuilder';

const RESCALE = path.join(__dirname, '../fixtures/real/metrics-rescale');
const F = 'com/codahale/metrics/ExponentiallyDecayingReservoir.java';
const C = 'com.codahale.metrics.ExponentiallyDecayingReservoir';
const V = `${C}.startTime`;
const rank1 = { key: 'R1 W2', id: 'P1', kind: 'RW', rank: 1, accesses: [{ thread: 1 as const, type: 'R' as const, variable: V, file: F, line: 96, method: `${C}.update`, stack: [] }, { thread: 2 as const, type: 'W' as const, variable: V, file: F, line: 166, method: `${C}.rescale`, stack: [] }] };

test('withFailingRunFacts: one pass gives what withLockedHold then withThreadRoles give (metrics-rescale\'s committed recording)', async () => {
  const traces = readdirSync(RESCALE).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(RESCALE, f));
  assert.ok(traces.length > 4);
  const both = await withFailingRunFacts(rank1, traces);
  const apart = await withThreadRoles(await withLockedHold(rank1, traces), traces);
  assert.ok(both.lockedHold, 'the rescale hold is inside a lock');
  // and the callers of the instance (instanceCallers.ts, by method): the update's read from update, the rescale's write from rescaleIfNeeded
  const { callers, ...rest } = both;
  assert.deepEqual(rest, apart);
  assert.deepEqual(
    callers?.map((c) => [c.at, c.sites.map((x) => x.method.slice(x.method.lastIndexOf('.') + 1))]),
    [
      [0, ['update', 'lambda$updatesAfterLongIdlePeriodsKeepTheReservoirFinite$1']],
      [1, ['rescaleIfNeeded', 'update', 'update', 'lambda$updatesAfterLongIdlePeriodsKeepTheReservoirFinite$2']],
    ],
  );
  // what the pattern has already is kept, and a pattern with all of it asks nothing
  const given = { ...rank1, lockedHold: { reason: 'given' }, roleThreads: { 1: ['x'] }, callers: [{ at: 0, sites: [{ file: F, line: 1, method: 'm' }] }] };
  assert.equal(await withFailingRunFacts(given, traces), given);
  assert.equal(await withFailingRunFacts(rank1, []), rank1, 'no traces: the pattern as it is');
});

/** A reader that counts what it is fed; `stopAfter` traces, it needs nothing more. */
class Spy implements FailingTraceReader {
  headers = 0;
  events = 0;
  ends: boolean[] = [];
  constructor(private readonly stopAfter = Infinity) {}
  get active() {
    return this.ends.length < this.stopAfter;
  }
  header() {
    this.headers++;
  }
  event() {
    this.events++;
  }
  endTrace(_r: ReadTraceResult, failing: boolean) {
    this.ends.push(failing);
  }
}

test('scanFailingTraces: each trace read once for all readers; stops at maxFiles failing traces (passing ones do not count) or when no reader is active', async () => {
  const dir = writeTraces([
    { execution: 'a-fail', outcome: 'fail', events: ['W1 x S1', 'R2 x S2'] },
    { execution: 'b-pass', outcome: 'pass', events: ['W1 x S1'] },
    { execution: 'c-fail', outcome: 'fail', events: ['W1 x S1'] },
    { execution: 'd-fail', outcome: 'fail', events: ['W1 x S1'] },
  ]);
  const files = readdirSync(dir).sort().map((f) => path.join(dir, f));
  const one = new Spy();
  const two = new Spy();
  await scanFailingTraces(files, [one, two], 2);
  assert.deepEqual(one.ends, [true, false, true], 'a, b (passing, not counted), c — then the cap of 2 failing traces');
  assert.deepEqual(two.ends, one.ends);
  assert.equal(one.headers, 3);
  assert.equal(one.events, 4);
  const early = new Spy(1);
  const late = new Spy();
  await scanFailingTraces(files, [early, late]);
  assert.deepEqual(early.ends, [true], 'an inactive reader is fed no further trace');
  assert.deepEqual(late.ends, [true, false, true, true]);
  const done = new Spy(0);
  await scanFailingTraces(files, [done]);
  assert.equal(done.headers, 0, 'no active reader: nothing is read');
});

test('withFailingRunFacts: a pattern without accesses, or without a change of thread, asks nothing and is returned as it is', async () => {
  const traces = readdirSync(RESCALE).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(RESCALE, f)).slice(0, 3);
  const empty = { ...rank1, accesses: [] };
  assert.equal(await withFailingRunFacts(empty, traces), empty);
  const oneThread = { ...rank1, accesses: [rank1.accesses[0], { ...rank1.accesses[1], thread: 1 as const }] };
  assert.equal(await withFailingRunFacts(oneThread, traces), oneThread);
});
