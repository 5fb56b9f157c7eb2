/**
 * Issue 15, finding 12: a `"` (or `'`, space, comma) in the output path broke the JAVA_TOOL_OPTIONS
 * quoting. The runner now passes the agent's options in a file (`-javaagent:<jar>=@<file>`) and
 * quotes the word the way HotSpot splits JAVA_TOOL_OPTIONS.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { agentArgument, quoteToolOption } from '../../server/src/recorder/runs/runOnce';
import { classesDir, FAST_JVM, prepare, record } from './recorderHarness';

test('quoteToolOption: HotSpot quoting (no backslash escapes; a quote is quoted by the other kind)', () => {
  assert.equal(quoteToolOption('-javaagent:/a/b.jar=@/tmp/o'), '-javaagent:/a/b.jar=@/tmp/o');
  assert.equal(quoteToolOption('-javaagent:/my dir/b.jar'), '"-javaagent:/my dir/b.jar"');
  assert.equal(quoteToolOption('/a"b'), `/a'"'b`);
  assert.equal(quoteToolOption("/a'b c"), `/a"'""b c"`);
});

test('agentArgument: a jar path with "=" is rejected with a clear error', () => {
  assert.throws(() => agentArgument('/x=y/braid-agent.jar', '/tmp/o'), /must not contain '='/);
});

test('braid record: quotes, apostrophes, spaces and commas in the output folder are recorded correctly', { timeout: 120_000 }, async () => {
  prepare();
  const s = await record(`odd "name" it's, here`, 'churn.Churn', {
    runs: 1,
    include: ['churn'],
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'churn.Churn', '2', '3', '2'],
  });
  const run = s.runs[0];
  assert.equal(run.reason, 'ok', JSON.stringify(run));
  assert.equal(run.empty, false, 'the agent recorded into the odd folder');
  const trace = readFileSync(run.traces[0], 'utf8');
  assert.ok(run.traces[0].includes(`odd "name" it's, here`), run.traces[0]);
  const lines = trace.split('\n');
  const slot = JSON.parse(lines.find((l) => l.includes('"name":"churn.Churn.slot"')) ?? '{}').id;
  const writes = lines.filter((l) => l.startsWith('[') && JSON.parse(l)[2] === 'W' && JSON.parse(l)[3] === slot).length;
  assert.equal(writes, 6, '2 threads x 3 writes');
  assert.ok(!readFileSync(run.logPath, 'utf8').includes('Unmatched quote'), 'the JVM parsed JAVA_TOOL_OPTIONS');
});
