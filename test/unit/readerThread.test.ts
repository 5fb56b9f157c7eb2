/**
 * Reading one trace with a reader thread (trace/traceReaderThread.ts) gives
 * exactly what the one-thread reader gives: every event the visitor sees
 * (fields, value, line) with the symbols defined up to it (thread name, call
 * stack, table sizes), the reader's result (diagnostics with file and line,
 * outcome, dropped events, counts) and the final symbol tables; and an
 * Analyzer fed either way ranks the same patterns with the same ids and
 * stats. On the recorded subjects, on a generated trace spanning several
 * batches (definitions between events, ENTER/EXIT stacks, a stack deeper
 * than the cap, every kind of value), its gzip twin, and broken traces.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTrace, ReadTraceOptions, ReadTraceResult, TraceVisitor } from '../../server/src/engine/trace/traceReader';
import { readTraceInThread } from '../../server/src/engine/trace/traceReaderThread';
import { BATCH_EVENTS } from '../../server/src/engine/trace/eventBatch';
import { TraceEvent } from '../../server/src/engine/trace/traceFormat';
import { TraceSymbols } from '../../server/src/engine/trace/traceSymbols';
import { Analyzer } from '../../server/src/engine/analysis';

const recorded = path.resolve(__dirname, '../fixtures/recorded');
const dir = mkdtempSync(path.join(tmpdir(), 'braid-reader-thread-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A value as text that tells undefined, -0 and strings from numbers apart. */
function valueText(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (Object.is(v, -0)) return '-0';
  return `${typeof v}:${JSON.stringify(v)}`;
}

/** Everything a visitor can see, event by event, and the result. */
async function observe(read: typeof readTrace, file: string, options: ReadTraceOptions = {}) {
  const seen: string[] = [];
  const visitor: TraceVisitor = {
    header: (h, s) => seen.push(`header ${JSON.stringify(h)} ${s.threads.size}`),
    event: (ev: TraceEvent, s: TraceSymbols, line: number) => {
      const stack = ev.c >= 0 ? s.stackFrames(ev.c).join('/') : '';
      seen.push(
        [ev.i, ev.t, ev.kind, ev.a, ev.b, ev.c, ev.d, ev.e, valueText(ev.value), line, s.threads.get(ev.t)?.name, stack, s.threads.size, s.vars.size, s.locs.size, s.hasVar(ev.a), s.hasLoc(ev.b)].join(' '),
      );
    },
  };
  const r = await read(file, visitor, options);
  return { seen, result: resultView(r) };
}

function resultView(r: ReadTraceResult) {
  const { symbols, ...rest } = r;
  return {
    ...rest,
    threads: [...symbols.threads],
    vars: [...symbols.vars],
    locs: [...symbols.locs],
    truncatedStacks: symbols.truncatedStacks,
  };
}

async function assertSameReading(file: string, options: ReadTraceOptions = {}) {
  const one = await observe(readTrace, file, options);
  const two = await observe(readTraceInThread, file, options);
  assert.equal(two.seen.length, one.seen.length, `${file}: events seen`);
  for (let k = 0; k < one.seen.length; k++) if (two.seen[k] !== one.seen[k]) assert.equal(two.seen[k], one.seen[k], `${file}: event ${k}`);
  assert.deepEqual(two.result, one.result, file);
  return one;
}

/** The ranked result of an Analyzer fed the files one way or the other (ids are the registry's, equal when interning order is). */
async function analyze(files: string[], readerThread: boolean) {
  const a = new Analyzer();
  for (const f of files) await a.addTrace(f, { readerThread });
  const r = a.rank();
  return { r, keys: Array.from({ length: a.registry.patternCount }, (_, id) => a.registry.pattern(id).key) };
}

test('recorded subjects: every trace reads the same with a reader thread, and the subjects rank the same', async () => {
  for (const subject of readdirSync(recorded).sort()) {
    const sub = path.join(recorded, subject);
    let files: string[];
    try {
      files = readdirSync(sub)
        .filter((f) => f.endsWith('.trace.jsonl.gz') || f.endsWith('.trace.jsonl'))
        .sort()
        .map((f) => path.join(sub, f));
    } catch {
      continue; // README.md, manifest.json
    }
    assert.ok(files.length > 0, subject);
    for (const f of files) await assertSameReading(f);
    const one = await analyze(files, false);
    const two = await analyze(files, true);
    assert.ok(one.r.patterns.length > 0, `${subject} has patterns`);
    assert.deepEqual(two.keys, one.keys, `${subject}: pattern ids`);
    assert.deepEqual(two.r, one.r, `${subject}: ranked result`);
  }
});

