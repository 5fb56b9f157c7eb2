/** The trace format's happens-before, failure and output events (SND, RCV, FAIL, OUT), loc.call, loc.harness and failAt. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { EventKind, TraceEvent } from '../../server/src/engine/trace/traceFormat';

const root = path.resolve(__dirname, '../..');
const schema = JSON.parse(readFileSync(path.join(root, 'docs/trace-format.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: false }).compile(schema);

async function read(lines: string[]) {
  const events: TraceEvent[] = [];
  const r = await readTraceBuffer('mem.trace.jsonl', Buffer.from(lines.join('\n') + '\n'), { event: (ev) => events.push({ ...ev }) });
  return { r, events };
}

const HEAD = [
  '{"braid":"trace","version":1,"execution":"e1"}',
  '{"def":"loc","id":0,"file":"A.java","line":3,"method":"A.m"}',
  '{"def":"loc","id":1,"file":"A.java","line":9,"method":"A.m","call":"java.util.HashMap.put"}',
  '{"def":"loc","id":2,"file":"ATest.java","line":4,"method":"ATest.t","harness":true}',
  '{"def":"stack","id":0,"frames":[2,0]}',
];

test('SND, RCV, FAIL and OUT events are read, in both the fast and the JSON path', async () => {
  const lines = [
    ...HEAD,
    '[1,1,"SND",7,0]',
    '[2.0,2,"RCV",7,0]', // 2.0: the JSON path
    '[3,2,"SND",8]',
    '[4,1,"RCV",8,null]',
    '[5,2,"FAIL",0,0,"assert","expected 2 but was 1"]',
    '[6,1,"FAIL"]',
    '[7,1,"OUT",1,"FAIL: lost update"]',
    '[8,1,"OUT",2]',
    '[9.0,1,"FAIL",1,null]',
    '{"outcome":"fail","reason":"output-match","failAt":7}',
  ];
  const { r, events } = await read(lines);
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  const pick = (e: TraceEvent) => [e.i, e.t, e.kind, e.a, e.b, e.c, e.value];
  assert.deepEqual(events.map(pick), [
    [1, 1, EventKind.Send, 7, 0, -1, undefined],
    [2, 2, EventKind.Receive, 7, 0, -1, undefined],
    [3, 2, EventKind.Send, 8, -1, -1, undefined],
    [4, 1, EventKind.Receive, 8, -1, -1, undefined],
    [5, 2, EventKind.Fail, 2, 0, 1, 'expected 2 but was 1'], // c: the stack node of stack 0 = frames [2,0] (node 0 = [2], node 1 = [2,0])
    [6, 1, EventKind.Fail, -1, -1, -1, undefined],
    [7, 1, EventKind.Out, 1, -1, -1, 'FAIL: lost update'],
    [8, 1, EventKind.Out, 2, -1, -1, undefined],
    [9, 1, EventKind.Fail, -1, 1, -1, undefined],
  ]);
  assert.equal(r.firstFail, 5);
  assert.equal(r.failAt, 7);
  assert.equal(r.symbols.locs.get(1)?.call, 'java.util.HashMap.put');
  assert.equal(r.symbols.locs.get(2)?.harness, true);
  assert.equal(r.symbols.locs.get(0)?.harness, undefined);
  for (const l of lines.slice(5)) assert.ok(validate(JSON.parse(l)), `schema rejects ${l}: ${JSON.stringify(validate.errors?.[0])}`);
  for (const l of HEAD) assert.ok(validate(JSON.parse(l)), l);
});

test('bad SND/RCV/FAIL/OUT lines are errors naming the line', async () => {
  const cases: [string, RegExp][] = [
    ['[1,1,"SND"]', /missing element 4/],
    ['[1,1,"RCV",3,9]', /loc 9 is not defined/],
    ['[1,1,"FAIL",0,null,"boom"]', /failure kind/],
    ['[1,1,"FAIL",0,null,3]', /must be a string/],
    ['[1,1,"FAIL",0,5]', /stack 5 is not defined/],
    ['[1,1,"OUT",3,"x"]', /stream/],
    ['[1,1,"OUT",1,"x",2]', /too many elements/],
  ];
  for (const [line, re] of cases) {
    const { r } = await read([...HEAD, line, '{"outcome":"fail"}']);
    assert.equal(r.ok, false, line);
    const d = r.diagnostics.find((x) => x.severity === 'error');
    assert.equal(d?.line, HEAD.length + 1, line);
    assert.match(d!.message, re, line);
  }
  for (const bad of [[1, 1, 'SND'], [1, 1, 'OUT', 3], [1, 1, 'FAIL', 0, null, 'boom'], { outcome: 'fail', failAt: -1 }]) {
    assert.equal(validate(bad), false, JSON.stringify(bad));
  }
});

test('a bad failAt or harness is an error; traces without the new fields load unchanged', async () => {
  let { r } = await read([...HEAD, '[1,1,"W",0,0]'.replace('"W",0,0', '"END"'), '{"outcome":"fail","failAt":"x"}']);
  assert.equal(r.ok, false);
  assert.match(r.diagnostics[0].message, /failAt/);
  ({ r } = await read(['{"braid":"trace","version":1,"execution":"e1"}', '{"def":"loc","id":0,"file":"A.java","line":3,"harness":1}', '{"outcome":"pass"}']));
  assert.equal(r.ok, false);
  assert.match(r.diagnostics[0].message, /harness/);
  ({ r } = await read(['{"braid":"trace","version":1,"execution":"e1","outcome":"pass"}', '{"def":"var","id":0,"name":"x"}', '{"def":"loc","id":0,"file":"A.java","line":3}', '[1,1,"W",0,0]']));
  assert.equal(r.ok, true);
  assert.equal(r.failAt, undefined);
  assert.equal(r.firstFail, undefined);
});
