/**
 * Issue 39, LOW: "files under `.braid/` followed through symlinks … `recording.json`/`verdicts.json`
 * read through links, parse errors quoting 10 characters of the target — a token in a CI log;
 * `/dev/zero` as verdicts stalls the server" — for the recording manifest beside the traces
 * (server/src/recorder/runs/recordingManifest.ts, readRecordingManifest). The verdicts' cases are in
 * test/lsp/verdictFile.test.ts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readRecordingManifest } from '../../server/src/recorder/runs/recordingManifest';

const MANIFEST = JSON.stringify({ format: 'braid-recording', version: 1, command: ['java', '-cp', 'out', 'bank.Bank'], cwd: '.', name: 'bank', include: ['bank'], exclude: [], runs: 10, timeoutSeconds: 60, startedAt: '2026-11-28T10:00:00Z' });

function folder() {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-manifest-'));
  return { dir, file: path.join(dir, 'traces', 'recording.json'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('recording.json read through links: a manifest that is a symbolic link is not read', async () => {
  const f = folder();
  try {
    execFileSync('mkdir', ['-p', path.dirname(f.file)]);
    writeFileSync(path.join(f.dir, 'elsewhere.json'), MANIFEST);
    symlinkSync(path.join(f.dir, 'elsewhere.json'), f.file);
    const r = await readRecordingManifest(path.dirname(f.file));
    assert.equal(r.manifest, undefined);
    assert.match(r.problem ?? '', /symbolic link; not read/);
  } finally {
    f.done();
  }
});

test('recording.json: parse errors quoting 10 characters of the target — a token in a CI log: nothing of the file is quoted', async () => {
  const f = folder();
  try {
    execFileSync('mkdir', ['-p', path.dirname(f.file)]);
    writeFileSync(f.file, 'ghp_SECRETTOKEN0123456789');
    const r = await readRecordingManifest(path.dirname(f.file));
    assert.match(r.problem ?? '', /not JSON/);
    assert.doesNotMatch(r.problem ?? '', /ghp|SECRET|TOKEN/);
  } finally {
    f.done();
  }
});

test('recording.json: a FIFO (as /dev/zero) is not read and does not stall', { timeout: 10_000 }, async () => {
  const f = folder();
  try {
    execFileSync('mkdir', ['-p', path.dirname(f.file)]);
    execFileSync('mkfifo', [f.file]);
    const r = await readRecordingManifest(path.dirname(f.file));
    assert.equal(r.manifest, undefined);
    assert.match(r.problem ?? '', /not a regular file/);
  } finally {
    f.done();
  }
});

test('recording.json: a file above 1 MiB is not read', async () => {
  const f = folder();
  try {
    execFileSync('mkdir', ['-p', path.dirname(f.file)]);
    writeFileSync(f.file, ' '.repeat(2 * 2 ** 20) + MANIFEST);
    const r = await readRecordingManifest(path.dirname(f.file));
    assert.match(r.problem ?? '', /larger than 1 MiB; not read/);
  } finally {
    f.done();
  }
});
