/** The streaming trace reader: format v1, bad input, gzip, stacks. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { readTrace, readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { buildTraceText, tempDir } from '../helpers/traceBuilder';

const HEADER = '{"braid":"trace","version":1,"execution":"e1","outcome":"fail"}';
const DEFS = ['{"def":"var","id":0,"name":"x"}', '{"def":"loc","id":0,"file":"A.java","line":3,"method":"A.m"}'];

function collect() {
  const events: TraceEvent[] = [];
  return { events, visitor: { event: (ev: TraceEvent) => events.push({ ...ev }) } };
}

async function read(text: string | Buffer, name = 'mem.trace.jsonl') {
  const c = collect();
  const r = await readTraceBuffer(name, typeof text === 'string' ? Buffer.from(text) : text, c.visitor);
  return { r, events: c.events };
}

test('reads header, definitions and all event kinds; fast and JSON paths agree', async () => {
  const lines = [
    HEADER,
    ...DEFS,
    '{"def":"thread","id":1,"name":"main"}',
    '{"def":"stack","id":0,"frames":[0]}',
    '[1,1,"W",0,0]',
    '[2, 1, "R", 0, 0, 0, 5, null, 42]',
    '[3,1,"R",0,0,null,5,2,"a string value"]',
    '[4,1,"ACQ",99,0]',
    '[5,1,"REL",99]',
    '[6,1,"START",2,0]',
    '[7,1,"JOIN",2]',
    '[8,2,"END"]',
    '[9,1,"ENTER",0]',
    '[10,1,"EXIT"]',
    '[11,1,"W",0,0,null,0,-1,{"nested":[1,2]}]',
  ];
  const { r, events } = await read(lines.join('\n') + '\n');
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.equal(r.eventCount, 11);
  assert.deepEqual(
    events.map((e) => e.i),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  );
  assert.deepEqual([events[1].a, events[1].b, events[1].c, events[1].d, events[1].e, events[1].value], [0, 0, 0, 5, -1, 42]);
  assert.deepEqual([events[2].c, events[2].d, events[2].e, events[2].value], [-1, 5, 2, 'a string value']);
  assert.deepEqual(events[10].value, { nested: [1, 2] });
  assert.equal(r.symbols.threads.get(1)?.name, 'main');
  assert.equal(r.outcome, 'fail');
});

test('outcome line overrides the header; uncaught lines are kept', async () => {
  const text = ['{"braid":"trace","version":1,"execution":"e"}', ...DEFS, '[1,1,"W",0,0]', '{"uncaught":{"thread":1,"exception":"java.lang.NullPointerException"}}', '{"outcome":"fail","reason":"exception"}'].join('\n');
  const { r } = await read(text);
  assert.equal(r.ok, true);
  assert.equal(r.outcome, 'fail');
  assert.equal(r.outcomeReason, 'exception');
  assert.equal(r.uncaught[0].exception, 'java.lang.NullPointerException');
});

test('call stacks: frames and parent forms, and stacks rebuilt from ENTER/EXIT', async () => {
  const text = [
    HEADER,
    '{"def":"var","id":0,"name":"x"}',
    '{"def":"loc","id":0,"file":"A.java","line":1,"method":"A.run"}',
    '{"def":"loc","id":1,"file":"A.java","line":5,"method":"A.inc"}',
    '{"def":"stack","id":7,"parent":null,"frame":0}',
    '{"def":"stack","id":8,"parent":7,"frame":1}',
    '[1,1,"W",0,1,8]',
    '[2,2,"ENTER",0]',
    '[3,2,"ENTER",1]',
    '[4,2,"R",0,1]',
    '[5,2,"EXIT",1]',
    '[6,2,"R",0,0]',
  ].join('\n');
  const { r, events } = await read(text);
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.deepEqual(r.symbols.stackFrames(r.symbols.stackNode(8)), [0, 1]);
  const rebuilt = events.find((e) => e.i === 4)!;
  assert.deepEqual(r.symbols.stackFrames(rebuilt.c), [0, 1]);
  const after = events.find((e) => e.i === 6)!;
  assert.deepEqual(r.symbols.stackFrames(after.c), [0]);
});

const BAD: [string, string[], RegExp, number][] = [
  ['missing header', ['[1,1,"W",0,0]'], /missing header/, 1],
  ['unknown version', ['{"braid":"trace","version":7,"execution":"e","outcome":"fail"}'], /unknown trace format version 7/, 1],
  ['malformed JSON', [HEADER, ...DEFS, '[1,1,"W",0,0', '[2,1,"W",0,0]'], /invalid JSON/, 4],
  ['unknown kind', [HEADER, ...DEFS, '[1,1,"X",0,0]'], /unknown event kind "X"/, 4],
  ['undefined var', [HEADER, '{"def":"loc","id":0,"file":"A.java","line":3}', '[1,1,"R",5,0]'], /var 5 is not defined/, 3],
  ['index going back', [HEADER, ...DEFS, '[5,1,"W",0,0]', '[4,1,"W",0,0]'], /global index 4 does not increase/, 5],
  ['missing field', [HEADER, ...DEFS, '[1,1,"W",0]'], /missing element 5/, 4],
  ['bad outcome', ['{"braid":"trace","version":1,"execution":"e","outcome":"maybe"}'], /"outcome" must be "pass" or "fail"/, 1],
  ['not JSON at all', [HEADER, 'hello'], /expected a JSON array/, 2],
  ['second header', [HEADER, HEADER], /second header/, 2],
];
for (const [name, lines, re, line] of BAD) {
  test(`bad input (${name}) is an error naming file and line`, async () => {
    const { r } = await read(lines.join('\n') + '\n', 'bad.trace.jsonl');
    assert.equal(r.ok, false);
    const err = r.diagnostics.find((d) => d.severity === 'error')!;
    assert.ok(err, 'an error diagnostic');
    assert.match(err.message, re);
    assert.equal(err.file, 'bad.trace.jsonl');
    assert.equal(err.line, line);
  });
}

test('no outcome anywhere is a clear error', async () => {
  const { r } = await read(['{"braid":"trace","version":1,"execution":"e"}', ...DEFS, '[1,1,"W",0,0]'].join('\n') + '\n');
  assert.equal(r.ok, false);
  assert.match(r.diagnostics[0].message, /no outcome/);
});

test('a truncated last line (crashed recorder) keeps the events before it, with a warning', async () => {
  const { r, events } = await read([HEADER, ...DEFS, '[1,1,"W",0,0]', '[2,1,"W",0,0]', '[3,1,"W",0,'].join('\n'));
  assert.equal(r.ok, true);
  assert.equal(events.length, 2);
  const w = r.diagnostics.find((d) => d.severity === 'warning')!;
  assert.match(w.message, /last line is incomplete/);
  assert.equal(w.line, 6);
});

test('gzip traces are read; a truncated gzip is an error and the file is skipped', async () => {
  const text = [HEADER, ...DEFS, ...Array.from({ length: 5000 }, (_, k) => `[${k + 1},${(k % 2) + 1},"W",0,0]`)].join('\n') + '\n';
  const gz = gzipSync(text);
  const ok = await read(gz, 'a.trace.jsonl.gz');
  assert.equal(ok.r.ok, true, JSON.stringify(ok.r.diagnostics));
  assert.equal(ok.events.length, 5000);
  const cut = await read(gz.subarray(0, gz.length - 40), 'b.trace.jsonl.gz');
  assert.equal(cut.r.ok, false);
  const err = cut.r.diagnostics.find((d) => d.severity === 'error')!;
  assert.match(err.message, /gzip data is truncated or corrupt/);
  assert.equal(err.file, 'b.trace.jsonl.gz');
  assert.ok(err.line && err.line > 1);
  assert.match(err.message, /after line \d+/);
  // corrupt from the first byte (a gzip header, then garbage): nothing was read, and the message says so
  const bad = Buffer.concat([gz.subarray(0, 10), Buffer.alloc(64, 0xff)]);
  const none = await read(bad, 'c.trace.jsonl.gz');
  const e0 = none.r.diagnostics.find((d) => d.severity === 'error')!;
  assert.match(e0.message, /gzip data is truncated or corrupt from the start: nothing could be read/);
  assert.equal(e0.line, 1);
});

test('a binary file is an invalid-JSON error that says the file looks binary, with the bytes escaped', async () => {
  const bin = await read(Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x0a]), 'bin.trace.jsonl');
  const e = bin.r.diagnostics.find((d) => d.severity === 'error')!;
  assert.equal(e.line, 1);
  assert.match(e.message, /^invalid JSON: .*\(the file looks binary, not a JSON-lines trace/);
  assert.doesNotMatch(e.message, /[\u0000\ufffd]/);
  // after a good header: a line that is neither an array nor an object
  const other = await read(Buffer.concat([Buffer.from(HEADER + '\n'), Buffer.from([0xff, 0xfe, 0x41, 0x0a])]), 'bin2.trace.jsonl');
  const e2 = other.r.diagnostics.find((d) => d.severity === 'error')!;
  assert.equal(e2.line, 2);
  assert.match(e2.message, /found "\\ufffd\\ufffdA" \(the file looks binary/);
});

test('lines split across stream chunks are joined', async () => {
  const dir = tempDir();
  const f = path.join(dir, 'x.trace.jsonl');
  writeFileSync(f, buildTraceText({ execution: 'x', outcome: 'pass', events: Array.from({ length: 300 }, (_, k) => `W${(k % 3) + 1} v${k % 7} S${k % 11}`) }));
  const c = collect();
  const r = await readTrace(f, c.visitor, { chunkSize: 7 });
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.equal(c.events.length, 300);
});

test('one broken trace does not stop the others from loading', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'good.trace.jsonl'), buildTraceText({ execution: 'good', outcome: 'fail', events: ['W1 x S1', 'R2 x S2'] }));
  writeFileSync(path.join(dir, 'broken.trace.jsonl'), [HEADER, ...DEFS, '{oops'].join('\n') + '\n');
  const r = await analyzeTraceFiles([dir]);
  assert.equal(r.executions.total, 1);
  assert.equal(r.patterns.length, 1);
  const err = r.diagnostics.find((d) => d.severity === 'error')!;
  assert.match(err.file, /broken\.trace\.jsonl$/);
  assert.equal(err.line, 4);
});

test('a missing input path is reported', async () => {
  const r = await analyzeTraceFiles(['/nonexistent/braid/traces']);
  assert.equal(r.executions.total, 0);
  assert.match(r.diagnostics[0].message, /no such file or folder/);
});
