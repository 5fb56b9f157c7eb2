// Ranking and GRIFFIN with very many patterns (issue 14: "one new trace → updated ranking ≤ 1 s"):
// the hover bench's workspace (RUNS traces × EVENTS events, 2 threads, 30 variables, 400 lines:
// 749,797 patterns at 300 × 2,000), read into one Analyzer; rank() + GRIFFIN on a fresh Analyzer
// (round 1), then after one more trace on the same Analyzer (round 2, the language server's case).
// With BENCH_BASE=<another checkout of Braid> the same is measured for that checkout too, one
// process each, alternated BENCH_REPEAT times (default 2): paired before/after figures, and
// whether both give the same ranking and bugs (digest). Prints figures; never asserts.
//   node bench/rank-rounds-bench.mjs [RUNS] [EVENTS]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { hoverTraceGenerator } from './hoverWorkspaceTraces.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.argv[2] ?? 300);
const EVENTS = Number(process.argv[3] ?? 2000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const base = process.env.BENCH_BASE;
const out = path.join(root, 'bench/out');
mkdirSync(out, { recursive: true });
const bundles = { after: path.join(out, 'rank-rounds.cjs') };
const opts = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning', nodePaths: [path.join(root, 'node_modules')] };
await build({ ...opts, entryPoints: [path.join(root, 'bench/rankRounds.ts')], outfile: bundles.after });
if (base) {
  // the older checkout may not have the entry point: it is copied there
  const entry = path.join(base, 'bench/out/rankRounds.ts');
  mkdirSync(path.dirname(entry), { recursive: true });
  writeFileSync(entry, (await import('node:fs')).readFileSync(path.join(root, 'bench/rankRounds.ts'), 'utf8').replaceAll("'../server/", "'../../server/"));
  bundles.before = path.join(out, 'rank-rounds-base.cjs');
  await build({ ...opts, entryPoints: [entry], outfile: bundles.before });
}

// the hover bench's traces, same generator and seed
const trace = hoverTraceGenerator(EVENTS);
const ws = mkdtempSync(path.join(tmpdir(), 'braid-rank-rounds-'));
for (let n = 0; n <= RUNS; n++) writeFileSync(path.join(ws, `r${String(n).padStart(4, '0')}.trace.jsonl`), trace(n));

const rows = [];
for (let k = 0; k < REPEAT; k++)
  for (const [name, bundle] of Object.entries(bundles).reverse()) {
    const r = spawnSync(process.execPath, [bundle, ws], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(`${name} failed:\n${r.stderr}`);
    rows.push({ name, ...JSON.parse(r.stdout.trim().split('\n').pop()) });
  }
rmSync(ws, { recursive: true, force: true });
console.log(`${RUNS} + 1 traces × ${EVENTS} events${base ? `; before = ${base}` : ''}; one process each, alternated`);
console.log('checkout  patterns  round 1: rank ms  GRIFFIN ms   round 2 (+1 trace): rank ms  GRIFFIN ms  rank+GRIFFIN ms (target ≤ 1000)  peak RSS MiB  digest');
for (const r of rows)
  console.log(
    `${r.name.padEnd(8)}${String(r.patterns2).padStart(10)}${String(r.rank1).padStart(18)}${String(r.griffin1).padStart(12)}${String(r.rank2).padStart(29)}${String(r.griffin2).padStart(12)}${String(r.rank2 + r.griffin2).padStart(33)}${String(r.maxRssMiB).padStart(14)}  ${r.digest2}`,
  );
if (base) console.log(`same ranking and bugs before/after: ${new Set(rows.map((r) => r.digest1 + r.digest2)).size === 1 ? 'yes' : 'NO'}`);
