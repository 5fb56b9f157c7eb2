/**
 * Pair before its combination (issue 38, "a combination adds an access the failure does not need";
 * AnalysisOptions.pairFirst, `braid analyze --pair-first on|off`; docs/algorithms.md "Pair before its
 * combination"). Off by default (it also lists a real atomicity violation after its first pair); off gives
 * the ranking before it, and `--grouping off` the thesis whatever the option. A three-access combination with evidence is scored on the counts of a pair it contains (two of its accesses
 * by its two threads, in its order: present in every run the combination is) when that pair has evidence,
 * and is listed right after it; its own counts are unchanged.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { isRootCause } from '../helpers/rootCause';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const key = (p: { accesses: { thread: number; type: string; line: number }[] }) => p.accesses.map((a) => `${a.thread}${a.type}${a.line}`).join(' ');

/**
 * 20 failing and 30 passing runs. The race: thread 1's write at 10, then thread 2's write at 11 (a clear
 * racing an insert), in every failing run and in passing runs 0–9. In failing runs 0–17 and passing run 0
 * thread 1 writes again at 12 right after (a neighbouring update that merely often follows): the
 * combination 1W10 2W11 1W12 is in 18 failing runs and 1 passing run, a higher score than the race's
 * 20 failing and 10 passing runs although it explains fewer failures. Passing runs 10–19 have thread 2's
 * write at 11 and thread 1's at 12 alone; 20–29 touch another variable.
 */
function raceAndNeighbour(): BuiltTrace[] {
  const race = ['W1 x S10', 'W2 x S11'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 20; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: k < 18 ? [...race, 'W1 x S12'] : race });
  for (let k = 0; k < 30; k++)
    out.push({
      execution: `P${k}`,
      outcome: 'pass',
      events: k === 0 ? [...race, 'W1 x S12'] : k < 10 ? race : k < 20 ? ['W2 x S11', 'W1 x S12'] : ['W1 z S40', 'W2 z S41'],
    });
  return out;
}

test('a combination above the pair it extends: off, the combination first on its own score; on, the pair first and the combination right after it', async () => {
  const dir = writeTraces(raceAndNeighbour());
  const off = await analyzeTraceFiles([dir]);
  const on = await analyzeTraceFiles([dir], { pairFirst: true });
  // (off is the default: the explicit option gives the same list)
  const offExplicit = await analyzeTraceFiles([dir], { pairFirst: false });
  assert.deepEqual(offExplicit.patterns.map((p) => p.key), off.patterns.map((p) => p.key));
  const show = (r: typeof on) => r.patterns.slice(0, 4).map((p) => `${p.id} ${key(p)} F${p.failed}/P${p.passed} #${p.rank} ${p.score.toFixed(3)}`).join('; ');
  assert.equal(key(off.patterns[0]), '1W10 2W11 1W12', `off: ${show(off)}`);
  assert.equal(off.patterns[0].pair, undefined);
  assert.deepEqual(on.patterns.slice(0, 2).map(key), ['1W10 2W11', '1W10 2W11 1W12'], `on: ${show(on)}`);
  const race = on.patterns[0];
  const combination = on.patterns[1];
  // the counts are each pattern's own; the combination is scored (and ranked) as the pair it extends
  assert.deepEqual([race.failed, race.passed, race.evidence], [20, 10, true]);
  assert.deepEqual([combination.failed, combination.passed, combination.evidence], [18, 1, true]);
  assert.deepEqual(combination.pair, { key: race.key, failed: 20, passed: 10 });
  assert.equal(combination.score, race.score);
  assert.equal(combination.rank, race.rank);
  assert.equal(race.pair, undefined);
  // every other pattern keeps its counts and score
  const rows = (r: typeof on) => r.patterns.filter((p) => key(p) !== '1W10 2W11 1W12').map((p) => `${p.key} ${p.failed}/${p.passed} ${p.score} ${p.evidence}`).sort();
  assert.deepEqual(rows(on), rows(off));
  // the thesis' single list (grouping off) is not touched by the option
  const thesisOff = await analyzeTraceFiles([dir], { grouping: false });
  const thesisOn = await analyzeTraceFiles([dir], { grouping: false, pairFirst: true });
  assert.deepEqual(thesisOn.patterns.map((p) => p.key), thesisOff.patterns.map((p) => p.key));
  assert.ok(thesisOn.patterns.every((p) => p.pair === undefined));
});

