// Issue 14 random workloads (ranking, describing, reports, GRIFFIN at scale): a random 8-thread
// workload over 2,000 variables (about one distinct pattern per event or more) as one trace of
// BENCH_RANDOM_EVENTS (default 10^6) events, and BENCH_RANDOM_RUNS (default 300) runs × 2,000
// events over 100 variables. Per case: a naive line-by-line JSON.parse of the same files, the
// analysis split into UNICORN (read + collect), ranking, GRIFFIN and the streamed JSON report,
// the ratio analysis / naive parse with its target, peak RSS, and whether
// `braid analyze --format json` (dist/braid.js) succeeds. Figures are printed, never asserted.
//   npm run build && node bench/report-bench.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'bench/out/random');
mkdirSync(outDir, { recursive: true });
const EVENTS = Number(process.env.BENCH_RANDOM_EVENTS ?? 1e6);
const RUNS = Number(process.env.BENCH_RANDOM_RUNS ?? 300);

const { build } = await import('esbuild');
const bundle = path.join(outDir, 'report-phases.cjs');
await build({ entryPoints: [path.join(root, 'bench/report-phases.ts')], bundle: true, platform: 'node', target: 'node20', outfile: bundle, logLevel: 'warning' });

function run(args, opts = {}) {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}
const measure = (mode, input) => JSON.parse(run([bundle, mode, input, path.join(outDir, 'report.json')]).trim().split('\n').pop());

// the workloads (made once, deterministic)
const single = path.join(outDir, `single-${EVENTS}.trace.jsonl`);
const runsDir = path.join(outDir, `runs-${RUNS}`);
if (!existsSync(single) || !existsSync(runsDir)) {
  const gen = `
    import { mkdirSync } from 'node:fs';
    import generator from ${JSON.stringify(path.join(root, 'bench/syntheticTraceGenerator.ts'))};
    import random from ${JSON.stringify(path.join(root, 'test/helpers/seededRandom.ts'))};
    const { generateRandomTrace } = generator;
    const { rng } = random;
    await generateRandomTrace(${JSON.stringify(single)}, { events: ${EVENTS}, threads: 8, variables: 2000, seed: 1 });
    mkdirSync(${JSON.stringify(runsDir)}, { recursive: true });
    const r = rng(99);
    for (let n = 0; n < ${RUNS}; n++)
      await generateRandomTrace(${JSON.stringify(runsDir)} + '/r' + n + '.trace.jsonl', { events: 2000, threads: 8, variables: 100, seed: 1000 + n, outcome: r() < 0.3 ? 'fail' : 'pass', execution: 'r' + n });`;
  run(['--import', 'tsx', '--input-type=module', '-e', gen]);
}

const cases = [
  { name: `1 trace × ${EVENTS.toExponential(0)} events, 8 threads, 2,000 vars`, input: single, target: 2 },
  { name: `${RUNS} runs × 2,000 events, 8 threads, 100 vars`, input: runsDir, target: 3 },
];
console.log('Random workloads (issue 14): analysis (UNICORN + ranking + GRIFFIN + streamed JSON report) vs a naive line-by-line JSON.parse');
console.log('case                                             patterns    bugs  naive ms  unicorn ms  rank ms  griffin ms  report ms  total ms  analysis/naive (target)  peak RSS MiB (< 1024)  braid --format json');
for (const c of cases) {
  let naive, a;
  try {
    naive = measure('naive', c.input);
    a = measure('analyze', c.input);
  } catch (e) {
    console.log(`${c.name.padEnd(48)} FAILED: ${String(e.message).split('\n').filter(Boolean).slice(-2).join(' ')}`);
    continue;
  }
  // end to end through the CLI: the JSON report is written and parses
  const outFile = path.join(outDir, 'cli-report.json');
  const cli = spawnSync(process.execPath, [path.join(root, 'dist/braid.js'), 'analyze', c.input, '--format', 'json', '--top', 'all', '-o', outFile], { cwd: root, encoding: 'utf8' });
  let ok = cli.status === 0 && existsSync(outFile);
  let size = ok ? statSync(outFile).size : 0;
  if (ok && size < 256 * 2 ** 20) {
    try {
      ok = JSON.parse(readFileSync(outFile, 'utf8')).totalPatterns === a.patterns;
    } catch {
      ok = false;
    }
  }
  rmSync(outFile, { force: true });
  // the target is on the analysis (UNICORN + ranking + GRIFFIN); writing the report is shown apart
  const ratio = (a.unicornMs + a.rankMs + a.griffinMs) / naive.ms;
  console.log(
    `${c.name.padEnd(48)}${String(a.patterns).padStart(9)}${String(a.bugs).padStart(8)}${naive.ms.toFixed(0).padStart(10)}${a.unicornMs.toFixed(0).padStart(12)}${a.rankMs.toFixed(0).padStart(9)}${a.griffinMs.toFixed(0).padStart(12)}${a.reportMs.toFixed(0).padStart(11)}${a.ms.toFixed(0).padStart(10)}${`${ratio.toFixed(1)}× (≤ ${c.target}×)`.padStart(24)}${a.maxRssMiB.toFixed(0).padStart(23)}  ${ok ? `ok, ${(size / 2 ** 20).toFixed(0)} MiB` : `FAILED ${cli.status}: ${(cli.stderr || '').split('\n').slice(-3).join(' ')}`}`,
  );
}
rmSync(path.join(outDir, 'report.json'), { force: true });
