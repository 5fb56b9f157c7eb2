// Fresh static state per repetition (issue 41, point 3): `braid test` with the defaults on a static
// registry published before it is filled (test/fixtures/static-registry: only the first use of the
// class in a class loader can fail), against one plain compile-and-run of the test with the JUnit
// console launcher. Target: ≥ 5 failing runs and the root cause at rank 1 within 5× the plain run.
// Rows: the defaults (--runs auto: repetitions in one JVM, each loading the project's classes afresh)
// and --fresh-jvm (one JVM per run) for comparison. Prints; never asserts.
//   node bench/fresh-static-bench.mjs     (needs dist/ built and Debian's junit5)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
const TEST = 'codecs.CodecRegistryTest#everyThreadFindsTheCodec';
if (!existsSync(CONSOLE) || !existsSync(path.join(root, 'dist/braid.js'))) {
  console.log(`fresh-static bench skipped: needs ${CONSOLE} (Debian junit5) and dist/ (npm run build)`);
  process.exit(0);
}
const work = mkdtempSync(path.join(os.tmpdir(), 'braid-fresh-static-bench-'));
const ws = path.join(work, 'project');
cpSync(path.join(root, 'test/fixtures/static-registry'), ws, { recursive: true });

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
function timed(cmd, args) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: ws, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { ms: performance.now() - t0, r };
}
let plain = Infinity;
for (let k = 0; k < 3; k++) {
  rmSync(path.join(ws, 'plain'), { recursive: true, force: true });
  const c = timed('javac', ['-g', '-nowarn', '-d', 'plain', '-cp', CONSOLE, ...javaFiles(path.join(ws, 'src'))]);
  const r = timed('java', ['-jar', CONSOLE, '--disable-banner', '--details=summary', '--class-path', 'plain', '--select-method', TEST]);
  plain = Math.min(plain, c.ms + r.ms);
}
console.log(`braid test ${TEST} (static-registry, no build tool), ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; plain = javac + one console-launcher run`);
console.log(`plain compile-and-run (best of 3): ${(plain / 1000).toFixed(2)} s`);
console.log('mode                           runs  failed  JVMs  static state  record s  total s  × plain  root-cause rank');
for (const [name, extra] of [
  ['defaults (--runs auto)', []],
  ['--fresh-jvm --runs 30', ['--fresh-jvm', '--runs', '30']],
]) {
  rmSync(path.join(ws, '.braid'), { recursive: true, force: true });
  const { ms, r } = timed(process.execPath, [path.join(root, 'dist/braid.js'), 'test', TEST, '--project', ws, '--format', 'json', ...extra]);
  let j;
  try {
    j = JSON.parse(r.stdout);
  } catch {
    console.log(`${name.padEnd(29)}  failed: ${(r.stderr || '').split('\n').slice(-5).join(' ')}`);
    continue;
  }
  const f = j.recording;
  const k = j.patterns.findIndex(isRoot);
  console.log(
    `${name.padEnd(29)}  ${String(f.runs).padStart(4)}  ${String(f.failed).padStart(6)}  ${String(f.jvms ?? f.runs).padStart(4)}  ${String(f.staticState ?? '-').padStart(12)}  ${f.seconds.toFixed(1).padStart(8)}  ${(ms / 1000).toFixed(1).padStart(7)}  ${(ms / plain).toFixed(1).padStart(7)}  ${String(k < 0 ? '-' : j.patterns[k].rank).padStart(15)}`,
  );
}
rmSync(work, { recursive: true, force: true });