test('nothing moves when the pair it extends has no evidence (the race in every passing run too)', async () => {
  const everywhere = raceAndNeighbour().map((t) => (t.outcome === 'pass' && !t.events.includes('W1 x S10') ? { ...t, events: ['W1 x S10', 'W2 x S11'] } : t));
  const dir = writeTraces(everywhere);
  const off = await analyzeTraceFiles([dir]);
  const on = await analyzeTraceFiles([dir], { pairFirst: true });
  assert.deepEqual(on.patterns.map((p) => p.key), off.patterns.map((p) => p.key));
  // (its other pair, thread 2's write at 11 then thread 1's at 12, has the combination's counts: first by length, either way)
  assert.deepEqual(on.patterns.slice(0, 2).map(key), ['1W11 2W12', '1W10 2W11 1W12']);
  const race = on.patterns.find((p) => key(p) === '1W10 2W11')!;
  assert.deepEqual([race.failed, race.passed, race.evidence], [20, 30, false]);
  assert.ok(on.patterns.every((p) => p.pair === undefined));
});

test('the option: validated, and --pair-first on|off on the command line', () => {
  assert.throws(() => validateOptions({ pairFirst: 'yes' as unknown as boolean }), /pairFirst must be true or false, got "yes"/);
  // (off is the default: not kept in the options, so results and reports read as before the option existed)
  assert.equal('pairFirst' in validateOptions({ pairFirst: false }), false);
  assert.equal(validateOptions({ pairFirst: true }).pairFirst, true);
  assert.equal(parseAnalyzeArgs(['t', '--pair-first', 'off']).options.pairFirst, false);
  assert.equal(parseAnalyzeArgs(['t', '--pair-first', 'on']).options.pairFirst, true);
  assert.throws(() => parseAnalyzeArgs(['t', '--pair-first', 'maybe']), /--pair-first must be on or off, got "maybe"/);
});

test('micrometer-obscontext (design part of the real corpus, committed recording): the root cause first with the option, 2nd without (the default)', async () => {
  const dir = path.join(__dirname, '../fixtures/real/micrometer-obscontext');
  const truth = [
    { file: 'io/micrometer/observation/Observation.java', line: 1036 },
    { file: 'io/micrometer/observation/Observation.java', line: 1043 },
  ];
  const off = await analyzeTraceFiles([dir]);
  const on = await analyzeTraceFiles([dir], { pairFirst: true });
  const show = (r: typeof on) => r.patterns.slice(0, 4).map((p) => `${p.id} ${key(p)} F${p.failed}/P${p.passed}`).join('; ');
  // off: the clear / computeIfAbsent pair with the clearer's put(…) :962 after it (F5/P3) first, the root cause 2nd
  assert.equal(isRootCause(off.patterns[0], truth), false, `off: ${show(off)}`);
  assert.equal(off.patterns.findIndex((p) => isRootCause(p, truth)), 1);
  // on: the pair W clear :1043 → W computeIfAbsent :1036 (F11/P32) first; the combinations that extend it right after
  const first = on.patterns[0];
  assert.ok(isRootCause(first, truth), `on: ${show(on)}`);
  assert.equal(key(first), '1W1043 2W1036');
  assert.deepEqual([first.failed, first.passed], [11, 32]);
  for (const p of on.patterns.slice(1, 3)) assert.deepEqual(p.pair, { key: first.key, failed: 11, passed: 32 });
});

test('a multi-variable combination keeps its place: what it says (two variables left inconsistent) none of its pairs can', async () => {
  // the race on x as above; thread 2 then writes y and thread 1 writes y too: W1 x, W2 x, W2 y, W1 y (P9) in failing runs 0–17 and passing run 0
  const traces = raceAndNeighbour().map((t) =>
    t.events.includes('W1 x S10') && t.events.includes('W1 x S12') ? { ...t, events: ['W1 x S10', 'W2 x S11', 'W2 y S30', 'W1 y S31'] } : t,
  );
  const dir = writeTraces(traces);
  const off = await analyzeTraceFiles([dir]);
  const on = await analyzeTraceFiles([dir], { pairFirst: true });
  const multi = on.patterns.find((p) => key(p) === '1W10 2W11 2W30 1W31')!;
  assert.ok(multi && multi.evidence, on.patterns.map((p) => `${p.id} ${key(p)} F${p.failed}/P${p.passed}`).join('; '));
  assert.equal(multi.pair, undefined);
  assert.deepEqual([multi.failed, multi.passed], [18, 1]);
  // (it scores above the race on x it contains, F20/P10, and stays there)
  assert.ok(on.patterns.indexOf(multi) < on.patterns.findIndex((p) => key(p) === '1W10 2W11'));
  assert.deepEqual(on.patterns.map((p) => p.key), off.patterns.map((p) => p.key));
});
