// `npm run bench`: the engine benchmark (parse-only vs full UNICORN analysis
// over synthetic traces of 10^4…10^7 events) and every other bench/*-bench.mjs.
// Figures are printed, never asserted. BENCH_MAX_EVENTS caps the sizes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'bench/out');
mkdirSync(outDir, { recursive: true });
const max = Number(process.env.BENCH_MAX_EVENTS ?? 1e7);
const sizes = [1e4, 1e5, 1e6, 1e7].filter((n) => n <= max);
const only = process.argv.slice(2);

function node(args) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

if (!only.length || only.includes('engine')) {
  // measure the engine as shipped: an esbuild bundle, like dist/braid.js
  const { build } = await import('esbuild');
  await build({ entryPoints: [path.join(root, 'bench/engine-bench.ts')], bundle: true, platform: 'node', target: 'node20', outfile: path.join(outDir, 'engine-bench.cjs'), logLevel: 'warning' });
  // the reader thread's bundle, next to the bench bundle (analyze-2: one trace, --workers 2)
  await build({ entryPoints: [path.join(root, 'server/src/engine/trace/traceReaderWorker.ts')], bundle: true, platform: 'node', target: 'node20', outfile: path.join(outDir, 'traceReaderWorker.js'), logLevel: 'warning' });
  console.log('UNICORN engine: parse-only vs full analysis (one synthetic failing run per size, 4 threads)');
  console.log('(cpu: user + system CPU time of the process, steadier than wall time when the machine is shared)');
  console.log('(2 threads: analyze with the trace parsed in a reader thread, `--workers 2` on one trace, run alternately with analyze;');
  console.log(' main cpu: the main thread\'s CPU time — on an idle 2-core machine the wall time is about max(main cpu, parse cpu))');
  console.log('events      file MiB  parse ms  analyze ms  ratio  parse cpu ms  analyze cpu ms  cpu ratio  events/s (end to end)  parse RSS MiB  analyze RSS MiB  --hb none ms  2 threads ms  2 thr cpu ms  2 thr main cpu ms  events/s (2 threads)  events/s (2 thr, main cpu)  2 thr RSS MiB');
  for (const n of sizes) {
    const file = path.join(outDir, `synthetic-${n}.trace.jsonl`);
    if (!existsSync(file)) node(['bench/syntheticTraceGenerator.ts', file, String(n)]);
    const best = (mode) => {
      let b;
      for (let k = 0; k < (n >= 1e7 ? 1 : 3); k++) {
        const m = JSON.parse(node([path.join(outDir, 'engine-bench.cjs'), mode, file]).trim().split('\n').pop());
        if (!b || m.ms < b.ms) b = m;
      }
      return b;
    };
    const p = best('parse');
    // analyze and analyze-2 alternate (paired under the same load)
    let a;
    let a2;
    for (let k = 0; k < (n >= 1e7 ? 2 : 3); k++) {
      const m1 = JSON.parse(node([path.join(outDir, 'engine-bench.cjs'), 'analyze', file]).trim().split('\n').pop());
      const m2 = JSON.parse(node([path.join(outDir, 'engine-bench.cjs'), 'analyze-2', file]).trim().split('\n').pop());
      if (!a || m1.ms < a.ms) a = m1;
      if (!a2 || m2.ms < a2.ms) a2 = m2;
    }
    const t = best('analyze-thesis');
    const mib = statSync(file).size / 2 ** 20;
    console.log(
      `${String(n).padEnd(12)}${mib.toFixed(1).padStart(8)}  ${p.ms.toFixed(0).padStart(8)}  ${a.ms.toFixed(0).padStart(10)}  ${(a.ms / p.ms).toFixed(2).padStart(5)}  ${p.cpuMs.toFixed(0).padStart(12)}  ${a.cpuMs.toFixed(0).padStart(14)}  ${(a.cpuMs / p.cpuMs).toFixed(2).padStart(9)}  ${Math.round(a.events / (a.ms / 1000)).toLocaleString('en-US').padStart(21)}  ${p.maxRssMiB.toFixed(0).padStart(13)}  ${a.maxRssMiB.toFixed(0).padStart(15)}  ${t.ms.toFixed(0).padStart(12)}  ${a2.ms.toFixed(0).padStart(12)}  ${a2.cpuMs.toFixed(0).padStart(12)}  ${String(a2.mainCpuMs ?? '?').padStart(17)}  ${Math.round(a2.events / (a2.ms / 1000)).toLocaleString('en-US').padStart(20)}  ${(a2.mainCpuMs ? Math.round(a2.events / (Math.max(a2.mainCpuMs, p.cpuMs) / 1000)).toLocaleString('en-US') : '?').padStart(26)}  ${a2.maxRssMiB.toFixed(0).padStart(13)}`,
    );
  }
  console.log('');
}

for (const f of readdirSync(path.join(root, 'bench')).sort()) {
  if (!f.endsWith('-bench.mjs')) continue;
  const name = f.replace(/-bench\.mjs$/, '');
  if (only.length && !only.includes(name)) continue;
  console.log(`--- ${f}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join('bench', f)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) console.log(`(${f} exited with ${r.status})`);
  console.log('');
}
