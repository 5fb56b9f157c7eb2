/**
 * Seed 000 (issue 8): macro refinement (the m5/m2 → m6, m7 example of §3.3), abstraction,
 * per-occurrence data dependencies (the R1(x)/W2(x) example of §2.4) and the explanation pipeline.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { abstractMacros, commonPrefixSuffix, deriveMacros } from '../../server/src/engine/mining/macros';
import { occurrenceDependencies, writerIndex } from '../../server/src/engine/mining/dependencies';
import { explainByAbstraction } from '../../server/src/engine/mining/abstractionExplainer';
import { loadTraceSet, traceSetFromNotation } from '../../server/src/engine/mining/traceSet';
import { explainByMining } from '../../server/src/engine/mining/index';
import { SequenceDb } from '../../server/src/engine/mining/sequenceDb';
import { writeTraces } from '../helpers/traceBuilder';

// §3.3: σ1 = e0 e2 e3 | e4 e5 e6 | e8 e9 and σ2 = e1 e2 | e5 e6 e7 | e3 e8 e9 (threads A B A), so that
// splitting at context switches gives M0 = {m0 = ⟨e0,e2,e3⟩, m1 = ⟨e4,e5,e6⟩, m2 = ⟨e8,e9⟩,
// m3 = ⟨e1,e2⟩, m4 = ⟨e5,e6,e7⟩, m5 = ⟨e3,e8,e9⟩}.
const A = 0;
const B = 1;
const threadOfE = [A, A, A, A, B, B, B, B, A, A];
const sigma1 = Int32Array.from([0, 2, 3, 4, 5, 6, 8, 9]);
const sigma2 = Int32Array.from([1, 2, 5, 6, 7, 3, 8, 9]);

test('seed 000 §3.3: macros at context switches are m0…m5', () => {
  const m = deriveMacros([sigma1, sigma2], (e) => threadOfE[e]);
  assert.equal(m.initialCount, 6);
  assert.deepEqual(
    m.events.slice(0, 6).map((a) => [...a]),
    [
      [0, 2, 3],
      [4, 5, 6],
      [8, 9],
      [1, 2],
      [5, 6, 7],
      [3, 8, 9],
    ],
  );
});

test('seed 000 §3.3: m5 is split by m2 into m6 = ⟨e3⟩ and m2; m6 splits m0 into m7 = ⟨e0,e2⟩ and m6; fixed point', () => {
  const m = deriveMacros([sigma1, sigma2], (e) => threadOfE[e]);
  assert.deepEqual(m.steps, [
    { split: 5, by: 2, into: [6, 2] },
    { split: 0, by: 6, into: [7, 6] },
  ]);
  assert.deepEqual([...m.events[6]], [3]);
  assert.deepEqual([...m.events[7]], [0, 2]);
  const alive = m.events.map((_, id) => id).filter((id) => m.alive[id]);
  assert.deepEqual(alive, [1, 2, 3, 4, 6, 7]);
  // the macro traces after refinement, with the start of each macro in the trace
  assert.deepEqual([...m.traces[0].macros], [7, 6, 1, 2]);
  assert.deepEqual([...m.traces[0].starts], [0, 2, 3, 6]);
  assert.deepEqual([...m.traces[1].macros], [3, 4, 6, 2]);
  assert.deepEqual([...m.traces[1].starts], [0, 2, 5, 6]);
  // fixed point: no alive macro is a proper substring of another
  for (const x of alive)
    for (const y of alive) {
      if (x === y) continue;
      const sx = `,${[...m.events[x]].join(',')},`;
      const sy = `,${[...m.events[y]].join(',')},`;
      assert.ok(!sy.includes(sx), `m${x} inside m${y}`);
    }
});

test('seed 000 Definition 7: macros sharing events form one abstract event', () => {
  const m = deriveMacros([sigma1, sigma2], (e) => threadOfE[e]);
  const a = abstractMacros(m);
  const classes = a.members.map((ms) => ms.slice().sort((x, y) => x - y)).sort((x, y) => x[0] - y[0]);
  assert.deepEqual(classes, [[1, 4], [2], [3, 7], [6]], 'm7 ~ m3 share e2, m1 ~ m4 share e5 e6');
  const absOf = (t: Int32Array) => [...t].map((id) => a.classOf[id]);
  const db = new SequenceDb<number>();
  db.add(absOf(m.traces[0].macros));
  db.add(absOf(m.traces[1].macros));
  const mined = db.mine({ minSupport: 2, minSupportIsFraction: false });
  // σ1 = X a6 Y a2 and σ2 = X Y a6 a2 (X = {m3,m7}, Y = {m1,m4}): closed are ⟨X, Y, a2⟩ and ⟨X, a6, a2⟩
  const X = a.classOf[3];
  const Y = a.classOf[1];
  assert.deepEqual(
    mined.patterns.map((p) => [...db.keys(p)]).sort(),
    [
      [X, Y, a.classOf[2]],
      [X, a.classOf[6], a.classOf[2]],
    ].sort(),
  );
  assert.ok(mined.patterns.every((p) => p.support === 2));
});

test('common prefix and suffix of macro traces', () => {
  const mk = (a: number[]) => ({ macros: Int32Array.from(a), starts: Int32Array.from(a.map((_, k) => k)) });
  assert.deepEqual(commonPrefixSuffix([mk([1, 2, 3, 9]), mk([1, 2, 4, 9]), mk([1, 5, 9])]), { prefix: 1, suffix: 1 });
  assert.deepEqual(commonPrefixSuffix([mk([1, 2]), mk([1, 2])]), { prefix: 2, suffix: 0 });
});

// §2.4, sample dataset: ⟨R1(x), W2(x)⟩ occurs in all four traces but is anti-dependent only in trace 4
const SAMPLE = [
  ['R1 x S1', 'W1 x S2', 'R2 x S3', 'W2 x S4', 'R1 x S1', 'W1 x S2'],
  ['R1 x S1', 'W1 x S2', 'R1 x S1', 'W1 x S2', 'R2 x S3', 'W2 x S4'],
  ['R1 x S1', 'R2 x S3', 'W1 x S2', 'W2 x S4', 'R1 x S1', 'W1 x S2'],
  ['R2 x S3', 'R1 x S1', 'W2 x S4', 'W1 x S2', 'R1 x S1', 'W1 x S2'],
];

test('seed 000 §2.4: ⟨R1(x), W2(x)⟩ is anti-dependent only in trace 4; ⟨R2(x), W2(x)⟩ has support 4', () => {
  const set = traceSetFromNotation(SAMPLE.map((events, k) => ({ execution: `t${k + 1}`, outcome: 'fail' as const, events })));
  const kind = (ev: number) => set.table.events[ev].kind;
  const r1 = set.table.events.findIndex((e) => e.thread === 'T1' && e.kind === 'R');
  const w2 = set.table.events.findIndex((e) => e.thread === 'T2' && e.kind === 'W');
  const anti = set.executions.map((ex) => {
    const w = writerIndex(ex, kind);
    const thr = (pos: number) => set.table.events[ex.events[pos]].thread.charCodeAt(1);
    let found = false;
    ex.events.forEach((a, i) =>
      ex.events.forEach((b, j) => {
        if (a !== r1 || b !== w2 || j <= i) return;
        const deps = occurrenceDependencies([[i, i + 1], [j, j + 1]], w, thr);
        if (deps.some((d) => d.kind === 'anti')) found = true;
      }),
    );
    return found;
  });
  assert.deepEqual(anti, [false, false, false, true]);
  const db = new SequenceDb<number>();
  for (const ex of set.executions) db.add(ex.events);
  const r2 = set.table.events.findIndex((e) => e.thread === 'T2' && e.kind === 'R');
  const freq = db.mine({ minSupport: 4, minSupportIsFraction: false, closed: false }).patterns.map((p) => db.keys(p).join(' '));
  assert.ok(freq.includes(`${r2} ${w2}`));
  assert.ok(freq.includes(`${r1} ${w2}`));
});

test('flow, anti and output dependencies are per occurrence and across threads only', () => {
  const set = traceSetFromNotation([{ execution: 'e', outcome: 'fail', events: ['W1 x S1', 'R2 x S2', 'W2 x S3', 'W1 x S4', 'R1 y S5', 'R2 x S6 @obj=7'] }]);
  const ex = set.executions[0];
  const w = writerIndex(ex, (ev) => set.table.events[ev].kind);
  const thr = (pos: number) => Number(set.table.events[ex.events[pos]].thread.slice(1));
  const deps = occurrenceDependencies(
    [
      [0, 1],
      [1, 3],
      [3, 6],
    ],
    w,
    thr,
  ).map((d) => `${d.kind} ${d.from}->${d.to}`);
  // W1 S1 → R2 S2 flow; W1 S1 → W2 S3 output (the next write); W2 S3 → W1 S4 output; R2 S2's next
  // write is its own thread's (none); R1 y and R2 x of object 7 are other locations
  assert.deepEqual(deps.sort(), ['flow 0->1', 'output 0->2', 'output 2->3']);
});

/** Lost update (like test/fixtures/java/bank): R at line 11, W at line 13, main reads at 17. */
function bankSet() {
  const pass1 = ['R1 bal S11', 'W1 bal S13', 'R2 bal S11', 'W2 bal S13', 'R3 bal S17'];
  const pass2 = ['R2 bal S11', 'W2 bal S13', 'R1 bal S11', 'W1 bal S13', 'R3 bal S17'];
  const fail1 = ['R1 bal S11', 'R2 bal S11', 'W1 bal S13', 'W2 bal S13', 'R3 bal S17', 'R3 bal S17'];
  const fail2 = ['R1 bal S11', 'R2 bal S11', 'W2 bal S13', 'W1 bal S13', 'R3 bal S17', 'R3 bal S17'];
  const traces = [];
  for (let k = 0; k < 6; k++) traces.push({ execution: `p${k}`, outcome: 'pass' as const, events: k % 2 ? pass1 : pass2 });
  for (let k = 0; k < 4; k++) traces.push({ execution: `f${k}`, outcome: 'fail' as const, events: k % 2 ? fail1 : fail2 });
  return traces;
}

