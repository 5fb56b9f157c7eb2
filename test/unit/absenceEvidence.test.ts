/**
 * Evidence by absence (issue 38, "most runs fail"; docs/algorithms.md "Evidence by absence"): a
 * pattern missing from the failing runs and present in the passing ones — a racing pair's
 * protective order — is listed among the patterns with evidence, scored on the counts of its
 * absence (AnalysisOptions.absence; `--absence off` and the thesis do not). A synthetic check-then-act
 * whose failing order also occurs in every passing run, and a committed real recording (genpool-clear).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisOptions, validateOptions } from '../../server/src/engine/analysis';
import { hasAbsenceEvidence, hasEvidence } from '../../server/src/engine/ranking/rootCauseOrder';
import { textReport } from '../../server/src/engine/report/textReport';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';
import { BugLine, isRootCause } from '../helpers/rootCause';

const THESIS: Partial<AnalysisOptions> = { happensBefore: false, grouping: false, windowWrites: 'latest' };
const at = (...lines: number[]): BugLine[] => lines.map((line) => ({ file: 'Fixture.java', line }));
// the check (thread 1 reads `paused` at line 10) and the act of the other thread (thread 2 writes it at 11)
const CHECK_THEN_ACT = at(10, 11);

/**
 * 15 failing and 5 passing runs. Passing: thread 1 checks `paused` before thread 2 writes it (the
 * protective order), then checks again. Failing: thread 2 writes first; thread 1's check sees the
 * write (that order, W2 → R1, is in every run: no evidence), and the failure's consequence — two
 * workers updating `running` (lines 20/21) — follows, also in 2 of the 5 passing runs.
 */
function fastqLike(): BuiltTrace[] {
  const consequence = ['W1 running S20', 'W2 running S21'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 5; k++)
    out.push({ execution: `P${k}`, outcome: 'pass', events: ['R1 paused S10', 'W2 paused S11', 'R1 paused S10', ...(k < 2 ? consequence : ['W1 running S20'])] });
  for (let k = 0; k < 15; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: ['W2 paused S11', 'R1 paused S10', ...consequence] });
  return out;
}

test('the order only passing runs take has evidence by its absence: the check before the act ranks first, not the consequence', async () => {
  const dir = writeTraces(fastqLike());
  // (evidence by order off: in this table the failing order also takes a larger share of the occurrences in failing runs; orderEvidence.test.ts)
  const on = await analyzeTraceFiles([dir], { absence: true, order: false });
  const first = on.patterns[0];
  assert.ok(isRootCause(first, CHECK_THEN_ACT), `first: ${first.key} F${first.failed}/P${first.passed}`);
  assert.deepEqual([first.failed, first.passed, first.evidence], [0, 5, true]);
  assert.deepEqual(first.accesses.map((a) => `${a.thread}${a.type}${a.line}`), ['1R10', '2W11'], 'the protective order: the check before the act');
  assert.equal(first.score, 1, 'scored on its absence: missing from 15 of 15 failing runs and from none of the passing');
  assert.ok(first.absence && first.absence.pValue < 1e-4, `p of its absence: ${first.absence?.pValue}`);
  assert.equal(on.confidence, undefined, 'the first pattern\'s evidence is its absence (p = 1/C(20,5) = 6.4e-5), not chance');
  // the failing order is in every run: no evidence either way
  const failingOrder = on.patterns.find((p) => p.accesses.map((a) => `${a.type}${a.line}`).join() === 'W11,R10')!;
  assert.deepEqual([failingOrder.failed, failingOrder.passed, failingOrder.evidence, failingOrder.absence], [15, 5, false, undefined]);

  // without the rule (the default, --absence off) the consequence is first and the check-then-act has no evidence
  for (const r of [await analyzeTraceFiles([dir], { order: false }), await analyzeTraceFiles([dir], { absence: false, order: false })]) {
    assert.ok(!isRootCause(r.patterns[0], CHECK_THEN_ACT), `first without the rule: ${r.patterns[0].key}`);
    assert.ok(r.patterns[0].accesses.every((a) => a.variable === 'running'));
    const protective = r.patterns.find((p) => p.failed === 0 && p.passed === 5)!;
    assert.equal(protective.evidence, false);
    assert.equal(protective.absence, undefined);
  }
  // the thesis (grouping off) is unchanged by the option: one list by Jaccard, the protective order scores 0
  const thesis = await analyzeTraceFiles([dir], { ...THESIS, absence: true });
  const thesisOff = await analyzeTraceFiles([dir], THESIS);
  assert.deepEqual(thesis.patterns.map((p) => [p.key, p.score]), thesisOff.patterns.map((p) => [p.key, p.score]));
  assert.equal(thesis.patterns.find((p) => p.failed === 0)!.score, 0);
});

