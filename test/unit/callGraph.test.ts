/**
 * Call-graph method ranking (seed 003): each edge type on hand-made runs (the seed's Table 2 /
 * Fig. 2 and Examples 4–6), the weighted total reduction (Definition 1), calls from ENTER/EXIT
 * and from access stacks, InfoGain against values computed by hand (Eqs. 1–3), the method score
 * (maximum over outgoing edges) and the tie-break by lines of code.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CallGraphBuilder, MethodTable, ROOT_METHOD } from '../../server/src/engine/callgraph/callGraph';
import { EdgeType, WeightedGraphSet } from '../../server/src/engine/callgraph/totalReduction';
import { InterThreadReading, TemporalEdgeTracker } from '../../server/src/engine/callgraph/temporalEdges';
import { entropy, informationGain } from '../../server/src/engine/callgraph/informationGain';
import { compareMethods, rankMethods, runWeights } from '../../server/src/engine/callgraph/methodRanking';
import { methodExtent } from '../../server/src/engine/callgraph/linesOfCode';
import { CallGraphCollector, rankMethodsOfTraceFiles } from '../../server/src/engine/callgraph/localizationProcess';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { tempDir } from '../helpers/traceBuilder';

/** A run given as calls "T1 run→a" (each call returns before the next call of its thread). */
function runCalls(table: MethodTable, graphs: WeightedGraphSet, calls: string[], reading: InterThreadReading = 'adjacent', returns = true): void {
  const tracker = new TemporalEdgeTracker(graphs, reading);
  for (const c of calls) {
    const m = /^T(\d+) (\w+)→(\w+)$/.exec(c);
    if (!m) throw new Error(`bad call ${c}`);
    const t = Number(m[1]);
    if (returns) tracker.ret(t, 1); // the thread's previous call (depth 1) has returned
    tracker.call(t, table.intern(m[2], 'F.java'), table.intern(m[3], 'F.java'), 1);
  }
}

function weights(table: MethodTable, graphs: WeightedGraphSet, type: EdgeType, run = 0): Record<string, number> {
  const out: Record<string, number> = {};
  const e = graphs.edges;
  for (let k = graphs.runStart[run]; k < graphs.runStart[run + 1]; k++) {
    const id = graphs.runEdges[k];
    if (e.types[id] !== type) continue;
    out[`${table.methods[e.sources[id]].name}>${table.methods[e.targets[id]].name}`] = graphs.runWeights[k];
  }
  return out;
}

// The seed's Table 2 (event order of Fig. 2): the correct and the failed execution.
const CORRECT = ['T1 run→a', 'T1 run→b', 'T2 run→a', 'T2 run→b', 'T1 run→c'];
const FAILED = ['T1 run→a', 'T1 run→c', 'T2 run→a', 'T1 run→b', 'T2 run→b'];

test('Definition 1: call edges count calls between equally labelled vertices', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  runCalls(t, g, CORRECT);
  g.endRun({ execution: 'c', outcome: 'pass', calls: 5 });
  assert.deepEqual(weights(t, g, EdgeType.Call), { 'run>a': 2, 'run>b': 2, 'run>c': 1 });
});

test('Definition 2 / Example 4: next-call edges (a →nc b has weight 2 when correct, 1 when failed)', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  runCalls(t, g, CORRECT);
  g.endRun({ execution: 'c', outcome: 'pass', calls: 5 });
  runCalls(t, g, FAILED);
  g.endRun({ execution: 'f', outcome: 'fail', calls: 5 });
  assert.deepEqual(weights(t, g, EdgeType.NextCall, 0), { 'a>b': 2, 'b>a': 1, 'b>c': 1 });
  assert.deepEqual(weights(t, g, EdgeType.NextCall, 1), { 'a>c': 1, 'c>a': 1, 'a>b': 1, 'b>b': 1 });
});

test('Definition 2: no next-call edge across a call from another call site', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  runCalls(t, g, ['T1 run→a', 'T1 a→x', 'T1 run→b']);
  g.endRun({ execution: 'c', outcome: 'pass', calls: 3 });
  assert.deepEqual(weights(t, g, EdgeType.NextCall), {});
});