test('pipeline: a lost update is explained by the anti/output dependencies of the interleaved read-modify-writes', () => {
  const res = explainByAbstraction(traceSetFromNotation(bankSet()));
  assert.ok(res.groups.length > 0, JSON.stringify(res.stats));
  const top = res.groups[0];
  assert.equal(top.rank, 1);
  assert.equal(top.causal, true);
  assert.equal(top.relSupport, 1);
  const kinds = top.dependencies.map((d) => `${d.kind} ${d.from.kind}${d.from.thread}:${d.from.line}→${d.to.kind}${d.to.thread}:${d.to.line}`);
  assert.ok(kinds.some((k) => k.startsWith('anti R')), kinds.join(', '));
  const lines = top.lines.map((l) => l.line);
  assert.ok(lines.includes(11) && lines.includes(13), `lines ${lines}`);
  // every macro pattern of the group has ≥ 2 threads, rel_supp > 0.5, and occurs in failing traces
  for (const g of res.groups)
    for (const p of g.patterns) {
      assert.ok(new Set(p.macros.map((m) => m.thread)).size >= 2);
      assert.ok(p.relSupport > 0.5 && p.failing > 0);
    }
  // groups: same rel_supp and dependency set inside, ranks ascending
  for (let k = 1; k < res.groups.length; k++) assert.ok(res.groups[k].rank >= res.groups[k - 1].rank);
});

