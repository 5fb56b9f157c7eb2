/**
 * Runner and agent behaviour: crashed, hung and killed programs still give readable traces with a
 * fail outcome; traces follow docs/trace-format.md (header first, ids defined before use, strictly
 * increasing indexes); every access carries a stack; argument parsing.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { parseRecordArgs, deriveName, UsageError } from '../../server/src/recorder/runs/recordOptions';
import { prepare, record } from './recorderHarness';

before(() => prepare());

interface Checked {
  header: Record<string, unknown>;
  outcomes: Record<string, unknown>[];
  uncaught: unknown[];
  events: unknown[][];
  locs: Map<number, { file: string; line: number; method: string }>;
  stacks: Map<number, { parent?: number; frame: number }>;
}

/** Reads a trace and checks the writing rules of docs/trace-format.md. */
function checkTrace(file: string): Checked {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), `${file}: ends with a newline`);
  const lines = text.split('\n').filter((l) => l.length > 0);
  const header = JSON.parse(lines[0]);
  assert.equal(header.braid, 'trace');
  assert.equal(header.version, 1);
  assert.equal(typeof header.execution, 'string');
  const defined: Record<string, Set<number>> = { thread: new Set(), var: new Set(), loc: new Set(), stack: new Set() };
  const locs = new Map();
  const stacks = new Map();
  const outcomes: Record<string, unknown>[] = [];
  const uncaught: unknown[] = [];
  const events: unknown[][] = [];
  let lastIndex = 0;
  const need = (kind: string, id: unknown, n: number) => {
    if (id === null || id === undefined) return;
    assert.ok(defined[kind].has(id as number), `${file}:${n}: ${kind} ${id} used before its definition`);
  };
  lines.slice(1).forEach((line, k) => {
    const n = k + 2;
    const v = JSON.parse(line);
    if (Array.isArray(v)) {
      const [i, t, kind] = v;
      assert.ok(i > lastIndex, `${file}:${n}: index ${i} does not increase`);
      lastIndex = i;
      need('thread', t, n);
      if (kind === 'R' || kind === 'W') {
        need('var', v[3], n);
        need('loc', v[4], n);
        need('stack', v[5], n);
      } else if (kind === 'ACQ' || kind === 'REL') {
        need('loc', v[4], n);
        need('stack', v[5], n);
      } else if (kind === 'START' || kind === 'JOIN') {
        need('thread', v[3], n);
        need('loc', v[4], n);
      } else if (kind === 'SND' || kind === 'RCV') {
        assert.equal(typeof v[3], 'number', `${file}:${n}: ${kind} has a token`);
        need('loc', v[4], n);
      } else if (kind === 'FAIL') {
        need('loc', v[3], n);
        need('stack', v[4], n);
        assert.ok(['uncaught', 'exit', 'assert', 'output'].includes(v[5]), `${file}:${n}: FAIL kind ${v[5]}`);
      } else if (kind === 'OUT') {
        assert.ok(v[3] === 1 || v[3] === 2, `${file}:${n}: OUT stream`);
        assert.equal(typeof v[4], 'string');
      } else assert.equal(kind, 'END', `${file}:${n}: unknown kind`);
      events.push(v);
    } else if (v.def) {
      if (v.def === 'loc') locs.set(v.id, v);
      if (v.def === 'stack') {
        need('stack', v.parent, n);
        need('loc', v.frame, n);
        stacks.set(v.id, v);
      }
      defined[v.def].add(v.id);
    } else if (v.outcome) outcomes.push(v);
    else if (v.uncaught) uncaught.push(v.uncaught);
    else assert.fail(`${file}:${n}: unknown line ${line}`);
  });
  return { header, outcomes, uncaught, events, locs, stacks };
}

test('a worker that dies with an uncaught exception fails the run (exit code 0)', async () => {
  const s = await record('crash', 'lifecycle.Crash', { runs: 2, include: ['lifecycle'] });
  assert.equal(s.failed, 2);
  for (const r of s.runs) {
    assert.equal(r.exitCode, 0);
    assert.equal(r.reason, 'exception');
    assert.match(r.detail ?? '', /IllegalStateException/);
    const t = checkTrace(r.traces[0]);
    assert.equal(t.outcomes.at(-1)?.outcome, 'fail');
    assert.equal(t.uncaught.length, 1);
    assert.ok(t.events.length > 10);
    const fails = t.events.filter((e) => e[2] === 'FAIL');
    assert.equal(fails.length, 1, 'one failure point');
    assert.equal(fails[0][5], 'uncaught');
    assert.match(fails[0][6] as string, /IllegalStateException/);
    assert.equal(t.locs.get(fails[0][3] as number)?.line, 10, 'at the throw in Crash.java');
  }
});

test('a program that hangs is stopped at the time limit and its trace is complete', async () => {
  // the limit must cover JVM start and instrumentation on a busy 2-core machine: this test is about
  // the trace's completeness, not speed, so it is generous
  const s = await record('hang', 'lifecycle.Hang', { runs: 1, include: ['lifecycle'], timeoutSeconds: 10 });
  const r = s.runs[0];
  assert.equal(r.outcome, 'fail');
  assert.equal(r.reason, 'timeout');
  const t = checkTrace(r.traces[0]);
  assert.equal(t.outcomes.at(-1)?.reason, 'timeout');
  assert.ok(t.events.filter((e) => e[2] === 'W').length >= 10, 'the accesses before the hang are in the trace');
});

test('a program killed with SIGKILL keeps the flushed part of its trace and fails', async () => {
  const s = await record('killed', 'lifecycle.Killed', { runs: 1, include: ['lifecycle'] });
  const r = s.runs[0];
  assert.equal(r.outcome, 'fail');
  assert.equal(r.reason, 'killed');
  const t = checkTrace(r.traces[0]);
  // Killed waits until its trace file has 300 lines before it kills itself
  assert.ok(t.events.length > 250, `events written before the kill are kept (${t.events.length})`);
  const result = await analyzeTraceFiles(r.traces);
  assert.equal(result.executions.failed, 1);
  assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
});

