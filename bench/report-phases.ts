/**
 * One measurement of the issue-14 random workloads (bench/report-bench.mjs runs
 * it in its own process, so peak memory is its own):
 *   report-phases.cjs naive|analyze FILES_OR_DIR OUT.json
 * naive: line-by-line JSON.parse of every trace line (the yardstick);
 * analyze: UNICORN over the traces, ranking, GRIFFIN, then the JSON report
 * streamed to OUT.json — each phase timed. Prints one JSON line.
 * rank: UNICORN and ranking only (for profiling ranking; OUT.json is not written).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import readline from 'node:readline';
import { Analyzer } from '../server/src/engine/analysis';
import { findTraceFiles } from '../server/src/engine/traceDiscovery';
import { explainBugs } from '../server/src/engine/griffin/griffin';
import { jsonReportSections } from '../server/src/engine/report/jsonReport';
import { streamSink, writeJson } from '../server/src/engine/report/jsonStream';

async function main() {
  const [mode, input, out] = process.argv.slice(2);
  const { files } = await findTraceFiles([input]);
  const t0 = performance.now();
  if (mode === 'naive') {
    let lines = 0;
    for (const f of files) {
      const rl = readline.createInterface({ input: createReadStream(f), crlfDelay: Infinity });
      for await (const l of rl) {
        if (l) {
          JSON.parse(l);
          lines++;
        }
      }
    }
    console.log(JSON.stringify({ mode, lines, ms: performance.now() - t0, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
    return;
  }
  const a = new Analyzer();
  for (const f of files) await a.addTrace(f);
  const t1 = performance.now();
  const peak = () => Math.round(process.resourceUsage().maxRSS / 1024);
  const peakUnicorn = peak();
  const result = a.rank();
  const t2 = performance.now();
  const peakRank = peak();
  if (mode === 'rank') {
    console.log(JSON.stringify({ mode, patterns: result.stats.patterns, unicornMs: t1 - t0, rankMs: t2 - t1, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
    return;
  }
  const bugs = explainBugs(a, result);
  const t3 = performance.now();
  const peakGriffin = peak();
  const stream = createWriteStream(out);
  await writeJson(jsonReportSections(result, { extra: { bugs } }), streamSink(stream));
  stream.end();
  await once(stream, 'finish');
  const t4 = performance.now();
  console.log(
    JSON.stringify({
      mode,
      runs: result.executions.total,
      events: result.stats.events,
      patterns: result.stats.patterns,
      bugs: bugs.length,
      unicornMs: t1 - t0,
      rankMs: t2 - t1,
      griffinMs: t3 - t2,
      reportMs: t4 - t3,
      ms: t4 - t0,
      maxRssMiB: process.resourceUsage().maxRSS / 1024,
      // peak RSS (MiB) when each phase ended
      peakMiB: { unicorn: peakUnicorn, rank: peakRank, griffin: peakGriffin },
    }),
  );
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
