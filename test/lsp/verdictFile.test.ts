/**
 * Issue 39, LOW findings on the editor's verdict file (`.braid/confirm/verdicts.json`,
 * server/src/lsp/confirmState.ts), a file a cloned repository can bring:
 *  - "files under `.braid/` followed through symlinks … `recording.json`/`verdicts.json` read
 *    through links": a linked verdict file, or a linked `.braid/confirm`, is not read;
 *  - "parse errors quoting 10 characters of the target — a token in a CI log": the problem names
 *    the place of the error, never the file's text;
 *  - "`/dev/zero` as verdicts stalls the server": a FIFO or device is not opened for reading;
 *  - "`<file>.<pid>.tmp` temp names followed through a planted link overwrite a user file": the
 *    verdicts are written through an exclusive, unpredictable temporary name;
 *  - a `.braid/confirm` that is a link to a folder outside the workspace is never written to.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfirmationStore, VERDICTS_FILE } from '../../server/src/lsp/confirmState';
import type { PatternConfirmationDto } from '../../server/src/lsp/protocol';

const verdict: PatternConfirmationDto = { verdict: 'confirmed', reason: 'forced 9 of 10 failed', pValue: 0.001, forced: { runs: 10, failed: 9, forcedOk: 10 } } as PatternConfirmationDto;
const verdictText = JSON.stringify({ format: 'braid-verdicts', version: 1, verdicts: { 'p:key': verdict } });

function folders() {
  const root = mkdtempSync(path.join(tmpdir(), 'braid-verdicts-'));
  const ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  mkdirSync(path.join(ws, '.braid', 'confirm'), { recursive: true });
  mkdirSync(outside);
  return { root, ws, outside, file: path.join(ws, VERDICTS_FILE), done: () => rmSync(root, { recursive: true, force: true }) };
}

test('verdicts.json read through a link: a symbolic link to a file outside the workspace is not read', async () => {
  const f = folders();
  try {
    const target = path.join(f.outside, 'secret.json');
    writeFileSync(target, verdictText);
    symlinkSync(target, f.file);
    const store = new ConfirmationStore(f.ws);
    const problem = await store.load();
    assert.equal(store.size, 0, 'no verdict is taken from the linked file');
    assert.match(problem ?? '', /symbolic link/);
  } finally {
    f.done();
  }
});

test('verdicts.json read through a link: a linked .braid/confirm folder is not read', async () => {
  const f = folders();
  try {
    rmSync(path.join(f.ws, '.braid', 'confirm'), { recursive: true });
    writeFileSync(path.join(f.outside, 'verdicts.json'), verdictText);
    symlinkSync(f.outside, path.join(f.ws, '.braid', 'confirm'));
    const store = new ConfirmationStore(f.ws);
    const problem = await store.load();
    assert.equal(store.size, 0);
    assert.match(problem ?? '', /symbolic link/);
  } finally {
    f.done();
  }
});

test('parse errors quoting 10 characters of the target — a token in a CI log: the problem quotes nothing of the file', async () => {
  const f = folders();
  try {
    writeFileSync(f.file, 'ghp_SECRETTOKEN0123456789');
    const problem = await new ConfirmationStore(f.ws).load();
    assert.ok(problem, 'a broken file is reported');
    assert.match(problem, /not JSON \(/);
    assert.doesNotMatch(problem, /ghp|SECRET|TOKEN/);
  } finally {
    f.done();
  }
});

test('/dev/zero as verdicts stalls the server: a FIFO (or device) is not read, and load returns at once', { timeout: 10_000 }, async () => {
  const f = folders();
  try {
    execFileSync('mkfifo', [f.file]);
    const store = new ConfirmationStore(f.ws);
    const problem = await store.load();
    assert.equal(store.size, 0);
    assert.match(problem ?? '', /not a regular file/);
  } finally {
    f.done();
  }
});

test('a verdict file above the size cap is not read, and the problem says so', async () => {
  const f = folders();
  try {
    writeFileSync(f.file, Buffer.alloc(17 * 2 ** 20, 0x20));
    const problem = await new ConfirmationStore(f.ws).load();
    assert.match(problem ?? '', /larger than 16 MiB/);
  } finally {
    f.done();
  }
});

test('`<file>.<pid>.tmp` temp names followed through a planted link overwrite a user file: saving verdicts leaves a planted link\'s target alone', async () => {
  const f = folders();
  try {
    const victim = path.join(f.outside, 'important.txt');
    writeFileSync(victim, 'user data\n');
    symlinkSync(victim, `${f.file}.${process.pid}.tmp`);
    const store = new ConfirmationStore(f.ws);
    await store.load();
    await store.set('p:key', verdict);
    assert.equal(readFileSync(victim, 'utf8'), 'user data\n', 'the planted link was not written through');
    assert.equal(JSON.parse(readFileSync(f.file, 'utf8')).verdicts['p:key'].verdict, 'confirmed');
    assert.deepEqual(readdirSync(path.dirname(f.file)).filter((n) => n.endsWith('.tmp') && !n.includes(String(process.pid))), [], 'no temporary file is left');
  } finally {
    f.done();
  }
});

test('files under `.braid/` followed through symlinks: verdicts are never written into a linked .braid/confirm', async () => {
  const f = folders();
  try {
    rmSync(path.join(f.ws, '.braid', 'confirm'), { recursive: true });
    symlinkSync(f.outside, path.join(f.ws, '.braid', 'confirm'));
    const store = new ConfirmationStore(f.ws);
    await store.load();
    await assert.rejects(store.set('p:key', verdict), /symbolic link/);
    assert.equal(existsSync(path.join(f.outside, 'verdicts.json')), false);
    assert.equal(store.get('p:key')?.verdict, 'confirmed', 'the verdict is still kept for this session');
  } finally {
    f.done();
  }
});
