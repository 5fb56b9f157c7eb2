/**
 * Ranking of patterns with equal scores (docs/algorithms.md "Ranking" and
 * "Root-cause order"): competition ranks (Table 9: equal scores share a rank,
 * the next rank skips), and the documented order inside a tie — with
 * --grouping off (the thesis) more failing runs first, then fewer passing
 * runs, then longer patterns; by default fewer passing runs, then more
 * failing runs, then shorter patterns. Every pattern below uses its own pair
 * of threads so no two of them combine. Expected values by hand.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { writeTraces } from '../helpers/traceBuilder';

// X: R1 W2 R1 on x (P4, plus its pairs P1 R1-W2 and P2 W2-R1), in both failing runs only
const X = ['R1 x S1', 'W2 x S2', 'R1 x S3'];
// A: W3 W4 on a (P3), in one failing run: 1 / (2 + 0) = 0.5
const A = ['W3 a S4', 'W4 a S5'];
// B: W5 R6 on b (P2), in both failing and both passing runs: 2 / (2 + 2) = 0.5
const B = ['W5 b S6', 'R6 b S7'];
// C: R7 W8 on c (P1), one passing run; D: R9 W10 on d (P1), two passing runs; both score 0
const C = ['R7 c S8', 'W8 c S9'];
const D = ['R9 d S10', 'W10 d S11'];

function tieTraces() {
  return writeTraces([
    { execution: 'F1', outcome: 'fail', events: [...X, ...A, ...B] },
    { execution: 'F2', outcome: 'fail', events: [...X, ...B] },
    { execution: 'P1', outcome: 'pass', events: [...B, ...C, ...D] },
    { execution: 'P2', outcome: 'pass', events: [...B, ...D] },
  ]);
}

test('ties (--grouping off, the thesis): competition ranks; more failing runs, then fewer passing runs, then longer patterns first', async () => {
  const dir = tieTraces();
  const r = await analyzeTraceFiles([dir], { grouping: false });
  const rows = r.patterns.map((p) => [p.rank, p.score, p.id, p.failed, p.passed, p.accesses.map((a) => a.line).join(',')]);
  // the two pairs of X tie on every key; their order (by pattern key) is not part of the contract
  const pairsOfX = rows.slice(1, 3).sort((a, b) => String(a[2]).localeCompare(String(b[2])));
  assert.deepEqual(
    [rows[0], ...pairsOfX, ...rows.slice(3)],
    [
      [1, 1, 'P4', 2, 0, '1,2,3'], // longer first among the score-1 tie
      [1, 1, 'P1', 2, 0, '1,2'],
      [1, 1, 'P2', 2, 0, '2,3'],
      [4, 0.5, 'P2', 2, 2, '6,7'], // B: 2 failing runs before A's 1
      [4, 0.5, 'P3', 1, 0, '4,5'],
      [6, 0, 'P1', 0, 1, '8,9'], // C: 1 passing run before D's 2
      [6, 0, 'P1', 0, 2, '10,11'],
    ],
  );
  assert.equal(r.message, undefined);
});

test('ties (default root-cause order): fewer passing runs, then more failing runs, then shorter patterns first', async () => {
  const r = await analyzeTraceFiles([tieTraces()]);
  const rows = r.patterns.map((p) => [p.rank, p.score, p.id, p.failed, p.passed, p.accesses.map((a) => a.line).join(',')]);
  const pairsOfX = rows.slice(0, 2).sort((a, b) => String(a[2]).localeCompare(String(b[2])));
  assert.deepEqual(
    [...pairsOfX, ...rows.slice(2)],
    [
      [1, 1, 'P1', 2, 0, '1,2'], // shorter first among the score-1 tie
      [1, 1, 'P2', 2, 0, '2,3'],
      [1, 1, 'P4', 2, 0, '1,2,3'],
      [4, 0.5, 'P3', 1, 0, '4,5'], // A: no passing run before B's 2 (p = 0.5 against 1)
      [4, 0.5, 'P2', 2, 2, '6,7'],
      [6, 0, 'P1', 0, 1, '8,9'], // C: 1 passing run before D's 2
      [6, 0, 'P1', 0, 2, '10,11'],
    ],
  );
  assert.ok(r.patterns.every((p) => p.group === 'cause' && p.tieSize === 1), 'every pattern is over its own methods: no tie groups');
});

test('all runs failed: the scores are computed and a message says they cannot tell patterns apart well', async () => {
  const dir = writeTraces([
    { execution: 'F1', outcome: 'fail', events: [...A] },
    { execution: 'F2', outcome: 'fail', events: [...A, ...B] },
  ]);
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(
    r.patterns.map((p) => [p.rank, p.score, p.id]),
    [
      [1, 1, 'P3'],
      [2, 0.5, 'P2'],
    ],
  );
  assert.equal(r.message, 'All 2 runs failed; with no passing run to compare with, scores cannot tell patterns apart. Record with less noise (a smaller --noise, or braid.record.noise) or with a driver that fails less often, until some runs pass.');
  // the confidence note does not send the user for more runs, nor speak of passing runs that do not exist
  assert.match(r.confidence ?? '', /more runs alone will not help while every run fails: .*record with less noise/);
  assert.doesNotMatch(r.confidence ?? '', /seen in passing runs/);
});
