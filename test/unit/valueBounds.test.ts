/**
 * Values are kept as they can be shown (issue 31, N13): a trace with huge array, object and string
 * values keeps at most their bounded form (docs/trace-format.md, `value`) — in the analysis'
 * patterns, through the byte-level fast path and the general path alike — so memory follows what
 * is shown (8 lines with an 8 M-element array each once took 3.4 GB for a 134 MB trace).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { boundValue, MAX_VALUE_CHARS } from '../../server/src/engine/trace/boundedValue';
import { decodeEventValue, parseEventLineFast } from '../../server/src/engine/trace/eventLineParser';
import { EventKind, TraceEvent } from '../../server/src/engine/trace/traceFormat';

function trace(execution: string, outcome: 'pass' | 'fail', events: string[]): string {
  return [
    `{"braid":"trace","version":1,"execution":"${execution}","outcome":"${outcome}"}`,
    '{"def":"thread","id":1,"name":"T1"}',
    '{"def":"thread","id":2,"name":"T2"}',
    '{"def":"var","id":0,"name":"shop.Cart.items"}',
    '{"def":"loc","id":0,"file":"shop/Cart.java","line":10,"method":"shop.Cart.check"}',
    '{"def":"loc","id":1,"file":"shop/Cart.java","line":20,"method":"shop.Cart.add"}',
    ...events,
    '',
  ].join('\n');
}

test('N13: a pattern whose accesses carry a 1,000,000-element array and a 200,000-key object keeps their summaries', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-bigvalues-'));
  const bigArray = JSON.stringify(new Array(1_000_000).fill(7));
  const bigObject = JSON.stringify(Object.fromEntries(Array.from({ length: 200_000 }, (_, k) => [`k${k}`, k])));
  writeFileSync(path.join(dir, 'f.trace.jsonl'), trace('f', 'fail', [`[1,1,"R",0,0,null,7,-1,${bigArray}]`, `[2,2,"W",0,1,null,7,-1,${bigObject}]`]));
  writeFileSync(path.join(dir, 'p.trace.jsonl'), trace('p', 'pass', ['[1,2,"W",0,1,null,7,-1,[1,2]]', '[2,1,"R",0,0,null,7,-1,{"a":1}]']));
  const r = await analyzeTraceFiles([dir]);
  const rw = r.patterns.find((p) => p.kind === 'RW');
  assert.ok(rw, `an RW pattern; got ${r.patterns.map((p) => p.kind).join(',')}`);
  assert.deepEqual(
    rw.accesses.map((a) => a.value),
    ['[1000000 numbers]', '{200000 keys}'],
  );
  // what the analysis keeps of them is small whatever the trace held
  for (const p of r.patterns) for (const a of p.accesses) assert.ok(JSON.stringify(a.value ?? null).length <= MAX_VALUE_CHARS + 2);
});

test('N13: a long string value is cut to MAX_VALUE_CHARS characters and "…", the same in the fast path and the general path', () => {
  const long = 'x'.repeat(100_000);
  const line = `[1,1,"W",0,0,null,7,-1,"${long}"]`;
  const fast: TraceEvent = { i: 0, t: 0, kind: EventKind.Read, a: 0, b: 0, c: -1, d: 0, e: -1, value: undefined };
  assert.ok(parseEventLineFast(Buffer.from(line), 0, line.length, fast), 'an ASCII string takes the fast path');
  const general: TraceEvent = { ...fast, value: undefined };
  decodeEventValue(JSON.parse(line), general);
  assert.equal(fast.value, 'x'.repeat(MAX_VALUE_CHARS) + '…');
  assert.deepEqual(general, fast);
  // at the limit: kept whole
  const edge = `[1,1,"W",0,0,null,7,-1,"${'y'.repeat(MAX_VALUE_CHARS)}"]`;
  assert.ok(parseEventLineFast(Buffer.from(edge), 0, edge.length, fast));
  assert.equal(fast.value, 'y'.repeat(MAX_VALUE_CHARS));
});

test('N13: small values are kept as they are; large ones summarized by kind', () => {
  const small = [3, 'size', null, true, [1, 2, 3], { a: [1, { b: 'c' }] }, new Array(300).fill(0)];
  for (const v of small) assert.equal(boundValue(v), v);
  assert.equal(boundValue(new Array(600).fill(0)), '[600 numbers]');
  assert.equal(boundValue(new Array(300).fill('ab')), '[300 strings]');
  assert.equal(boundValue([1, 'a', ...new Array(600).fill(null)]), '[602 values]');
  assert.equal(boundValue([new Array(2000).fill(1)]), '[1 array]');
  assert.equal(boundValue(['z'.repeat(5000)]), '[1 string]');
  assert.equal(boundValue({ k: 'z'.repeat(5000) }), '{1 key}');
  assert.equal(boundValue('a' + '\u{1F600}'.repeat(600)), 'a' + '\u{1F600}'.repeat(511) + '…', 'a surrogate pair is not split');
});
