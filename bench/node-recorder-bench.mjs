// Node.js recorder benchmark (issue 32; docs/recorder-node.md "Measured"). Prints, median of --repeat:
//   - the workload's own time plain and recorded (4 concurrent async workers × N iterations of
//     Map.has/Map.set and a property increment, with an await per iteration), events per second and
//     the ratio (target issue 32: ≤ 5× end to end);
//   - whole-process wall time plain and recorded, and the per-run fixed cost (a tiny program).
// Usage: node --import tsx bench/node-recorder-bench.mjs [--repeat 5] [--n 50000]   (needs dist/ from npm run build)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync } from 'node:fs';
import { nodeRecorderOptions } from '../server/src/recorder/node/nodeRunner.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const k = process.argv.indexOf(name);
  return k >= 0 ? Number(process.argv[k + 1]) : fallback;
};
const repeat = arg('--repeat', 5);
const n = arg('--n', 50000);
const out = path.join(root, 'bench', 'out', 'node-recorder');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

writeFileSync(path.join(out, 'work.js'), `
const cache = new Map();
const stats = { hits: 0, misses: 0 };
async function worker(id, n) {
  for (let i = 0; i < n; i++) {
    const k = (i * 7 + id) % 64;
    if (cache.has(k)) stats.hits++;
    else { cache.set(k, i); stats.misses++; }
    if ((i & 15) === 0) await null;
  }
}
const t0 = performance.now();
Promise.all([0, 1, 2, 3].map((id) => worker(id, ${n}))).then(() => {
  console.log('work ' + (performance.now() - t0).toFixed(1) + ' ' + (stats.hits + stats.misses));
});
`);
writeFileSync(path.join(out, 'tiny.js'), `let x = 0; async function f() { for (let i = 0; i < 10; i++) { x++; await null; } } Promise.all([f(), f()]).then(() => console.log('ok', x));\n`);

const hook = path.join(root, 'dist', 'braid-node-hook.mjs');
if (!existsSync(hook)) {
  console.error('node-recorder-bench: dist/braid-node-hook.mjs is missing; run `npm run build` first');
  process.exit(1);
}
function run(file, recorded) {
  const env = { ...process.env };
  let trace;
  if (recorded) {
    trace = path.join(out, `t-${Date.now()}-${Math.random().toString(36).slice(2)}.trace.jsonl`);
    const optionsFile = path.join(out, 'options.json');
    writeFileSync(optionsFile, JSON.stringify(nodeRecorderOptions(hook, { out: trace, execution: 'bench-0', seed: '1' }, { noise: 0, include: [], exclude: [], cwd: out, name: 'bench' })));
    env.NODE_OPTIONS = `--import=${pathToFileURL(hook).href}`;
    env.BRAID_NODE_OPTIONS = optionsFile;
  }
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [file], { cwd: out, env, encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${path.basename(file)} failed: ${r.stderr}`);
  const m = /work ([\d.]+)/.exec(r.stdout);
  let events = 0;
  if (trace) {
    for (const line of readFileSync(trace, 'utf8').split('\n')) if (line.startsWith('[')) events++;
    rmSync(trace, { force: true });
  }
  return { wall, work: m ? Number(m[1]) : NaN, events };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plain = [];
const rec = [];
for (let k = 0; k < repeat; k++) {
  plain.push(run(path.join(out, 'work.js'), false));
  rec.push(run(path.join(out, 'work.js'), true));
}
const tinyPlain = [];
const tinyRec = [];
for (let k = 0; k < repeat; k++) {
  tinyPlain.push(run(path.join(out, 'tiny.js'), false).wall);
  tinyRec.push(run(path.join(out, 'tiny.js'), true).wall);
}
const pw = median(plain.map((x) => x.work));
const rw = median(rec.map((x) => x.work));
const pWall = median(plain.map((x) => x.wall));
const rWall = median(rec.map((x) => x.wall));
const events = median(rec.map((x) => x.events));
console.log(`Node.js recorder, 4 async workers × ${n} iterations (Map.has/set, a property increment, an await every 16), median of ${repeat}`);
console.log('| run | workload ms | process wall ms | events | events/s (workload) |');
console.log('|---|---:|---:|---:|---:|');
console.log(`| plain node | ${pw.toFixed(0)} | ${pWall.toFixed(0)} | | |`);
console.log(`| recorded (noise 0) | ${rw.toFixed(0)} | ${rWall.toFixed(0)} | ${events.toLocaleString('en-US')} | ${Math.round(events / (rw / 1000)).toLocaleString('en-US')} |`);
console.log(`ratio: workload ${(rw / pw).toFixed(1)}×, process ${(rWall / pWall).toFixed(1)}× (issue 32 target ≤ 5× end to end)`);
console.log(`per-run fixed cost (a tiny program): plain ${median(tinyPlain).toFixed(0)} ms, recorded ${median(tinyRec).toFixed(0)} ms: +${(median(tinyRec) - median(tinyPlain)).toFixed(0)} ms`);
