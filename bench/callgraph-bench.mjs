// Call-graph method ranking (seed 003, issue 18): time and memory to build the weighted totally
// reduced graphs with temporal edges from 300 runs × 10^5 method events (ENTER/EXIT fed to the
// builder from in-memory tapes, no parsing), then to rank the methods (InfoGain per edge, max per
// method) for each graph representation; and the end-to-end time of `rankMethodsOfTraceFiles` on a
// few trace files of 10^5 events (parsing included). Target: ranking 300 runs ≤ 2 s. Figures are
// printed, never asserted; the load average is printed with them (the machine is shared).
//   node --import tsx bench/callgraph-bench.mjs [runs] [eventsPerRun]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CallGraphCollector, rankMethodsOfTraceFiles } from '../server/src/engine/callgraph/localizationProcess.ts';
import { rankMethods } from '../server/src/engine/callgraph/methodRanking.ts';
import { rng } from '../test/helpers/seededRandom.ts';

const RUNS = Number(process.argv[2] ?? 300);
const EVENTS = Number(process.argv[3] ?? 1e5);
const METHODS = 400;
const THREADS = 4;
const TAPES = 10;

/** The program's static call graph: method m calls one of 4 fixed callees (deeper methods). */
const CALLEES = Array.from({ length: METHODS }, (_, m) => {
  const r = rng(1000 + m);
  return Array.from({ length: 4 }, () => 8 + Math.floor(r() * (METHODS - 8)));
});

/**
 * One run's method events: THREADS threads, each a random walk down the static call graph
 * (depth ≤ 8), interleaved with random thread switches. A failing tape lets thread 2 call
 * the planted method `m7` while thread 1's `m7` is still running (an interrupted activation).
 * Tape entries: thread << 1 | 1 for EXIT, (method << 4 | thread) << 1 for ENTER.
 */
function tape(seed, failing) {
  const r = rng(seed);
  const out = new Int32Array(EVENTS);
  const depth = new Int32Array(THREADS);
  const top = Array.from({ length: THREADS }, () => new Int32Array(16));
  let n = 0;
  let t = 0;
  let planted = false;
  while (n < EVENTS - 32) {
    if (r() < 0.1) t = Math.floor(r() * THREADS);
    if (failing && !planted && n > EVENTS / 2 && depth[1] === 1 && t === 1) {
      // thread 1 enters m7, thread 2 enters m7 before thread 1 returns
      out[n++] = ((7 << 4) | 1) << 1;
      out[n++] = ((0 << 4) | 2) << 1;
      out[n++] = ((7 << 4) | 2) << 1;
      out[n++] = (2 << 1) | 1;
      out[n++] = (2 << 1) | 1;
      out[n++] = (1 << 1) | 1;
      planted = true;
      continue;
    }
    const d = depth[t];
    if (d === 0 || (d < 8 && r() < 0.55)) {
      const m = d === 0 ? 0 : CALLEES[top[t][d - 1]][Math.floor(r() * 4)];
      out[n++] = ((m << 4) | t) << 1;
      top[t][d] = m;
      depth[t]++;
    } else {
      out[n++] = (t << 1) | 1;
      depth[t]--;
    }
  }
  for (let k = 0; k < THREADS; k++) while (depth[k]-- > 0 && n < EVENTS) out[n++] = (k << 1) | 1;
  return out.subarray(0, n);
}

const mib = (b) => (b / 2 ** 20).toFixed(0);
const passTapes = Array.from({ length: TAPES }, (_, k) => tape(100 + k, false));
const failTapes = Array.from({ length: TAPES }, (_, k) => tape(100 + k, true)); // the same walks, plus the planted interruption
global.gc?.();
const rss0 = process.memoryUsage().rss;

const t0 = performance.now();
const c = new CallGraphCollector();
const ids = Array.from({ length: METHODS }, (_, m) => c.table.intern(`bench.C${m % 20}.m${m}`, `bench/C${m % 20}.java`));
let events = 0;
for (let run = 0; run < RUNS; run++) {
  const failing = run % 3 === 0;
  const tp = (failing ? failTapes : passTapes)[run % TAPES];
  c.beginRun();
  const b = c.builder;
  for (let k = 0; k < tp.length; k++) {
    const x = tp[k];
    if (x & 1) b.exit(x >> 1);
    else b.enter((x >> 1) & 15, ids[x >> 5]);
  }
  events += tp.length;
  c.endRun(`run-${run}`, failing ? 'fail' : 'pass');
}
const buildMs = performance.now() - t0;
const rssBuild = process.memoryUsage().rss;
console.log(`call-graph ranking: ${RUNS} runs × ${EVENTS.toLocaleString('en-US')} method events (${events.toLocaleString('en-US')} events, ${c.calls.toLocaleString('en-US')} calls, ${c.table.size - 1} methods, ${c.graphs.edges.size.toLocaleString('en-US')} distinct edges, ${c.graphs.nonZeros.toLocaleString('en-US')} run×edge weights)`);
console.log(`  build graphs (calls + next/inter/intra edges): ${buildMs.toFixed(0)} ms (${Math.round(events / (buildMs / 1000)).toLocaleString('en-US')} events/s), RSS +${mib(rssBuild - rss0)} MiB`);
for (const rep of ['call', 'inter', 'next', 'intra', 'all']) {
  // best of 3: the machine is shared, the ranking is deterministic
  let ms = Infinity;
  let res;
  for (let k = 0; k < 3; k++) {
    const t1 = performance.now();
    res = rankMethods(c.graphs, c.table, { representation: rep });
    ms = Math.min(ms, performance.now() - t1);
  }
  const planted = res.methods.find((m) => m.method === 'bench.C7.m7');
  console.log(`  rank (${rep.padEnd(5)}): ${ms.toFixed(0).padStart(5)} ms (best of 3)   planted method bench.C7.m7 at rank ${planted?.rank} (score ${planted?.score.toFixed(3)}, edge ${planted?.edge?.text ?? '-'})`);
}
console.log(`  load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
console.log(`  max RSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB`);

// end to end from files (parsing included), a few runs
const dir = mkdtempSync(path.join(tmpdir(), 'braid-cg-bench-'));
try {
  const files = 4;
  for (let f = 0; f < files; f++) {
    const tp = (f % 2 ? failTapes : passTapes)[f];
    const lines = [`{"braid":"trace","version":1,"execution":"r${f}","outcome":"${f % 2 ? 'fail' : 'pass'}"}`];
    for (let m = 0; m < METHODS; m++) lines.push(`{"def":"loc","id":${m},"file":"bench/C${m % 20}.java","line":${10 + m},"method":"bench.C${m % 20}.m${m}"}`);
    for (let k = 0; k < tp.length; k++) {
      const x = tp[k];
      lines.push(x & 1 ? `[${k + 1},${x >> 1},"EXIT"]` : `[${k + 1},${(x >> 1) & 15},"ENTER",${x >> 5}]`);
    }
    writeFileSync(path.join(dir, `r${f}.trace.jsonl`), lines.join('\n') + '\n');
  }
  const t2 = performance.now();
  const res = await rankMethodsOfTraceFiles([dir]);
  const ms = performance.now() - t2;
  console.log(`  from files: ${files} traces × ${EVENTS.toLocaleString('en-US')} events read, built and ranked in ${ms.toFixed(0)} ms (${(ms / files).toFixed(0)} ms per run; read ${res.stats.readMs.toFixed(0)} ms, rank ${res.stats.rankMs.toFixed(0)} ms)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
