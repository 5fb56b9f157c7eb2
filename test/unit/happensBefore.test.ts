/**
 * The happens-before filter (docs/algorithms.md): vector clocks over thread
 * start/join and SND/RCV hand-off tokens; ordered pairs are dropped. The
 * thesis' examples give exactly their results both with the filter and
 * with --hb none / grouping off.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles, AnalysisOptions } from '../../server/src/engine/analysis';
import { HappensBefore, HbStamp, orderedBefore } from '../../server/src/engine/unicorn/happensBefore';
import { EventKind, TraceEvent } from '../../server/src/engine/trace/traceFormat';
import { writeTraces } from '../helpers/traceBuilder';

const THESIS: Partial<AnalysisOptions> = { happensBefore: false, grouping: false, windowWrites: 'latest' };

function ev(kind: EventKind, t: number, a: number): TraceEvent {
  return { i: 0, t, kind, a, b: -1, c: -1, d: 0, e: -1, value: undefined };
}
function stamp(hb: HappensBefore, t: number): HbStamp {
  const s: HbStamp = { hbSlot: -1, hbClock: 0, hbVc: null };
  hb.stamp(t, s);
  return s;
}

test('vector clocks: start orders the parent before the child, join the child before the parent, SND before RCV; nothing else', () => {
  const hb = new HappensBefore();
  const mainBefore = stamp(hb, 1);
  hb.onEvent(ev(EventKind.Start, 1, 2));
  const mainAfterStart = stamp(hb, 1);
  const child = stamp(hb, 2);
  assert.equal(orderedBefore(mainBefore, child), true, 'a write before start() happens before the child');
  assert.equal(orderedBefore(mainAfterStart, child), false, 'the parent after start() races with the child');
  hb.onEvent(ev(EventKind.Start, 1, 3));
  const other = stamp(hb, 3);
  assert.equal(orderedBefore(child, other), false, 'two children are not ordered');
  // hand-off: 2 sends token 9 to 3
  const beforeSend = stamp(hb, 2);
  hb.onEvent(ev(EventKind.Send, 2, 9));
  const afterSend = stamp(hb, 2);
  const beforeReceive = stamp(hb, 3);
  hb.onEvent(ev(EventKind.Receive, 3, 9));
  const afterReceive = stamp(hb, 3);
  assert.equal(orderedBefore(beforeSend, beforeReceive), false);
  assert.equal(orderedBefore(beforeSend, afterReceive), true);
  assert.equal(orderedBefore(afterSend, afterReceive), false, 'what the sender does after SND is not ordered');
  // join
  const childLast = stamp(hb, 2);
  const mainBeforeJoin = stamp(hb, 1);
  assert.equal(orderedBefore(childLast, mainBeforeJoin), false);
  hb.onEvent(ev(EventKind.Join, 1, 2));
  const mainAfterJoin = stamp(hb, 1);
  assert.equal(orderedBefore(childLast, mainAfterJoin), true);
  assert.equal(orderedBefore(other, mainAfterJoin), false, 'thread 3 was not joined');
  // transitivity: 2 → 3 (token) and 3 joined → main sees 2's pre-send access
  hb.onEvent(ev(EventKind.Join, 1, 3));
  assert.equal(orderedBefore(afterReceive, stamp(hb, 1)), true);
  // locks are not synchronisation here
  const a = stamp(hb, 4);
  hb.onEvent(ev(EventKind.Release, 4, 1));
  hb.onEvent(ev(EventKind.Acquire, 5, 1));
  assert.equal(orderedBefore(a, stamp(hb, 5)), false, 'monitors never order pairs (atomicity violations need them)');
});

// Figure 4's two threads, started and joined by a main thread 0
const fork = (events: string[]) => ['W0 config S20', 'START0 1', 'START0 2', ...events, 'JOIN0 1', 'JOIN0 2', 'R0 TABLE S21'];
const E_T1_FIRST = ['W1 TABLE S1', 'W2 TABLE S2', 'W1 LOG S4', 'W2 LOG S3'];
const E_T2_FIRST = ['W2 TABLE S2', 'W1 TABLE S1', 'W2 LOG S3', 'W1 LOG S4'];
const E_BUG = ['W1 TABLE S1', 'W2 TABLE S2', 'W2 LOG S3', 'W1 LOG S4'];

function table5(wrap: (e: string[]) => string[]) {
  return writeTraces([
    { execution: 'E1', outcome: 'pass', events: wrap(E_T1_FIRST) },
    { execution: 'E2', outcome: 'pass', events: wrap(E_T1_FIRST) },
    { execution: 'E3', outcome: 'pass', events: wrap(E_T2_FIRST) },
    { execution: 'E4', outcome: 'pass', events: wrap(E_T2_FIRST) },
    { execution: 'E5', outcome: 'fail', events: wrap(E_BUG) },
    { execution: 'E6', outcome: 'fail', events: wrap(E_BUG) },
  ]);
}
const sig = (p: { accesses: { type: string; thread: number; line: number }[] }) => p.accesses.map((a) => `${a.type}${a.thread}S${a.line}`).join(' ');

test('Table 5 gives exactly its scores with the filter on (default) and with --hb none, grouping off', async () => {
  const dir = table5((e) => e);
  for (const options of [{}, THESIS]) {
    const r = await analyzeTraceFiles([dir], options);
    assert.deepEqual(
      r.patterns.map((p) => [sig(p), p.score, p.rank]),
      [
        ['W1S1 W2S2 W2S3 W1S4', 1, 1],
        ['W1S3 W2S4', 0.5, 2],
        ['W1S1 W2S2', 0.5, 2],
        ['W1S4 W2S3', 0, 4],
        ['W1S2 W2S1', 0, 4],
      ],
      JSON.stringify(options),
    );
  }
});

test('start/join publication: with the filter the ordered pairs are gone and Table 5 is unchanged; --hb none reports them', async () => {
  const dir = table5(fork);
  const on = await analyzeTraceFiles([dir]);
  assert.deepEqual(
    on.patterns.map((p) => [sig(p), p.score]).sort((a, b) => (b[1] as number) - (a[1] as number) || String(a[0]).localeCompare(String(b[0]))),
    [
      ['W1S1 W2S2 W2S3 W1S4', 1],
      ['W1S1 W2S2', 0.5],
      ['W1S3 W2S4', 0.5],
      ['W1S2 W2S1', 0],
      ['W1S4 W2S3', 0],
    ],
    'main\'s write before start() and read after join() form no pair',
  );
  assert.ok(on.stats.orderedPairs > 0);
  const off = await analyzeTraceFiles([dir], THESIS);
  const offSigs = off.patterns.map(sig);
  assert.ok(
    offSigs.some((s) => s.includes('S21')),
    `the thesis' UNICORN pairs main's read after join() with the workers' writes: ${offSigs.join(' | ')}`,
  );
  assert.equal(off.stats.orderedPairs, 0);
});
