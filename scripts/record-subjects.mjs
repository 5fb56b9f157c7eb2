// Records every bundled sample and evaluation subject (test/recorder/recorderHarness.ts,
// ALL_SUBJECTS) with the current agent into test/fixtures/recorded/<pkg>/ as gzip traces, so
// that ranking tests run on committed traces instead of live recordings (issue 11); and the bug
// set of issue 27 (BUG_SET) into test/fixtures/bugset/<pkg>/, with the ground truth each run
// wrote through evaltruth.Truth (BRAID_EVAL_TRUTH) collected into test/fixtures/bugset/<pkg>/runs.json.
//   node scripts/record-subjects.mjs [pkg...] [--runs N] [--set bugset|recorded]
// Default: 100 runs per subject (fewer where the catalog says so), noise as in the catalog,
// base seed 1000, 2 jobs. Writes <folder>/manifest.json with the counts.
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let runsOverride;
let set;
const only = [];
for (let k = 0; k < args.length; k++) {
  if (args[k] === '--runs') runsOverride = Number(args[++k]);
  else if (args[k] === '--set') set = args[++k];
  else only.push(args[k]);
}
if (set !== undefined && set !== 'bugset' && set !== 'recorded') {
  console.error(`--set must be bugset or recorded, got ${set}`);
  process.exit(2);
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
const { ALL_SUBJECTS, BUG_SET, prepare, record } = harness.default ?? harness;
prepare();

const catalog = [...(set === 'bugset' ? [] : ALL_SUBJECTS.map((s) => ({ ...s, set: 'recorded' }))), ...(set === 'recorded' ? [] : BUG_SET.map((s) => ({ ...s, set: 'bugset' })))];
const subjects = catalog.filter((s) => only.length === 0 || only.includes(s.pkg));
if (only.length && subjects.length !== only.length) {
  console.error(`unknown subject(s): ${only.filter((o) => !catalog.some((s) => s.pkg === o)).join(', ')}`);
  process.exit(2);
}
const manifests = new Map();
function manifestOf(outRoot) {
  let m = manifests.get(outRoot);
  if (!m) {
    try {
      m = JSON.parse(readFileSync(path.join(outRoot, 'manifest.json'), 'utf8'));
    } catch {
      m = {};
    }
    manifests.set(outRoot, m);
  }
  return m;
}
for (const s of subjects) {
  const outRoot = path.join(root, 'test', 'fixtures', s.set);
  const manifest = manifestOf(outRoot);
  const truthDir = s.set === 'bugset' ? mkdtempSync(path.join(os.tmpdir(), `braid-truth-${s.pkg}-`)) : undefined;
  const runs = runsOverride ?? s.runs ?? 100;
  const started = Date.now();
  const agentOptions = s.testCode?.length ? [`testCode=${s.testCode.join(';')}`] : [];
  const summary = await record(`${s.set}-${s.pkg}`, s.main, { runs, noise: s.noise, include: s.include, agentOptions, seed: 1000, ...(truthDir ? { env: { BRAID_EVAL_TRUTH: truthDir } } : {}) });
  const dir = path.join(outRoot, s.pkg);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (truthDir) {
    // which bugs each run hit (evaltruth.Truth), for the evaluation only: Braid never reads runs.json
    const hits = {};
    for (const t of summary.traces) {
      const execution = path.basename(t).replace(/\.trace\.jsonl$/, '');
      let names = [];
      try {
        names = [...new Set(readFileSync(path.join(truthDir, `${execution}.txt`), 'utf8').split('\n').filter(Boolean))].sort();
      } catch {
        names = [];
      }
      hits[execution] = names;
    }
    rmSync(truthDir, { recursive: true, force: true });
    writeFileSync(path.join(dir, 'runs.json'), JSON.stringify({ about: `the bugs each run of ${s.main} hit (evaltruth.Truth), for npm run eval only`, runs: hits }, null, 1) + '\n');
  }
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
for (const [outRoot, manifest] of manifests) {
  const sorted = Object.fromEntries(Object.keys(manifest).sort().map((k) => [k, manifest[k]]));
  writeFileSync(path.join(outRoot, 'manifest.json'), JSON.stringify(sorted, null, 2) + '\n');
  let total = 0;
  for (const d of readdirSync(outRoot)) {
    const p = path.join(outRoot, d);
    if (statSync(p).isDirectory()) for (const f of readdirSync(p)) total += statSync(path.join(p, f)).size;
  }
  console.log(`total ${(total / 1024 / 1024).toFixed(2)} MiB in ${path.relative(root, outRoot)}`);
}
