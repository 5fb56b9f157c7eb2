/**
 * Evidence by start order (issue 38, "what differs is the order within the same pattern"; docs/algorithms.md
 * "Evidence by start order"): a symmetric pattern present in every run — two workers' `W index` at one
 * line — has no evidence by presence and no other order to be compared with; when the worker started
 * later makes the first write in the failing runs only, that variant has evidence and the pattern ranks
 * first, scored as its variant (AnalysisOptions.startOrder; `--start-order off` and the thesis do not).
 * The counts survive a summary file and the workspace snapshot. p-map's recording (pmap-iterindex) is
 * checked by realRecorded.test.ts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, AnalysisResult, analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { normalizeSettings, DEFAULT_SETTINGS } from '../../server/src/lsp/settings';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { decodeWorkspaceSnapshot, encodeWorkspaceSnapshot } from '../../server/src/engine/summary/workspaceSnapshot';
import { fisherOneSided } from '../../server/src/engine/ranking/fisherExact';
import { startOrderThreshold, startOrderVariant, testable, variantScoredPassed } from '../../server/src/engine/ranking/startOrderEvidence';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const key = (p: { accesses: { thread: number; type: string; line: number }[] }) => p.accesses.map((a) => `${a.thread}${a.type}${a.line}`).join(' ');
const list = (r: AnalysisResult) =>
  r.patterns.map((p) => `${key(p)} F${p.failed}/P${p.passed} ${p.evidence}`).join('; ');

/**
 * 20 failing and 20 passing runs. The main thread starts worker 2, then worker 3; both write `index`
 * at line 29 in every run — in the failing runs worker 3 (started later) first, in the passing runs
 * worker 2. A consequence goes with failing by its presence: worker 2's write of `done` (line 41)
 * before the main thread's read (line 40), in every failing run and in 4 passing ones.
 * `inOrderFails`: the other way round (the run fails when the worker started first writes first).
 */
function workers(inOrderFails = false): BuiltTrace[] {
  const out: BuiltTrace[] = [];
  const late = ['W3 index S29', 'W2 index S29'];
  const early = ['W2 index S29', 'W3 index S29'];
  const consequence = ['W2 done S41', 'R1 done S40'];
  for (let k = 0; k < 20; k++) {
    out.push({ execution: `F${k}`, outcome: 'fail', events: ['START1 2', 'START1 3', ...(inOrderFails ? early : late), ...consequence] });
    out.push({ execution: `P${k}`, outcome: 'pass', events: ['START1 2', 'START1 3', ...(inOrderFails ? late : early), ...(k < 4 ? consequence : [])] });
  }
  return out;
}

test('two workers in every run: the one started later writing first goes with failing, so the pattern has evidence by start order and ranks first; --start-order off: the consequence does', async () => {
  const dir = writeTraces(workers());
  const on = await analyzeTraceFiles([dir]);
  const first = on.patterns[0];
  assert.equal(key(first), '1W29 2W29', list(on));
  assert.deepEqual([first.failed, first.passed, first.evidence], [20, 20, true]);
  assert.ok(first.pValue > 0.5, 'no evidence by presence: it is in every run');
  assert.deepEqual(first.order, { pValue: fisherOneSided(20, 0, 20, 20), failing: 20, failingAll: 20, passing: 0, passingAll: 20, start: { overtaken: true } });
  // scored as its variant: in 20 failing runs and no passing run
  assert.equal(first.score, 1);
  const consequence = on.patterns.find((p) => key(p) === '1W41 2R40')!;
  assert.deepEqual([consequence.failed, consequence.passed, consequence.evidence], [20, 4, true]);
  assert.ok(on.patterns.indexOf(consequence) > 0);

  for (const off of [await analyzeTraceFiles([dir], { startOrder: false }), await analyzeTraceFiles([dir], { order: false }), await analyzeTraceFiles([dir], { grouping: false })]) {
    assert.equal(key(off.patterns[0]), '1W41 2R40', list(off));
    const ww = off.patterns.find((p) => key(p) === '1W29 2W29')!;
    assert.equal(ww.order, undefined);
    assert.equal(ww.score, 0.5, "the thesis' score on its runs");
    if (off.options.grouping) assert.equal(ww.evidence, false);
  }
});

test('the worker started first writing first goes with failing: the in-start-order variant has the evidence', async () => {
  const r = await analyzeTraceFiles([writeTraces(workers(true))]);
  assert.equal(key(r.patterns[0]), '1W29 2W29', list(r));
  assert.deepEqual(r.patterns[0].order?.start, { overtaken: false });
});

