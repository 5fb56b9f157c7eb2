/**
 * Oracles for fuzzed trace lines (test-suite review rows 21, 22, 23):
 * - the fast event-line path and JSON.parse agree on accept/reject and on
 *   every field (seeded differential test);
 * - every line the reader accepts validates against
 *   docs/trace-format.schema.json;
 * - the events of an accepted mutant are events of the base trace, in
 *   increasing index order.
 * `npm run fuzz` runs the same oracles over ≥ 100,000 mutated traces.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';
import { rng } from '../helpers/seededRandom';
import { damageLine, eventLine, fastVsJson, headerLine, objectLine, traceLineSchema } from '../helpers/traceMutator';
import { buildTraceText } from '../helpers/traceBuilder';

// definitions every fuzzed line may refer to: threads, vars, locs 0–5, stacks 0–5
const HEADER = '{"braid":"trace","version":1,"execution":"fz"}';
const DEFS: string[] = [];
for (let k = 0; k < 6; k++) {
  DEFS.push(`{"def":"thread","id":${k},"name":"T${k}"}`, `{"def":"var","id":${k},"name":"v${k}"}`, `{"def":"loc","id":${k},"file":"F.java","line":${k + 1},"method":"F.m${k}"}`);
}
for (let k = 0; k < 6; k++) DEFS.push(k === 0 ? '{"def":"stack","id":0,"frame":0}' : `{"def":"stack","id":${k},"parent":${k - 1},"frame":${k}}`);
const BASE_EVENTS = ['[1,1,"W",0,0]', '[2, 2, "R", 1, 2, 3, 4, 5, 6]', '[3,1,"ACQ",7,1,2]', '[4,2,"ENTER",3]', '[5,2,"EXIT"]', '[6,1,"END"]', '[7,1,"W",0,0,null,0,-1,{"a":[1]}]'];

test('review #21: seeded differential test — the fast path and JSON.parse agree on 30,000 fuzzed event lines', () => {
  const r = rng(21);
  let accepted = 0;
  let rejected = 0;
  const seen = new Set<string>();
  for (let n = 0; n < 30000; n++) {
    const line = r() < 0.7 ? eventLine(r) : damageLine(BASE_EVENTS[Math.floor(r() * BASE_EVENTS.length)], r);
    seen.add(line);
    const v = fastVsJson(line);
    assert.ok(v.agree, `${JSON.stringify(line)}: ${v.agree ? '' : v.why}`);
    if (v.fast === 'accept') accepted++;
    if (v.fast === 'reject') rejected++;
  }
  // both verdicts of the fast path are exercised
  assert.ok(accepted > 2000 && rejected > 500, `fast accepted ${accepted}, rejected ${rejected}`);
  // the known divergence of the review: leading zeros
  for (const line of ['[01,1,"W",0,0]', '[1,1,"W",00,0]', '[-01,1,"W",0,0]']) assert.deepEqual(fastVsJson(line), { agree: true, fast: 'defer' });
});

async function acceptedAlone(line: string, isHeader: boolean): Promise<boolean> {
  const lines = isHeader ? [line, ...DEFS, '{"outcome":"pass"}'] : [HEADER, ...DEFS, line, '{"outcome":"pass"}'];
  const r = await readTraceBuffer('one.trace.jsonl', Buffer.from(lines.join('\n') + '\n'), { event() {} });
  return r.ok && r.diagnostics.length === 0;
}

test('review #22: every line the reader accepts (no diagnostic) validates against the schema — 12,000 fuzzed lines', async () => {
  const validate = traceLineSchema();
  const r = rng(22);
  let accepted = 0;
  for (let n = 0; n < 12000; n++) {
    const kind = Math.floor(r() * 3);
    const line = kind === 0 ? eventLine(r) : kind === 1 ? objectLine(r) : headerLine(r);
    if (!(await acceptedAlone(line, kind === 2))) continue;
    accepted++;
    const value = JSON.parse(line);
    assert.ok(validate(value), `the reader accepts ${line} but the schema rejects it: ${JSON.stringify(validate.errors)}`);
  }
  assert.ok(accepted > 2000, `accepted ${accepted}`);
});

test('review #23: an accepted mutant (lines deleted, duplicated, swapped, cut) holds only base events, in increasing index order', async () => {
  const base = buildTraceText({
    execution: 'sub',
    outcome: 'fail',
    events: Array.from({ length: 60 }, (_, k) => `${k % 3 ? 'W' : 'R'}${(k % 4) + 1} v${k % 5} S${(k % 9) + 1}${k % 7 === 0 ? ' @obj=3 @elem=2' : ''}`),
  });
  const key = (e: TraceEvent) => JSON.stringify([e.i, e.t, e.kind, e.a, e.b, e.c, e.d, e.e, e.value]);
  const baseEvents = new Set<string>();
  await readTraceBuffer('base.trace.jsonl', Buffer.from(base), { event: (e) => baseEvents.add(key(e)) });
  assert.equal(baseEvents.size, 60);
  const r = rng(23);
  let ok = 0;
  for (let n = 0; n < 3000; n++) {
    const lines = base.split('\n');
    for (let k = 0, ops = 1 + Math.floor(r() * 3); k < ops; k++) {
      const at = Math.floor(r() * lines.length);
      const op = Math.floor(r() * 4);
      if (op === 0) lines.splice(at, 1);
      else if (op === 1) lines.splice(at, 0, lines[Math.floor(r() * lines.length)]);
      else if (op === 2) {
        const b = Math.floor(r() * lines.length);
        [lines[at], lines[b]] = [lines[b], lines[at]];
      } else lines.length = Math.max(1, at);
    }
    const events: TraceEvent[] = [];
    const res = await readTraceBuffer('m.trace.jsonl', Buffer.from(lines.join('\n')), { event: (e) => events.push({ ...e }) });
    if (!res.ok) continue;
    ok++;
    for (let k = 0; k < events.length; k++) {
      assert.ok(baseEvents.has(key(events[k])), `case ${n}: event ${key(events[k])} is not in the base trace`);
      if (k > 0) assert.ok(events[k].i > events[k - 1].i, `case ${n}: index ${events[k].i} after ${events[k - 1].i}`);
    }
    assert.equal(res.eventCount, events.length);
  }
  assert.ok(ok > 300, `accepted mutants ${ok}`);
});

test('review #22: found by npm run fuzz — a header-like line later in the file is not taken for an outcome line', async () => {
  const line = '{"braid":[3,889,false],"version":1,"execution":"e","outcome":"fail"}';
  assert.equal(traceLineSchema()(JSON.parse(line)), false);
  const r = await readTraceBuffer('h.trace.jsonl', Buffer.from([HEADER, line, '{"outcome":"pass"}'].join('\n') + '\n'), { event() {} });
  assert.equal(r.ok, false);
  assert.deepEqual([r.diagnostics[0].line, r.diagnostics[0].message], [2, 'a second header line; one trace file holds one execution']);
});

test('review #22: a line with two kinds in one object (the schema rejects it), or a stack with "frames" and a "parent", is an error', async () => {
  const cases: [string, string][] = [
    ['{"def":"thread","id":2,"name":"T","outcome":"pass"}', 'a line is a definition, an outcome or an uncaught report, not several (has "def" and "outcome")'],
    ['{"uncaught":{"thread":2,"exception":"E"},"outcome":"pass"}', 'a line is a definition, an outcome or an uncaught report, not several (has "outcome" and "uncaught")'],
    ['{"def":"stack","id":9,"frames":[1,0],"parent":0}', 'a stack has either "frames" or "frame" (with "parent"), not both'],
  ];
  for (const [line, message] of cases) {
    // (the schema rejects the mixed kinds; a parent with frames it allows, the reader is stricter: docs/trace-format.md has two forms)
    if (!line.includes('frames')) assert.equal(traceLineSchema()(JSON.parse(line)), false, line);
    const r = await readTraceBuffer('k.trace.jsonl', Buffer.from([HEADER, ...DEFS, line, '{"outcome":"pass"}'].join('\n') + '\n'), { event() {} });
    assert.deepEqual([r.ok, r.diagnostics[0]?.line, r.diagnostics[0]?.message], [false, DEFS.length + 2, message], line);
  }
});
