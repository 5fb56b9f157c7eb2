/**
 * Evidence by order (issue 38, "the root cause is in every run"; docs/algorithms.md "Evidence by
 * order"): a pattern present in failing and passing runs alike, whose share of its accesses'
 * occurrences (the same static accesses in any order) is larger in the failing runs, is listed among
 * the patterns with evidence and scored on its passing runs weighted by how much rarer its order is in
 * them (AnalysisOptions.order; `--order off` and the thesis do not). A synthetic lazy cache whose check
 * and put occur in both orders in every run, and the committed reportcache recording's first half.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { orderPValue, orderThreshold, twoProportionP, weightedPassedRuns } from '../../server/src/engine/ranking/orderEvidence';
import { fisherOneSided } from '../../server/src/engine/ranking/fisherExact';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const key = (p: { accesses: { thread: number; type: string; line: number }[] }) => p.accesses.map((a) => `${a.thread}${a.type}${a.line}`).join(' ');

/**
 * 20 failing and 20 passing runs, every one with thread 1's check of `cache` (line 10) and thread 2's
 * put (line 11) in both orders. Failing runs: check before put three times, put before check twice;
 * passing runs the other way round. A counter updated by both threads (lines 20/21) in every run.
 */
function lazyCache(): BuiltTrace[] {
  // main starts the checker (1) before the putter (2) in every run: what differs is the order of the accesses, not which thread started first (evidence by start order)
  const started = ['START0 1', 'START0 2'];
  const counter = ['W1 count S20', 'W2 count S21'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 20; k++) {
    out.push({ execution: `F${k}`, outcome: 'fail', events: [...started, 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', ...counter] });
    out.push({ execution: `P${k}`, outcome: 'pass', events: [...started, 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', ...counter] });
  }
  return out;
}

test('a check-then-put in every run: its order goes with failing, so it has evidence and ranks first; --order off: none', async () => {
  const dir = writeTraces(lazyCache());
  const on = await analyzeTraceFiles([dir]);
  const first = on.patterns[0];
  assert.equal(key(first), '1R10 2W11', `first: ${on.patterns.map((p) => `${key(p)} F${p.failed}/P${p.passed} ${p.evidence}`).join('; ')}`);
  assert.deepEqual([first.failed, first.passed, first.evidence], [20, 20, true]);
  assert.ok(first.order, 'evidence by order');
  // (the pair window pairs each check with each put of the other thread within the window: 5 of 8 pairs check first in a failing run, 3 of 8 in a passing one)
  assert.deepEqual([first.order!.failing, first.order!.failingAll, first.order!.passing, first.order!.passingAll], [100, 160, 60, 160]);
  assert.ok(first.order!.pValue < 0.01, `p = ${first.order!.pValue}`);
  assert.ok(first.pValue > 0.5, 'no evidence by presence: it is in every run');
  // scored on 20 passing runs weighted by (60/160)/(100/160): 12
  assert.equal(first.score, 20 / (20 + 12));
  // the other order and the counter: no evidence
  for (const p of on.patterns.filter((x) => x !== first)) assert.ok(!p.evidence, `${key(p)} has no evidence`);

  for (const off of [await analyzeTraceFiles([dir], { order: false }), await analyzeTraceFiles([dir], { grouping: false })]) {
    const rw = off.patterns.find((p) => key(p) === '1R10 2W11')!;
    assert.equal(rw.order, undefined);
    assert.equal(rw.score, 0.5, 'the thesis\' score on its runs');
    if (off.options.grouping) assert.equal(rw.evidence, false);
  }
});

test('orderPValue: Fisher on the occurrences of the pattern and its other orders; the normal approximation beyond 20,000', () => {
  assert.equal(orderPValue({ failing: 60, failingOther: 40, passing: 40, passingOther: 60 }), fisherOneSided(60, 40, 100, 100));
  assert.equal(orderPValue({ failing: 5, failingOther: 0, passing: 5, passingOther: 0 }), 1, 'no other order');
  assert.equal(orderPValue({ failing: 0, failingOther: 5, passing: 5, passingOther: 0 }), 1);
  const big = orderPValue({ failing: 12000, failingOther: 8000, passing: 11800, passingOther: 8200 });
  assert.equal(big, twoProportionP(12000, 20000, 11800, 20000));
  assert.ok(big > 0.001 && big < 0.05, `${big}`);
  assert.ok(Math.abs(twoProportionP(60, 100, 40, 100) - fisherOneSided(60, 40, 100, 100)) < 0.005);
  assert.equal(orderThreshold(10), 0.005);
  assert.equal(weightedPassedRuns(17, { failing: 132, failingOther: 148, passing: 53, passingOther: 144 }), 10);
  assert.equal(weightedPassedRuns(17, { failing: 10, failingOther: 10, passing: 20, passingOther: 10 }), 17, 'never more than its runs');
});

test('recorded reportcache, first 50 runs: the check before the other thread\'s put has evidence by order, ranks first, and GRIFFIN tells a check-then-act on the map', async () => {
  const dir = path.resolve(__dirname, '../fixtures/recorded/reportcache');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.trace.jsonl.gz'))
    .sort()
    .slice(0, 50)
    .map((f) => path.join(dir, f));
  const r = await analyzeTraceFiles(files);
  const first = r.patterns[0];
  assert.deepEqual(first.accesses.map((a) => `${a.thread}${a.type}${a.line}`), ['1R61', '2W65'], `first: ${first.key} F${first.failed}/P${first.passed}`);
  assert.ok(first.order && first.order.pValue < 1e-4, `p = ${first.order?.pValue}`);
  const bugs = explainBugs(undefined, r).filter((b) => !b.evidence.weak);
  assert.equal(bugs[0]?.advice.shape, 'check-then-act-map');
  const off = await analyzeTraceFiles(files, { order: false });
  assert.notDeepEqual(off.patterns[0].accesses.map((a) => `${a.thread}${a.type}${a.line}`), ['1R61', '2W65']);
  assert.equal(explainBugs(undefined, off).filter((b) => !b.evidence.weak).length, 0, 'no bug that is not weak without it');
});
