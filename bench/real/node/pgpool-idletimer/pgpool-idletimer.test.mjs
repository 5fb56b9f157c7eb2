// pg-pool 2.0.2 (https://github.com/brianc/node-pg-pool/pull/71, "Fix client remove clearing
// unrelated idle timers", for node-postgres #1404 "Pooled client connections never close in 7.x";
// fixed in 2.0.3): removing one client from the pool — a client given back with an error — walks the
// idle list and clears the idle timer of every idle client, not only its own. A client that another
// request gave back just before is then never closed by idleTimeoutMillis: the connection stays open.
// The pool is given its `Client` (pg-pool's option for another client class): a small in-memory
// client whose query does file I/O, so no database server is needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import Pool from 'pg-pool';

const here = fileURLToPath(import.meta.url);

class FileClient extends EventEmitter {
  constructor() {
    super();
    this.ended = false;
  }
  connect(cb) {
    setImmediate(cb);
  }
  async query() {
    const text = await readFile(here, 'utf8');
    return { rows: [{ length: text.length }] };
  }
  end() {
    this.ended = true;
  }
}

test('a client given back idle is closed after idleTimeoutMillis', async () => {
  const pool = new Pool({ idleTimeoutMillis: 20, Client: FileClient });
  const first = await pool.connect();
  const second = await pool.connect();
  const firstClosed = new Promise((resolve) => pool.on('remove', (client) => client === first && resolve(true)));

  // request 1 runs its query and gives its client back; request 2's connection breaks
  const request1 = (async () => {
    await first.query('select 1');
    first.release();
  })();
  const request2 = (async () => {
    await stat(here);
    await stat(here);
    await stat(here);
    second.release(new Error('Connection terminated unexpectedly'));
  })();
  await Promise.all([request1, request2]);

  const closed = await Promise.race([firstClosed, new Promise((resolve) => setTimeout(resolve, 1000, false))]);
  assert.ok(closed, `the idle client was never closed (pool: ${pool.totalCount} clients, ${pool.idleCount} idle)`);
  assert.equal(first.ended, true);
});
