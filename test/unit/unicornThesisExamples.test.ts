/**
 * The thesis' worked examples, reproduced exactly: Table 5 (TABLE/LOG,
 * Figure 4), Figure 6 (access window of size 3, pair window of size 4) and
 * the competition ranking of Table 9.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { AccessWindow, WindowAccess } from '../../server/src/engine/unicorn/accessWindow';
import { PairWindow } from '../../server/src/engine/unicorn/pairWindow';
import { PatternRegistry } from '../../server/src/engine/unicorn/patternRegistry';
import { PatternSet } from '../../server/src/engine/unicorn/patternSet';
import { competitionRanks } from '../../server/src/engine/ranking/competitionRanking';
import { jaccard } from '../../server/src/engine/ranking/suspiciousness';
import { writeTraces } from '../helpers/traceBuilder';

// Figure 4: thread 1 does S1 (TABLE) ... S4 (LOG); thread 2 does S2 (TABLE), S3 (LOG).
const E_T1_FIRST = ['W1 TABLE S1', 'W2 TABLE S2', 'W1 LOG S4', 'W2 LOG S3']; // I1 + I4
const E_T2_FIRST = ['W2 TABLE S2', 'W1 TABLE S1', 'W2 LOG S3', 'W1 LOG S4']; // I3 + I2
const E_BUG = ['W1 TABLE S1', 'W2 TABLE S2', 'W2 LOG S3', 'W1 LOG S4']; // I1 + I2 → I5 (P9)

test('Table 5: pairs I1–I4 score 0.5, 0.5, 0.0, 0.0 and the combined P9 pattern I5 scores 1.0', async () => {
  const dir = writeTraces([
    { execution: 'E1', outcome: 'pass', events: E_T1_FIRST },
    { execution: 'E2', outcome: 'pass', events: E_T1_FIRST },
    { execution: 'E3', outcome: 'pass', events: E_T2_FIRST },
    { execution: 'E4', outcome: 'pass', events: E_T2_FIRST },
    { execution: 'E5', outcome: 'fail', events: E_BUG },
    { execution: 'E6', outcome: 'fail', events: E_BUG },
  ]);
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(r.executions, { total: 6, failed: 2, passed: 4 });
  const sig = (p: (typeof r.patterns)[number]) => p.accesses.map((a) => `${a.type}${a.thread}S${a.line}(${a.variable})`).join(' ');
  const by = new Map(r.patterns.map((p) => [sig(p), p]));
  const I1 = by.get('W1S1(TABLE) W2S2(TABLE)');
  const I2 = by.get('W1S3(LOG) W2S4(LOG)');
  const I3 = by.get('W1S2(TABLE) W2S1(TABLE)');
  const I4 = by.get('W1S4(LOG) W2S3(LOG)');
  const I5 = by.get('W1S1(TABLE) W2S2(TABLE) W2S3(LOG) W1S4(LOG)');
  assert.ok(I1 && I2 && I3 && I4 && I5, `missing patterns; got ${[...by.keys()].join(' | ')}`);
  assert.equal(I1.score, 0.5);
  assert.equal(I2.score, 0.5);
  assert.equal(I3.score, 0);
  assert.equal(I4.score, 0);
  assert.equal(I5.score, 1);
  assert.equal(I5.id, 'P9');
  assert.equal(I5.kind, 'WWWW');
  assert.deepEqual([I5.failed, I5.passed], [2, 0]);
  assert.equal(I5.rank, 1);
  assert.equal(r.patterns.length, 5, 'no other pattern exists in these runs');
});

function acc(idx: number, thread: number, write: boolean, win: AccessWindow, sacc = idx): WindowAccess {
  return { idx, thread, write, sacc, stack: -1, win };
}

test('Figure 6(a): a full access window of size 3 emits the pairs of its oldest access and drops it', () => {
  const w = new AccessWindow(3);
  const pairs: string[] = [];
  const sink = (a: WindowAccess, b: WindowAccess) => pairs.push(`${a.write ? 'W' : 'R'}${a.thread}S${a.idx}-${b.write ? 'W' : 'R'}${b.thread}S${b.idx}`);
  w.add(acc(1, 1, false, w), sink); // R1,S1
  w.add(acc(2, 2, true, w), sink); // W2,S2
  w.add(acc(3, 3, false, w), sink); // R3,S3
  assert.deepEqual(pairs, []);
  w.add(acc(4, 1, false, w), sink); // R1,S4 → window full
  assert.deepEqual(pairs, ['R1S1-W2S2'], 'R1S1-R3S3 is no pair (two reads)');
  assert.deepEqual(
    w.slots.map((a) => a.idx),
    [2, 3, 4],
  );
});

test('access window: same-thread accesses replace the latest slot, but a read never replaces a write', () => {
  const w = new AccessWindow(5);
  const sink = () => assert.fail('no pair expected');
  w.add(acc(1, 1, true, w), sink);
  w.add(acc(2, 1, false, w), sink); // read after own write: keep the write
  assert.deepEqual(w.slots.map((a) => a.idx), [1]);
  w.add(acc(3, 1, true, w), sink); // write replaces write
  assert.deepEqual(w.slots.map((a) => a.idx), [3]);
  w.add(acc(4, 2, false, w), sink);
  w.add(acc(5, 2, true, w), sink); // write replaces read
  assert.deepEqual(w.slots.map((a) => a.idx), [3, 5]);
  const pairs: number[][] = [];
  w.flush((a, b) => pairs.push([a.idx, b.idx]));
  assert.deepEqual(pairs, [[3, 5]]);
  assert.equal(w.slots.length, 0);
});

test('Figure 6(b): a pair window of size 4 finds R1(x)W2(x)R1(x), then W4(z)W2(z)W2(y)W4(y); size 2 misses the second (its pairs are 3 apart)', () => {
  for (const size of [4, 2]) {
    const reg = new PatternRegistry();
    const found = new PatternSet();
    const pw = new PairWindow(size, reg, found);
    const x = new AccessWindow(3);
    const z = new AccessWindow(3);
    const y = new AccessWindow(3);
    const v = (name: string) => reg.internVariable(name);
    const sa = (w: boolean, name: string, line: number) => reg.internAccess(w, v(name), reg.internLoc('F.java', line, 'm'));
    const R1S1 = acc(1, 1, false, x, sa(false, 'x', 1));
    const W4S4 = acc(2, 4, true, z, sa(true, 'z', 4));
    const W2S2 = acc(3, 2, true, x, sa(true, 'x', 2));
    const W2S5 = acc(4, 2, true, z, sa(true, 'z', 5));
    const R1S3 = acc(5, 1, false, x, sa(false, 'x', 3));
    const W2S6 = acc(6, 2, true, y, sa(true, 'y', 6));
    const W4S7 = acc(7, 4, true, y, sa(true, 'y', 7));
    const w = new AccessWindow(3);
    const W3S8 = acc(8, 3, true, w, sa(true, 'w', 8));
    const R5S9 = acc(9, 5, false, w, sa(false, 'w', 9));
    const ordered = [
      [R1S1, W2S2],
      [W4S4, W2S5],
      [W2S2, R1S3],
      [W3S8, R5S9], // an unrelated pair of two other threads
      [W2S6, W4S7],
    ];
    ordered.forEach(([a, b], k) => pw.push({ first: a, second: b, sig: reg.internPair(a.sacc, b.sacc), seq: k, lastCombination: -1 }));
    const combined = found.ids.map((id) => reg.patterns[id]).filter((p) => p.accesses.length > 2);
    const names = combined.map((p) => `${p.def.id}:${p.accesses.map((s) => reg.locs[reg.accesses[s].loc].line).join('')}`).sort();
    if (size === 4) assert.deepEqual(names, ['P4:123', 'P9:4567']);
    else assert.deepEqual(names, ['P4:123']);
    // every pair is also a pattern (P1–P3)
    assert.equal(found.ids.filter((id) => reg.patterns[id].accesses.length === 2).length, 5);
  }
});

test('Table 9: ties share a rank (competition ranking 1,1,1,1,5,6,6,6,6) on the printed S column', () => {
  // Table 9's S column as printed (PI1–PI9); competitionRanks expects the scores best first
  const printed = [0.6, 0.6, 0.6, 0.6, 0.38, 0.2, 0.2, 0.2, 0.2];
  assert.ok(printed.every((x, k) => k === 0 || x <= printed[k - 1]), 'input is non-increasing');
  assert.deepEqual(competitionRanks(printed), [1, 1, 1, 1, 5, 6, 6, 6, 6]);
  // a different tie pattern of the same shape: ranks skip by the size of each tie
  assert.deepEqual(competitionRanks([0.9, 0.5, 0.5, 0.5, 0.1, 0.1]), [1, 2, 2, 2, 5, 5]);
  // Table 9's F/P counts do not give its S column with any one number of failing runs: Jaccard with 5 failing runs
  // gives 0.6 and 0.375 for PI1–PI5 but 0.4 (not 0.2) for PI6–PI9, which would rank them 5th, above PI5 (9th)
  assert.deepEqual([jaccard(3, 0, 5), jaccard(3, 3, 5), jaccard(2, 0, 5)], [0.6, 0.375, 0.4]);
  // the R column through the real pipeline (Figure 11's 7 failing runs) is asserted in griffin.test.ts
});

test('competition ranking (as in Table 9) through the analysis, on invented patterns A–D: equal scores share a rank and the next rank skips', async () => {
  // three single-pair patterns: A in 2 of 2 failing runs (score 1), B and C in 1 failing run each (0.5, tie), D only passing (0)
  const A = ['W1 a S1', 'W2 a S2'];
  const B = ['W1 b S3', 'R2 b S4'];
  const C = ['W1 c S5', 'R2 c S6'];
  const D = ['R1 d S7', 'W2 d S8'];
  const dir = writeTraces([
    { execution: 'F1', outcome: 'fail', events: [...A, ...B] },
    { execution: 'F2', outcome: 'fail', events: [...A, ...C] },
    { execution: 'P1', outcome: 'pass', events: D },
  ]);
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(
    r.patterns.map((p) => [p.rank, p.score]),
    [
      [1, 1],
      [2, 0.5],
      [2, 0.5],
      [4, 0],
    ],
  );
});
