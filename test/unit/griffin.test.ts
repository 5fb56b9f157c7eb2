/**
 * GRIFFIN (thesis chapter 5): Algorithm 3 on Figure 11, Algorithm 4 /
 * suspicious methods / bug graph on the Vector example (Table 9, Figure 12)
 * from real trace files with call stacks, and a generated multi-bug dataset
 * scored with the thesis' F-measure.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { clusterFailingExecutions } from '../../server/src/engine/griffin/clusterFailingExecutions';
import { clusterSuspiciousPatterns } from '../../server/src/engine/griffin/clusterSuspiciousPatterns';
import { commonCallStack } from '../../server/src/engine/griffin/commonCallStack';
import { CoverageMatrix } from '../../server/src/engine/griffin/coverageMatrix';
import { bugsTextReport, explainBugs, explainMatrix } from '../../server/src/engine/griffin/griffin';
import { figure11, fMeasure, optimalClusters, syntheticDataset } from '../helpers/griffinDatasets';
import { sourceLines, VECTOR, vectorTraces, writeStackTraces } from '../helpers/griffinFixtures';

async function analyzeVector() {
  const dir = writeStackTraces(vectorTraces());
  const analyzer = new Analyzer();
  const { files } = await findTraceFiles([dir]);
  for (const f of files) await analyzer.addTrace(f);
  return { analyzer, result: analyzer.rank() };
}

test('Algorithm 3 on Figure 11 (t=5, s=0.5): {E1,E2,E3}, {E4,E5}, {E6,E7}', () => {
  const { matrix } = figure11();
  const clusters = clusterFailingExecutions(matrix, { t: 5, s: 0.5 });
  assert.deepEqual(
    clusters.map((c) => c.map((r) => matrix.runs[r].execution)),
    [['E1', 'E2', 'E3'], ['E4', 'E5'], ['E6', 'E7']],
  );
});

test('Algorithm 3: a higher threshold keeps E4/E5 and E6/E7 apart (similarity 3/6 < 0.8)', () => {
  const { matrix } = figure11();
  const clusters = clusterFailingExecutions(matrix, { t: 5, s: 0.8 });
  assert.deepEqual(
    clusters.map((c) => c.map((r) => matrix.runs[r].execution)),
    [['E1', 'E2', 'E3'], ['E4'], ['E5'], ['E6'], ['E7']],
  );
});

test('common call stack: common part from the bottom, frames compared by method (Figure 9)', () => {
  const a1 = [
    { file: 'T.java', line: 120, method: 'main' },
    { file: 'V.java', line: 150, method: 'Vector' },
    { file: 'V.java', line: 271, method: 'size' },
  ];
  const a3 = [
    { file: 'T.java', line: 120, method: 'main' },
    { file: 'V.java', line: 151, method: 'Vector' },
    { file: 'V.java', line: 681, method: 'toArray' },
  ];
  const cs = commonCallStack([a1, a3]);
  assert.deepEqual(cs.map((f) => f.method), ['main', 'Vector']);
  assert.deepEqual(cs[1].lines, [150, 151]);
});

test('Vector example (Table 9): 3 bugs; B1 = PI1–PI5, suspicious methods Vector() and addAll', async () => {
  const { analyzer, result } = await analyzeVector();
  assert.deepEqual(result.executions, { total: 15, failed: 7, passed: 8 });
  const bugs = explainBugs(analyzer, result);
  assert.deepEqual(bugs.map((b) => b.failingRuns), [['E1', 'E2', 'E3'], ['E4', 'E5'], ['E6', 'E7']]);
  const b1 = bugs[0];
  const sig = (i: number) => result.patterns[i].accesses.map((a) => a.line).join('→');
  const L = VECTOR;
  const expected = [
    [L.size, L.addAllSize, L.toArraySize], // PI1 RWR 271→851→681
    [L.size, L.addAllSize, L.addAllData, L.toArrayData], // PI2 RWWR 271→851→852→682
    [L.addAllSize, L.toArraySize], // PI3 WR 851→681
    [L.size, L.addAllSize], // PI4 RW 271→851
    [L.addAllData, L.toArrayData], // PI5 852→682
  ].map((fs) => fs.map((f) => f.line).join('→'));
  assert.deepEqual(b1.patterns.map(sig).sort(), expected.sort());
  // Table 9's statistics: PI1–PI4 in the 3 failing runs only, PI5 also in 3 passing runs
  assert.deepEqual(b1.patterns.map((i) => [result.patterns[i].failed, result.patterns[i].passed]).sort(), [[3, 0], [3, 0], [3, 0], [3, 0], [3, 3]]);
  assert.deepEqual(
    b1.suspiciousMethods.map((m) => [m.thread, m.method]),
    [
      [1, 'fixture.Vector.<init>'],
      [2, 'fixture.Vector.addAll'],
    ],
  );
  assert.deepEqual(b1.suspiciousMethods[0].lines, [L.ctorSize.line, L.ctorToArray.line]);
  assert.equal(bugs[1].suspiciousMethods[1].method, 'fixture.Vector.removeAllElements');
  assert.equal(bugs[2].suspiciousMethods[1].method, 'fixture.Vector.remove');
  assert.equal(b1.advice.kind, 'multi-variable-atomicity-violation');
  assert.match(b1.advice.steps[0], /Vector constructor \(Vector\.java:\d+–\d+\) atomic with respect to Vector\.addAll/);
});

test('Figure 12: the bug graph of B1 has nodes 271 | 851,852 | 681,682 and edges carrying all five patterns', async () => {
  const { analyzer, result } = await analyzeVector();
  const g = explainBugs(analyzer, result)[0].graph;
  const L = VECTOR;
  assert.deepEqual(g.lanes.map((l) => [l.thread, l.suspiciousMethod?.method]), [
    [1, 'fixture.Vector.<init>'],
    [2, 'fixture.Vector.addAll'],
  ]);
  assert.deepEqual(
    g.nodes.map((n) => [n.thread, n.accesses.map((a) => a.line).sort((x, y) => x - y)]),
    [
      [1, [L.size.line]],
      [2, [L.addAllSize.line, L.addAllData.line]],
      [1, [L.toArraySize.line, L.toArrayData.line]],
    ],
  );
  assert.deepEqual(g.nodes[1].frames.map((f) => f.method), ['fixture.VectorTest$Adder.run', 'fixture.Vector.addAll']);
  assert.deepEqual(g.nodes[2].frames.map((f) => f.method), ['fixture.VectorTest.main', 'fixture.Vector.<init>', 'fixture.Vector.toArray']);
  assert.deepEqual(g.edges.map((e) => [e.from, e.to, e.patterns.length]), [
    ['n1', 'n2', 3], // PI1, PI2, PI4
    ['n2', 'n3', 4], // PI1, PI2, PI3, PI5
  ]);
  const all = new Set(g.edges.flatMap((e) => e.patterns));
  assert.equal(all.size, 5, 'the edges represent all five patterns');
});

test('every bug: suspicious methods and graph accesses resolve to real lines of the fixture sources', async () => {
  const { analyzer, result } = await analyzeVector();
  const bugs = explainBugs(analyzer, result);
  assert.equal(bugs.length, 3);
  const check = (file: string, line: number, method: string) => {
    const src = sourceLines(file);
    assert.ok(line >= 1 && line <= src.length, `${file}:${line} exists`);
    assert.ok(src[line - 1].trim().length > 0, `${file}:${line} is code`);
    // the line lies inside the named method: the nearest declaration above names it
    const name = method.split('.').pop()!.replace('<init>', 'Vector(').replace(/\$.*/, '');
    const decl = src.slice(0, line).reverse().find((l) => /^\s*(public|static|protected|private|synchronized|void|int|boolean|Object)/.test(l) && l.includes('('));
    assert.ok(decl && decl.includes(name.endsWith('(') ? name : name + '('), `${file}:${line} is in ${method} (declaration: ${decl})`);
  };
  for (const b of bugs) {
    assert.equal(b.suspiciousMethods.length, 2);
    for (const m of b.suspiciousMethods) for (const l of m.lines) check(m.file, l, m.method);
    for (const n of b.graph.nodes) for (const a of n.accesses) check(a.file, a.line, a.method);
  }
  const json = JSON.parse(JSON.stringify({ bugs }));
  assert.equal(json.bugs[0].graph.nodes.length, 3);
});