test('a start order that does not go with failing (each way in half of the runs of both kinds) is no evidence', async () => {
  const traces = workers().map((t, k) =>
    k % 4 < 2 ? t : { ...t, events: t.events.map((e) => (e === 'W3 index S29' ? 'W2 index S29' : e === 'W2 index S29' ? 'W3 index S29' : e)) },
  );
  const r = await analyzeTraceFiles([writeTraces(traces)]);
  const ww = r.patterns.find((p) => key(p) === '1W29 2W29')!;
  assert.equal(ww.evidence, false, list(r));
  assert.equal(ww.order, undefined);
  assert.equal(key(r.patterns[0]), '1W41 2R40');
});

test('evidence by start order is a ranking signal only: GRIFFIN takes no lead from it', async () => {
  const r = await analyzeTraceFiles([writeTraces(workers())]);
  const bugs = explainBugs(undefined, r);
  assert.ok(bugs.length >= 1);
  for (const b of bugs) assert.notEqual(key(r.patterns[b.patterns[0]]), '1W29 2W29', 'not a lead');
  assert.equal(key(r.patterns[bugs[0].patterns[0]]), '1W41 2R40', 'the lead is the pattern with evidence by presence');
});

test('the overtaken counts survive the workspace snapshot and a summary file: the same ranking after either', async () => {
  const dir = writeTraces(workers());
  const direct = await analyzeTraceFiles([dir]);
  const analyzer = new Analyzer();
  for (const f of direct.runs.map((x) => x.file)) await analyzer.addTrace(f);
  const loaded = decodeWorkspaceSnapshot(Buffer.concat(encodeWorkspaceSnapshot(analyzer, [])), {}).analyzer;
  const fromSnapshot = loaded.rank();
  assert.equal(key(fromSnapshot.patterns[0]), '1W29 2W29');
  assert.deepEqual(fromSnapshot.patterns[0].order, direct.patterns[0].order);
  const merged = new Analyzer();
  merged.addSummary(JSON.parse(JSON.stringify(analyzer.toSummary())));
  const fromSummary = merged.rank();
  assert.equal(key(fromSummary.patterns[0]), '1W29 2W29');
  assert.deepEqual(fromSummary.patterns[0].order, direct.patterns[0].order);
});

test('startOrderVariant, its threshold and the passing runs it is scored on', () => {
  const r = { failingOvertaken: 20, failingInOrder: 0, passingOvertaken: 0, passingInOrder: 20 };
  assert.equal(testable(r), true);
  assert.equal(testable({ ...r, passingInOrder: 0 }), false, 'never in start order: nothing to compare');
  assert.equal(testable({ failingOvertaken: 0, failingInOrder: 0, passingOvertaken: 3, passingInOrder: 3 }), false, 'in no failing run');
  assert.equal(startOrderThreshold(5), 0.005);
  assert.deepEqual(startOrderVariant(r, 20, 20, 0.005), { overtaken: true, failed: 20, passed: 0, pValue: fisherOneSided(20, 0, 20, 20) });
  // a variant in 95 % of the passing runs is no evidence, whatever its p
  assert.equal(startOrderVariant({ failingOvertaken: 100, failingInOrder: 0, passingOvertaken: 19, passingInOrder: 1 }, 100, 20, 0.05), undefined);
  // both variants with evidence: the stronger
  assert.equal(startOrderVariant({ failingOvertaken: 20, failingInOrder: 20, passingOvertaken: 0, passingInOrder: 5 }, 20, 20, 0.05)?.overtaken, true);
  // scored as its variant: 10 of 20 failing runs, 2 passing → 10/22; the pattern in 20 failing runs needs 24 passing for 20/44
  assert.equal(variantScoredPassed(20, { overtaken: true, failed: 10, passed: 2, pValue: 0 }, 20), 24);
  assert.equal(variantScoredPassed(20, { overtaken: true, failed: 20, passed: 3, pValue: 0 }, 20), 3);
});

test('startOrder: on unless false, --start-order on|off, braid.analysis.startOrder', () => {
  assert.equal('startOrder' in validateOptions({}), false);
  assert.equal('startOrder' in validateOptions({ startOrder: true }), false, 'on (the default) is not in the options: one cache key for the default');
  assert.equal(validateOptions({ startOrder: false }).startOrder, false);
  assert.throws(() => validateOptions({ startOrder: 'yes' as unknown as boolean }), /startOrder must be true or false/);
  assert.equal(parseAnalyzeArgs(['x', '--start-order', 'on']).options.startOrder, true);
  assert.equal(parseAnalyzeArgs(['x', '--start-order', 'off']).options.startOrder, false);
  assert.throws(() => parseAnalyzeArgs(['x', '--start-order', 'yes']), /--start-order must be on or off/);
  assert.deepEqual(normalizeSettings({ analysis: { startOrder: true } }).analysis, DEFAULT_SETTINGS.analysis);
  assert.equal(normalizeSettings({ analysis: { startOrder: false } }).analysis.startOrder, false);
});
