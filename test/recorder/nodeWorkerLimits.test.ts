/**
 * Issue 39, MEDIUM — "Node recorder: a busy worker thread exhausts memory": a worker in an endless
 * loop wrote a 402 MB trace; two runs → "Invalid string length", nothing recorded, a 1.65 GB
 * `.part@w1` left behind. Now (server/src/recorder/node/{runtime,workerTraces}.ts, runOnce.ts):
 *  - a worker's trace has a cap (BRAID_NODE_WORKER_TRACE_BYTES here, 256 MiB by default); past it
 *    its events are dropped and counted (`{"dropped":N}`), as the Java agent's bounded queue does;
 *  - the merge streams the files (never whole strings);
 *  - a failed merge is a clean failed run with its files removed (no `.part@w1` left behind).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { mergeWorkerTraces } from '../../server/src/recorder/node/workerTraces';
import { countDroppedEvents } from '../../server/src/recorder/runs/droppedEvents';

function recordIn(dir: string, command: string[], extra: string[] = []) {
  return recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', ...extra, '--out', path.join(dir, 'out'), '--', ...command], dir));
}

/** a main thread that starts a worker spinning on a shared counter for ever */
function busyWorker(dir: string): void {
  writeFileSync(
    path.join(dir, 'main.mjs'),
    ["import { Worker } from 'node:worker_threads';", 'const box = { n: 0 };', "new Worker(new URL('./w.mjs', import.meta.url));", 'box.n++;'].join('\n'),
  );
  writeFileSync(path.join(dir, 'w.mjs'), ['const box = { n: 0 };', 'for (;;) box.n++;'].join('\n'));
}

test('a busy worker thread exhausts memory: its trace stops at the cap, the events past it are dropped and counted, and the run is kept', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-busyworker-'));
  const cap = 20_000;
  const before = process.env.BRAID_NODE_WORKER_TRACE_BYTES;
  process.env.BRAID_NODE_WORKER_TRACE_BYTES = String(cap);
  try {
    busyWorker(dir);
    const summary = await recordIn(dir, [process.execPath, 'main.mjs'], ['--timeout', '4']);
    assert.equal(summary.total, 1);
    assert.equal(summary.runs[0].reason, 'timeout', `a timeout, not "recorder blocked": ${JSON.stringify(summary.runs[0])}`);
    assert.equal(summary.traces.length, 1, 'the run has its trace');
    const size = statSync(summary.traces[0]).size;
    assert.ok(size < cap + 100_000, `the trace stays near the cap: ${size} bytes`);
    const dropped = await countDroppedEvents(summary.traces[0]);
    assert.ok(dropped > 0, `the dropped events are counted in the trace: ${dropped}`);
    assert.deepEqual(readdirSync(path.join(dir, 'out')).filter((n) => n.includes('@w') || n.includes('.merging')), [], 'no worker file left');
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(lines.some((l) => Array.isArray(l) && l[2] === 'W'), 'the events before the cap are kept');
  } finally {
    if (before === undefined) delete process.env.BRAID_NODE_WORKER_TRACE_BYTES;
    else process.env.BRAID_NODE_WORKER_TRACE_BYTES = before;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('BRAID_NODE_WORKER_TRACE_BYTES that is not a number of bytes is refused, naming the variable', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-busyworker-'));
  const before = process.env.BRAID_NODE_WORKER_TRACE_BYTES;
  process.env.BRAID_NODE_WORKER_TRACE_BYTES = '1e9x';
  try {
    writeFileSync(path.join(dir, 'main.mjs'), 'const box = { n: 0 }; box.n++;\n');
    await assert.rejects(recordIn(dir, [process.execPath, 'main.mjs']), /BRAID_NODE_WORKER_TRACE_BYTES must be a whole number of bytes/);
  } finally {
    if (before === undefined) delete process.env.BRAID_NODE_WORKER_TRACE_BYTES;
    else process.env.BRAID_NODE_WORKER_TRACE_BYTES = before;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed merge is a clean failed run with its files removed (no `.part@w1` left behind)', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-badmerge-'));
  try {
    // the program puts a folder where a worker's trace goes: the merge cannot read it
    writeFileSync(
      path.join(dir, 'main.mjs'),
      [
        "import { readFileSync, mkdirSync } from 'node:fs';",
        "import { Worker } from 'node:worker_threads';",
        'const o = JSON.parse(readFileSync(process.env.BRAID_NODE_OPTIONS, "utf8"));',
        "mkdirSync(o.out + '@w1', { recursive: true });",
        'const box = { n: 0 };',
        'box.n++;',
        "const w = new Worker(new URL('./w.mjs', import.meta.url));",
        "await new Promise((r) => w.on('exit', r));",
      ].join('\n'),
    );
    writeFileSync(path.join(dir, 'w.mjs'), 'const box = { n: 0 };\nbox.n++;\n');
    const summary = await recordIn(dir, [process.execPath, 'main.mjs']);
    assert.equal(summary.total, 1, 'the recording goes on: one run');
    assert.equal(summary.failed, 1);
    assert.match(summary.runs[0].detail ?? '', /could not merge the worker threads' traces/);
    assert.deepEqual(summary.traces, [], 'no trace of that run');
    assert.deepEqual(readdirSync(path.join(dir, 'out')).filter((n) => n.includes('.part') || n.includes('@w') || n.includes('.merging')), [], 'no in-progress file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the merge streams: a worker trace of many lines is merged without holding the files as strings, and a failed merge leaves no .merging file', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-merge-'));
  try {
    const part = path.join(dir, 'app-0000.trace.jsonl.part');
    writeFileSync(part, ['{"braid":"trace","version":1,"execution":"app-0000"}', '{"def":"thread","id":1,"name":"main"}', '{"def":"var","id":0,"name":"Box.n"}', '{"def":"loc","id":0,"file":"main.mjs","line":2}', '[0,1,"W",0,0,-1,1,-1,1]'].join('\n') + '\n');
    const worker: string[] = ['{"def":"thread","id":1,"name":"worker 1"}', '{"def":"var","id":0,"name":"Box.n"}', '{"def":"loc","id":0,"file":"w.mjs","line":2}'];
    for (let i = 1; i <= 200_000; i++) worker.push(`[${i},1,"W",0,0,-1,1,-1,${i}]`);
    writeFileSync(`${part}@w1`, worker.join('\n') + '\n');
    await mergeWorkerTraces(part);
    const merged = readFileSync(part, 'utf8').trim().split('\n');
    assert.equal(merged.filter((l) => l.startsWith('[')).length, 200_001);
    assert.equal(merged.filter((l) => l.includes('"def":"var"')).length, 1, 'one variable per name');
    assert.deepEqual(readdirSync(dir), [path.basename(part)]);
    // a worker "file" that cannot be read: the merge fails, and leaves no half-written file
    mkdirSync(`${part}@w2`);
    await assert.rejects(mergeWorkerTraces(part));
    assert.deepEqual(readdirSync(dir).sort(), [path.basename(part), `${path.basename(part)}@w2`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
