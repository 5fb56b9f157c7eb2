/**
 * The Node.js recorder's noise at I/O completions (docs/recorder-node.md "Noise"): with `--noise P`
 * the callback the recorded code gives an fs call runs late with probability P — after a
 * setImmediate or a short timer once the call completed — in a task that is still the fs callback's;
 * the trace header says where the noise goes. Needs dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { BraidRuntime } from '../../server/src/recorder/node/runtime';

// 20 fs.stat calls of the recorded code; each callback notes what async resource it runs in
const LIB = `
const fs = require('fs');
const { executionAsyncResource } = require('async_hooks');
const seen = [];
function look(n, done) {
  let left = n;
  for (let i = 0; i < n; i++) {
    fs.stat(__filename, () => {
      seen.push(executionAsyncResource().constructor.name);
      if (--left === 0) done(seen);
    });
  }
}
module.exports = { look };
`;
const APP = `
const { writeFileSync } = require('fs');
require('./lib.js').look(20, (seen) => writeFileSync('seen.json', JSON.stringify(seen)));
`;

async function recordOnce(noise: string, more: string[] = []): Promise<{ seen: string[]; header: any; callbackThreads: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-noise-'));
  try {
    writeFileSync(path.join(dir, 'lib.js'), LIB);
    writeFileSync(path.join(dir, 'app.js'), APP);
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', noise, ...more, '--seed', '7', '--include', 'lib.js', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const threads = new Map<number, string>(lines.filter((l) => l.def === 'thread').map((l) => [l.id, l.name]));
    const pushLoc = new Set(lines.filter((l) => l.def === 'loc' && l.file === 'lib.js' && l.line === 9).map((l) => l.id));
    const callbackThreads = lines.filter((l) => Array.isArray(l) && pushLoc.has(l[4])).map((e) => threads.get(e[1])!);
    return { seen: JSON.parse(readFileSync(path.join(dir, 'seen.json'), 'utf8')), header: lines[0], callbackThreads };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('noise at I/O completions: an fs callback of the recorded code may run late, still as an fs callback task; the header says so', async () => {
  const quiet = await recordOnce('0');
  assert.deepEqual([...new Set(quiet.seen)], ['FSReqCallback'], 'without noise every callback runs as the completion');
  assert.equal(quiet.header.recorder.options.noisePoints, undefined);

  const noisy = await recordOnce('0.5');
  assert.equal(noisy.seen.length, 20);
  const late = noisy.seen.filter((k) => k !== 'FSReqCallback');
  // seed 7, P = 0.5: some callbacks run after a setImmediate or a timer, the others at the completion
  assert.ok(late.length > 0 && late.length < 20, `late callbacks: ${noisy.seen.join(', ')}`);
  assert.ok(late.every((k) => k === 'Immediate' || k === 'Timeout'), noisy.seen.join(', '));
  assert.deepEqual(noisy.header.recorder.options.noisePoints, ['await', 'timer', 'fs-callback']);
  assert.equal(new Set(noisy.callbackThreads).size, 20, 'each callback is a task of its own and recorded its push');
  assert.ok(noisy.callbackThreads.every((t) => /^fs callback/.test(t)), `the callbacks' tasks: ${noisy.callbackThreads.join(', ')}`);
});

test('wide noise (noiseAt all, adaptive exposure\'s last level for Node.js): a timer runs late by up to twice its own delay (3 to 20 ms), not 0–3 ms', () => {
  const runtime = (noiseAt?: 'all') => new BraidRuntime({ out: path.join(os.tmpdir(), 'braid-never-written.trace'), execution: 'e', noise: 0.5, ...(noiseAt ? { noiseAt } : {}), seed: '7', include: [], exclude: [], root: os.tmpdir(), record: false });
  const most = (r: InstanceType<typeof BraidRuntime>, ms: number) => Math.max(...Array.from({ length: 400 }, () => r.jitter(ms)));
  assert.equal(most(runtime(), 5), 3, 'the default: up to 3 ms whatever the timer');
  assert.equal(most(runtime(), 100), 3);
  const wide = runtime('all');
  assert.equal(most(wide, 5), 10, 'a 5 ms timer: up to 10 ms late');
  assert.equal(most(wide, 100), 20, 'at most 20 ms');
  assert.equal(most(wide, 0), 3, 'a 0 ms timer: up to 3 ms');
});

test('--noise-at all with the Node.js recorder: the run gets wide noise and its header says so', async () => {
  const wide = await recordOnce('0.5', ['--noise-at', 'all']);
  assert.equal(wide.seen.length, 20);
  assert.deepEqual([wide.header.recorder.options.noiseAt, wide.header.recorder.options.noiseDelays], ['all', 'wide']);
  assert.ok(wide.seen.some((k) => k !== 'FSReqCallback'), wide.seen.join(', '));
  const narrow = await recordOnce('0.5');
  assert.equal(narrow.header.recorder.options.noiseDelays, undefined);
});