test('Definition 3 / Example 5: inter-thread edges (a →it b only in the failed execution)', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  runCalls(t, g, CORRECT);
  g.endRun({ execution: 'c', outcome: 'pass', calls: 5 });
  runCalls(t, g, FAILED);
  g.endRun({ execution: 'f', outcome: 'fail', calls: 5 });
  assert.deepEqual(weights(t, g, EdgeType.InterThread, 0), { 'b>a': 1, 'b>c': 1 });
  assert.deepEqual(weights(t, g, EdgeType.InterThread, 1), { 'c>a': 1, 'a>b': 1, 'b>b': 1 });
});

test('Definition 4 / Example 6: intra-thread edges (a →in b weight 2 when correct, absent when failed)', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  runCalls(t, g, CORRECT);
  g.endRun({ execution: 'c', outcome: 'pass', calls: 5 });
  runCalls(t, g, FAILED);
  g.endRun({ execution: 'f', outcome: 'fail', calls: 5 });
  assert.deepEqual(weights(t, g, EdgeType.IntraThread, 0), { 'a>b': 2 });
  assert.deepEqual(weights(t, g, EdgeType.IntraThread, 1), { 'a>c': 1 });
});

test('inter-thread edges, interrupting reading: only while the first callee has not returned', () => {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  // T1's a returns before T2 calls a (serial): no edge; then T1 calls b and T2 calls b while T1's b runs
  const tr = new TemporalEdgeTracker(g, 'interrupting');
  const run = t.intern('run', 'F.java');
  const a = t.intern('a', 'F.java');
  const b = t.intern('b', 'F.java');
  tr.call(1, run, a, 1);
  tr.ret(1, 1);
  tr.call(2, run, a, 1);
  tr.ret(2, 1);
  tr.call(1, run, b, 1);
  tr.call(2, run, b, 1);
  g.endRun({ execution: 'x', outcome: 'fail', calls: 4 });
  assert.deepEqual(weights(t, g, EdgeType.InterThread), { 'b>b': 1 });
  // a return of a deeper frame does not end the callee's activation
  const g2 = new WeightedGraphSet();
  const tr2 = new TemporalEdgeTracker(g2, 'interrupting');
  tr2.call(1, run, a, 1);
  tr2.ret(1, 2);
  tr2.call(2, run, a, 1);
  g2.endRun({ execution: 'y', outcome: 'fail', calls: 2 });
  assert.deepEqual(weights(t, g2, EdgeType.InterThread), { 'a>a': 1 });
});

async function traceRun(text: string, c: CallGraphCollector, outcome: 'pass' | 'fail'): Promise<void> {
  c.beginRun();
  const res = await readTraceBuffer('t.trace.jsonl', Buffer.from(text), { event: (ev, sym) => c.builder.event(ev, sym) });
  assert.ok(res.ok, JSON.stringify(res.diagnostics));
  c.endRun('r', outcome);
}

const HEADER = '{"braid":"trace","version":1,"execution":"r","outcome":"pass"}\n';
const LOCS = [
  '{"def":"loc","id":1,"file":"F.java","line":3,"method":"F.main"}',
  '{"def":"loc","id":2,"file":"F.java","line":10,"method":"F.f"}',
  '{"def":"loc","id":3,"file":"F.java","line":12,"method":"F.f"}',
  '{"def":"loc","id":4,"file":"F.java","line":20,"method":"F.g"}',
  '{"def":"var","id":0,"name":"F.x"}',
].join('\n');

test('ENTER/EXIT: calls with counts, recursion as a self-edge (Definition 1), roots from <thread>', async () => {
  const c = new CallGraphCollector();
  const events = [
    [1, 1, 'ENTER', 1],
    [2, 1, 'ENTER', 2], // main → f
    [3, 1, 'ENTER', 2], // f → f (recursion)
    [4, 1, 'EXIT', 2],
    [5, 1, 'EXIT', 2],
    [6, 1, 'ENTER', 2], // main → f
    [7, 1, 'EXIT', 2],
    [8, 1, 'EXIT', 1],
  ];
  await traceRun(HEADER + LOCS + '\n' + events.map((e) => JSON.stringify(e)).join('\n') + '\n', c, 'pass');
  assert.deepEqual(weights(c.table, c.graphs, EdgeType.Call), { '<thread>>F.main': 1, 'F.main>F.f': 2, 'F.f>F.f': 1 });
  assert.equal(c.table.methods[c.table.idOf('F.f')!].entryLine, 10);
});

