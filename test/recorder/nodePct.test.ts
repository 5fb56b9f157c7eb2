/**
 * PCT for the event loop (`--noise-mode pct` with the Node.js recorder, docs/noise.md "PCT for the
 * event loop", runtime.ts): a random priority per task and per fs request; a ready callback of the
 * recorded code (a timer's, an fs callback, an await's continuation) waits while a request of
 * higher priority is in flight. A 0 ms timer set while a file is being read then sometimes runs only
 * after the read — an order that noise 0 gives only when the read beats the timer. Needs
 * dist/braid-node-hook.mjs (npm run build). No timing assertions: the failing runs are counted, and
 * a run fails with probability about one half under PCT (the timer's priority below the read's).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';

// the recorded code: a read, and a timer that expects to run before the read's callback
const LIB = `
const fs = require('fs');
function race(done) {
  let read = false;
  fs.readFile(__filename, () => { read = true; });
  setTimeout(() => done(read), 0);
}
// a timer cleared by an fs callback: when its callback was held past the clear, it does not run
function cleared(done) {
  let ran = false;
  const t = setTimeout(() => { ran = true; }, 0);
  fs.stat(__filename, () => {
    clearTimeout(t);
    const after = ran;
    setTimeout(() => done(after, ran), 5);
  });
}
module.exports = { race, cleared };
`;
const APP = `
const lib = require('./lib.js');
lib.cleared((before, after) => {
  // ran after the clear: a held callback of a cleared timer ran
  if (!before && after) { console.error('a cleared timer ran'); process.exitCode = 2; return; }
  lib.race((read) => { if (read) { console.error('the read came first'); process.exitCode = 1; } });
});
`;

test('--noise-mode pct with the Node.js recorder: a timer is held behind a read in flight of higher priority; the header and the pct report say the schedule', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-pct-'));
  try {
    writeFileSync(path.join(dir, 'lib.js'), LIB);
    writeFileSync(path.join(dir, 'app.js'), APP);
    const o = parseRecordArgs(['--runs', '16', '--noise-mode', 'pct', '--seed', '11', '--include', 'lib.js', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir);
    assert.deepEqual([o.recorder, o.noise, o.pct], ['node', 0, { depth: 3 }]);
    const summary = await recordRuns(o);
    assert.equal(summary.runs.length, 16);
    const logs = summary.runs.map((r) => readFileSync(r.logPath, 'utf8'));
    // a cleared timer never runs, held or not
    assert.ok(!logs.some((l) => l.includes('a cleared timer ran')), logs.join('\n'));
    // the timer was held behind the read in some runs (about half): they fail
    assert.ok(summary.failed >= 1, `no run of 16 failed: ${JSON.stringify(summary.runs.map((r) => r.outcome))}`);
    assert.ok(summary.runs.every((r) => r.outcome === 'pass' || logs[r.index].includes('the read came first')), logs.join('\n'));
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([lines[0].recorder.options.noise, lines[0].recorder.options.noiseMode, lines[0].recorder.options.pctDepth], [0, 'pct', 3]);
    // the run's schedule: its steps teach the next runs the run length (pctNoise.ts PctRunLength)
    const report = summary.runs.map((r) => r.pct).find((p) => p !== undefined);
    assert.ok(report && report.steps >= 3 && report.threads >= 2, JSON.stringify(report));
    assert.ok(summary.runs.some((r) => (r.pct?.waits ?? 0) > 0), JSON.stringify(summary.runs.map((r) => r.pct)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
