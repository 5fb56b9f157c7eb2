// tarn issue #29 (https://github.com/Vincit/tarn.js/issues/29), "destroy() doesn't wait that all
// resources are actually destroyed, before returning", fixed by "Wait pending destroys to complete
// before returning from pool destroy" (#30, released in 2.0.0): the pool's reaper destroys resources
// that have been idle longer than idleTimeoutMillis, and pool.destroy() waits only for the destroys it
// starts itself on the resources still free. When the reaper has just taken an idle connection out of
// the pool and is still closing it, pool.destroy() resolves before that connection is closed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import tarn from 'tarn';

const here = fileURLToPath(import.meta.url);

test('pool.destroy() resolves only when every connection is closed', async () => {
  const connections = [];
  const pool = new tarn.Pool({
    // opening and closing a connection are some I/O each
    create: async () => {
      await stat(here);
      const connection = { id: connections.length + 1, closed: false };
      connections.push(connection);
      return connection;
    },
    destroy: async (connection) => {
      // the server acknowledges the close after a few milliseconds
      await readFile(here, 'utf8');
      await new Promise((resolve) => setTimeout(resolve, 5));
      connection.closed = true;
    },
    min: 0,
    max: 4,
    // idle connections are closed by the reaper after a few milliseconds
    idleTimeoutMillis: 5,
    reapIntervalMillis: 5,
  });

  // two requests use a connection each, with their own I/O
  const a = await pool.acquire().promise;
  const b = await pool.acquire().promise;
  await readFile(here, 'utf8');
  pool.release(a);
  await stat(here);
  pool.release(b);

  // the application shuts down a few milliseconds later: some shutdown I/O, then the pool
  await new Promise((resolve) => setTimeout(resolve, 7));
  await readFile(here, 'utf8');
  await pool.destroy();

  const open = connections.filter((c) => !c.closed).map((c) => c.id);
  assert.deepEqual(open, [], `pool.destroy() resolved while connection(s) ${open.join(', ')} were still being closed`);
});
