/**
 * Reading rules of docs/trace-format.md with no test before (test-suite
 * review rows 46 and 47): the last outcome line wins, empty lines are
 * ignored, and undefined loc, stack and stack-parent ids are errors naming
 * file and line.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';

const DEFS = ['{"def":"var","id":0,"name":"x"}', '{"def":"loc","id":0,"file":"A.java","line":3,"method":"A.m"}'];

async function read(lines: string[]) {
  const events: TraceEvent[] = [];
  const r = await readTraceBuffer('rules.trace.jsonl', Buffer.from(lines.join('\n') + '\n'), { event: (e) => events.push({ ...e }) });
  return { r, events };
}

test('review #46: the last of several outcome lines wins, over the header too', async () => {
  const { r } = await read([
    '{"braid":"trace","version":1,"execution":"e","outcome":"pass"}',
    ...DEFS,
    '[1,1,"W",0,0]',
    '{"outcome":"fail","reason":"exception","detail":"first"}',
    '{"outcome":"pass","reason":"ok"}',
    '{"outcome":"fail","reason":"timeout","detail":"last"}',
  ]);
  assert.equal(r.ok, true);
  assert.deepEqual([r.outcome, r.outcomeReason, r.outcomeDetail], ['fail', 'timeout', 'last']);
  const back = await read(['{"braid":"trace","version":1,"execution":"e","outcome":"fail"}', '{"outcome":"fail","reason":"exit-code"}', '{"outcome":"pass","reason":"ok"}']);
  assert.deepEqual([back.r.outcome, back.r.outcomeReason, back.r.outcomeDetail], ['pass', 'ok', undefined]);
});

test('review #46: empty and blank lines are ignored anywhere, also before the header; line numbers still count them', async () => {
  const { r, events } = await read(['', '   ', '{"braid":"trace","version":1,"execution":"e","outcome":"fail"}', '', ...DEFS, '\t', '[1,1,"W",0,0]', '', '', '[2,2,"R",0,0]', '\r', '']);
  assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(
    events.map((e) => [e.i, e.t]),
    [
      [1, 1],
      [2, 2],
    ],
  );
  const bad = await read(['', '{"braid":"trace","version":1,"execution":"e","outcome":"fail"}', '', '[1,1,"W",0,7]']);
  assert.deepEqual([bad.r.ok, bad.r.diagnostics[0].line], [false, 4]);
});

const UNDEFINED: [string, string[], string, number][] = [
  ['loc of an access', ['[1,1,"W",0,9]'], 'loc 9 is not defined (add {"def":"loc","id":9,...} before this line)', 4],
  ['stack of an access', ['[1,1,"R",0,0,4]'], 'stack 4 is not defined', 4],
  ['loc of ENTER', ['[1,1,"ENTER",5]'], 'loc 5 is not defined', 4],
  ['loc of ACQ', ['[1,1,"ACQ",77,6]'], 'loc 6 is not defined', 4],
  ['stack of ACQ', ['[1,1,"ACQ",77,0,3]'], 'stack 3 is not defined', 4],
  ['loc of START', ['[1,1,"START",2,8]'], 'loc 8 is not defined', 4],
  ['frame of a stack', ['{"def":"stack","id":1,"frame":4}'], 'stack 1 uses loc 4, which is not defined', 4],
  ['loc in stack frames', ['{"def":"stack","id":1,"frames":[0,3]}'], 'stack 1 uses loc 3, which is not defined', 4],
  ['parent of a stack', ['{"def":"stack","id":1,"parent":2,"frame":0}'], 'stack 1 has parent stack 2, which is not defined', 4],
  ['var defined after its use', ['[1,1,"W",5,0]', '{"def":"var","id":5,"name":"late"}'], 'var 5 is not defined (add {"def":"var","id":5,"name":...} before this line)', 4],
];
for (const [name, lines, message, line] of UNDEFINED) {
  test(`review #47: undefined ${name} is an error at its line`, async () => {
    const { r } = await read(['{"braid":"trace","version":1,"execution":"e","outcome":"fail"}', ...DEFS, ...lines]);
    assert.equal(r.ok, false);
    const err = r.diagnostics.find((d) => d.severity === 'error');
    assert.deepEqual([err?.file, err?.line, err?.message], ['rules.trace.jsonl', line, message]);
  });
}