test('absence is evidence only when the pattern has none of its own and its absence goes with failing', () => {
  // 92 failing, 8 passing (fastq-resume): in the 8 passing runs only
  assert.equal(hasAbsenceEvidence(0, 8, 92, 8), true);
  assert.equal(hasEvidence(0, 8, 92, 8), false);
  // in every run, or in no passing run: nothing to say by absence
  assert.equal(hasAbsenceEvidence(92, 8, 92, 8), false);
  assert.equal(hasAbsenceEvidence(50, 0, 92, 8), false);
  // most runs pass: a pattern in a few passing runs is no evidence of anything
  assert.equal(hasAbsenceEvidence(0, 5, 5, 95), false);
  // a pattern in every passing run and no failing one while most runs pass (metrics-cachedgauge, 5 of 50 failing): no
  assert.equal(hasAbsenceEvidence(0, 45, 5, 45), false);
  // a pattern with evidence of its own keeps it
  assert.equal(hasAbsenceEvidence(30, 1, 92, 8), false);
  assert.throws(() => validateOptions({ absence: 'yes' as unknown as boolean }), /absence must be true or false, got "yes"/);
});

const genpool = path.resolve(__dirname, '../fixtures/real/genpool-clear');

test('real recording genpool-clear (82 of 100 runs fail, recorded with the Node recorder of 9a51aea8): by default the root cause ranks first by its presence (F47/P0); with --absence on, the protective order of the passing runs — the create\'s node.next write before clear()\'s iterator reads it, in 18 passing runs and no failing one — is among the first rank by its absence', { skip: !existsSync(genpool) && 'no committed recording' }, async () => {
  // truth (bench/real/node/genpool-clear/truth.json): DoublyLinkedList.js:26/48/52 writes, DoublyLinkedListIterator.js:40/43/89 reads
  const lines: BugLine[] = [
    ...[40, 43, 89].map((line) => ({ file: 'node_modules/generic-pool/lib/DoublyLinkedListIterator.js', line })),
    ...[26, 48, 52].map((line) => ({ file: 'node_modules/generic-pool/lib/DoublyLinkedList.js', line })),
  ];
  const off = await analyzeTraceFiles([genpool], { absence: false });
  assert.deepEqual(off.executions, { total: 100, failed: 82, passed: 18 });
  const first = off.patterns[0];
  assert.ok(isRootCause(first, lines), `first without the rule: ${first.key} F${first.failed}/P${first.passed}`);
  assert.deepEqual([first.failed, first.passed, first.evidence], [47, 0, true]);
  const on = await analyzeTraceFiles([genpool], { absence: true });
  const top = on.patterns.filter((p) => p.rank === 1);
  const cause = top.find((p) => isRootCause(p, lines) && p.absence !== undefined);
  assert.ok(cause, `rank 1 with the rule: ${top.map((p) => `${p.key} F${p.failed}/P${p.passed}`).join('; ')}`);
  assert.deepEqual([cause.failed, cause.passed], [0, 18]);
  assert.ok(cause.absence!.pValue < 1e-10);
  const k = off.patterns.findIndex((p) => p.key === cause.key);
  assert.ok(k > 0 && off.patterns[k].evidence === false, `without the rule it is listed at ${k + 1}, without evidence`);
});

test('the text report says what a pattern with evidence by absence rests on, and that the rule is on', async () => {
  const dir = writeTraces(fastqLike());
  const on = textReport(await analyzeTraceFiles([dir], { absence: true }));
  assert.match(on, /, evidence by absence;/);
  assert.match(on, /Evidence by absence: seen in 5 passing and 0 failing runs — the order the passing runs took, missing where the program failed \(p = 6\.4e-5\)\./);
  const off = textReport(await analyzeTraceFiles([dir]));
  assert.doesNotMatch(off, /evidence by absence|Evidence by absence/);
});

test('at an equal score a pattern that happened in the failing runs is listed before one that did not happen in them', async () => {
  // in the 15 failing runs thread 1 writes `flag` and thread 2 reads it (lines 30/31), and their W2 → R1 of `paused` is
  // ordered by a hand-off; the 5 passing runs take the protective order of 10/11. The passing runs are read first
  // (their patterns are registered first): the order must not depend on that.
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 5; k++) out.push({ execution: `a-pass-${k}`, outcome: 'pass', events: ['R1 paused S10', 'W2 paused S11'] });
  for (let k = 0; k < 15; k++) out.push({ execution: `b-fail-${k}`, outcome: 'fail', events: ['W2 paused S11', 'SND2 1', 'RCV1 1', 'R1 paused S10', 'W1 flag S30', 'R2 flag S31'] });
  const r = await analyzeTraceFiles([writeTraces(out)], { absence: true });
  const [a, b] = r.patterns;
  assert.deepEqual([a.score, a.failed, a.passed, a.absence], [1, 15, 0, undefined]);
  assert.deepEqual([b.score, b.failed, b.passed, !!b.absence], [1, 0, 5, true]);
  assert.equal(a.rank, b.rank, 'one score, one rank');
});
