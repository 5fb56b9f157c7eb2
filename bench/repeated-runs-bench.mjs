// Many runs in one JVM (issue 29, point 2): time to the root cause of a tiny flaky JUnit 5 test
// (test/fixtures/junit5-sample, AccountTest#concurrentDepositsAreAllKept; no build tool: javac + the
// JUnit console launcher) with `braid test`, one JVM per run (--fresh-jvm, as before) against
// repetitions in one JVM (the default), and against one plain compile-and-run of that test with
// the console launcher. Target: the root cause at rank 1 within 5× the plain run. Prints; never asserts.
//   node bench/repeated-runs-bench.mjs [--runs 100]     (needs dist/ built and Debian's junit5)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
const TEST = 'bank.AccountTest#concurrentDepositsAreAllKept';
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 100;
if (!existsSync(CONSOLE) || !existsSync(path.join(root, 'dist/braid.js'))) {
  console.log(`repeated-runs bench skipped: needs ${CONSOLE} (Debian junit5) and dist/ (npm run build)`);
  process.exit(0);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'braid-repeat-bench-'));
const ws = path.join(work, 'project');
cpSync(path.join(root, 'test/fixtures/junit5-sample'), ws, { recursive: true });

function javaFiles(dir, out = []) {
  for (const n of readdirSync(dir)) {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) javaFiles(p, out);
    else if (n.endsWith('.java')) out.push(p);
  }
  return out;
}
const bugs = [];
for (const f of javaFiles(path.join(ws, 'src'))) {
  readFileSync(f, 'utf8').split('\n').forEach((t, k) => {
    if (/\/\/\s*@bug\b/.test(t)) bugs.push({ file: path.basename(f), line: k + 1 });
  });
}
const isRoot = (p) => p.accesses.every((a) => bugs.some((b) => b.line === a.line && path.basename(a.file) === b.file));

function timed(cmd, args, opts = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: ws, encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  return { ms: performance.now() - t0, r };
}

// one plain compile-and-run with the console launcher (best of 3)
let plain = Infinity;
for (let k = 0; k < 3; k++) {
  rmSync(path.join(ws, 'plain'), { recursive: true, force: true });
  const c = timed('javac', ['-g', '-nowarn', '-d', 'plain', '-cp', CONSOLE, ...javaFiles(path.join(ws, 'src'))]);
  const r = timed('java', ['-jar', CONSOLE, '--disable-banner', '--details=summary', '--class-path', 'plain', '--select-method', TEST]);
  plain = Math.min(plain, c.ms + r.ms);
}

function braidTest(extra) {
  rmSync(path.join(ws, '.braid'), { recursive: true, force: true });
  const { ms, r } = timed(process.execPath, [path.join(root, 'dist/braid.js'), 'test', TEST, '--project', ws, '--seed', '3', '--format', 'json', ...extra]);
  let j;
  try {
    j = JSON.parse(r.stdout);
  } catch {
    return { ms, error: (r.stderr || '').split('\n').slice(-5).join(' ') };
  }
  const k = j.patterns.findIndex(isRoot);
  return { ms, rec: j.recording, rank: k < 0 ? '-' : j.patterns[k].rank, first: k === 0 };
}

console.log(`braid test ${TEST} (junit5-sample, no build tool), ${os.cpus().length} cores; plain = javac + one console-launcher run`);
console.log(`plain compile-and-run (best of 3): ${(plain / 1000).toFixed(2)} s`);
console.log('mode                          runs  failed  JVMs  record s  runs/s  total s  × plain  root-cause rank');
const rows = [
  ['one JVM per run (--fresh-jvm)', ['--runs', String(RUNS), '--fresh-jvm']],
  ['repetitions in one JVM', ['--runs', String(RUNS)]],
  ['repetitions, --runs auto', ['--runs', 'auto']],
];
for (const [name, args] of rows) {
  const x = braidTest(args);
  if (x.error) {
    console.log(`${name.padEnd(28)}  failed: ${x.error}`);
    continue;
  }
  const f = x.rec;
  console.log(
    `${name.padEnd(28)}  ${String(f.runs).padStart(4)}  ${String(f.failed).padStart(6)}  ${String(f.jvms ?? f.runs).padStart(4)}  ${f.seconds.toFixed(1).padStart(8)}  ${f.runsPerSecond.toFixed(1).padStart(6)}  ${(x.ms / 1000).toFixed(1).padStart(7)}  ${(x.ms / plain).toFixed(1).padStart(7)}  ${String(x.rank).padStart(15)}`,
  );
}
rmSync(work, { recursive: true, force: true });
