/**
 * Issue 38, "most runs fail" (AnalysisOptions.silentLast; `braid analyze --silent-last`;
 * docs/algorithms.md "Silent writes last"). The resilience4j-eventconsumers shape: a consumer
 * registration (thread 1) sets a flag that is already set (`consumerRegistered = true` over true,
 * line 42) and adds to a list (line 49) that the publishing thread (thread 2) checks (the flag, 36) and
 * iterates (65). In failing runs both writes come before the reads; the flag's W1 → R2 and the list's
 * W1 → R2 are then equal in every count, and the static key puts the flag first. The flag's write is
 * silent — the publisher read true before it and reads true after it — so its order changes nothing a
 * reader sees and it is listed after the list's pair. A flag write that changes the value (false →
 * true) is not silent and keeps its place.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { silentWrite } from '../../server/src/engine/ranking/rootCauseOrder';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

function recording(before: string): string {
  const pass = [`R2 aflag S36 @value=${before}`, 'R2 list S65', 'W1 aflag S42 @value=true', 'W1 list S49'];
  const fail = [`R2 aflag S36 @value=${before}`, 'W1 aflag S42 @value=true', 'W1 list S49', 'R2 aflag S36 @value=true', 'R2 list S65', 'FAIL2'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 8; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  return writeTraces(out);
}

const lines = (p: { accesses: { line: number }[] }) => p.accesses.map((a) => a.line).join(' ');

test('silent writes last (the default): of patterns equal in every count, one whose write stores the value already there goes after; off, the static key decides', async () => {
  const dir = recording('true');
  const off = await analyzeTraceFiles([dir], { silentLast: false });
  assert.equal(lines(off.patterns[0]), '42 36', `off: the flag's W1 → R2 first by its key: ${off.patterns.slice(0, 3).map(lines).join(', ')}`);
  const list = off.patterns.find((p) => lines(p) === '49 65')!;
  assert.ok(list, 'the list pair is listed');
  assert.deepEqual([list.failed, list.passed, list.rank], [off.patterns[0].failed, off.patterns[0].passed, 1], 'a tie');
  const on = await analyzeTraceFiles([dir]);
  assert.equal(lines(on.patterns[0]), '49 65', `on: the list's pair first: ${on.patterns.slice(0, 3).map(lines).join(', ')}`);
  assert.ok(on.patterns.findIndex((p) => lines(p) === '42 36') > on.patterns.findIndex((p) => lines(p) === '49 65'));
  // only the order within a tie moves: the same patterns, counts and ranks
  const rows = (r: typeof on) => r.patterns.map((p) => `${p.key} ${p.failed}/${p.passed} ${p.rank}`).sort();
  assert.deepEqual(rows(on), rows(off));
});

test('silent writes last: a write that changes the value (false → true) is not silent', async () => {
  const on = await analyzeTraceFiles([recording('false')]);
  assert.equal(lines(on.patterns[0]), '42 36', `the flag's change is first by its key: ${on.patterns.slice(0, 3).map(lines).join(', ')}`);
});

test('silent writes last: values, the option and its command-line form', () => {
  assert.deepEqual(
    [[true, true], ['Object@3', 'Object@3'], [false, true], [undefined, true], [null, null], ['undefined', 'undefined'], [0, '0']].map(([a, b]) => silentWrite(a, b)),
    [true, true, false, false, true, true, false],
  );
  assert.throws(() => validateOptions({ silentLast: 'yes' as unknown as boolean }), /silentLast must be true or false/);
  assert.equal('silentLast' in validateOptions({ silentLast: true }), false, 'on (the default) leaves the options as before the option existed');
  assert.equal(validateOptions({ silentLast: false }).silentLast, false);
  assert.equal(parseAnalyzeArgs(['x', '--silent-last', 'off']).options.silentLast, false);
  assert.equal(parseAnalyzeArgs(['x', '--silent-last', 'on']).options.silentLast, true);
  assert.throws(() => parseAnalyzeArgs(['x', '--silent-last', 'last']), /--silent-last must be on or off, got "last"/);
});
