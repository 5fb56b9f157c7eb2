// One measured process for bench/rank-rounds-bench.mjs (bundled by it with esbuild): all traces
// but the last read into one Analyzer, then rank() + GRIFFIN (round 1: a fresh Analyzer), then the
// last trace added and rank() + GRIFFIN again (round 2: what the language server's analysis worker
// does for one new trace). Prints one JSON line: the times, the pattern count and a digest of the
// ranking (ids, ranks, ties, groups, counts, scores, the first 50 rows described) and the bugs.
//   node bench/out/rank-rounds.cjs <traceDir>
import { createHash } from 'node:crypto';
import { Analyzer, AnalysisResult } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { explainBugs } from '../server/src/engine/griffin/griffin';

function digest(result: AnalysisResult, bugs: unknown[]): string {
  const h = createHash('sha1');
  const r = result.ranking!;
  for (const a of [r.ids, r.ranks, r.ties, r.tieSizes, r.groupCodes, r.failed, r.passed, r.scores]) h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  h.update(JSON.stringify(r.describeRange(0, 50)));
  h.update(JSON.stringify(bugs));
  return h.digest('hex').slice(0, 16);
}

async function main(): Promise<void> {
  const [dir] = process.argv.slice(2);
  const analyzer = new Analyzer();
  const { files } = await findTraceFiles([dir]);
  for (const f of files.slice(0, -1)) await analyzer.addTrace(f);
  const out: Record<string, unknown> = {};
  for (const round of [1, 2]) {
    if (round === 2) await analyzer.addTrace(files[files.length - 1]);
    const t1 = performance.now();
    const result = analyzer.rank();
    const t2 = performance.now();
    const bugs = explainBugs(analyzer, result);
    const t3 = performance.now();
    out[`rank${round}`] = Math.round(t2 - t1);
    out[`griffin${round}`] = Math.round(t3 - t2);
    out[`patterns${round}`] = result.ranking!.length;
    out[`bugs${round}`] = bugs.length;
    out[`digest${round}`] = digest(result, bugs);
  }
  out.maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify(out));
}
main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