test('pipeline: the failure report (extra reads only failing runs do) is a symptom, ranked after causes', () => {
  const res = explainByAbstraction(traceSetFromNotation(bankSet()), { minSupport: 0.5 });
  const firstSymptom = res.groups.findIndex((g) => !g.causal);
  const lastCausal = res.groups.map((g) => g.causal).lastIndexOf(true);
  assert.ok(lastCausal >= 0);
  assert.ok(firstSymptom >= 0, 'the extra R3 S17 read only failing runs do forms a non-causal group');
  assert.ok(firstSymptom > lastCausal);
  // every symptom group holds T3's two reads at line 17 (passing runs read once); it ranks after every cause
  const symptoms = res.groups.filter((g) => !g.causal);
  for (const g of symptoms)
    for (const p of g.patterns) {
      const t3 = p.macros.filter((m) => m.thread === 'T3');
      assert.deepEqual(t3.flatMap((m) => m.events.map((e) => `${e.kind}${e.line}`)), ['R17', 'R17']);
    }
  const worstCause = Math.max(...res.groups.filter((g) => g.causal).map((g) => g.rank));
  assert.ok(symptoms.every((g) => g.rank > worstCause), res.groups.map((g) => `${g.rank}${g.causal ? 'c' : 's'}`).join(' '));
});