test('access stacks: a new activation where the stack differs; same stack, same activation', async () => {
  const c = new CallGraphCollector();
  const lines = [
    '{"def":"loc","id":5,"file":"F.java","line":4,"method":"F.main"}',
    '{"def":"stack","id":0,"frames":[1,2]}', // main, f:10
    '{"def":"stack","id":1,"frames":[1,3]}', // main, f:12 (same activation of f)
    '{"def":"stack","id":2,"frames":[1,4]}', // main, g (f returned, g called)
    '{"def":"stack","id":3,"frames":[5,4]}', // main called from another line: g called again
    '[1,1,"R",0,2,0]',
    '[2,1,"W",0,3,1]',
    '[3,1,"W",0,4,2]',
    '[4,1,"W",0,4,3]',
    '[5,2,"W",0,2,0]', // thread 2: main → f
    '[6,2,"END"]',
  ];
  await traceRun(HEADER + LOCS + '\n' + lines.join('\n') + '\n', c, 'pass');
  assert.deepEqual(weights(c.table, c.graphs, EdgeType.Call), { '<thread>>F.main': 2, 'F.main>F.f': 2, 'F.main>F.g': 2 });
});

test('Eq. 1: entropy of the class distribution', () => {
  assert.equal(entropy(5, 5), 1);
  assert.equal(entropy(4, 0), 0);
  // −(0.6 log2 0.6 + 0.4 log2 0.4) = 0.442179 + 0.528771
  assert.ok(Math.abs(entropy(3, 2) - 0.970951) < 1e-6);
});

test('Eqs. 2–3: InfoGain of an edge weight against hand-computed values', () => {
  // perfectly separating weights: IG = Info(D) = 1
  assert.ok(Math.abs(informationGain([2, 2, 1, 0], [true, true, false, false]) - 1) < 1e-12);
  // the same distribution in both classes: IG = 0
  assert.equal(informationGain([1, 0, 1, 0], [true, true, false, false]), 0);
  // F = 3 (weights 1, 1, 0), P = 2 (weights 0, 0):
  // Info(D) = 0.970951; D_1 = {F, F}: 0; D_0 = {F, P, P}: 3/5 · H(1/3) = 0.6 · 0.918296 = 0.550978
  const ig = informationGain([1, 1, 0, 0, 0], [true, true, true, false, false]);
  assert.ok(Math.abs(ig - 0.419973) < 1e-6, String(ig));
  // three values: F: 3, 3; P: 1, 2 → every subset pure: IG = 1
  assert.ok(Math.abs(informationGain([3, 3, 1, 2], [true, true, false, false]) - 1) < 1e-12);
  // balanced run weights (1/3 per failed, 1/2 per passed run): Info(D) = 1;
  // D_1: 2/3 failed mass, pure; D_0: 1/3 failed + 1 passed = 4/3 of 2, H(1/4) = 0.811278 → 1 − 2/3 · 0.811278
  const w = Array.from(runWeights(Uint8Array.from([1, 1, 1, 0, 0]), 'weights'));
  assert.deepEqual(w, [1 / 3, 1 / 3, 1 / 3, 1 / 2, 1 / 2]);
  const igw = informationGain([1, 1, 0, 0, 0], [true, true, true, false, false], w);
  assert.ok(Math.abs(igw - 0.459148) < 1e-6, String(igw));
});

test('subsample balance keeps min(F, P) runs of each class, the same ones for the same seed', () => {
  const failed = Uint8Array.from([1, 1, 1, 1, 0, 0]);
  const w = runWeights(failed, 'subsample', 7);
  assert.equal(w[4] + w[5], 2);
  assert.equal(w[0] + w[1] + w[2] + w[3], 2);
  assert.deepEqual(Array.from(runWeights(failed, 'subsample', 7)), Array.from(w));
});

/** Ranks runs given as call lists (Table 2 style), with LOC per method. */
function rankRuns(runs: { outcome: 'pass' | 'fail'; calls: string[] }[], loc: Record<string, number>, rep: 'call' | 'inter' | 'next' | 'intra' = 'call') {
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  for (const r of runs) {
    runCalls(t, g, r.calls);
    g.endRun({ execution: 'x', outcome: r.outcome, calls: r.calls.length });
  }
  return rankMethods(g, t, { representation: rep, balance: 'none', linesOfCode: (m) => (m.name in loc ? { loc: loc[m.name] } : undefined) });
}

