/**
 * Issue 38 item 5, "consequences of failure ranked after causes" (AnalysisOptions.symptomsLast;
 * `braid analyze --symptoms last`; docs/algorithms.md "Symptoms last"). A lost update whose racing
 * order is in every run, passing or failing, has no evidence; the failing runs then write an error
 * counter after their failure point (a FAIL event), a pair seen in failing runs only: a symptom with
 * evidence. By default (`--symptoms evidence`, the order before the option) the symptom is listed
 * first, among the patterns with evidence; with symptoms last it is listed without evidence, after
 * every cause, and the lost update is first.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { textReport } from '../../server/src/engine/report/textReport';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';
import { isRootCause } from '../helpers/rootCause';

const COUNTER_BUG = [10, 11].map((line) => ({ file: 'Fixture.java', line }));

function recording(): string {
  // the lost update's interleaving in every run (no evidence by presence, nor by order)
  const race = ['R1 count S10', 'R2 count S10', 'W2 count S11', 'W1 count S11'];
  const pass = [...race, 'R0 count S12'];
  // failing runs: the failure point, then the crashed thread's error counter read by the other
  const fail = [...race, 'FAIL1 java.lang.IllegalStateException', 'W1 errors S50', 'R2 errors S51', 'R0 count S12'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 14; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 6; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  return writeTraces(out);
}

test('symptoms last: a consequence after the failure point is listed after every cause; by default it is first', async () => {
  const dir = recording();
  const before = await analyzeTraceFiles([dir]);
  const first = before.patterns[0];
  assert.equal(first.group, 'symptom', `by default the error counter's pair is first: ${JSON.stringify(first.accesses)}`);
  assert.equal(first.evidence, true);
  assert.ok(first.accesses.every((a) => a.line >= 50));
  const cause = before.patterns.find((p) => isRootCause(p, COUNTER_BUG));
  assert.ok(cause && cause.evidence === false && cause.group === 'cause', 'the lost update has no evidence (in every run)');

  const r = await analyzeTraceFiles([dir], { symptomsLast: true });
  assert.ok(isRootCause(r.patterns[0], COUNTER_BUG), `the lost update is first: ${JSON.stringify(r.patterns[0].accesses)}`);
  const symptoms = r.patterns.filter((p) => p.group === 'symptom');
  assert.ok(symptoms.length > 0, 'the error counter is still listed');
  assert.ok(symptoms.every((p) => p.evidence === false), 'symptoms are listed without evidence');
  const lastCause = Math.max(...r.patterns.map((p, k) => (p.group === 'cause' ? k : -1)));
  const firstSymptom = r.patterns.findIndex((p) => p.group === 'symptom');
  assert.ok(firstSymptom > lastCause, `every cause (last at ${lastCause}) before the first symptom (${firstSymptom})`);
  assert.match(textReport(r, 20), /symptoms last/);
  assert.doesNotMatch(textReport(before, 20), /symptoms last/);
});

test('symptoms last: the option and its command-line form are checked', () => {
  assert.throws(() => validateOptions({ symptomsLast: 'yes' as unknown as boolean }), /symptomsLast must be true or false/);
  assert.equal('symptomsLast' in validateOptions({ symptomsLast: false }), false, 'off leaves the options as before the option existed');
  assert.equal(validateOptions({ symptomsLast: true }).symptomsLast, true);
  assert.equal(parseAnalyzeArgs(['x', '--symptoms', 'last']).options.symptomsLast, true);
  assert.equal(parseAnalyzeArgs(['x', '--symptoms', 'evidence']).options.symptomsLast, false);
  assert.throws(() => parseAnalyzeArgs(['x', '--symptoms', 'first']), /--symptoms must be last or evidence, got "first"/);
});
