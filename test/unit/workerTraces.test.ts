/**
 * Worker threads of a recorded Node.js process (server/src/recorder/node/workerTraces.ts): a
 * worker's trace is folded into its process' trace — its ids renumbered after the main thread's,
 * a variable name keeping the main thread's id, objects and message tokens of the shared namespace
 * kept, events merged in index order with each definition ahead of its first use.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mergeTraceTexts, mergeWorkerTraces } from '../../server/src/recorder/node/workerTraces';
import { SHARED_OBJECT_BASE, SHARED_TOKEN_BASE } from '../../server/src/recorder/node/runtime';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';

const SAB = SHARED_OBJECT_BASE + 2 ** 32; // a view at offset 0 of SharedArrayBuffer 1
const TOK = SHARED_TOKEN_BASE + 3 * 16777216 + 1; // message 1 of channel 3

const main = [
  '{"braid":"trace","version":1,"execution":"main-0000","program":"main.mjs"}',
  '{"def":"thread","id":1,"name":"main"}',
  '{"def":"var","id":0,"name":"Int32Array[]"}',
  '{"def":"loc","id":0,"file":"proxy.mjs","line":27,"method":"serve"}',
  '{"def":"stack","id":1,"frames":[0]}',
  `[0,1,"W",0,0,1,${SAB},1,1]`,
  '[1,1,"SND",1]',
  `[4,1,"RCV",${TOK}]`,
  `[5,1,"W",0,0,1,${SAB},1,2]`,
  '[6,1,"W",0,0,1,7,-1,3]',
].join('\n');
const worker = [
  '{"braid":"trace","version":1,"execution":"main-0000","program":"main.mjs"}',
  '{"def":"thread","id":1,"name":"worker 1"}',
  '{"def":"var","id":0,"name":"Other"}',
  '{"def":"var","id":1,"name":"Int32Array[]"}',
  '{"def":"loc","id":0,"file":"proxy.mjs","line":50,"method":"statSync"}',
  '{"def":"stack","id":1,"frames":[0]}',
  `[2,1,"R",1,0,1,${SAB},1,1]`,
  `[3,1,"SND",${TOK}]`,
  '[7,1,"W",0,0,1,7,-1,4]',
].join('\n');

test('a worker trace merges into the main one: renumbered ids, one id per variable name, shared objects and tokens kept, index order', async () => {
  const lines = (await mergeTraceTexts([main, worker])).trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines[0].braid, 'trace');
  assert.equal(lines.filter((l) => l.braid).length, 1, 'one header');
  const events = lines.filter(Array.isArray);
  assert.deepEqual(events.map((e) => e[0]), [0, 1, 2, 3, 4, 5, 6, 7], 'events in index order');
  const threads = lines.filter((l) => l.def === 'thread');
  assert.deepEqual(threads.map((t) => [t.id, t.name]), [[1, 'main'], [3, 'worker 1']]);
  const vars = lines.filter((l) => l.def === 'var');
  assert.deepEqual(vars.map((v) => [v.id, v.name]), [[0, 'Int32Array[]'], [1, 'Other']], 'Int32Array[] keeps the main id; Other gets a new one');
  const read = events.find((e) => e[0] === 2);
  assert.deepEqual(read!.slice(1, 7), [3, 'R', 0, 1, 3, SAB], 'thread, variable, loc, stack renumbered; the shared view kept');
  assert.deepEqual(events.find((e) => e[0] === 3), [3, 3, 'SND', TOK], 'a message token is kept');
  const other = events.find((e) => e[0] === 7);
  assert.equal(other![3], 1);
  assert.notEqual(other![6], 7, 'a thread-local object is renumbered');
  const stacks = lines.filter((l) => l.def === 'stack');
  assert.deepEqual(stacks.map((s) => [s.id, s.frames]), [[1, [0]], [3, [1]]]);
  // each definition comes before the first event that uses it
  const firstUse = (pred: (e: any[]) => boolean) => lines.findIndex((l) => Array.isArray(l) && pred(l));
  assert.ok(lines.findIndex((l) => l.def === 'loc' && l.id === 1) < firstUse((e) => e[4] === 1 && e[2] === 'R'));
});

test('a variable the worker accesses first, whose name the main thread defines later: its definition comes before the worker\'s access, once', async () => {
  // the worker's Atomics.store of the status (index 0) before the main thread's first write of the view (index 5)
  const lateMain = main.replace(`[0,1,"W",0,0,1,${SAB},1,1]`, '[0,1,"W",9,0,1,7,-1,0]').replace('{"def":"var","id":0,"name":"Int32Array[]"}', '{"def":"var","id":9,"name":"Flag"}').replace('[4,1,', '{"def":"var","id":0,"name":"Int32Array[]"}\n[4,1,');
  const text = await mergeTraceTexts([lateMain, worker]);
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  const defAt = lines.findIndex((l) => l.def === 'var' && l.name === 'Int32Array[]');
  const useAt = lines.findIndex((l) => Array.isArray(l) && l[0] === 2);
  assert.ok(defAt >= 0 && defAt < useAt, text);
  assert.equal(lines.filter((l) => l.def === 'var' && l.name === 'Int32Array[]').length, 1);
  assert.equal(lines[useAt][3], lines[defAt].id);
  // and the engine reads it
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-merge-'));
  try {
    writeFileSync(path.join(dir, 'main-0000.trace.jsonl'), text + '{"outcome":"pass"}\n');
    const r = await analyzeTraceFiles([path.join(dir, 'main-0000.trace.jsonl')]);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    assert.equal(r.executions.total, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mergeWorkerTraces folds <trace>@w<id> files into their trace, and the merged run is analyzed as one', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-workers-'));
  try {
    const part = path.join(dir, 'main-0000.trace.jsonl.part');
    writeFileSync(part, main + '\n');
    writeFileSync(`${part}@w1`, worker + '\n');
    writeFileSync(path.join(dir, 'other-0000.trace.jsonl.part@w1'), worker + '\n');
    await mergeWorkerTraces(part);
    assert.deepEqual(readdirSync(dir).sort(), ['main-0000.trace.jsonl.part', 'other-0000.trace.jsonl.part@w1']);
    const final = path.join(dir, 'main-0000.trace.jsonl');
    writeFileSync(final, readFileSync(part, 'utf8') + '{"outcome":"fail"}\n');
    const shape = (r: Awaited<ReturnType<typeof analyzeTraceFiles>>) => r.patterns.map((p) => `${p.kind} ${p.accesses.map((a) => a.line).join(',')}`).sort();
    const r = await analyzeTraceFiles([final]);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    // the worker's read of the main thread's write is a cross-thread pair; the worker's message
    // (SND 3 → RCV 4) orders its read before the main thread's second write: no R → W pair
    assert.deepEqual(shape(r), ['WR 27,50']);
    const unordered = await analyzeTraceFiles([final], { happensBefore: false });
    assert.ok(shape(unordered).includes('RW 50,27'), shape(unordered).join('; '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
