// metautil pull request #243 (https://github.com/metarhia/metautil/pull/243), "Pool bug fix: release
// captured items to queue" (b1c4ceb, released in 5.2.1): Pool.release() marks the item free and
// counts it available, and then hands it to a capture() that waits for it, which uses it as captured.
// The waiter holds an item the pool calls free: another capture() may take it at the same time, and
// the waiter's own release() throws 'Pool: release not captured'. When nobody waits at the release
// (the second capture comes after it), capture() marks the item captured and release() works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import metautil from 'metautil';

const { Pool } = metautil;
const here = fileURLToPath(import.meta.url);

test('every capture of the pool can release its item', async () => {
  // one database connection in the pool; a capture waits for it at most 3 s
  const pool = new Pool({ timeout: 3000 });
  pool.add({ connection: 1 });
  const errors = [];
  async function job(id, checks) {
    // a job validates its input first (its own I/O) and lets the event loop breathe
    for (let i = 0; i < checks; i++) await stat(here);
    if (checks > 0) await new Promise((resolve) => setImmediate(resolve));
    const connection = await pool.capture();
    try {
      await readFile(here);
    } finally {
      try {
        pool.release(connection);
      } catch (e) {
        errors.push(`${id}: ${e.message}`);
      }
    }
  }
  await Promise.all([job('report', 0), job('audit', 4)]);
  assert.deepEqual(errors, [], `a job could not give its connection back (${errors.join('; ')}): the pool handed out a connection it still counted free`);
});