test("pipeline: the seed's strict rule (every macro has a dependency) is available", () => {
  const sig = (g: { patterns: { macros: { thread: string; context?: boolean; events: { kind: string; line?: number }[] }[] }[] }) =>
    g.patterns.map((p) => p.macros.map((m) => `${m.thread}${m.context ? '*' : ''}:${m.events.map((e) => e.kind + e.line).join(',')}`).join(' ')).join(' | ');
  const res = explainByAbstraction(traceSetFromNotation(bankSet()), { dependencyRule: 'every-macro' });
  const def = explainByAbstraction(traceSetFromNotation(bankSet()));
  assert.ok(res.groups.length > 0);
  for (const g of res.groups) for (const p of g.patterns) assert.ok(p.macros.every((m) => !m.context));
  // the default rule (every thread has a dependency) also keeps groups with a context macro (one with
  // no dependency of its own, marked *); the strict rule drops exactly those and keeps the others
  const withContext = def.groups.filter((g) => g.patterns.some((p) => p.macros.some((m) => m.context)));
  assert.ok(withContext.length > 0, 'the default rule keeps context macros here');
  assert.deepEqual(res.groups.map(sig).sort(), def.groups.filter((g) => !withContext.includes(g)).map(sig).sort());
});

test('pipeline: no failing trace → no groups; a passing-only pattern never ranks', () => {
  const only = bankSet().filter((t) => t.outcome === 'pass');
  assert.equal(explainByAbstraction(traceSetFromNotation(only)).groups.length, 0);
  // passing runs gain a read-write pair of T4 on another variable at line 40 that no failing run has
  const withPassOnly = bankSet().map((t) => (t.outcome === 'pass' ? { ...t, events: [...t.events, 'R4 lim S40', 'W4 lim S41', 'R1 lim S42'] } : t));
  const res = explainByAbstraction(traceSetFromNotation(withPassOnly));
  assert.ok(res.groups.length > 0);
  const lines = new Set(res.groups.flatMap((g) => g.patterns.flatMap((p) => p.macros.flatMap((m) => m.events.map((e) => e.line)))));
  for (const l of [40, 41, 42]) assert.ok(!lines.has(l), `pass-only line ${l} ranks: ${[...lines]}`);
});

test('explainByMining reads trace files (format v1) and keeps thread names across runs', async () => {
  const dir = writeTraces(bankSet());
  const res = await explainByMining([dir]);
  assert.deepEqual(res.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.equal(res.stats.failing, 4);
  assert.equal(res.stats.passing, 6);
  assert.ok(res.groups.length > 0);
  assert.ok(res.groups[0].lines.every((l) => l.file === 'Fixture.java'));
  const set = await loadTraceSet([dir]);
  assert.deepEqual([...new Set(set.table.events.map((e) => e.thread))].sort(), ['T1', 'T2', 'T3']);
});

test('braid explain: text and JSON reports; usage errors exit 2', async () => {
  const { spawnSync } = await import('node:child_process');
  const path = await import('node:path');
  const root = path.resolve(__dirname, '../..');
  const run = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/cli/braid.ts'), 'explain', ...args], { encoding: 'utf8', cwd: root });
  const dir = writeTraces(bankSet());
  const text = run(dir, '--top', '1');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /4 failing, 6 passing traces/);
  assert.match(text.stdout, /#1 rel_supp 1\.000/);
  const json = run(dir, '--format', 'json', '--minsup', '0.5');
  assert.equal(json.status, 0, json.stderr);
  const j = JSON.parse(json.stdout);
  assert.equal(j.stats.minSupport, 0.5);
  assert.ok(j.groups[0].patterns[0].macros.length >= 2);
  assert.deepEqual([j.groups[0].rank, j.groups[0].relSupport, j.groups[0].causal, j.groups[0].failingSupport, j.groups[0].passingSupport], [1, 1, true, 0.5, 0]);
  const contrast = run(dir, '--method', 'contrast', '--minsup', '0.5', '--format', 'json');
  assert.equal(contrast.status, 0, contrast.stderr);
  // each failing interleaving (R1 R2 W1 W2 … and R1 R2 W2 W1 …, then T3's two reads) is in 2 of the 4
  // failing traces and in no passing one: they are the two groups' longest patterns
  const seq = (events: { kind: string; thread: string; line: number }[]) => events.map((e) => `${e.kind}${e.thread.slice(1)}:${e.line}`).join(' ');
  const cg = JSON.parse(contrast.stdout).groups as { longest: { events: { kind: string; thread: string; line: number }[]; badSupport: number; goodSupport: number } }[];
  assert.deepEqual(cg.map((g) => [seq(g.longest.events), g.longest.badSupport, g.longest.goodSupport]).sort(), [
    ['R1:11 R2:11 W1:13 W2:13 R3:17 R3:17', 2, 0],
    ['R1:11 R2:11 W2:13 W1:13 R3:17 R3:17', 2, 0],
  ]);
  assert.equal(run(dir, '--method', 'nope').status, 2);
  assert.equal(run().status, 2);
  assert.equal(run(dir, '--minsup', '2').status, 2);
});
