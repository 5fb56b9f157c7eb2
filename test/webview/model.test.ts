/** The views' normalizers accept the engine's GRIFFIN Bug and BugGraph shapes (typed against them). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Bug } from '../../server/src/engine/griffin/griffin';
import type { PatternDto } from '../../server/src/lsp/protocol';
import { normalizeBugs, normalizeBugGraph } from '../../webview/src/common/model';
import { layoutGraph } from '../../webview/src/bugGraph/layout';

const V = 'java/util/Vector.java';
const bug: Bug = {
  id: 1,
  cluster: 1,
  clusters: [1],
  failingRuns: ['e3', 'e5'],
  kind: 'atomicity-violation',
  score: 0.9,
  evidence: { failingRuns: 2, totalFailing: 4, fraction: 0.5, pValue: 0.02, weak: true },
  patterns: [0, 2],
  patternKeys: ['K1', 'K3'],
  patternClusters: 1,
  suspiciousMethods: [
    { thread: 1, method: 'Vector.<init>', file: V, line: 140, lines: [140, 141] },
    { thread: 2, method: 'Vector.addAll', file: V, line: 849, lines: [849] },
  ],
  graph: {
    lanes: [
      { thread: 1, label: 'Thread 1', suspiciousMethod: { method: 'Vector.<init>', file: V, line: 140 } },
      { thread: 2, label: 'Thread 2', suspiciousMethod: { method: 'Vector.addAll', file: V, line: 849 } },
    ],
    nodes: [
      { id: 'n1', thread: 1, order: 0, frames: [{ file: 'T.java', method: 'T.main', line: 5, lines: [5] }, { file: V, method: 'Vector.<init>', line: 140, lines: [140] }], accesses: [{ id: 'a1', type: 'R', variable: 'elementCount', file: V, line: 271, method: 'Vector.size', frames: [{ file: V, line: 271, method: 'Vector.size' }] }] },
      { id: 'n2', thread: 2, order: 1, frames: [{ file: 'W.java', method: 'W.run', line: 8, lines: [8] }, { file: V, method: 'Vector.addAll', line: 849, lines: [849] }], accesses: [{ id: 'a2', type: 'W', variable: 'elementData', file: V, line: 851, method: 'Vector.addAll', frames: [] }, { id: 'a3', type: 'W', variable: 'elementCount', file: V, line: 852, method: 'Vector.addAll', frames: [] }] },
      { id: 'n3', thread: 1, order: 2, frames: [{ file: 'T.java', method: 'T.main', line: 5, lines: [5] }, { file: V, method: 'Vector.<init>', line: 140, lines: [140] }], accesses: [{ id: 'a4', type: 'R', variable: 'elementData', file: V, line: 681, method: 'Vector.<init>', frames: [] }] },
    ],
    edges: [
      { from: 'n1', to: 'n2', patterns: [0, 2], labels: ['P9 RWR', 'P2 RW'], orderings: [{ from: 'a1', to: 'a3', patterns: [0, 2] }] },
      { from: 'n2', to: 'n3', patterns: [0], labels: ['P9 RWR'], orderings: [{ from: 'a3', to: 'a4', patterns: [0] }, { from: 'a2', to: 'a4', patterns: [0] }] },
    ],
  },
  advice: { kind: 'atomicity-violation', shape: 'multi-variable', headline: 'Thread 1 read `elementCount` = 3 at Vector.java:271; then thread 2 wrote `elementData` at line 851: thread 1 used `elementCount` and `elementData` from two different states.', summary: 'Vector.<init> reads elementCount and elementData non-atomically.', interleaving: 'T1 R elementCount @ Vector.java:271 → T2 W …', steps: ['Hold the lock in Vector.<init>.', 'Copy under the lock.'], fixLane: 1 },
};

const pattern = (key: string, rank: number): PatternDto => ({ rank, score: 1 / rank, id: 'P9', kind: 'RWR', category: 'single-variable atomicity', failed: 3, passed: 0, key, accesses: [] });

test('engine Bug → card model: keys resolved, advice structured, roles and contexts from the graph', () => {
  const [b] = normalizeBugs([bug], [pattern('K1', 1), pattern('K3', 3)]);
  assert.equal(b.id, 1);
  assert.deepEqual(b.failingRuns, ['e3', 'e5']);
  assert.deepEqual(b.patterns.map((p) => p.key), ['K1', 'K3']);
  assert.deepEqual(b.patternKeys, []);
  assert.equal(b.category, 'atomicity-violation');
  assert.deepEqual(b.methods.map((m) => [m.thread, m.role, m.method, m.line]), [[1, 'Thread 1', 'Vector.<init>', 140], [2, 'Thread 2', 'Vector.addAll', 849]]);
  assert.equal(b.advice.steps.length, 2);
  assert.match(b.advice.summary!, /non-atomically/);
  assert.equal(b.advice.shape, 'multi-variable');
  assert.match(b.advice.headline!, /^Thread 1 read `elementCount` = 3 at Vector\.java:271;/);
  assert.deepEqual(b.contexts.map((c) => [c.thread, c.frames.map((f) => f.method)]), [[1, ['T.main', 'Vector.<init>']], [2, ['W.run', 'Vector.addAll']]]);
});

test('engine BugGraph (as braid/bugGraph returns it) → access-level edges labelled with the patterns', () => {
  const g = normalizeBugGraph({ bug: 1, graph: bug.graph, advice: bug.advice }, 1);
  assert.deepEqual(g.lanes.map((l) => [l.id, l.thread, l.suspicious?.method]), [['1', 1, 'Vector.<init>'], ['2', 2, 'Vector.addAll']]);
  assert.deepEqual(g.nodes.map((n) => [n.id, n.lane, n.accesses.length]), [['n1', '1', 1], ['n2', '2', 2], ['n3', '1', 1]]);
  assert.deepEqual(g.edges.map((e) => [e.from, e.to, e.label]), [['a1', 'a3', 'P9 RWR, P2 RW'], ['a3', 'a4', 'P9 RWR'], ['a2', 'a4', 'P9 RWR']]);
  const L = layoutGraph(g);
  assert.equal(L.edges.length, 3);
  assert.equal(L.lanes[0].label, 'Thread 1 · Vector.<init>');
  assert.ok(L.nodes[1].y > L.nodes[0].y && L.nodes[2].y > L.nodes[1].y);
});

test('junk input never throws', () => {
  assert.deepEqual(normalizeBugs(null), []);
  assert.deepEqual(normalizeBugs([1, 'x', null, { suspiciousMethods: 'no' }]).length, 1);
  const g = normalizeBugGraph({ lanes: 'x', nodes: [null, { id: 3, accesses: [{ type: 1, line: 'NaN' }] }], edges: [{ from: 'zz', to: 'n' }] });
  assert.equal(g.nodes.length, 1);
  assert.equal(g.edges.length, 0);
  layoutGraph(g);
});
