// Workspace-scale analysis (issue 14 items 3–4): RUNS traces × EVENTS events (the hover bench's
// workspace: 2 threads, 30 variables, 400 lines), analyzed
//   before: one thread, every trace read into one Analyzer (the path before the worker pool);
//   after:  the worker pool (WORKERS threads, default the cores) with the per-run summary cache:
//           first analysis (cold cache), one new trace → updated ranking, reopening from the cache.
// Before and after run in the same bench run, one process each, alternated REPEAT times (best
// kept; BENCH_REPEAT, default 1). Targets (issue 14): first ≤ 5 s, one new trace ≤ 1 s, reopen ≤ 1 s, peak RSS ≤ 500 MiB.
// Prints figures; never asserts.   node bench/workspace-scale-bench.mjs [RUNS] [EVENTS] [WORKERS]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.argv[2] ?? 300);
const EVENTS = Number(process.argv[3] ?? 2000);
const WORKERS = Number(process.argv[4] ?? availableParallelism());
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
const LINES = 400;
const VARS = 30;

const out = path.join(root, 'bench/out');
mkdirSync(out, { recursive: true });
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };
await build({ ...common, entryPoints: [path.join(root, 'bench/workspaceScale.ts')], outfile: path.join(out, 'workspace-scale.cjs') });
await build({ ...common, entryPoints: [path.join(root, 'server/src/engine/summary/summaryWorker.ts')], outfile: path.join(out, 'summaryWorker.js') });

// the hover bench's traces (bench/hover-bench.mjs), same generator and seed
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
function trace(n) {
  const fail = rnd() < 0.3;
  const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: `r${n}`, outcome: fail ? 'fail' : 'pass' })];
  lines.push('{"def":"thread","id":1,"name":"T1"}', '{"def":"thread","id":2,"name":"T2"}');
  for (let v = 0; v < VARS; v++) lines.push(JSON.stringify({ def: 'var', id: v, name: `bench.Big.v${v}` }));
  for (let l = 3; l < LINES; l++) lines.push(JSON.stringify({ def: 'loc', id: l, file: 'bench/Big.java', line: l, method: `bench.Big.m${Math.floor(l / 20)}` }));
  for (let i = 1; i <= EVENTS; i++) {
    const t = rnd() < 0.5 ? 1 : 2;
    const v = fail && i % 50 === 0 ? 0 : Math.floor(rnd() * VARS);
    const line = v === 0 ? (t === 1 ? 10 : 20) : 3 + Math.floor(rnd() * (LINES - 4));
    lines.push(JSON.stringify([i, t, rnd() < 0.5 ? 'R' : 'W', v, line]));
  }
  return lines.join('\n') + '\n';
}

const ws = mkdtempSync(path.join(tmpdir(), 'braid-scale-bench-'));
const traces = path.join(ws, 'traces');
mkdirSync(traces);
for (let n = 0; n < RUNS; n++) writeFileSync(path.join(traces, `r${String(n).padStart(4, '0')}.trace.jsonl`), trace(n));
const extra = trace(RUNS);

function measure(workers, cacheDir) {
  const args = [path.join(out, 'workspace-scale.cjs'), traces, String(workers), ...(cacheDir ? [cacheDir] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`analysis failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}
const best = (a, b) => (!a || b.totalMs < a.totalMs ? b : a);

console.log(`${RUNS} traces × ${EVENTS} events, ${WORKERS} workers (machine: ${availableParallelism()} cores); best of ${REPEAT}, before/after alternated`);
const rows = {};
for (let k = 0; k < REPEAT; k++) {
  rmSync(path.join(traces, `r${String(RUNS).padStart(4, '0')}.trace.jsonl`), { force: true });
  const cache = path.join(ws, `cache-${k}`);
  rows.before = best(rows.before, measure(1));
  rows.first = best(rows.first, measure(WORKERS, cache));
  rows.reopen = best(rows.reopen, measure(WORKERS, cache));
  writeFileSync(path.join(traces, `r${String(RUNS).padStart(4, '0')}.trace.jsonl`), extra);
  rows.beforeNew = best(rows.beforeNew, measure(1));
  rows.newTrace = best(rows.newTrace, measure(WORKERS, cache));
}
const label = {
  before: 'before: first analysis, 1 thread, no cache',
  first: `after: first analysis, ${WORKERS} workers, cold cache`,
  reopen: 'after: reopening from the cache',
  beforeNew: 'before: one new trace (everything read again)',
  newTrace: 'after: one new trace → updated ranking',
};
const target = { first: 5000, reopen: 1000, newTrace: 1000 };
console.log('case                                            total ms  read+merge ms  rank ms  GRIFFIN ms  peak RSS MiB  read/cached   patterns  target');
for (const [k, r] of Object.entries(rows)) {
  const t = target[k] ? `≤ ${target[k]} ms ${r.totalMs <= target[k] ? 'met' : 'MISSED'}; RSS ${r.maxRssMiB <= 500 ? 'met' : 'MISSED'}` : '';
  console.log(
    `${label[k].padEnd(46)}${r.totalMs.toFixed(0).padStart(10)}${r.readMs.toFixed(0).padStart(15)}${r.rankMs.toFixed(0).padStart(9)}${r.griffinMs.toFixed(0).padStart(12)}${r.maxRssMiB.toFixed(0).padStart(14)}  ${`${r.read}/${r.cached}`.padStart(11)}${String(r.patterns).padStart(11)}  ${t}`,
  );
}
const same = rows.before.top === rows.first.top && rows.before.patterns === rows.first.patterns && rows.beforeNew.patterns === rows.newTrace.patterns;
console.log(`same ranking before/after (top pattern key and pattern count): ${same ? 'yes' : 'NO'}`);
rmSync(ws, { recursive: true, force: true });
