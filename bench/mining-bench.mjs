// Closed sequential pattern mining (issue 8): BIDE+ time and memory on growing sequence
// databases, the seed 000 pipeline on growing synthetic traces, and `braid mine` output checked
// against the expected closed sets of the test files. Each case runs in its own process so that
// max RSS is per case (cold: JIT warm-up included). Figures are printed, never asserted.
// BENCH_MAX_EVENTS caps sequences × length of the miner cases.
//   node --import tsx bench/mining-bench.mjs            all cases
//   node --import tsx bench/mining-bench.mjs --case miner 10000 50 0.1
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mineSequences } from '../server/src/engine/mining/closedMiner.ts';
import { formatSpmfDb, parsePatternLines } from '../server/src/engine/mining/sequenceDb.ts';
import { explainByAbstraction } from '../server/src/engine/mining/abstractionExplainer.ts';
import { traceSetFromNotation } from '../server/src/engine/mining/traceSet.ts';
import { bruteForce, rng } from '../test/helpers/miningOracle.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);

/** Sparse database: items uniform over an alphabet of max(5,000, 50 × length) (no item is frequent by chance), with 20 planted patterns of length 5 (each in ~30% of the sequences). */
function sparseDb(n, len, seed = 1) {
  const alphabet = Math.max(5000, 50 * len);
  const r = rng(seed);
  const planted = Array.from({ length: 20 }, () => Array.from({ length: 5 }, () => Math.floor(r() * alphabet)));
  const seqs = [];
  for (let k = 0; k < n; k++) {
    const s = Array.from({ length: len }, () => Math.floor(alphabet * r()));
    for (const p of planted) {
      if (r() >= 0.3) continue;
      let at = 0;
      for (const it of p) {
        at = Math.min(s.length - 1, at + Math.floor(r() * (len / 5)));
        s[at] = it;
      }
    }
    seqs.push(Int32Array.from(s));
  }
  return seqs;
}

/**
 * Lost-update traces: `threads` threads each run `iters` iterations of
 * [local events…, R shared :100, local, W shared :102]; context switches with probability 0.5
 * between iterations and 0.03 at other events;
 * a run fails when some thread's read and write of `shared` are separated by another thread's write.
 */
function lostUpdateTraces(runs, threads, iters, locals, seed = 1) {
  const r = rng(seed);
  const out = [];
  for (let k = 0; k < runs; k++) {
    const prog = Array.from({ length: threads }, (_, t) => {
      const p = [];
      for (let i = 0; i < iters; i++) {
        for (let l = 0; l < locals; l++) p.push(`${l % 3 ? 'R' : 'W'}${t + 1} v${t}_${l} S${10 + l}`);
        p.push(`R${t + 1} shared S100`, `R${t + 1} v${t}_0 S101`, `W${t + 1} shared S102`);
      }
      return p;
    });
    const pc = new Array(threads).fill(0);
    const events = [];
    let cur = 0;
    let fail = false;
    const pending = new Array(threads).fill(false);
    const dirty = new Array(threads).fill(false);
    while (pc.some((p, t) => p < prog[t].length)) {
      // preemption: mostly between iterations (after a write of shared), rarely inside one
      const atBoundary = pc[cur] > 0 && prog[cur][pc[cur] - 1].endsWith(' shared S102');
      if (pc[cur] >= prog[cur].length || r() < (atBoundary ? 0.5 : 0.03)) {
        cur = Math.floor(r() * threads);
        continue;
      }
      const e = prog[cur][pc[cur]++];
      events.push(e);
      if (e.endsWith(' shared S100')) {
        pending[cur] = true;
        dirty[cur] = false;
      } else if (e.endsWith(' shared S102')) {
        if (dirty[cur]) fail = true;
        pending[cur] = false;
        for (let t = 0; t < threads; t++) if (t !== cur && pending[t]) dirty[t] = true;
      }
    }
    out.push({ execution: `r${k}`, outcome: fail ? 'fail' : 'pass', events });
  }
  return out;
}

function miB(bytes) {
  return (bytes / 2 ** 20).toFixed(1);
}

function runCase(args) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', self, '--case', ...args.map(String)], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) return { error: (r.stderr || '').split('\n').slice(-5).join(' ') };
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

if (process.argv[2] === '--case') {
  const [kind, ...a] = process.argv.slice(3);
  const before = process.memoryUsage().heapUsed;
  if (kind === 'miner') {
    const [n, len, minsup, maxLen] = a.map(Number);
    const seqs = sparseDb(n, len);
    const t0 = performance.now();
    const res = mineSequences(seqs, Math.max(5000, 50 * len), { minSupport: minsup, closed: true, maxLength: maxLen > 0 ? maxLen : undefined });
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ ms, patterns: res.patterns.length, nodes: res.nodes, heapMiB: miB(process.memoryUsage().heapUsed - before), rssMiB: miB(process.resourceUsage().maxRSS * 1024) }));
  } else if (kind === 'pipeline') {
    const [runs, threads, iters, locals] = a.map(Number);
    const set = traceSetFromNotation(lostUpdateTraces(runs, threads, iters, locals));
    const t0 = performance.now();
    const res = explainByAbstraction(set);
    const ms = performance.now() - t0;
    const top = res.groups[0];
    const lines = top ? [...new Set(top.dependencyLines.map((l) => l.line))].sort((x, y) => x - y).join(',') : '-';
    console.log(
      JSON.stringify({ ms, ...res.stats, topLines: lines, heapMiB: miB(process.memoryUsage().heapUsed - before), rssMiB: miB(process.resourceUsage().maxRSS * 1024) }),
    );
  }
  process.exit(0);
}

