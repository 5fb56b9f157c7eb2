/**
 * Completing traces on hostile disks (issue 15, findings 4 and 11): a trace
 * over 2 GiB is read as a stream, and a full disk never leaves a partial
 * outcome line; the error names the file.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { openSync, writeSync, closeSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readUncaught } from '../../server/src/recorder/runs/traceFinalizer';
import { tempDir } from '../helpers/traceBuilder';

const HEADER = '{"braid":"trace","version":1,"execution":"big"}\n';
const U1 = '{"uncaught":{"thread":2,"exception":"java.lang.IllegalStateException","message":"first"}}\n';
const U2 = '{"uncaught":{"thread":3,"exception":"java.lang.NullPointerException","message":"last"}}\n';

test('finding 4: readUncaught streams a 2.1 GiB trace (sparse file) and finds uncaught lines at both ends', async () => {
  const file = path.join(tempDir(), 'big.trace.jsonl');
  const fd = openSync(file, 'w');
  writeSync(fd, HEADER + U1);
  const far = Math.floor(2.1 * 2 ** 30);
  writeSync(fd, '\n' + U2, far); // the hole reads as zero bytes: one long junk line
  closeSync(fd);
  assert.ok(statSync(file).size > 2 ** 31);
  const found = await readUncaught(file);
  assert.deepEqual(
    found.map((u) => [u.thread, u.message]),
    [
      [2, 'first'],
      [3, 'last'],
    ],
  );
});

test('finding 11: a full disk while writing the outcome leaves no partial outcome line and names the file', { skip: process.platform === 'win32' }, () => {
  const dir = tempDir();
  const file = path.join(dir, 'full.trace.jsonl');
  // 4,000 bytes of trace; `ulimit -f 4` allows 4,096 bytes: the outcome line (~300 bytes) does not fit
  const body = HEADER + '{"def":"var","id":0,"name":"x"}\n' + '[1,1,"END"]\n'.repeat(Math.floor((4000 - HEADER.length - 32) / 12));
  writeFileSync(file, body);
  const size = statSync(file).size;
  assert.ok(size < 4096 && size > 3900);
  const child = path.resolve(__dirname, '../helpers/finalizeUnderLimit.ts');
  const r = spawnSync('bash', ['-c', 'ulimit -f 4 && exec "$0" --import tsx "$1" "$2"', process.execPath, child, file], {
    encoding: 'utf8',
    env: { ...process.env, TSX_DISABLE_CACHE: '1' },
  });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.deepEqual(out, { ok: false, message: `cannot complete the trace ${file}: file too large` });
  // the trace is as it was: complete lines only, no partial outcome
  assert.equal(readFileSync(file, 'utf8'), body);
});
