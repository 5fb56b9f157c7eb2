/**
 * Hostile trace folders (issue 15, finding 9): symbolic links out of the
 * traces folder are not followed, errors never echo more than a short escaped
 * excerpt of a file, and a link loop is a plain file error.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, symlinkSync, cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { tempDir } from '../helpers/traceBuilder';

const SECRET = 'AKIA-SECRET-TOKEN-0123456789-do-not-print';
const TABLELOG = path.resolve(__dirname, '../fixtures/traces/tablelog');

test('finding 9: a symlinked trace leading out of the folder is skipped and its content never printed', async () => {
  const dir = tempDir();
  const outside = tempDir('braid-secrets-');
  writeFileSync(path.join(outside, 'credentials'), SECRET + '\n');
  cpSync(TABLELOG, dir, { recursive: true });
  symlinkSync(path.join(outside, 'credentials'), path.join(dir, 'leak.trace.jsonl'));
  // a link to a trace inside the folder is fine
  mkdirSync(path.join(dir, 'sub'));
  symlinkSync(path.join(dir, 'E1.trace.jsonl'), path.join(dir, 'sub', 'again.trace.jsonl'));
  const res = await analyzeTraceFiles([dir]);
  assert.equal(res.executions.total, 6);
  // the link inside the folder was followed (and its run, a copy of E1, counted once)
  assert.match(res.diagnostics.find((x) => x.file.endsWith('again.trace.jsonl'))?.message ?? '', /same content as .*E1\.trace\.jsonl/);
  const d = res.diagnostics.find((x) => x.file.endsWith('leak.trace.jsonl'));
  assert.equal(d?.severity, 'warning');
  assert.equal(d?.message, 'skipped: a symbolic link to a file outside this folder');
  assert.ok(!JSON.stringify(res.diagnostics).includes('SECRET'), JSON.stringify(res.diagnostics));
});

test('finding 9: invalid JSON errors do not quote the file (V8 puts its first bytes in the message)', async () => {
  const r = await readTraceBuffer('x.trace.jsonl', Buffer.from(SECRET + '\n'), { event() {} });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0].line, 1);
  assert.doesNotMatch(r.diagnostics[0].message, /SECRET|KIA/);
  assert.match(r.diagnostics[0].message, /^invalid JSON: Unexpected token 'A'$/);
  const ctl = await readTraceBuffer('y.trace.jsonl', Buffer.from('{"braid":"trace","version":"\u001b[31m' + 'x'.repeat(500) + '","execution":"e"}\n'), { event() {} });
  assert.ok(ctl.diagnostics[0].message.length < 120, ctl.diagnostics[0].message);
  assert.doesNotMatch(ctl.diagnostics[0].message, /\u001b/);
});

test('finding 9: a symbolic link loop is a plain file error, in a folder and given by name', async () => {
  const dir = tempDir();
  cpSync(TABLELOG, dir, { recursive: true });
  symlinkSync(path.join(dir, 'loop.trace.jsonl'), path.join(dir, 'loop.trace.jsonl'));
  const res = await analyzeTraceFiles([dir, path.join(dir, 'loop.trace.jsonl')]);
  assert.equal(res.executions.total, 6);
  const loops = res.diagnostics.filter((x) => x.file.endsWith('loop.trace.jsonl'));
  assert.deepEqual(
    loops.map((x) => [x.severity, x.message]),
    [
      ['error', 'symbolic link loop (too many levels of symbolic links); the file is skipped'],
      ['error', 'symbolic link loop (too many levels of symbolic links)'],
    ],
  );
  assert.ok(!JSON.stringify(res.diagnostics).includes('unexpected error'));
});