test('every access has a stack: bottom = thread entry method, top = the access location', async () => {
  const s = await record('stacks', 'vectorcopy.VectorCopy', { runs: 3, include: ['vectorcopy'], noise: 0 });
  for (const file of s.traces) {
    const t = checkTrace(file);
    assert.equal(t.header.program, 'vectorcopy.VectorCopy');
    const accesses = t.events.filter((e) => ['R', 'W', 'ACQ', 'REL'].includes(e[2] as string));
    assert.ok(accesses.length > 20);
    for (const e of accesses) {
      const stackId = e[5] as number;
      assert.equal(typeof stackId, 'number', `access ${JSON.stringify(e)} has a stack`);
      const frames: number[] = [];
      for (let id: number | undefined = stackId; id !== undefined; id = t.stacks.get(id)?.parent) frames.unshift(t.stacks.get(id)!.frame);
      assert.equal(frames.at(-1), e[4], 'top frame is the access location');
    }
    // toArray's read of data: called from the copy constructor, called from the copier's lambda.
    const dataRead = accesses.find((e) => t.locs.get(e[4] as number)?.method === 'vectorcopy.VectorCopy$MyVector.toArray' && e[2] === 'R');
    assert.ok(dataRead);
    const methods: string[] = [];
    for (let id: number | undefined = dataRead[5] as number; id !== undefined; id = t.stacks.get(id)?.parent) methods.unshift(t.locs.get(t.stacks.get(id)!.frame)!.method);
    assert.deepEqual(methods, ['vectorcopy.VectorCopy.lambda$main$1', 'vectorcopy.VectorCopy$MyVector.<init>', 'vectorcopy.VectorCopy$MyVector.toArray']);
    // caller frames carry their call sites: `new MyVector(shared)` (line 61), `other.toArray(copy)` (line 27)
    const lines: number[] = [];
    for (let id: number | undefined = dataRead[5] as number; id !== undefined; id = t.stacks.get(id)?.parent) lines.unshift(t.locs.get(t.stacks.get(id)!.frame)!.line);
    assert.deepEqual(lines, [61, 27, 37]);
  }
});

test('an included JDK class reached through a library call is "called from" that call\'s line', async () => {
  // listeners: fireSelectionChanged iterates an ArrayList (it.hasNext() line 56, it.next() line 57);
  // with --include java.util.ArrayList the iterator's own reads are recorded, each called from its line
  // (the library-call stub once left the call line at the last call site: 55, then 58 in the loop)
  const s = await record('jdkcalllines', 'listeners.TableViewDemo', { runs: 1, include: ['listeners', 'java.util.ArrayList'], noise: 0 });
  const t = checkTrace(s.traces[0]);
  const callLines = new Set<number>();
  for (const e of t.events) {
    if (e[2] !== 'R' || !t.locs.get(e[4] as number)?.file.endsWith('ArrayList.java')) continue;
    for (let id: number | undefined = e[5] as number; id !== undefined; id = t.stacks.get(id)?.parent) {
      const loc = t.locs.get(t.stacks.get(id)!.frame)!;
      if (loc.method === 'listeners.SelectionModel.fireSelectionChanged') callLines.add(loc.line);
    }
  }
  assert.ok(callLines.has(56) && callLines.has(57), `hasNext and next are called from lines 56 and 57 (got ${[...callLines].sort().join(', ')})`);
  assert.ok(!callLines.has(58), 'no iterator read is called from line 58 (the listener call)');
});

test('monitors, thread start/join/end and noise seed are recorded', async () => {
  const s = await record('events', 'shop.Shop', { runs: 1, include: ['shop'], noise: 0.2, seed: 42 });
  const t = checkTrace(s.traces[0]);
  const kinds = new Set(t.events.map((e) => e[2]));
  for (const k of ['R', 'W', 'ACQ', 'REL', 'START', 'JOIN', 'END']) assert.ok(kinds.has(k), `event kind ${k} recorded`);
  const options = (t.header.recorder as { options: { seed: string; noise: number } }).options;
  assert.equal(options.seed, '42');
  assert.equal(options.noise, 0.2);
  assert.ok(t.locs.size > 0);
  for (const l of t.locs.values()) assert.equal(l.file, 'shop/Shop.java');
});

test('record arguments: parsing, defaults and errors', () => {
  const o = parseRecordArgs(['--runs', '5', '--noise', '0.2', '--include', 'bank', 'shop', '--jobs', '2', '--seed', '7', '--out', 'x', '--', 'java', '-cp', 'out', 'bank.Bank'], '/tmp');
  assert.equal(o.runs, 5);
  assert.equal(o.noise, 0.2);
  assert.deepEqual(o.include, ['bank', 'shop']);
  assert.equal(o.outDir, '/tmp/x');
  assert.equal(o.name, 'bank.Bank');
  assert.deepEqual(o.command, ['java', '-cp', 'out', 'bank.Bank']);
  assert.throws(() => parseRecordArgs(['--runs', '0', '--', 'java']), UsageError);
  assert.throws(() => parseRecordArgs(['--noise', '2', '--', 'java']), UsageError);
  assert.throws(() => parseRecordArgs(['--runs', '3']), /no command/);
  assert.throws(() => parseRecordArgs(['--bogus', '--', 'java']), /unknown option --bogus/);
  assert.equal(deriveName(['mvn', '-q', 'test']), 'mvn');
  assert.equal(deriveName(['java', '-jar', 'app/foo.jar']), 'foo');
});
