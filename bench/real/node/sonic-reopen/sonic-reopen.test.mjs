// pino issue #710 (https://github.com/pinojs/pino/issues/710), EBADF after a log rotation, fixed by
// sonic-boom pull request #30 "Fix EBADF in case of a reopen() while an open was in progress"
// (released in 0.7.6): reopen() called while the destination file is being opened waits for 'ready'
// and then closes the new descriptor and opens the file again — but the open's own callback goes on
// after emitting 'ready' and writes the buffered lines to the descriptor just closed: EBADF, and the
// lines are lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SonicBoom from 'sonic-boom';

test('a log rotation while the log file is being opened loses no line and raises no error', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sonic-reopen-'));
  try {
    const file = path.join(dir, 'app.log');
    writeFileSync(file, ''); // the log file of the previous run
    const errors = [];
    const log = new SonicBoom(file);
    log.on('error', (err) => errors.push(err.code || err.message));
    log.write('starting\n');
    log.write('listening on 8080\n');

    // logrotate moves the file away and signals the process (SIGHUP → reopen), after its own work
    for (let i = 0; i < 1; i++) await stat(dir);
    renameSync(file, `${file}.1`);
    log.reopen();
    log.write('after rotation\n');

    await new Promise((resolve) => setTimeout(resolve, 30));
    log.end();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = [`${file}.1`, file].filter(existsSync).map((f) => readFileSync(f, 'utf8')).join('');
    assert.deepEqual(errors, [], `the logger failed: ${errors.join(', ')}; logged: ${JSON.stringify(lines)}`);
    assert.equal(lines, 'starting\nlistening on 8080\nafter rotation\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