/**
 * A trace of several batches (BATCH_EVENTS each): four threads writing and
 * reading shared fields; new vars, locs, threads and stacks defined between
 * events all along (thread 4's name after its first event), stacks of both
 * forms and from ENTER/EXIT, one recursion deeper than the 1,024-frame cap,
 * values of every kind (fast path and JSON path), dropped-event and
 * uncaught lines, an unknown line kind, a FAIL event and an outcome line.
 */
function generatedLines(events: number): string[] {
  const lines = ['{"braid":"trace","version":1,"program":"gen","recorder":{"name":"test","options":{"seed":7}}}', '{"def":"thread","id":1,"name":"main"}'];
  let i = 0;
  let vars = 0;
  let locs = 0;
  let stacks = 0;
  const defVar = () => lines.push(`{"def":"var","id":${vars},"name":"f${vars}","class":"C${vars % 3}","field":"f${vars}"${vars % 5 === 0 ? ',"array":true' : ''}}`) && vars++;
  const defLoc = () => lines.push(`{"def":"loc","id":${locs},"file":"C${locs % 3}.java","line":${10 + locs},"method":"C${locs % 3}.m${locs % 7}"${locs % 11 === 0 ? ',"call":"x.y()"' : ''}}`) && locs++;
  for (let k = 0; k < 4; k++) defVar();
  for (let k = 0; k < 6; k++) defLoc();
  lines.push('{"def":"stack","id":0,"frames":[0,1]}');
  stacks = 1;
  lines.push('{"def":"thread","id":2,"name":"worker-2"}', '{"def":"thread","id":3,"name":"worker-3"}');
  const values = ['1', '-0', 'null', 'true', 'false', '"plain"', '"esc\\"aped"', '{"o":[1,2]}', '12.5', '"ünïcode"'];
  let named4 = false;
  let deep = false;
  let mystery = false;
  while (i < events) {
    const t = (i % 4) + 1;
    // thread 4 (first event at i = 3) is named later
    if (!named4 && i >= 9) {
      lines.push('{"def":"thread","id":4,"name":"late-named"}');
      named4 = true;
    }
    if (i % 997 === 0) defVar();
    if (i % 1499 === 0) defLoc();
    if (i % 2003 === 0) {
      if (stacks % 2 === 0) lines.push(`{"def":"stack","id":${stacks},"frames":[${stacks % locs},${(stacks + 1) % locs}]}`);
      else lines.push(`{"def":"stack","id":${stacks},"parent":${stacks - 1},"frame":${stacks % locs}}`);
      stacks++;
    }
    if (i % 10007 === 5) lines.push('{"dropped":3}');
    if (!mystery && i >= 20000) {
      lines.push('{"mystery":1}');
      mystery = true;
    }
    if (!deep && i >= 30000) {
      deep = true;
      // a recursion deeper than the cap, then back out
      for (let d = 0; d < 1030; d++) lines.push(`[${i++},2,"ENTER",${d % locs}]`);
      lines.push(`[${i++},2,"W",0,1]`);
      for (let d = 0; d < 1030; d++) lines.push(`[${i++},2,"EXIT",${d % locs}]`);
    }
    const v = i % vars;
    const loc = i % locs;
    const kind = i % 3 === 0 ? 'W' : 'R';
    switch (i % 13) {
      case 0:
        lines.push(`[${i},${t},"ENTER",${loc}]`);
        break;
      case 1:
        lines.push(`[${i},${t},"EXIT",${loc}]`);
        break;
      case 2:
        lines.push(`[${i},${t},"ACQ",7,${loc},${i % stacks}]`);
        break;
      case 3:
        lines.push(`[${i},${t},"REL",7,${loc}]`);
        break;
      case 4:
        lines.push(`[${i},${t},"${kind}",${v},${loc},${i % stacks},${i % 5},${i % 4 === 0 ? 2 : 'null'},${values[i % values.length]}]`);
        break;
      case 5:
        lines.push(`[${i},${t},"SND",${i % 9}]`, `[${i + 1},${(t % 4) + 1},"RCV",${i % 9}]`);
        i++;
        break;
      default:
        lines.push(`[ ${i}, ${t}, "${kind}", ${v}, ${loc}${i % 2 ? `, null, ${i % 3}` : ''} ]`);
    }
    i++;
  }
  lines.push(`[${i++},1,"FAIL",0,0,"assert","expected 2"]`);
  lines.push('{"uncaught":{"thread":3,"exception":"java.lang.IllegalStateException","message":"boom","frames":["C0.m0(C0.java:10)"]}}');
  lines.push(`{"outcome":"fail","reason":"assert","failAt":${i - 5}}`);
  return lines;
}

