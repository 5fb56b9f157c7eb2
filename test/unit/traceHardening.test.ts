/**
 * Hostile traces (issue 15, findings 1, 6, 7, 8, 14, 15): each bad input is a
 * file:line error or a bounded warning, memory stays proportional to the
 * file, and the good traces next to it are still analyzed.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, cpSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';
import { MAX_STACK_DEPTH } from '../../server/src/engine/trace/traceSymbols';
import { parseEventLineFast } from '../../server/src/engine/trace/eventLineParser';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { writeJsonPretty } from '../../server/src/cli/jsonOutput';
import { PatternRegistry } from '../../server/src/engine/unicorn/patternRegistry';
import { UnicornCollector } from '../../server/src/engine/unicorn/unicornCollector';
import { tempDir } from '../helpers/traceBuilder';
// @ts-expect-error plain ES module shared with bench/hostile-memory-bench.mjs
import { stackCycle, nestedEnter } from '../../bench/hostileTraces.mjs';

const HEADER = '{"braid":"trace","version":1,"execution":"e1","outcome":"fail"}';
const DEFS = ['{"def":"var","id":0,"name":"x"}', '{"def":"loc","id":0,"file":"A.java","line":3,"method":"A.m"}'];

async function read(text: string | Buffer, name = 'h.trace.jsonl', options = {}) {
  const events: TraceEvent[] = [];
  const r = await readTraceBuffer(name, typeof text === 'string' ? Buffer.from(text) : text, { event: (ev) => events.push({ ...ev }) }, options);
  return { r, events };
}
function firstError(r: Awaited<ReturnType<typeof read>>['r']) {
  return r.diagnostics.find((d) => d.severity === 'error');
}

test('finding 1: a stack redefined into a cycle is an error at the redefining line', async () => {
  const text: string = stackCycle(3000);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l === '{"def":"stack","id":0,"parent":2999,"frame":0}') + 1;
  assert.ok(at > 3000);
  const { r } = await read(text);
  assert.equal(r.ok, false);
  assert.deepEqual([firstError(r)?.line, firstError(r)?.message], [at, 'stack 0 is defined twice']);
});

test('a var, loc or thread id defined twice differently is an error at the second definition; the same definition repeated is accepted', async () => {
  const ev = '[1,1,"W",0,0]';
  const dupVar = await read([HEADER, ...DEFS, '{"def":"var","id":0,"name":"other"}', ev].join('\n') + '\n');
  assert.equal(dupVar.r.ok, false);
  assert.deepEqual([firstError(dupVar.r)?.line, firstError(dupVar.r)?.message], [4, 'var 0 is defined twice, differently (first "x", now "other"); give each var its own id']);
  const dupLoc = await read([HEADER, ...DEFS, '{"def":"loc","id":0,"file":"A.java","line":4,"method":"A.m"}', ev].join('\n') + '\n');
  assert.deepEqual([firstError(dupLoc.r)?.line, firstError(dupLoc.r)?.message], [4, 'loc 0 is defined twice, differently (first A.java:3 A.m, now A.java:4 A.m); give each loc its own id']);
  const dupThread = await read([HEADER, ...DEFS, '{"def":"thread","id":1,"name":"a"}', '{"def":"thread","id":1,"name":"b"}', ev].join('\n') + '\n');
  assert.deepEqual([firstError(dupThread.r)?.line, firstError(dupThread.r)?.message], [5, 'thread 1 is defined twice, differently (first "a", now "b"); give each thread its own id']);
  const same = await read([HEADER, ...DEFS, ...DEFS, '{"def":"thread","id":1,"name":"a"}', '{"def":"thread","id":1,"name":"a"}', ev].join('\n') + '\n');
  assert.equal(same.r.ok, true, JSON.stringify(same.r.diagnostics));
  assert.equal(same.events.length, 1);
});

test('finding 1: a stack id may not be defined on an undefined parent, nor with both frames and frame', async () => {
  const bad1 = await read([HEADER, ...DEFS, '{"def":"stack","id":1,"parent":7,"frame":0}'].join('\n') + '\n');
  assert.deepEqual([firstError(bad1.r)?.line, firstError(bad1.r)?.message], [4, 'stack 1 has parent stack 7, which is not defined']);
  const bad2 = await read([HEADER, ...DEFS, '{"def":"stack","id":1,"frames":[0],"frame":0}'].join('\n') + '\n');
  assert.equal(firstError(bad2.r)?.line, 4);
  assert.match(firstError(bad2.r)!.message, /either "frames" or "frame"/);
});

test('finding 1: 5,000 nested ENTERs without EXIT: stacks are cut at the depth cap with one warning, and one node per depth', async () => {
  const n = 5000;
  const text: string = nestedEnter(n);
  const reg = new PatternRegistry();
  const collector = new UnicornCollector(reg, 5, 100);
  const r = await readTraceBuffer('deep.trace.jsonl', Buffer.from(text), collector);
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  const warnings = r.diagnostics.filter((d) => d.severity === 'warning');
  assert.equal(warnings.length, 1);
  // header + 2 threads + 1 var + 16 locs = 20 lines; the ENTER of depth 1025 is line 20 + 2·1024 + 1
  assert.equal(warnings[0].line, 20 + 2 * 1024 + 1);
  assert.match(warnings[0].message, /deeper than 1024 frames/);
  assert.equal(MAX_STACK_DEPTH, 1024);
  collector.finish();
  // one global stack per depth (the loc of depth k is k % 16): 1024, not 5,000 and not 5,000²/2 frames
  assert.equal(reg.stackCount, 1024);
  assert.equal(reg.stackFrames(reg.stackCount - 1).length, 1024);
});

test('finding 1: the good traces next to a stack cycle and a deep ENTER trace are analyzed', async () => {
  const dir = tempDir();
  cpSync(path.resolve(__dirname, '../fixtures/traces/tablelog'), dir, { recursive: true });
  writeFileSync(path.join(dir, 'cycle.trace.jsonl'), stackCycle(2000));
  writeFileSync(path.join(dir, 'deep.trace.jsonl'), nestedEnter(3000));
  const res = await analyzeTraceFiles([dir]);
  assert.equal(res.executions.total, 7); // the six Table 5 runs + the deep one
  const cycleErr = res.diagnostics.find((d) => d.file.endsWith('cycle.trace.jsonl') && d.severity === 'error');
  assert.equal(cycleErr?.message, 'stack 0 is defined twice');
  const deep = res.patterns.flatMap((p) => p.accesses).filter((a) => a.file === 'Deep.java');
  assert.ok(deep.length > 0);
  assert.ok(deep.every((a) => a.stack.length <= 1024));
});

test('finding 7: leading zeros are rejected by both paths ([01,1,"W",00,0])', async () => {
  for (const line of ['[01,1,"W",0,0]', '[1,1,"W",00,0]', '[1,01,"W",0,0]', '[1,1,"W",0,0,-01]']) {
    const ev = { i: 0, t: 0, kind: 0, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined } as TraceEvent;
    assert.equal(parseEventLineFast(Buffer.from(line), 0, line.length, ev), false, line);
    const { r } = await read([HEADER, ...DEFS, line].join('\n') + '\n');
    assert.equal(r.ok, false, line);
    assert.equal(firstError(r)?.line, 4);
    assert.match(firstError(r)!.message, /invalid JSON/);
  }
  assert.equal((await read([HEADER, ...DEFS, '[10,0,"W",0,0]'].join('\n') + '\n')).r.ok, true);
});

test('finding 15: ids must be safe non-negative integers (1e300 and 2^53 + 1 are errors)', async () => {
  const cases: [string, RegExp][] = [
    ['[1e300,1,"W",0,0]', /element 1 is out of range/],
    ['[9007199254740993,1,"W",0,0]', /element 1 is out of range/],
    ['[1,1,"W",9007199254740993,0]', /element 4 is out of range/],
    ['{"def":"var","id":9007199254740993,"name":"y"}', /"id" must be a non-negative integer/],
    ['{"def":"loc","id":1e300,"file":"A.java","line":1}', /"id" must be a non-negative integer/],
    ['{"def":"loc","id":1,"file":"A.java","line":1e300}', /"line" must be a non-negative integer/],
  ];
  for (const [line, re] of cases) {
    const { r } = await read([HEADER, ...DEFS, line].join('\n') + '\n');
    assert.equal(r.ok, false, line);
    assert.equal(firstError(r)?.line, 4, line);
    assert.match(firstError(r)!.message, re, line);
  }
  // ids that differ only above 2^53 would have merged two locations
  assert.equal((await read([HEADER, ...DEFS, '[9007199254740991,1,"W",0,0]'].join('\n') + '\n')).r.ok, true);
});

test('finding 8: a value nested 200,000 deep is an error at its line; 64 levels are fine', async () => {
  const deep = '[1,1,"W",0,0,null,0,null,' + '['.repeat(200000) + ']'.repeat(200000) + ']';
  const { r } = await read([HEADER, ...DEFS, deep, '[2,1,"W",0,0]'].join('\n') + '\n');
  assert.equal(r.ok, false);
  assert.deepEqual([firstError(r)?.line, firstError(r)?.message], [4, 'arrays and objects are nested more than 64 levels deep']);
  const ok = '[1,1,"W",0,0,null,0,null,' + '['.repeat(63) + ']'.repeat(63) + ']';
  const good = await read([HEADER, ...DEFS, ok].join('\n') + '\n');
  assert.equal(good.r.ok, true, JSON.stringify(good.r.diagnostics));
  // brackets inside strings do not count
  const str = `[1,1,"W",0,0,null,0,null,"${'['.repeat(500)}"]`;
  assert.equal((await read([HEADER, ...DEFS, str].join('\n') + '\n')).r.ok, true);
});

test('finding 6: a line longer than the cap is an error naming it, read in small chunks (linear joining)', async () => {
  const long = '[1,1,"W",0,0,null,0,null,"' + 'a'.repeat(3 << 20) + '"]';
  const { r } = await read([HEADER, ...DEFS, long, '[2,1,"W",0,0]'].join('\n') + '\n', 'long.trace.jsonl', { maxLineBytes: 1 << 20, chunkSize: 4096 });
  assert.equal(r.ok, false);
  assert.deepEqual([firstError(r)?.line, firstError(r)?.message], [4, 'line 4 is longer than 1 MiB; the file is skipped']);
  const fits = await read([HEADER, ...DEFS, long, '[2,1,"W",0,0]'].join('\n') + '\n', 'long.trace.jsonl', { chunkSize: 4096 });
  assert.equal(fits.r.ok, true, JSON.stringify(fits.r.diagnostics));
  // the line is read whole; its value is kept bounded (issue 31, N13: 1,024 characters and '…')
  assert.equal(fits.events[0].value, 'a'.repeat(1024) + '…');
});

test('finding 6: a gzip bomb (200 MiB of one byte) stops at the expansion cap with an error', async () => {
  const bomb = gzipSync(Buffer.concat([Buffer.from(HEADER + '\n'), Buffer.alloc(200 << 20, 0x20)]), { level: 9 });
  assert.ok(bomb.length < 1 << 20);
  const { r } = await read(bomb, 'bomb.trace.jsonl.gz', { maxLineBytes: 1 << 30 });
  assert.equal(r.ok, false);
  assert.equal(firstError(r)?.line, 2);
  assert.match(firstError(r)!.message, /^the gzip data expands to more than \d+ MiB from \d+ KiB \(over 200×; a gzip bomb\?\); the file is skipped$/);
});

test('finding 14: per-symbol memory of reading + UNICORN stays compact (heap bytes per distinct var+loc+access)', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const v8 = require('node:v8');
  v8.setFlagsFromString('--expose-gc');
  const gc: () => void = require('node:vm').runInNewContext('gc');
  const n = 100000;
  const lines = ['{"braid":"trace","version":1,"execution":"s","outcome":"fail"}', '{"def":"thread","id":1,"name":"T1"}'];
  for (let k = 0; k < n; k++) lines.push(`{"def":"var","id":${k},"name":"pkg.C.f${k}"}`, `{"def":"loc","id":${k},"file":"pkg/C.java","line":${k + 1},"method":"pkg.C.m"}`, `[${k + 1},1,"W",${k},${k}]`);
  const buf = Buffer.from(lines.join('\n') + '\n');
  lines.length = 0;
  gc();
  const before = process.memoryUsage().heapUsed;
  const reg = new PatternRegistry();
  const collector = new UnicornCollector(reg, 5, 100);
  const r = await readTraceBuffer('s.trace.jsonl', buf, collector);
  gc();
  const perSymbol = (process.memoryUsage().heapUsed - before) / n;
  assert.equal(r.ok, true);
  // measured here: ~1,320 B before the compaction (a Map per loc in two tables, a key string per loc), ~830 B after
  assert.ok(perSymbol < 1100, `${perSymbol.toFixed(0)} bytes per symbol`);
  console.log(`# ${perSymbol.toFixed(0)} heap bytes per symbol`);
  // the per-file tables hold only the fields present, and one copy of a repeated file name
  assert.deepEqual(Object.keys(r.symbols.vars.get(7)!), ['id', 'name']);
  assert.equal(r.symbols.locs.get(1)!.file, r.symbols.locs.get(2)!.file);
  assert.equal(reg.accesses.length, n);
});

test('finding 1: reported stacks keep the bottom and top 64 frames around a marker; JSON is streamed with the same text', async () => {
  // @ts-expect-error plain ES module
  const { deepStackFanout } = await import('../../bench/hostileTraces.mjs');
  const dir = tempDir();
  writeFileSync(path.join(dir, 'fan.trace.jsonl'), deepStackFanout(60, 300));
  const res = await analyzeTraceFiles([dir]);
  const stacks = res.patterns.flatMap((p) => p.accesses.map((a) => a.stack));
  assert.ok(stacks.length > 0);
  for (const s of stacks) {
    // the accesses' stacks are 101–300 frames deep (a frame pushed at depth 100–299 of a 300-frame chain)
    assert.equal(s.length, s.some((f) => f.method.startsWith('…')) ? 129 : s.length);
    assert.ok(s.length <= 129);
  }
  const deep = stacks.find((s) => s.length === 129)!;
  assert.ok(deep, 'some stack deeper than 128 frames');
  assert.deepEqual(deep[0], { file: 'Fan.java', line: 1, method: 'Fan.m0' });
  assert.match(deep[64].method, /^… \d+ frames …$/);
  const report = { tool: 'braid', n: 1, none: undefined, empty: [], patterns: res.patterns.slice(0, 5), runs: res.runs, nested: { a: [1, { b: 2 }] } };
  let text = '';
  writeJsonPretty(report, (s) => (text += s));
  assert.equal(text, JSON.stringify(report, null, 2));
});
