/**
 * Engine benchmark, one measurement per process (so peak memory is the
 * measurement's own): `node --import tsx bench/engine-bench.ts parse|analyze|analyze-thesis FILE`
 * (analyze-thesis: --hb none, grouping off — the cost of the happens-before filter is the difference)
 * prints one JSON line {mode, events, ms, cpuMs, maxRssMiB}.
 */
import { readTrace } from '../server/src/engine/trace/traceReader';
import { Analyzer } from '../server/src/engine/analysis';

async function main() {
  const [mode, file] = process.argv.slice(2);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let events = 0;
  if (mode === 'parse') {
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
  console.log(JSON.stringify({ mode, events, ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
