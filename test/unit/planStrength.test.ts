/**
 * Plan strength calibration (`braid pinpoint --plan-strength auto`, engine/noise/planStrength.ts):
 * the weakest per-visit probability whose runs still fail about as often as full strength, found by
 * bisection over P, P/2 … P/64 with 8 runs a level. Expected levels and run counts are worked out by
 * hand from the rule in the file's header.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { calibratePlanStrength, StrengthOracle } from '../../server/src/engine/noise/planStrength';
import { rng } from '../helpers/seededRandom';

/** A program that fails exactly when the noise probability is at least `threshold`. */
const threshold = (t: number): StrengthOracle => async (q) => q >= t;

test('a program that needs noise at 1/8 of the visits: levels 1, 1/8, 1/32, 1/16 are measured and 1/8 is kept (32 runs)', async () => {
  const r = await calibratePlanStrength(threshold(1 / 8), { budget: 400 });
  assert.equal(r.probability, 1 / 8);
  assert.equal(r.reason, 'calibrated');
  assert.deepEqual(
    r.levels.map((l) => [l.probability, l.failures, l.accepted]),
    [
      [1, 8, true],
      [1 / 8, 8, true],
      [1 / 32, 0, false],
      [1 / 16, 0, false],
    ],
  );
  assert.equal(r.runs, 32);
});

test('a program that fails only at full strength keeps probability 1 (levels 1, 1/8, 1/2: 24 runs)', async () => {
  const r = await calibratePlanStrength(threshold(1), { budget: 400 });
  assert.equal(r.probability, 1);
  assert.deepEqual(r.levels.map((l) => l.probability), [1, 1 / 8, 1 / 2]);
  assert.equal(r.runs, 24);
});

test('one noise event is enough: calibration goes down to P/64, never below', async () => {
  const r = await calibratePlanStrength(threshold(0), { budget: 400 });
  assert.equal(r.probability, 1 / 64);
  assert.deepEqual(r.levels.map((l) => l.probability), [1, 1 / 8, 1 / 32, 1 / 64]);
});

test('the full probability is the search\'s (--probability 0.5): levels are halvings of it', async () => {
  const seen: number[] = [];
  const r = await calibratePlanStrength(async (q) => (seen.push(q), q >= 0.5 / 4), { full: 0.5, budget: 400 });
  assert.equal(r.probability, 0.125);
  assert.deepEqual([...new Set(seen)], [0.5, 0.0625, 0.25, 0.125]);
});

test('full strength that reproduces rarely (5 of 8) is kept as it is: 8 runs, reason full-strength-weak', async () => {
  let k = 0;
  const r = await calibratePlanStrength(async () => k++ % 8 < 5, { budget: 400 });
  assert.equal(r.probability, 1);
  assert.equal(r.reason, 'full-strength-weak');
  assert.equal(r.runs, 8);
  assert.equal(r.levels[0].failures, 5);
});

/** A program whose runs at each probability fail as listed (in order; true = failed). */
const scripted = (outcomes: Map<number, boolean[]>): StrengthOracle => {
  const used = new Map<number, number>();
  return async (q) => {
    const k = used.get(q) ?? 0;
    used.set(q, k + 1);
    return outcomes.get(q)?.[k] ?? false;
  };
};
const runsOf = (failures: number, runs = 8) => Array.from({ length: runs }, (_, k) => k < failures);

test('a level may fail one run fewer than full strength, not two; one that did must be confirmed by 8 more runs (15 of 16)', async () => {
  // full 8/8; 1/8 8/8 (kept so far); 1/32 6/8 (rejected: two fewer); 1/16 7/8 (accepted) then 8/8 more: 15/16, kept
  const confirmed = await calibratePlanStrength(
    scripted(new Map([[1, runsOf(8)], [1 / 8, runsOf(8)], [1 / 32, runsOf(6)], [1 / 16, [...runsOf(7), ...runsOf(8)]]])),
    { budget: 400 },
  );
  assert.deepEqual(confirmed.levels.map((l) => [l.probability, l.failures, l.runs, l.accepted]), [[1, 8, 8, true], [1 / 8, 8, 8, true], [1 / 32, 6, 8, false], [1 / 16, 15, 16, true]]);
  assert.equal(confirmed.probability, 1 / 16);
  assert.equal(confirmed.runs, 40);
  // the same, but the 8 more runs at 1/16 fail 6 times (13/16): back to 1/8, the weakest level that failed 8 of 8
  const refuted = await calibratePlanStrength(
    scripted(new Map([[1, runsOf(8)], [1 / 8, runsOf(8)], [1 / 32, runsOf(6)], [1 / 16, [...runsOf(7), ...runsOf(6)]]])),
    { budget: 400 },
  );
  assert.deepEqual(refuted.levels.at(-1), { probability: 1 / 16, failures: 13, runs: 16, accepted: false });
  assert.equal(refuted.probability, 1 / 8);
  // 1/8 at 7/8 and nothing weaker accepted: refuted → full strength
  const back = await calibratePlanStrength(scripted(new Map([[1, runsOf(8)], [1 / 8, [...runsOf(7), ...runsOf(5)]]])), { budget: 400 });
  assert.deepEqual(back.levels.map((l) => [l.probability, l.failures, l.runs]), [[1, 8, 8], [1 / 8, 12, 16], [1 / 32, 0, 8], [1 / 16, 0, 8]]);
  assert.equal(back.probability, 1);
});

test('the budget bounds it: with 20 runs left only full strength and one level are measured', async () => {
  let runs = 0;
  const r = await calibratePlanStrength(async (q) => (runs++, q >= 1 / 64), { budget: 20 });
  assert.equal(runs, 16);
  assert.equal(r.runs, 16);
  assert.equal(r.reason, 'budget');
  assert.equal(r.probability, 1 / 8, 'the level accepted before the budget ran out');
  const none = await calibratePlanStrength(async () => true, { budget: 7 });
  assert.equal(none.runs, 0);
  assert.equal(none.probability, 1);
  assert.equal(none.reason, 'budget');
});

test('a noisy program: the level kept fails at least half the time in 100 seeded calibrations, and a half-failing level is rarely kept', async () => {
  // true failure rates: 1 at ≥ 1/4 of the visits, ½ at 1/8, 0 below
  const rate = (q: number) => (q >= 1 / 4 ? 1 : q >= 1 / 8 ? 0.5 : 0);
  let halfKept = 0;
  for (let seed = 1; seed <= 100; seed++) {
    const random = rng(seed);
    const r = await calibratePlanStrength(async (q) => random() < rate(q), { budget: 400 });
    assert.ok(rate(r.probability) >= 0.5, `seed ${seed}: kept ${r.probability}, which never fails`);
    if (rate(r.probability) < 1) halfKept++;
  }
  // P(≥ 7 of 8 | ½) = 9/256 ≈ 3.5 %
  assert.ok(halfKept <= 10, `a level failing half the time was kept in ${halfKept} of 100 calibrations`);
});

test('jobs: at most `jobs` runs in flight; a cancelled calibration says so', async () => {
  let inFlight = 0;
  let most = 0;
  const r = await calibratePlanStrength(async (q) => {
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    return q >= 1 / 4;
  }, { budget: 400, jobs: 3 });
  assert.equal(most, 3);
  assert.equal(r.probability, 1 / 4);
  const controller = new AbortController();
  let n = 0;
  const c = await calibratePlanStrength(async () => {
    if (++n === 10) controller.abort();
    return true;
  }, { budget: 400, signal: controller.signal });
  assert.equal(c.reason, 'cancelled');
  assert.ok(c.runs <= 10);
});
