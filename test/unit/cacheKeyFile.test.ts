/**
 * Issue 39, LOW: "the cache key accepts a short key, a directory or a symlink to a public file and
 * silently degrades to a per-process key (snapshots grow without bound)". The key file
 * (server/src/engine/summary/cacheKey.ts) must be a regular file of 32 bytes, not a link, not
 * readable by others; otherwise the summary cache is not used and a warning names the key file —
 * no snapshot under a per-process name is written. Each case runs `analyzeInputs` with `--cache` in
 * a process of its own (the key is read once per process).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { recordedTraces } from '../helpers/recordedTraces';

const root = path.resolve(__dirname, '../..');

/** Runs `braid analyze --cache` (analyzeInputs) twice in two processes with this key file; the warnings and the cache's files. */
function analyzeTwice(keyFile: string, dir: string): { warnings: string[][]; cacheFiles: string[] } {
  const traces = path.join(dir, 'traces');
  mkdirSync(traces, { recursive: true });
  for (const f of recordedTraces('bank').slice(0, 3)) copyFileSync(f, path.join(traces, path.basename(f)));
  const cacheDir = path.join(dir, 'cache');
  const script = `
    const { analyzeInputs } = require(${JSON.stringify(path.join(root, 'server/src/engine/summary/workspaceAnalysis.ts'))});
    analyzeInputs([${JSON.stringify(traces)}], {}, { workers: 1, cacheDir: ${JSON.stringify(cacheDir)} })
      .then((r) => console.log(JSON.stringify(r.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message))));`;
  const warnings: string[][] = [];
  for (let k = 0; k < 2; k++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, env: { ...process.env, BRAID_CACHE_KEY_FILE: keyFile }, encoding: 'utf8' });
    warnings.push(JSON.parse(out.trim().split('\n').pop()!));
  }
  const cacheFiles: string[] = [];
  const walk = (d: string) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      cacheFiles.push(path.relative(cacheDir, path.join(d, n)));
      walk(path.join(d, n));
    }
  };
  walk(cacheDir);
  return { warnings, cacheFiles };
}

function bad(what: string, make: (keyFile: string, dir: string) => void, expected: RegExp) {
  test(`the cache key accepts ${what} and silently degrades to a per-process key: now the cache is not used, and a warning says why`, { timeout: 120_000 }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'braid-cachekey-'));
    try {
      const keyFile = path.join(dir, 'cache.key');
      make(keyFile, dir);
      const r = analyzeTwice(keyFile, dir);
      for (const w of r.warnings) assert.ok(w.some((m) => m.includes(keyFile) && expected.test(m) && /summary cache is not used/.test(m)), `warning naming ${keyFile}: ${JSON.stringify(w)}`);
      assert.deepEqual(r.cacheFiles.filter((f) => f.endsWith('.braid-snapshot')), [], 'no snapshot under a per-process name (they grew without bound)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

bad('a short key', (k) => writeFileSync(k, 'short', { mode: 0o600 }), /holds 5 bytes/);
bad('a directory', (k) => mkdirSync(k), /is a folder/);
bad('a symlink to a public file', (k, dir) => {
  const pub = path.join(dir, 'public.txt');
  writeFileSync(pub, randomBytes(32));
  chmodSync(pub, 0o600);
  symlinkSync(pub, k);
}, /symbolic link/);
bad('a key readable by other users', (k) => {
  writeFileSync(k, randomBytes(32));
  chmodSync(k, 0o644);
}, /other users \(mode 0644/);

test('a good key file: one snapshot, reused by the next process (no per-process names)', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-cachekey-'));
  try {
    const keyFile = path.join(dir, 'keys', 'cache.key');
    const r = analyzeTwice(keyFile, dir);
    assert.deepEqual(r.warnings, [[], []]);
    assert.equal(r.cacheFiles.filter((f) => f.endsWith('.braid-snapshot')).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
