// `braid test` under Maven as users have it (issue 41, point 4): Maven Central reachable, a fresh
// local repository (a temp -Dmaven.repo.local, never ~/.m2), on the real Maven project
// test/fixtures/maven/inventory. Rows: the first braid test (its one-time resolution — plugins and
// dependencies downloaded by the build and class path steps — reported apart, as build seconds), a
// warm second braid test (reusing the class path the first wrote), the same with --fresh-class-path (resolved
// again, as every call did before), and the plain `mvn -q test -Dtest=…` (first call, then warm, best of 2×ROUNDS,
// alternating with the warm braid calls), ROUNDS (default 3) rounds: the warm call with no edit (its build skipped), after a source
// was touched (only compiled) and with no edit but the full JIT (BRAID_FULL_JIT=1), medians by wall time.
// Target: the warm braid test within 2× one warm plain mvn test. Prints; never asserts.
//   node --import tsx bench/maven-central-bench.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bugLinesIn, isRootCause } from '../test/helpers/rootCause.ts';
import { centralMissing } from '../test/helpers/mavenCentral.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEST = 'shop.StockTest#neverSellsMoreThanInStock';
const missing = centralMissing() || (!existsSync(path.join(root, 'dist/braid.js')) && 'dist/braid.js is missing (npm run build)');
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const top = mkdtempSync(path.join(tmpdir(), 'braid-maven-central-bench-'));
const repo = path.join(top, 'm2-repository');
const ws = path.join(top, 'inventory');
cpSync(path.join(root, 'test/fixtures/maven/inventory'), ws, { recursive: true });
mkdirSync(path.join(ws, '.mvn'));
writeFileSync(path.join(ws, '.mvn', 'maven.config'), `-Dmaven.repo.local=${repo}\n`);
const timed = (cmd, args, env) => {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: ws, encoding: 'utf8', maxBuffer: 1 << 28, ...(env ? { env } : {}) });
  return { s: (performance.now() - t0) / 1000, r };
};
const bugs = bugLinesIn(path.join(ws, 'src/main/java'));
// as a user calls it: .braid/ stays between calls (the warm call reuses the class path the first wrote, mavenClassPathCache.ts)
const braidIn = (env) => (...extra) => {
  const { s, r } = timed(process.execPath, [path.join(root, 'dist/braid.js'), 'test', TEST, '--project', ws, '--format', 'json', ...extra], env);
  try {
    return { s, j: JSON.parse(r.stdout) };
  } catch {
    console.log(`braid test failed (exit ${r.status}):\n${r.stderr.slice(-2000)}`);
    return undefined;
  }
};
const braid = braidIn(undefined);
braid.env = (env) => braidIn({ ...process.env, ...env });
const mvnTest = ['-q', 'test', '-Dtest=StockTest#neverSellsMoreThanInStock', '-Dsurefire.failIfNoSpecifiedTests=false'];
try {
  const first = braid();
  // plain mvn: its first call still downloads what only the test phase needs (surefire's provider)
  const plainFirst = timed('mvn', mvnTest).s;
  // paired, alternating, ROUNDS times: plain, warm braid test (no edit: the build skipped), plain, warm braid test after an
  // edit (a source touched: only compiled, as every warm call before the build stamp), the same with the full JIT
  // with no edit (BRAID_FULL_JIT=1, as before C1 only), and once resolving the class path again (--fresh-class-path)
  const ROUNDS = Number(process.env.ROUNDS ?? 3);
  const plain = [];
  const warmRuns = [];
  const editedRuns = [];
  const fullJitRuns = [];
  const source = path.join(ws, 'src/main/java/shop/Stock.java');
  for (let k = 0; k < ROUNDS; k++) {
    plain.push(timed('mvn', mvnTest).s);
    warmRuns.push(braid());
    plain.push(timed('mvn', mvnTest).s);
    utimesSync(source, new Date(), new Date());
    editedRuns.push(braid());
    fullJitRuns.push(braid.env({ BRAID_FULL_JIT: '1' })());
  }
  const warmFresh = braid('--fresh-class-path');
  const plainS = Math.min(...plain);
  console.log(`Maven with Central, fresh local repository, ${TEST}; ${spawnSync('nproc').stdout.toString().trim()} cores, load ${spawnSync('cat', ['/proc/loadavg']).stdout.toString().split(' ').slice(0, 3).join(' ')}`);
  console.log(`plain mvn -q test -Dtest=…   first call (after braid's) ${plainFirst.toFixed(1)} s; warm ${plain.map((x) => x.toFixed(1)).join(' s, ')} s (best ${plainS.toFixed(1)} s)`);
  const row = (label, x) => {
    if (!x) return;
    const rec = x.j.recording;
    const p0 = x.j.patterns[0];
    console.log(
      `${label.padEnd(34)} ${x.s.toFixed(1)} s wall = ${(x.s / plainS).toFixed(1)}× warm plain mvn · build/resolution ${rec.buildSeconds} s, recording ${rec.seconds} s: ${rec.runs} runs (${rec.failed} failed), JVMs ${rec.jvms ?? rec.runs}, static state ${rec.staticState ?? '-'}, root cause at rank 1: ${p0 && isRootCause(p0, bugs) ? 'yes' : 'no'}`,
    );
  };
  row('braid test, first call (fresh repo)', first);
  const median = (xs) => {
    const ok = xs.filter(Boolean).sort((a, b) => a.s - b.s);
    return ok[Math.floor((ok.length - 1) / 2)];
  };
  for (const [label, xs] of [['warm, no edit (build skipped)', warmRuns], ['warm, a source touched (compiles)', editedRuns], ['warm, no edit, BRAID_FULL_JIT=1 (full JIT)', fullJitRuns]]) {
    console.log(`${label}: ${xs.map((x) => (x ? `${x.s.toFixed(1)} s (${x.j.recording.runs} runs, build ${x.j.recording.buildSeconds} s)` : 'failed')).join(', ')}`);
    row(`  median of ${xs.length}`, median(xs));
  }
  row('warm, --fresh-class-path', warmFresh);
  const warm = median(warmRuns);
  if (first && warm) console.log(`first call's one-time resolution: ${(first.j.recording.buildSeconds - warm.j.recording.buildSeconds).toFixed(1)} s more build than the warm call`);
} finally {
  rmSync(top, { recursive: true, force: true });
}
