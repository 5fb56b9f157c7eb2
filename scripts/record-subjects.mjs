// Records every bundled sample and evaluation subject (test/recorder/recorderHarness.ts,
// ALL_SUBJECTS) with the current agent into test/fixtures/recorded/<pkg>/ as gzip traces, so
// that ranking tests run on committed traces instead of live recordings (issue 11).
//   node scripts/record-subjects.mjs [pkg...] [--runs N]
// Default: 100 runs per subject (fewer where the catalog says so), noise as in the catalog,
// base seed 1000, 2 jobs. Writes test/fixtures/recorded/manifest.json with the counts.
import { createReadStream, createWriteStream, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outRoot = path.join(root, 'test', 'fixtures', 'recorded');
const args = process.argv.slice(2);
let runsOverride;
const only = [];
for (let k = 0; k < args.length; k++) {
  if (args[k] === '--runs') runsOverride = Number(args[++k]);
  else only.push(args[k]);
}

// The catalog and the recording helper are TypeScript: run under tsx, like scripts/test.mjs.
if (!process.env.BRAID_RECORD_SUBJECTS_TSX) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, BRAID_RECORD_SUBJECTS_TSX: '1' },
  });
  process.exit(r.status ?? 1);
}
const harness = await import(pathToFileURL(path.join(root, 'test', 'recorder', 'recorderHarness.ts')).href);
const { ALL_SUBJECTS, prepare, record } = harness.default ?? harness;
prepare();

const manifestPath = path.join(outRoot, 'manifest.json');
let manifest = {};
try {
  manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
} catch {
  manifest = {};
}
const subjects = ALL_SUBJECTS.filter((s) => only.length === 0 || only.includes(s.pkg));
if (only.length && subjects.length !== only.length) {
  console.error(`unknown subject(s): ${only.filter((o) => !ALL_SUBJECTS.some((s) => s.pkg === o)).join(', ')}`);
  process.exit(2);
}
for (const s of subjects) {
  const runs = runsOverride ?? s.runs ?? 100;
  const started = Date.now();
  const agentOptions = s.testCode?.length ? [`testCode=${s.testCode.join(';')}`] : [];
  const summary = await record(`recorded-${s.pkg}`, s.main, { runs, noise: s.noise, include: s.include, agentOptions, seed: 1000 });
  const dir = path.join(outRoot, s.pkg);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (const t of summary.traces) {
    const out = path.join(dir, path.basename(t) + '.gz');
    await pipeline(createReadStream(t), createGzip({ level: 9 }), createWriteStream(out));
    bytes += statSync(out).size;
  }
  manifest[s.pkg] = {
    main: s.main,
    runs: summary.total,
    failed: summary.failed,
    passed: summary.passed,
    noise: s.noise,
    seed: 1000,
    include: s.include,
    ...(s.testCode ? { testCode: s.testCode } : {}),
    bytes,
  };
  console.log(`${s.pkg}: ${summary.total} runs, ${summary.failed} failed, ${summary.passed} passed, ${(bytes / 1024).toFixed(0)} KiB (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
const sorted = Object.fromEntries(Object.keys(manifest).sort().map((k) => [k, manifest[k]]));
writeFileSync(manifestPath, JSON.stringify(sorted, null, 2) + '\n');
let total = 0;
for (const d of readdirSync(outRoot)) {
  const p = path.join(outRoot, d);
  if (statSync(p).isDirectory()) for (const f of readdirSync(p)) total += statSync(path.join(p, f)).size;
}
console.log(`total ${(total / 1024 / 1024).toFixed(2)} MiB in ${path.relative(root, outRoot)}`);
