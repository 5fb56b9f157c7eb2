// sonic-boom pull request #24 (https://github.com/pinojs/sonic-boom/pull/24), "fix finish not being
// emitted after end() while reopening" (released in 0.7.3): end() returns early while a write is in
// progress (_writing), counting on that write's completion to close the file. While the destination
// is being (re)opened _writing is true too, but no write will complete: when the open finishes with
// nothing buffered, the file is never closed and 'finish' is never emitted — a logger flushed on
// shutdown (pino.final) waits for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SonicBoom from 'sonic-boom';

test('end() right after a log rotation still finishes the log', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sonic-end-'));
  try {
    const file = path.join(dir, 'app.log');
    writeFileSync(file, '');
    const log = new SonicBoom(file);
    await once(log, 'ready');
    log.write('served 200 requests\n');
    await once(log, 'drain');

    // logrotate moves the file away and signals the process (SIGHUP → reopen) ...
    renameSync(file, `${file}.1`);
    log.reopen();
    // ... and the process is told to stop soon after, a couple of event-loop turns later
    for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
    const finished = new Promise((resolve) => log.once('finish', () => resolve(true)));
    log.end();
    const timedOut = new Promise((resolve) => setTimeout(() => resolve(false), 200).unref());
    assert.ok(await Promise.race([finished, timedOut]), "the log never emitted 'finish' after end()");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
