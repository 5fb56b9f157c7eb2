/**
 * The JVM's `Picked up JAVA_TOOL_OPTIONS` notice (caused by the runner, issue 12 item 7) never
 * reaches `--fail-on-output` matching nor the run's log; all other output is kept byte for byte,
 * however the chunks split it.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { JvmNoticeFilter } from '../../server/src/recorder/java/jvmNoticeFilter';
import { classesDir, FAST_JVM, prepare, record } from './recorderHarness';

const NOTICE = 'Picked up JAVA_TOOL_OPTIONS: -javaagent:/x/braid-agent.jar=out=/t/a.trace.jsonl,noise=0.1\n';
const CDS = 'OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot loader classes because bootstrap classpath has been appended\n';

function filterInChunks(text: string, size: number): string {
  const f = new JvmNoticeFilter();
  let out = '';
  for (let k = 0; k < text.length; k += size) out += f.push(text.slice(k, k + size));
  return out + f.end();
}

test('notices are removed whatever the chunking; the rest is kept exactly', () => {
  const input = `${NOTICE}${CDS}hello\nPicked up nothing\n${NOTICE}Exception in thread "main" x\nlast line without newline`;
  const expected = 'hello\nPicked up nothing\nException in thread "main" x\nlast line without newline';
  for (const size of [1, 2, 3, 7, 16, 64, 1000]) assert.equal(filterInChunks(input, size), expected, `chunks of ${size}`);
});

test('a line that only starts like a notice is kept', () => {
  assert.equal(filterInChunks('Picked up\nPicked up JAVA_TOOL', 4), 'Picked up\nPicked up JAVA_TOOL');
  assert.equal(filterInChunks('Pick', 2), 'Pick');
});

test('braid record: a loose --fail-on-output pattern does not match the JVM notice, and the log has none', { timeout: 120_000 }, async () => {
  prepare();
  const s = await record('notice', 'churn.Churn', {
    runs: 1,
    include: ['churn'],
    failOnOutput: /JAVA_TOOL_OPTIONS|Picked up|bootstrap classpath/m,
    command: ['java', ...FAST_JVM, '-cp', classesDir, 'churn.Churn', '2', '3', '2'],
  });
  const run = s.runs[0];
  assert.equal(run.reason, 'ok', JSON.stringify(run));
  const log = readFileSync(run.logPath, 'utf8');
  assert.ok(!log.includes('Picked up JAVA_TOOL_OPTIONS'), log);
  assert.equal(log, 'churn done: 2 threads x 3 writes\n', 'the program output is kept exactly');
});