test('bugsTextReport: one section per bug, naming methods and lines', async () => {
  const { analyzer, result } = await analyzeVector();
  const text = bugsTextReport(explainBugs(analyzer, result), result);
  assert.equal((text.match(/^Bug \d+:/gm) ?? []).length, 3);
  assert.match(text, /thread 1: Vector constructor at Vector\.java:\d+–\d+/);
  assert.match(text, /thread 2: Vector\.addAll at Vector\.java:\d+–\d+/);
  assert.match(text, /How to fix it \(advice only\)/);
});

test('Algorithm 4: a pair subsumed by a triple is merged even with a different common stack, with roles flipped', async () => {
  const { analyzer, result } = await analyzeVector();
  const m = CoverageMatrix.fromAnalysis(result);
  const e123 = [0, 1, 2];
  const clusters = clusterSuspiciousPatterns(m, e123, { t: 20 });
  assert.equal(clusters.length, 1);
  const wr = clusters[0].members.find((x) => m.patterns[x.row].accesses.length === 2 && m.patterns[x.row].accesses[0].line === VECTOR.addAllSize.line);
  assert.ok(wr, 'PI3 is in the cluster');
  assert.equal(wr.flip, true, "PI3's role 1 (addAll's thread) is the cluster's lane 2");
  void analyzer;
});

test('generated multi-bug dataset: failing runs clustered per bug with F-measure ≥ 0.95 (t=30, s=0.8)', () => {
  for (const seed of [1, 2, 3]) {
    const d = syntheticDataset({ runs: 400, patterns: 3000, bugs: 5, seed, bugPatterns: [30, 45], rarePerRun: 0.2, partialMiss: 1 });
    const clusters = clusterFailingExecutions(d.matrix);
    const optimal = optimalClusters(d.truth);
    const f = fMeasure(clusters, optimal);
    assert.ok(f >= 0.95, `seed ${seed}: F-measure ${f.toFixed(3)} with ${clusters.length} clusters for ${optimal.length} bugs`);
    // Step 3 on top: one bug per failing cluster at least, each with its bug's patterns first
    const bugs = explainMatrix(d.matrix);
    for (const b of bugs) {
      const runBug = d.truth.get(d.matrix.runs.findIndex((r) => r.execution === b.failingRuns[0]))!;
      assert.ok(d.bugRows[runBug].includes(b.patterns[0]), `bug ${b.id} leads with a pattern of its bug`);
    }
  }
});

test('F-measure formula (thesis §5.4.3): perfect = 1, one split cluster < 1', () => {
  assert.equal(fMeasure([[1, 2, 3], [4, 5]], [[1, 2, 3], [4, 5]]), 1);
  const f = fMeasure([[1, 2], [3], [4, 5]], [[1, 2, 3], [4, 5]]);
  // C1: P=1, R=2/3 → 0.8; C2: P=1, R=1/3 → 0.5; C3: 1 → (2·0.8 + 0.5 + 2·1)/5
  assert.ok(Math.abs(f - (2 * 0.8 + 0.5 + 2) / 5) < 1e-12);
});
