/**
 * The thesis' worked examples, reproduced exactly: Table 5 (TABLE/LOG,
 * Figure 4), Figure 6 (access window of size 3, pair window of size 4) and
 * the competition ranking of Table 9.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { AccessInput, AccessWindows } from '../../server/src/engine/unicorn/accessWindow';
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

/** Access windows of one size, driven the way UnicornCollector drives them (threads are given directly). */
function windows(size: number, adjacentWrites = false) {
  const ws = new AccessWindows(size, adjacentWrites);
  const input: AccessInput = { idx: 0, thread: 0, write: false, sacc: 0, stack: -1, value: undefined, hbSlot: -1, hbClock: 0, hbVc: null };
  const add = (w: number, idx: number, thread: number, write: boolean, sink: (w: number, a: number, b: number) => void) => {
    Object.assign(input, { idx, thread, write, sacc: idx });
    ws.add(w, input, sink);
  };
  const slots = (w: number) => Array.from({ length: ws.size(w) }, (_, k) => ws.slotIdx[ws.slot(w, k)]);
  const name = (s: number) => `${ws.slotWrite[s] ? 'W' : 'R'}${ws.slotThread[s]}S${ws.slotIdx[s]}`;
  return { ws, add, slots, name };
}

test('Figure 6(a): a full access window of size 3 emits the pairs of its oldest access and drops it', () => {
  const { ws, add, slots, name } = windows(3);
  const w = ws.create();
  const pairs: string[] = [];
  const sink = (_w: number, a: number, b: number) => pairs.push(`${name(a)}-${name(b)}`);
  add(w, 1, 1, false, sink); // R1,S1
  add(w, 2, 2, true, sink); // W2,S2
  add(w, 3, 3, false, sink); // R3,S3
  assert.deepEqual(pairs, []);
  add(w, 4, 1, false, sink); // R1,S4 → window full
  assert.deepEqual(pairs, ['R1S1-W2S2'], 'R1S1-R3S3 is no pair (two reads)');
  assert.deepEqual(slots(w), [2, 3, 4]);
});

test('access window: same-thread accesses replace the latest slot, but a read never replaces a write', () => {
  const { ws, add, slots } = windows(5);
  const w = ws.create();
  const sink = () => assert.fail('no pair expected');
  add(w, 1, 1, true, sink);
  add(w, 2, 1, false, sink); // read after own write: keep the write
  assert.deepEqual(slots(w), [1]);
  add(w, 3, 1, true, sink); // write replaces write
  assert.deepEqual(slots(w), [3]);
  add(w, 4, 2, false, sink);
  add(w, 5, 2, true, sink); // write replaces read
  assert.deepEqual(slots(w), [3, 5]);
  const pairs: number[][] = [];
  ws.flush(w, (_w, a, b) => pairs.push([ws.slotIdx[a], ws.slotIdx[b]]));
  assert.deepEqual(pairs, [[3, 5]]);
  assert.equal(ws.size(w), 0);
});