const GENERATED_EVENTS = 3 * BATCH_EVENTS + 1234;

function write(name: string, text: string | Buffer): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

test('a generated trace of several batches, and its gzip twin, read and rank the same', async () => {
  const text = generatedLines(GENERATED_EVENTS).join('\n') + '\n';
  const plain = write('gen.trace.jsonl', text);
  const gz = write('gen.trace.jsonl.gz', gzipSync(text));
  for (const f of [plain, gz]) {
    const one = await assertSameReading(f);
    assert.ok(one.result.ok, JSON.stringify(one.result.diagnostics));
    assert.ok(one.result.eventCount > 3 * BATCH_EVENTS, 'spans several batches');
    assert.equal(one.result.truncatedStacks, true);
    assert.ok(one.result.droppedEvents > 0);
    assert.ok(one.result.diagnostics.some((d) => /deeper than 1024 frames/.test(d.message)));
    assert.ok(one.result.diagnostics.some((d) => /no "execution" id/.test(d.message)));
    assert.ok(one.result.diagnostics.some((d) => /unknown kind/.test(d.message)));
    const a1 = await analyze([f], false);
    const a2 = await analyze([f], true);
    assert.ok(a1.r.patterns.length > 0);
    assert.deepEqual(a2.keys, a1.keys);
    assert.deepEqual(a2.r, a1.r);
  }
  // a preview (maxEvents) stops at the same event
  await assertSameReading(plain, { maxEvents: BATCH_EVENTS + 17 });
});

test('broken traces give the same diagnostics (file and line) and the same events before the problem', async () => {
  const lines = generatedLines(2 * BATCH_EVENTS);
  const at = lines.length - 5000; // after the first batches
  const variants: [string, string | Buffer][] = [
    ['bad-json.trace.jsonl', [...lines.slice(0, at), '[1,2,', ...lines.slice(at)].join('\n') + '\n'],
    ['undefined-var.trace.jsonl', [...lines.slice(0, at), '[99999999,1,"W",123456,0]', ...lines.slice(at)].join('\n') + '\n'],
    ['index-back.trace.jsonl', [...lines.slice(0, at), '[3,1,"W",0,0]', ...lines.slice(at)].join('\n') + '\n'],
    ['no-outcome.trace.jsonl', lines.slice(0, -1).join('\n') + '\n'],
    ['cut-last-line.trace.jsonl', [...lines, '[999999999,1,"W",0,'].join('\n')],
    ['truncated.trace.jsonl.gz', gzipSync(lines.join('\n') + '\n').subarray(0, 200000)],
    ['empty.trace.jsonl', ''],
    ['not-a-trace.trace.jsonl', '{"hello":1}\n'],
  ];
  for (const [name, text] of variants) {
    const f = write(name, text);
    const one = await assertSameReading(f);
    assert.equal(one.result.ok, name === 'cut-last-line.trace.jsonl', name);
    assert.ok(
      one.result.diagnostics.every((d) => d.file === f && d.line !== undefined),
      name,
    );
  }
  await assertSameReading(path.join(dir, 'no-such.trace.jsonl'));
});

test('an exception of the collector skips the file, naming the line, as with one thread', async () => {
  const f = write('throws.trace.jsonl', generatedLines(BATCH_EVENTS + 500).join('\n') + '\n');
  const throwing = (): TraceVisitor => {
    let n = 0;
    return {
      event: () => {
        if (++n === BATCH_EVENTS + 100) throw new Error('collector broke');
      },
    };
  };
  const one = await readTrace(f, throwing());
  const two = await readTraceInThread(f, throwing());
  assert.equal(one.ok, false);
  assert.equal(two.ok, false);
  const e1 = one.diagnostics.find((d) => d.severity === 'error')!;
  const e2 = two.diagnostics.find((d) => d.severity === 'error')!;
  assert.equal(e2.line, e1.line);
  assert.equal(e2.message.split('\n')[0], e1.message.split('\n')[0]);
  // the next read gets a fresh reader thread and is whole
  await assertSameReading(f);
});
