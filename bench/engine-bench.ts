/**
 * Engine benchmark, one measurement per process (so peak memory is the
 * measurement's own): `node --import tsx bench/engine-bench.ts parse|analyze|analyze-thesis FILE`
 * (analyze-thesis: --hb none, grouping off — the cost of the happens-before filter is the difference)
 * or `… collect DIR` (read + collect every *.jsonl trace of DIR into one Analyzer, in name order,
 * without ranking: the UNICORN collection of a workspace, e.g. many distinct patterns)
 * prints one JSON line {mode, events, ms, cpuMs, maxRssMiB} (collect: and patterns).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readTrace } from '../server/src/engine/trace/traceReader';
import { Analyzer } from '../server/src/engine/analysis';

async function main() {
  const [mode, file] = process.argv.slice(2);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let events = 0;
  let patterns: number | undefined;
  if (mode === 'collect') {
    const a = new Analyzer();
    for (const f of readdirSync(file).filter((n) => n.endsWith('.jsonl')).sort()) {
      const run = await a.addTrace(path.join(file, f));
      if (!run) throw new Error(`analysis of ${f} failed`);
      events += run.events;
    }
    patterns = a.registry.patterns.length;
  } else if (mode === 'parse') {
    const r = await readTrace(file, { event: () => {} });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    events = r.eventCount;
  } else {
    const a = new Analyzer(mode === 'analyze-thesis' ? { happensBefore: false, grouping: false } : {});
    const run = await a.addTrace(file);
    if (!run) throw new Error('analysis failed');
    const res = a.rank();
    events = run.events;
    if (!res.stats.patterns) throw new Error('no patterns');
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(c0);
  // cpuMs: user + system CPU time of the process (less sensitive than ms to other load on a shared machine)
  console.log(JSON.stringify({ mode, events, ...(patterns === undefined ? {} : { patterns }), ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
