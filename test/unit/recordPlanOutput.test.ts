/**
 * Issue 39 (partly open from last round): "`braid record --plan` prints the plan's `name` and
 * validation errors raw (`::error …`, CR, terminal hyperlinks, `##[error]`)" — both are escaped for
 * the terminal and the CI log (engine/outputEscaping.ts, terminalLine). Runs the built CLI.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runBraid } from '../helpers/braidCli';
import { tempDir } from '../helpers/traceBuilder';

const HOSTILE = 'x\r::error file=README.md::pwned \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 ##[error]bad \u202eevil';

/** No raw control or bidirectional character, and no line that a CI runner reads as a command. */
function assertSafe(text: string): void {
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text), `raw control characters: ${JSON.stringify(text)}`);
  for (const line of text.split('\n')) {
    assert.ok(!/^\s*::/.test(line), `workflow command: ${JSON.stringify(line)}`);
    assert.ok(!line.includes('##[error]'), `legacy workflow command: ${JSON.stringify(line)}`);
  }
}

const plan = (over: Record<string, unknown>) => ({ format: 'braid-noise-plan', version: 1, name: 'p', noise: { kind: 'yield' }, points: [], ...over });

test('braid record --plan: the plan\'s name is printed escaped (no `::error`, CR, hyperlink or `##[error]` reaches the log)', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify(plan({ name: HOSTILE })));
  const r = await runBraid(['record', '--runs', '1', '--plan', file, '--out', path.join(dir, 'traces'), '--', 'true'], dir);
  assert.match(r.err, /noise plan "x\\r::error file=README\.md::pwned \\x1b\]8;;https:\/\/evil\.example\\x07link/);
  assertSafe(r.err);
  assertSafe(r.out);
});

test('braid record --plan: a validation error quoting the plan is printed escaped', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'plan.json');
  const point = { id: 'bank/Bank.transfer(II)V@12', probability: 0.5, threads: [HOSTILE, HOSTILE] };
  writeFileSync(file, JSON.stringify(plan({ points: [point] })));
  const r = await runBraid(['record', '--runs', '1', '--plan', file, '--', 'true'], dir);
  assert.equal(r.code, 2);
  assert.match(r.err, /points\[0\]\.threads\[1\]: thread x\\r::error/);
  assertSafe(r.err);
});