test('method score = the maximum InfoGain over its outgoing edges, and that edge is reported', () => {
  const r = rankRuns(
    [
      { outcome: 'fail', calls: ['T1 m→x', 'T1 m→x', 'T1 m→y'] },
      { outcome: 'fail', calls: ['T1 m→x', 'T1 m→x', 'T1 m→y'] },
      { outcome: 'pass', calls: ['T1 m→x', 'T1 m→y'] },
      { outcome: 'pass', calls: ['T1 m→x'] },
    ],
    {},
  );
  const m = r.methods.find((x) => x.method === 'm')!;
  // m→x: F {2, 2}, P {1, 1}: IG 1; m→y: F {1, 1}, P {1, 0}: 1 − 3/4 · H(2/3) = 1 − 0.75 · 0.918296 = 0.311278
  assert.ok(Math.abs(m.score - 1) < 1e-12);
  assert.equal(m.edge?.text, 'm → x');
  assert.equal(m.edge?.failedRuns, 2);
  assert.equal(m.edge?.meanFailed, 2);
  const y = r.edges.find((e) => e.text === 'm → y')!;
  assert.ok(Math.abs(y.score - 0.311278) < 1e-6, String(y.score));
  assert.equal(r.methods[0].method, 'm');
  // x and y call nothing: score 0
  assert.equal(r.methods.find((x) => x.method === 'x')!.score, 0);
});

test('equal scores: more lines of code first (the seed\'s second criterion), then the name', () => {
  const runs: { outcome: 'pass' | 'fail'; calls: string[] }[] = [
    { outcome: 'fail', calls: ['T1 small→x', 'T1 small→x', 'T1 big→y', 'T1 big→y'] },
    { outcome: 'pass', calls: ['T1 small→x', 'T1 big→y'] },
  ];
  let r = rankRuns(runs, { small: 3, big: 12, x: 1, y: 1 });
  assert.deepEqual(
    r.methods.map((m) => [m.method, m.score, m.loc]),
    [
      ['big', 1, 12],
      ['small', 1, 3],
      ['x', 0, 1],
      ['y', 0, 1],
    ],
  );
  r = rankRuns(runs, { small: 30, big: 12, x: 1, y: 1 });
  assert.deepEqual(r.methods.map((m) => m.method).slice(0, 2), ['small', 'big']);
  assert.equal(r.methods[0].locSource, 'source');
  assert.ok(compareMethods({ score: 0.5, loc: 1, method: 'a' }, { score: 0.4, loc: 100, method: 'b' }) < 0, 'the score comes first');
});

test('the root pseudo-method is never ranked; no failing run: every score 0 with a message', () => {
  const r = rankRuns([{ outcome: 'pass', calls: ['T1 m→x'] }], {});
  assert.ok(!r.methods.some((m) => m.method === '<thread>'));
  assert.ok(r.methods.every((m) => m.score === 0));
  assert.match(r.message ?? '', /No failing runs/);
  assert.equal(ROOT_METHOD, 0);
});

test('inter-thread representation ranks the interrupted method of a lost update first', () => {
  // two threads call deposit; failing runs interleave them, passing runs are serial
  const t = new MethodTable();
  const g = new WeightedGraphSet();
  const b = new CallGraphBuilder(t, new TemporalEdgeTracker(g, 'interrupting'));
  const run = t.intern('run', 'B.java');
  const dep = t.intern('deposit', 'B.java');
  for (const failing of [true, false, true, false]) {
    b.beginRun();
    b.enter(1, run);
    b.enter(1, dep);
    if (!failing) b.exit(1);
    b.enter(2, run);
    b.enter(2, dep);
    b.end(1);
    b.end(2);
    g.endRun({ execution: 'x', outcome: failing ? 'fail' : 'pass', calls: b.calls });
  }
  const r = rankMethods(g, t, { representation: 'inter' });
  assert.equal(r.methods[0].method, 'deposit');
  assert.equal(r.methods[0].score, 1);
  assert.equal(r.methods[0].edge?.text, 'deposit →it run');
  // the call graph alone cannot tell them apart
  assert.ok(rankMethods(g, t, { representation: 'call' }).methods.every((m) => m.score === 0));
});

