/**
 * The Node.js recorder's happens-before edges where the recorded code calls code it does not record
 * (docs/recorder-node.md "Tasks"; issue 38, lru-abort and opossum-stuck): an uninstrumented async
 * function (the user's fetchMethod, a test's service call) continues after its await in the task that
 * called it, but not with what that task learned since — when the task went on and received another
 * task's writes, the continuation is a task of its own that starts from the caller's state at the call.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';

/** Per event index, the vector clock of its thread at that event (SND/RCV tokens as the trace format says). */
function clocks(events: any[]): Map<number, Map<number, number>> {
  const vc = new Map<number, Map<number, number>>();
  const sent = new Map<number, Map<number, number>>();
  const at = new Map<number, Map<number, number>>();
  for (const e of events) {
    const t = e[1];
    const c = vc.get(t) ?? new Map([[t, 0]]);
    vc.set(t, c);
    if (e[2] === 'SND') {
      sent.set(e[3], new Map(c));
      c.set(t, c.get(t)! + 1);
    } else if (e[2] === 'RCV') {
      for (const [u, n] of sent.get(e[3]) ?? []) c.set(u, Math.max(c.get(u) ?? -1, n));
    } else at.set(e[0], new Map(c));
  }
  return at;
}

const LIB = `
const box = { x: 0 };
async function writer() { await null; box.x = 1; }
async function run(work) {
  // work: the caller's async function, not recorded; its continuation comes after the writer's
  const w = work();
  const seen = w.then(() => box.x);
  const u = writer();
  await u;
  return seen;
}
module.exports = { run, box };
`;
const APP = `
const { run } = require('./lib.js');
async function work() { await new Promise((r) => setTimeout(r, 30)); }
run(work).then((v) => { if (v !== 1) process.exitCode = 1; });
`;

/** Records `app.js` once (lib.js recorded, app.js not) and returns the trace's threads, variables and events. */
async function recordOnce(lib: string, app: string): Promise<{ threads: Map<number, string>; vars: Map<number, string>; events: any[]; seen: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-hb-'));
  try {
    writeFileSync(path.join(dir, 'lib.js'), lib);
    writeFileSync(path.join(dir, 'app.js'), app);
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--include', 'lib.js', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const threads = new Map<number, string>(lines.filter((l) => l.def === 'thread').map((l) => [l.id, l.name]));
    const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
    return { threads, vars, events: lines.filter(Array.isArray), seen: `threads: ${[...threads.values()].join(', ')}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an unrecorded async function called by a task that then receives another task\'s write: its continuation is not ordered after that write', async () => {
  const { threads, vars, events, seen } = await recordOnce(LIB, APP);
  const write = events.find((e) => e[2] === 'W' && vars.get(e[3]) === 'Object.x' && e[8] === 1);
  const read = events.find((e) => e[2] === 'R' && vars.get(e[3]) === 'Object.x');
  assert.ok(write && read, `the writer's write and the then callback's read are recorded\n${seen}`);
  assert.match(threads.get(write[1])!, /^async writer/, seen);
  assert.match(threads.get(read[1])!, /^then /, seen);
  assert.equal(read[8], 1, 'the read comes after the write in time');
  // the run's task received the writer's end (its await); work's continuation ran later in that task
  // before, and the then callback after it looked ordered after the write: no race could be seen
  const c = clocks(events);
  const w = c.get(write[0])!.get(write[1])!;
  const r = c.get(read[0])!.get(write[1]) ?? -1;
  assert.ok(r < w, `the then callback's read is concurrent with the writer's write (it knows the writer up to ${r}, the write is at ${w})\n${seen}`);
});

// fastq-resume's shape: the driver (not recorded) pushes a job — the queue calls the driver's async
// job, whose await continues later — and then, in a later turn of the event loop, resumes the queue
// itself. The job's end is not caused by the resume: only the event loop ran the resume first.
const QUEUE = `
const q = { paused: true };
function push(job) { return job().then(() => q.paused); }
function resume() { q.paused = false; }
module.exports = { push, resume };
`;
const DRIVER = `
const { push, resume } = require('./lib.js');
async function job() { await new Promise((r) => setTimeout(r, 30)); }
async function main() {
  const done = push(job);
  await null;
  resume();
  if ((await done) !== false) process.exitCode = 1;
}
main();
`;

test('an unrecorded async function whose caller\'s task goes on in a later turn: its continuation is not ordered after what that task did then', async () => {
  const { threads, vars, events, seen } = await recordOnce(QUEUE, DRIVER);
  const write = events.find((e) => e[2] === 'W' && vars.get(e[3]) === 'Object.paused' && e[8] === false);
  const read = events.find((e) => e[2] === 'R' && vars.get(e[3]) === 'Object.paused');
  assert.ok(write && read, `the resume's write and the then callback's read are recorded\n${seen}`);
  assert.match(threads.get(read[1])!, /^then /, seen);
  assert.equal(read[8], false, 'the read comes after the write in time');
  // the job's continuation ran in the driver's task after the driver's resume (FIFO order of the
  // event loop, no hand-off): the then callback after the job's end looked ordered after the write
  const c = clocks(events);
  const w = c.get(write[0])!.get(write[1])!;
  const r = c.get(read[0])!.get(write[1]) ?? -1;
  assert.ok(r < w, `the then callback's read is concurrent with the resume's write (it knows the writer's task up to ${r}, the write is at ${w})\n${seen}`);
});
