/**
 * Issue 39: `--fail-on-output` (and a manifest's failOnOutput) matches in linear time
 * (server/src/recorder/runs/outputPattern.ts), as braid record and braid confirm parse it.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { outputPattern } from '../../server/src/recorder/runs/outputPattern';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { parseConfirmArgs } from '../../server/src/cli/confirmCommand';
import { parsePinpointArgs } from '../../server/src/cli/pinpointCommand';

test('outputPattern: a catastrophically backtracking pattern matches in linear time, multiline as before', () => {
  const re = outputPattern('^(a+)+$');
  assert.ok(re instanceof RegExp);
  const started = Date.now();
  assert.equal(re.test('a'.repeat(50_000) + 'b'), false);
  assert.equal(re.test('out\n' + 'a'.repeat(50_000)), true);
  assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  assert.equal(re.source, '^(a+)+$');
  const m = outputPattern('Exception: (\\w+)') as RegExp;
  const x = m.exec('😀 line\nException: boom\n');
  assert.deepEqual([x?.[0], x?.[1], x?.index], ['Exception: boom', 'boom', 8]);
  assert.equal(m.exec('nothing'), null);
});

test('outputPattern: invalid, unsupported and empty patterns are errors that say why', () => {
  assert.match(String(outputPattern('(')), /missing closing \)/);
  assert.match(String(outputPattern('(?=x)')), /linear time .*lookaround/);
  assert.match(String(outputPattern('')), /empty/);
  assert.match(String(outputPattern('a'.repeat(2000))), /more than 1000/);
});

test('braid record / confirm / pinpoint --fail-on-output: a backtracking pattern cannot hang the runs; --timeout 1e7 (overflows to 1 ms) is refused', () => {
  const r = parseRecordArgs(['--fail-on-output', '^(a+)+$', '--', 'java', 'A']);
  const started = Date.now();
  assert.equal(r.failOnOutput!.test('a'.repeat(24) + 'b'), false);
  assert.ok(Date.now() - started < 2000);
  const c = parseConfirmArgs(['traces', '--fail-on-output', '^(a+)+$']);
  assert.equal(c.failOnOutput!.test('a'.repeat(24) + 'b'), false);
  assert.ok(Date.now() - started < 4000, `${Date.now() - started} ms`);
  assert.throws(() => parseRecordArgs(['--timeout', '1e7', '--', 'java', 'A']), /--timeout 1e7: expected a number of seconds above 0 and at most 86400/);
  assert.throws(() => parseConfirmArgs(['traces', '--timeout', '1e7']), /--timeout 1e7: expected a number of seconds above 0 and at most 86400/);
  const pp = parsePinpointArgs(['--fail-on-output', '^(a+)+$', '--', 'java', 'A']);
  const t = Date.now();
  assert.equal(pp.options.failOnOutput!.test('a'.repeat(24) + 'b'), false);
  assert.ok(Date.now() - t < 2000, `${Date.now() - t} ms`);
  assert.throws(() => parsePinpointArgs(['--timeout', '1e7', '--', 'java', 'A']), /--timeout 1e7: expected a number of seconds above 0 and at most 86400/);
});
