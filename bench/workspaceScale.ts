// One measured analysis of a trace folder for bench/workspace-scale-bench.mjs (bundled by it
// with esbuild, next to summaryWorker.js): prints one JSON line with the phase times and the
// peak RSS of this process (worker threads included).
//   node bench/out/workspace-scale.cjs <traceDir> <mode> [cacheDir] [extraTrace]
// modes:
//   before   every trace read into one Analyzer in this thread, no cache (the path before issue 14)
//   session  the language server's path (WorkspaceSession, as the analysis worker): a first round
//            with the cache folder (cold: every trace read; warm: the workspace snapshot loaded,
//            then only new traces read), rank, GRIFFIN; then the snapshot written (timed apart)
//   live     a session opened (untimed), then one round adding <extraTrace>: the worker's
//            incremental round in a live Analyzer (add one trace, rank, GRIFFIN)
import { statSync } from 'node:fs';
import { Analyzer, patternAt, patternCount } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { WorkspaceSession } from '../server/src/engine/summary/workspaceSession';

const info = (files: string[]) =>
  files.map((p) => {
    const st = statSync(p);
    return { path: p, mtimeMs: st.mtimeMs, size: st.size };
  });

async function main(): Promise<void> {
  const [dir, mode, cacheDir, extra] = process.argv.slice(2);
  const { files } = await findTraceFiles([dir]);
  const workers = Number(process.env.BRAID_BENCH_WORKERS ?? 1);
  let analyzer: Analyzer;
  let read = files.length;
  let cached = 0;
  let fromSnapshot = 0;
  let t0 = performance.now();
  const session = new WorkspaceSession();
  if (mode === 'before') {
    analyzer = new Analyzer();
    for (const f of files) await analyzer.addTrace(f);
  } else if (mode === 'session') {
    const r = await session.update({ options: {}, files: info(files), cacheDir, workers });
    analyzer = session.analyzer!;
    ({ read, fromSnapshot } = r);
    cached = r.reused - r.fromSnapshot;
    if (r.problems.length) console.error(r.problems.map((p) => p.message).join('\n'));
  } else if (mode === 'live') {
    await session.update({ options: {}, files: info(files), cacheDir, workers });
    session.analyzer!.rank();
    t0 = performance.now();
    const r = await session.update({ options: {}, files: info([...files, extra]), cacheDir, workers });
    analyzer = session.analyzer!;
    ({ read } = r);
    cached = r.reused;
  } else throw new Error(`unknown mode ${mode}`);
  const t1 = performance.now();
  const readRssMiB = process.resourceUsage().maxRSS / 1024;
  const result = analyzer.rank();
  const t2 = performance.now();
  const bugs = explainBugs(analyzer, result);
  const t3 = performance.now();
  let snapshotMs = 0;
  if (mode === 'session') {
    await session.writeSnapshot();
    snapshotMs = performance.now() - t3;
  }
  console.log(
    JSON.stringify({
      read,
      cached,
      fromSnapshot,
      runs: result.executions.total,
      patterns: patternCount(result),
      bugs: bugs.length,
      top: patternAt(result, 0)?.key,
      readMs: t1 - t0,
      rankMs: t2 - t1,
      griffinMs: t3 - t2,
      totalMs: t3 - t0,
      snapshotMs,
      readRssMiB,
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
