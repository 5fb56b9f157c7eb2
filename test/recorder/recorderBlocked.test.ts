/**
 * Outcome reason "recorder-blocked" (issue 12, item 2): a run that hits its time limit after the
 * agent dropped events (its `{"dropped":N}` line) is reported as blocked by the recorder, not as
 * a plain timeout. The "program" here is a Node script standing in for a JVM with the agent: it
 * reads the agent's options file from JAVA_TOOL_OPTIONS, writes a trace with (or without) a
 * dropped marker to the `out` path, then hangs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { root } from './recorderHarness';

function fakeJvm(dropped: boolean): string {
  return `
const fs = require('fs');
const m = /=@(\\S+)/.exec(process.env.JAVA_TOOL_OPTIONS || '');
const opts = fs.readFileSync(m[1].replace(/^"|"$/g, ''), 'utf8').split('\\n');
const out = opts.find((l) => l.startsWith('out=')).slice(4);
fs.writeFileSync(out, '{"braid":"trace","version":1,"execution":"x"}\\n' + ${dropped ? `'{"dropped":42}\\n'` : "''"});
setInterval(() => {}, 1000);
`;
}

async function runFake(dropped: boolean) {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'braid-blocked-'));
  const s = await recordRuns({
    command: [process.execPath, '-e', fakeJvm(dropped)],
    noise: 0,
    include: [],
    exclude: [],
    outDir,
    timeoutSeconds: 2,
    jobs: 1,
    runs: 1,
    seed: 1,
    name: 'blocked',
    cwd: root,
  });
  return s.runs[0];
}

test('a timed-out run whose agent dropped events: reason recorder-blocked', { timeout: 60_000 }, async () => {
  const run = await runFake(true);
  assert.equal(run.outcome, 'fail');
  assert.equal(run.reason, 'recorder-blocked', JSON.stringify(run));
  assert.match(run.detail ?? '', /recorder blocked.*42 events dropped/);
});

test('a timed-out run without dropped events stays a plain timeout', { timeout: 60_000 }, async () => {
  const run = await runFake(false);
  assert.equal(run.reason, 'timeout', JSON.stringify(run));
});
