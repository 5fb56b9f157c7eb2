/**
 * Engine benchmark, one measurement per process (so peak memory is the
 * measurement's own): `node --import tsx bench/engine-bench.ts parse|analyze|analyze-thesis FILE`
 * (analyze-thesis: --hb none, grouping off — the cost of the happens-before filter is the difference;
 * analyze-2: as analyze, with the trace parsed in a reader thread while this one collects, `--workers 2`)
 * or `… collect DIR` (read + collect every *.jsonl trace of DIR into one Analyzer, in name order,
 * without ranking: the UNICORN collection of a workspace, e.g. many distinct patterns)
 * prints one JSON line {mode, events, ms, cpuMs, mainCpuMs, maxRssMiB} (collect: and patterns; mainCpuMs: the main thread's alone, Linux).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readTrace } from '../server/src/engine/trace/traceReader';
import { Analyzer } from '../server/src/engine/analysis';

/** CPU time (user + system, ms) of this process' main thread so far, from /proc (Linux; undefined elsewhere): with a reader thread, the wall time on an idle machine is about the larger of the two threads' CPU times */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

async function main() {
  const [mode, file] = process.argv.slice(2);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const m0 = mainThreadCpuMs();
  let events = 0;
  let patterns: number | undefined;
  if (mode === 'collect') {
    const a = new Analyzer();
    for (const f of readdirSync(file).filter((n) => n.endsWith('.jsonl')).sort()) {
      const run = await a.addTrace(path.join(file, f));
      if (!run) throw new Error(`analysis of ${f} failed`);
      events += run.events;
    }
    patterns = a.registry.patternCount;
  } else if (mode === 'parse') {
    const r = await readTrace(file, { event: () => {} });
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    events = r.eventCount;
  } else {
    const a = new Analyzer(mode === 'analyze-thesis' ? { happensBefore: false, grouping: false, windowWrites: 'latest' } : {});
    const run = await a.addTrace(file, { readerThread: mode === 'analyze-2' });
    if (!run) throw new Error('analysis failed');
    const res = a.rank();
    events = run.events;
    if (!res.stats.patterns) throw new Error('no patterns');
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(c0);
  const m1 = mainThreadCpuMs();
  // cpuMs: user + system CPU time of the process (less sensitive than ms to other load on a shared machine)
  console.log(JSON.stringify({ mode, events, ...(patterns === undefined ? {} : { patterns }), ms, cpuMs: (cpu.user + cpu.system) / 1000, ...(m0 === undefined || m1 === undefined ? {} : { mainCpuMs: m1 - m0 }), maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
