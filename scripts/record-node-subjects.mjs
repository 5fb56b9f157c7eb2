// Records the Node.js subjects (test/fixtures/node/<name>/, truth.json) with the current Node.js
// recorder into test/fixtures/node-recorded/<name>/ as gzip traces, so that the ranking test
// (test/unit/nodeRecorded.test.ts) runs on committed recordings (issue 32); the bug each run hit
// (its `BRAID-TRUTH <bug>` lines, in the run's log) goes to runs.json, which Braid never reads.
//   node scripts/record-node-subjects.mjs [name...] [--runs N] [--noise P]
// Default: 60 runs, noise 0.3, base seed 1000, 2 jobs, each subject run from its own folder (so
// that its files are not under test/, which the recorder marks as test code). Needs dist/
// (node scripts/build.mjs). Writes test/fixtures/node-recorded/manifest.json with the counts.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let runs = 60;
let noise = 0.3;
const only = [];
for (let k = 0; k < args.length; k++) {
  if (args[k] === '--runs') runs = Number(args[++k]);
  else if (args[k] === '--noise') noise = Number(args[++k]);
  else only.push(args[k]);
}
const base = path.join(root, 'test', 'fixtures', 'node');
const outRoot = path.join(root, 'test', 'fixtures', 'node-recorded');
const names = readdirSync(base).filter((n) => existsSync(path.join(base, n, 'truth.json')) && (only.length === 0 || only.includes(n)));
if (only.length && names.length !== only.length) {
  console.error(`unknown subject(s): ${only.filter((o) => !names.includes(o)).join(', ')}`);
  process.exit(2);
}
const manifestFile = path.join(outRoot, 'manifest.json');
const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : {};
for (const name of names) {
  const dir = path.join(base, name);
  const truth = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8'));
  const prefix = `test/fixtures/node/${name}/`;
  const command = String(truth.command).split(' ').map((w) => (w.startsWith(prefix) ? w.slice(prefix.length) : w));
  const tmp = path.join(os.tmpdir(), `braid-node-record-${name}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  const started = Date.now();
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'braid.js'), 'record', '--runs', String(runs), '--noise', String(noise), '--seed', '1000', '--jobs', '2', '--timeout', '30', '--out', tmp, '--', ...command], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`${name}: recording failed\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
  const out = path.join(outRoot, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const hits = {};
  let failed = 0;
  let total = 0;
  for (const f of readdirSync(tmp).sort()) {
    if (f.endsWith('.log')) {
      const execution = f.replace(/\.log$/, '');
      hits[execution] = [...new Set([...readFileSync(path.join(tmp, f), 'utf8').matchAll(/BRAID-TRUTH (\S+)/g)].map((m) => m[1]))].sort();
    }
    if (!f.endsWith('.trace.jsonl')) continue;
    total++;
    if (readFileSync(path.join(tmp, f), 'utf8').includes('"outcome":"fail"')) failed++;
    await pipeline(createReadStream(path.join(tmp, f)), createGzip({ level: 9 }), createWriteStream(path.join(out, `${f}.gz`)));
  }
  writeFileSync(path.join(out, 'runs.json'), JSON.stringify(hits, null, 1) + '\n');
  rmSync(tmp, { recursive: true, force: true });
  manifest[name] = { command: truth.command, runs: total, failed, noise, seed: 1000, recordedAt: new Date().toISOString().slice(0, 10) };
  console.log(`${name}: ${total} runs, ${failed} failed, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