console.log('BIDE+ (closed) on sparse databases: uniform alphabet of max(5,000, 50 × length), 20 planted patterns of length 5 in ~30% of the sequences');
console.log('sequences  length  minsup  max len   patterns   tree nodes    ms   heap MiB  max RSS MiB');
for (const [n, len, minsup, maxLen] of [
  [1000, 20, 0.1, 0],
  [10000, 20, 0.1, 0],
  [100000, 20, 0.1, 0],
  [10000, 100, 0.1, 0],
  [10000, 1000, 0.1, 0],
  [1000, 10000, 0.1, 0],
  [1000, 10000, 0.1, 4],
]) {
  if (n * len > Number(process.env.BENCH_MAX_EVENTS ?? 1e7)) continue;
  const m = runCase(['miner', n, len, minsup, maxLen]);
  if (m.error) console.log(`${n} × ${len}: ${m.error}`);
  else
    console.log(
      `${String(n).padStart(9)}  ${String(len).padStart(6)}  ${String(minsup).padStart(6)}  ${String(maxLen || '∞').padStart(7)}  ${String(m.patterns).padStart(9)}  ${String(m.nodes).padStart(11)}  ${m.ms.toFixed(0).padStart(6)}  ${m.heapMiB.padStart(8)}  ${m.rssMiB.padStart(11)}`,
    );
}

console.log('');
console.log("Seed 000 pipeline on synthetic lost-update traces (min support 'auto', max length 4; * = 200,000-pattern cap hit); bug lines 100/102");
console.log('runs  threads  iters  avg events  avg macros  fail/pass  minsup  abstract pat.  groups    ms  top-group dep. lines  max RSS MiB');
for (const [runs, threads, iters, locals] of [
  [100, 2, 1, 3],
  [100, 2, 2, 5],
  [100, 3, 5, 5],
  [200, 3, 20, 5],
]) {
  const m = runCase(['pipeline', runs, threads, iters, locals]);
  if (m.error) console.log(`${runs}/${threads}/${iters}: ${m.error}`);
  else
    console.log(
      `${String(runs).padStart(4)}  ${String(threads).padStart(7)}  ${String(iters).padStart(5)}  ${m.avgTraceLength.toFixed(0).padStart(10)}  ${m.avgAbstractLength.toFixed(0).padStart(10)}  ${`${m.failing}/${m.passing}`.padStart(9)}  ${String(m.minSupport).padStart(6)}  ${String(m.abstractPatterns).padStart(13)}${m.truncated ? '*' : ' '}  ${String(m.groups).padStart(6)}  ${m.ms.toFixed(0).padStart(5)}  ${m.topLines.padStart(20)}  ${m.rssMiB.padStart(11)}`,
    );
}

console.log('');
console.log('`braid mine` output vs the expected closed sets');
const dir = mkdtempSync(path.join(tmpdir(), 'braid-mine-bench-'));
try {
  const braid = (...args) => spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'server/src/cli/braid.ts'), 'mine', ...args], { cwd: root, encoding: 'utf8' });
  const key = (ps) => ps.map((p) => `${p.items.join(' ')}:${p.support}`).sort().join('\n');
  const seedOut = braid('--input', 'test/fixtures/spmf/seed002.txt', '--minsup', '4', '--closed');
  const expected = readFileSync(path.join(root, 'test/fixtures/spmf/seed002.closed-4.txt'), 'utf8');
  console.log(`  test/fixtures/spmf/seed002.txt --minsup 4 --closed: ${key(parsePatternLines(seedOut.stdout)) === key(parsePatternLines(expected)) ? 'matches' : 'DIFFERS from'} seed002.closed-4.txt (${parsePatternLines(seedOut.stdout).length} patterns: ${seedOut.stdout.trim().replace(/\n/g, ', ')})`);
  const r = rng(3);
  const seqs = Array.from({ length: 60 }, () => Int32Array.from({ length: 14 }, () => Math.floor(r() * 8)));
  const file = path.join(dir, 'random.txt');
  writeFileSync(file, formatSpmfDb(seqs));
  for (const [minsup, maxLen, closed] of [
    [0.5, 3, true],
    [0.8, 0, true],
    [0.6, 2, false],
  ]) {
    const args = ['--input', file, '--minsup', String(minsup)];
    if (maxLen) args.push('--max-length', String(maxLen));
    if (closed) args.push('--closed');
    const out = braid(...args);
    const exp = bruteForce(
      seqs.map((s) => [...s]),
      Math.ceil(minsup * 60),
      maxLen || 99,
      closed,
    );
    const expKey = [...exp].map(([k, v]) => `${k}:${v}`).sort().join('\n');
    const got = parsePatternLines(out.stdout);
    console.log(`  random 60 × 14 over 8 items, --minsup ${minsup}${maxLen ? ` --max-length ${maxLen}` : ''}${closed ? ' --closed' : ''}: ${got.length} patterns, ${key(got) === expKey ? 'matches' : 'DIFFERS from'} brute force (${exp.size})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
