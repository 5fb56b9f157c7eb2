// One measured analysis of a trace folder for bench/workspace-scale-bench.mjs (bundled by it
// with esbuild, next to summaryWorker.js): prints one JSON line with the phase times and the
// peak RSS of this process (worker threads included).
//   node bench/out/workspace-scale.cjs <traceDir> <workers> [cacheDir]
import { Analyzer, patternAt, patternCount } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { addTraces } from '../server/src/engine/summary/workspaceAnalysis';
import { SummaryCache } from '../server/src/engine/summary/summaryCache';
import { explainBugs } from '../server/src/engine/griffin/griffin';

async function main(): Promise<void> {
  const [dir, workersArg, cacheDir] = process.argv.slice(2);
  const t0 = performance.now();
  const analyzer = new Analyzer();
  const { files } = await findTraceFiles([dir]);
  const cache = cacheDir ? await SummaryCache.open(cacheDir, analyzer.options) : undefined;
  const added = await addTraces(analyzer, files, { workers: Number(workersArg), cache });
  const t1 = performance.now();
  const result = analyzer.rank();
  const t2 = performance.now();
  const bugs = explainBugs(analyzer, result);
  const t3 = performance.now();
  console.log(
    JSON.stringify({
      ...added,
      runs: result.executions.total,
      patterns: patternCount(result),
      bugs: bugs.length,
      top: patternAt(result, 0)?.key,
      readMs: t1 - t0,
      rankMs: t2 - t1,
      griffinMs: t3 - t2,
      totalMs: t3 - t0,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
    }),
  );
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
