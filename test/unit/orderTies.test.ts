/**
 * Order within a tie (issue 38, "the root cause is in passing runs too"; AnalysisOptions.orderTies,
 * `braid analyze --order-ties on|off`, setting braid.analysis.orderTies; docs/algorithms.md "Order within a
 * tie"). On by default since session 15; off (`--order-ties off`) gives the ranking before it, and
 * `--grouping off` the thesis whatever the option. Among patterns equal
 * in every count and length, one whose order goes with failing — its share of its accesses' occurrences
 * (the same static accesses in any order) is larger in the failing runs, one-sided Fisher p below 0.05 /
 * the patterns tested — is listed before the others, whose presence merely co-occurs with the same runs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { normalizeSettings, DEFAULT_SETTINGS } from '../../server/src/lsp/settings';
import { isRootCause } from '../helpers/rootCause';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const key = (p: { accesses: { thread: number; type: string; line: number }[] }) => p.accesses.map((a) => `${a.thread}${a.type}${a.line}`).join(' ');

/**
 * 20 failing and 20 passing runs. A bookkeeping pair on `a` (thread 1's read at 10, thread 2's write at
 * 11) occurs in both orders, once each, in every failing run and in passing runs 0–4. The racing pair on
 * `b` (thread 1's check at 20 before thread 2's write at 21) occurs in every failing run and in passing
 * runs 0–4, always in that order, while passing runs 5–19 have its accesses the other way round (the
 * write first). Both R1 → W2 pairs are in the same runs (F20/P5), so their counts, scores and ranks tie,
 * and the static key lists `a` first; only `b`'s order goes with failing.
 */
function bookkeepingAndRace(): BuiltTrace[] {
  const a = ['R1 a S10', 'W2 a S11', 'R1 a S10'];
  const raced = ['R1 b S20', 'W2 b S21'];
  const safe = ['W2 b S21', 'R1 b S20'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 20; k++) {
    out.push({ execution: `F${k}`, outcome: 'fail', events: [...a, ...raced] });
    out.push({ execution: `P${k}`, outcome: 'pass', events: k < 5 ? [...a, ...raced] : safe });
  }
  return out;
}

test('a tie at equal counts: off, the static key lists the bookkeeping pair first; on, the pair whose order goes with failing', async () => {
  const dir = writeTraces(bookkeepingAndRace());
  const off = await analyzeTraceFiles([dir], { orderTies: false });
  const on = await analyzeTraceFiles([dir]);
  // (on is the default: the explicit option gives the same list)
  const onExplicit = await analyzeTraceFiles([dir], { orderTies: true });
  assert.deepEqual(onExplicit.patterns.map((p) => p.key), on.patterns.map((p) => p.key));
  const show = (r: typeof on) => r.patterns.slice(0, 4).map((p) => `${p.id} ${key(p)} F${p.failed}/P${p.passed} #${p.rank}`).join('; ');
  assert.equal(key(off.patterns[0]), '1R10 2W11', `off: ${show(off)}`);
  assert.equal(key(on.patterns[0]), '1R20 2W21', `on: ${show(on)}`);
  for (const r of [off, on]) {
    const a = r.patterns.find((p) => key(p) === '1R10 2W11')!;
    const b = r.patterns.find((p) => key(p) === '1R20 2W21')!;
    assert.deepEqual([a.failed, a.passed, a.rank, a.evidence], [20, 5, 1, true]);
    assert.deepEqual([b.failed, b.passed, b.rank, b.evidence], [20, 5, 1, true]);
    assert.equal(a.score, b.score);
  }
  // only the order within the tie changes: the same patterns with the same counts, scores and ranks
  const rows = (r: typeof on) => r.patterns.map((p) => `${p.key} ${p.failed}/${p.passed} ${p.score} ${p.rank} ${p.evidence}`).sort();
  assert.deepEqual(rows(on), rows(off));
  // the thesis' single list (grouping off) is not touched by the option
  const thesisOff = await analyzeTraceFiles([dir], { grouping: false, orderTies: false });
  const thesisOn = await analyzeTraceFiles([dir], { grouping: false });
  assert.deepEqual(thesisOn.patterns.map((p) => p.key), thesisOff.patterns.map((p) => p.key));
});

test('nothing moves when no tied pattern\'s order goes with failing (the accesses of b in one order only, a at the same share)', async () => {
  // passing runs 5–19 without b's other order: b is seen in one order only (nothing to compare), a's two orders take the same share in both kinds of runs
  const traces = bookkeepingAndRace().map((t, k) => (t.outcome === 'pass' && k >= 10 ? { ...t, events: ['W1 z S40', 'W2 z S41'] } : t));
  const dir = writeTraces(traces);
  const off = await analyzeTraceFiles([dir], { orderTies: false });
  const on = await analyzeTraceFiles([dir]);
  assert.deepEqual(
    on.patterns.map((p) => p.key),
    off.patterns.map((p) => p.key),
  );
  assert.equal(key(on.patterns[0]), '1R10 2W11');
});

test('async-pauseresume (design part of the real corpus, committed recording): the root cause first with the option (the default), 3rd without', async () => {
  const dir = path.resolve(__dirname, '../fixtures/real/async-pauseresume');
  const truth = [792, 797, 799, 823, 828].map((line) => ({ file: 'node_modules/async/lib/async.js', line }));
  const off = await analyzeTraceFiles([dir], { orderTies: false });
  const on = await analyzeTraceFiles([dir]);
  const firstRoot = (r: typeof on) => r.patterns.findIndex((p) => isRootCause(p, truth)) + 1;
  assert.equal(firstRoot(off), 3, 'the task list pair R :803 / W :793 (F54/P15 too) and its other order first by static key');
  assert.equal(firstRoot(on), 1, on.patterns.slice(0, 3).map((p) => `${key(p)} F${p.failed}/P${p.passed}`).join('; '));
  assert.deepEqual([on.patterns[0].failed, on.patterns[0].passed], [54, 15]);
});

test('orderTies: on unless false, --order-ties on|off, braid.analysis.orderTies', () => {
  assert.equal('orderTies' in validateOptions({}), false);
  assert.equal('orderTies' in validateOptions({ orderTies: true }), false, 'on (the default) is not in the options: one cache key for the default');
  assert.equal(validateOptions({ orderTies: false }).orderTies, false);
  assert.throws(() => validateOptions({ orderTies: 'yes' as unknown as boolean }), /orderTies must be true or false/);
  assert.equal(parseAnalyzeArgs(['x', '--order-ties', 'on']).options.orderTies, true);
  assert.equal(parseAnalyzeArgs(['x', '--order-ties', 'off']).options.orderTies, false);
  assert.throws(() => parseAnalyzeArgs(['x', '--order-ties', 'yes']), /--order-ties must be on or off/);
  assert.deepEqual(normalizeSettings({ analysis: { orderTies: true } }).analysis, DEFAULT_SETTINGS.analysis);
  assert.deepEqual(normalizeSettings({ analysis: { orderTies: 'off' } }).analysis, DEFAULT_SETTINGS.analysis);
  assert.equal(normalizeSettings({ analysis: { orderTies: false } }).analysis.orderTies, false);
});