test('adjacent window writes (Braid\'s default, not the thesis): a write replaced by a later write of its thread stays the slot\'s first write; pairs with that slot as the later access take it, pairs with the slot as the earlier access take the latest', () => {
  // the tokencache run: R2(36) R3(36) W3(42) R3(54) W3(58) W2(42) — thread 3 sets a computing entry, then the computed one
  for (const adjacent of [false, true]) {
    const { ws, add, name } = windows(5, adjacent);
    const w = ws.create();
    const pairs: string[] = [];
    const sink = (_w: number, a: number, b: number) => pairs.push(`${name(a)}-${name(b)}`);
    add(w, 1, 2, false, sink); // R2 (check)
    add(w, 2, 3, false, sink); // R3 (check)
    add(w, 3, 3, true, sink); // W3 (act: computing), replaces R3
    add(w, 4, 3, false, sink); // R3: keeps the write
    add(w, 5, 3, true, sink); // W3 (computed): the latest write
    add(w, 6, 2, true, sink); // W2 (act)
    add(w, 7, 3, false, sink); // R3 (reads W2's)
    ws.flush(w, sink);
    if (adjacent) assert.deepEqual(pairs, ['R2S1-W3S3', 'W3S5-W2S6', 'W2S6-R3S7']);
    else assert.deepEqual(pairs, ['R2S1-W3S5', 'W3S5-W2S6', 'W2S6-R3S7'], 'the thesis: only the latest write, R2 → W3(42) is never paired');
  }
  // a run that is one write only, or a read then a write, has no first write apart from its latest
  const { ws, add, name } = windows(3, true);
  const w = ws.create();
  const pairs: string[] = [];
  const sink = (_w: number, a: number, b: number) => pairs.push(`${name(a)}-${name(b)}`);
  add(w, 1, 1, true, sink);
  add(w, 2, 2, false, sink);
  add(w, 3, 2, true, sink); // replaces the read: a plain slot
  add(w, 4, 1, true, sink);
  add(w, 5, 1, true, sink); // first write S4 kept
  add(w, 6, 2, true, sink); // window full: W1S1's pairs
  add(w, 7, 1, false, sink); // window full: W2S3's pairs
  ws.flush(w, sink);
  // W2S3 → thread 1's run takes its first write S4; W1S5 → W2S6 its latest
  assert.deepEqual(pairs, ['W1S1-W2S3', 'W2S3-W1S4', 'W1S5-W2S6', 'W2S6-R1S7']);
});

test('Figure 6(b): a pair window of size 4 finds R1(x)W2(x)R1(x), then W4(z)W2(z)W2(y)W4(y); size 2 misses the second (its pairs are 3 apart)', () => {
  for (const size of [4, 2]) {
    const reg = new PatternRegistry();
    const found = new PatternSet();
    const pw = new PairWindow(size, reg, found);
    // locations (access windows): x = 0, z = 1, y = 2, w = 3
    const v = (name: string) => reg.internVariable(name);
    const sa = (w: boolean, name: string, line: number) => reg.internAccess(w, v(name), reg.internLoc('F.java', line, 'm'));
    // accesses: [global index, thread, location, static access]
    const R1S1 = [1, 1, 0, sa(false, 'x', 1)];
    const W4S4 = [2, 4, 1, sa(true, 'z', 4)];
    const W2S2 = [3, 2, 0, sa(true, 'x', 2)];
    const W2S5 = [4, 2, 1, sa(true, 'z', 5)];
    const R1S3 = [5, 1, 0, sa(false, 'x', 3)];
    const W2S6 = [6, 2, 2, sa(true, 'y', 6)];
    const W4S7 = [7, 4, 2, sa(true, 'y', 7)];
    const W3S8 = [8, 3, 3, sa(true, 'w', 8)];
    const R5S9 = [9, 5, 3, sa(false, 'w', 9)];
    const ordered = [
      [R1S1, W2S2],
      [W4S4, W2S5],
      [W2S2, R1S3],
      [W3S8, R5S9], // an unrelated pair of two other threads
      [W2S6, W4S7],
    ];
    for (const [a, b] of ordered) {
      pw.push({ firstIdx: a[0], secondIdx: b[0], sig: reg.internPair(a[3], b[3]), t1: a[1], t2: b[1], win: a[2], stack1: -1, stack2: -1, value1: undefined, value2: undefined });
    }
    const combined = found.ids.map((id) => reg.pattern(id)).filter((p) => p.accesses.length > 2);
    const names = combined.map((p) => `${p.def.id}:${p.accesses.map((s) => reg.locs[reg.accesses[s].loc].line).join('')}`).sort();
    if (size === 4) assert.deepEqual(names, ['P4:123', 'P9:4567']);
    else assert.deepEqual(names, ['P4:123']);
    // every pair is also a pattern (P1–P3)
    assert.equal(found.ids.filter((id) => reg.pattern(id).accesses.length === 2).length, 5);
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