test('lines of code from the source: declaration to closing brace, no blank or comment lines', () => {
  const src = [
    'class A {', // 1
    '  /** doc */', // 2
    '  int f(int x) {', // 3
    '    // comment', // 4
    '', // 5
    '    int y = x + 1; /* c */', // 6
    '    String s = "}";', // 7
    '    return y;', // 8
    '  }', // 9
    '  A() { this.f(1); }', // 10
    '}', // 11
  ].join('\n');
  assert.deepEqual(methodExtent(src, 'p.A.f', 6), { line: 3, endLine: 9, loc: 5 });
  assert.deepEqual(methodExtent(src, 'p.A.<init>', 10), { line: 10, endLine: 10, loc: 1 });
  assert.equal(methodExtent(src, 'p.A.lambda$main$0', 6), undefined);
});

test('braid methods --format json on trace files: documented shape', async () => {
  const dir = tempDir();
  const mk = (name: string, outcome: string, interleaved: boolean) => {
    const ev = interleaved
      ? ['[1,1,"ENTER",1]', '[2,1,"ENTER",2]', '[3,2,"ENTER",1]', '[4,2,"ENTER",2]', '[5,1,"EXIT",2]', '[6,2,"EXIT",2]']
      : ['[1,1,"ENTER",1]', '[2,1,"ENTER",2]', '[3,1,"EXIT",2]', '[4,2,"ENTER",1]', '[5,2,"ENTER",2]', '[6,2,"EXIT",2]'];
    writeFileSync(
      path.join(dir, `${name}.trace.jsonl`),
      `{"braid":"trace","version":1,"execution":"${name}","outcome":"${outcome}"}\n${LOCS}\n${ev.join('\n')}\n`,
    );
  };
  mk('f1', 'fail', true);
  mk('f2', 'fail', true);
  mk('p1', 'pass', false);
  mk('p2', 'pass', false);
  writeFileSync(path.join(dir, 'broken.trace.jsonl'), '{"braid":"trace","version":1,"execution":"b","outcome":"pass"}\n[1,1,"ENTER",99]\n');
  const r = await rankMethodsOfTraceFiles([dir]);
  assert.deepEqual(r.executions, { total: 4, failed: 2, passed: 2, used: 4 });
  assert.ok(r.diagnostics.some((d) => d.severity === 'error' && d.file.endsWith('broken.trace.jsonl') && d.line === 2), 'the broken trace is named with its line');
  assert.equal(r.methods[0].method, 'F.f');
  const root = path.resolve(__dirname, '../..');
  const cli = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'methods', dir, '--format', 'json', '--top', '2'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stderr, /broken\.trace\.jsonl:2: error/);
  const j = JSON.parse(cli.stdout);
  assert.equal(j.methods.length, 2);
  const top = j.methods[0];
  for (const k of ['rank', 'score', 'method', 'file', 'line', 'edge']) assert.ok(k in top, `method has ${k}`);
  assert.deepEqual([top.rank, top.score, top.method, top.file, top.line, top.edge.kind, top.edge.target], [1, 1, 'F.f', 'F.java', 10, 'inter', 'F.main']);
  const sarifFile = path.join(dir, 'methods.sarif');
  const sarif = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'methods', dir, '--format', 'sarif', '-o', sarifFile], { encoding: 'utf8' });
  assert.equal(sarif.status, 0, sarif.stderr);
  const doc = JSON.parse(readFileSync(sarifFile, 'utf8'));
  assert.equal(doc.runs[0].results[0].locations[0].physicalLocation.region.startLine, 10);
  assert.match(doc.runs[0].results[0].message.text, /^Rank 1, suspiciousness 1\.000/);
  const tool = path.join(root, 'node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool');
  const v = spawnSync(tool, ['validate', sarifFile], { encoding: 'utf8', env: { ...process.env, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' } });
  assert.equal(v.status, 0, v.stderr);
  assert.deepEqual(v.stdout.split('\n').filter((l) => /: (error|warning) [A-Z]+\d+/.test(l)), []);
  const usage = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), 'methods', dir, '--graph', 'nope'], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /--graph must be/);
});
