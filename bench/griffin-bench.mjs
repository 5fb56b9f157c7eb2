// GRIFFIN benchmark: 1,000 runs × 10,000 patterns (synthetic coverage matrix,
// 8 independent bugs). Prints the F-measure (thesis §5.4.3) of Algorithm 3's
// clusters and of the bugs' failing runs, for both getSuspiciousPatterns scorings,
// and the times; then the evidence clustering (the default since issue 27) on the same matrix.
//   node --import tsx bench/griffin-bench.mjs [runs] [patterns] [bugs]
import { syntheticDataset, fMeasure, optimalClusters } from '../test/helpers/griffinDatasets.ts';
import { clusterFailingExecutions } from '../server/src/engine/griffin/clusterFailingExecutions.ts';
import { explainMatrix } from '../server/src/engine/griffin/griffin.ts';

const runs = Number(process.argv[2] ?? 1000);
const patterns = Number(process.argv[3] ?? 10000);
const bugs = Number(process.argv[4] ?? 8);
const models = [
  ['bugs with 30–45 patterns, rare noise 0.2/run, partial runs miss 1', { bugPatterns: [30, 45], rarePerRun: 0.2, partialMiss: 1 }],
  ['bugs with 30–45 patterns, rare noise 0.2/run, partial runs miss 2', { bugPatterns: [30, 45], rarePerRun: 0.2, partialMiss: 2 }],
  ['bugs with 8–30 patterns, rare noise 1/run, partial runs miss 3 (harsh)', {}],
];
for (const [name, opts] of models) {
  const t0 = performance.now();
  const d = syntheticDataset({ runs, patterns, bugs, seed: 7, ...opts });
  const t1 = performance.now();
  const cells = d.matrix.runPatterns.reduce((n, r) => n + r.length, 0);
  const optimal = optimalClusters(d.truth);
  const runIndex = new Map(d.matrix.runs.map((r, k) => [r.execution, k]));
  console.log(`${name}`);
  console.log(`  ${runs} runs × ${patterns} patterns, ${d.truth.size} failing, ${bugs} bugs, ${cells} covered cells (generation + matrix ${(t1 - t0).toFixed(0)} ms)`);
  for (const scoring of ['global', 'cluster']) {
    const t2 = performance.now();
    const clusters = clusterFailingExecutions(d.matrix, { scoring });
    const t3 = performance.now();
    const out = explainMatrix(d.matrix, { scoring, clustering: 'merge' });
    const t4 = performance.now();
    const strong = out.filter((b) => !b.evidence.weak);
    const fb = fMeasure(strong.map((b) => b.failingRuns.map((e) => runIndex.get(e))), optimal);
    console.log(`  scoring ${scoring}${scoring === 'global' ? ' (thesis)' : ''}:`);
    console.log(`    Algorithm 3: ${clusters.length} clusters, F-measure ${fMeasure(clusters, optimal).toFixed(4)}, ${(t3 - t2).toFixed(0)} ms`);
    console.log(`    Steps 2–3 + merge (methods, graphs, advice): ${strong.length} bugs (+ ${out.length - strong.length} weak), bugs' F-measure ${fb.toFixed(4)}, ${(t4 - t3).toFixed(0)} ms`);
  }
  // evidence clustering (the default since issue 27): sequential covering by significant patterns
  const t5 = performance.now();
  const ev = explainMatrix(d.matrix);
  const t6 = performance.now();
  const evStrong = ev.filter((b) => !b.evidence.weak);
  const fe = fMeasure(evStrong.map((b) => b.failingRuns.map((e) => runIndex.get(e))), optimal);
  console.log(`  evidence clustering (default): ${evStrong.length} bugs (+ ${ev.length - evStrong.length} weak), bugs' F-measure ${fe.toFixed(4)}, ${(t6 - t5).toFixed(0)} ms`);
}
