// generic-pool issue #173 (https://github.com/coopernurse/node-pool/issues/173), fixed in 3.1.6 by
// 2ac9db9 ("pool.destroy didn't re-dispense resources (#173)"): Pool.destroy() takes the destroyed
// resource out of the pool but does not dispense, so a client that already waits for a resource is
// never given a new one (it waits until its acquire timeout). When the client asks after the
// destroy, acquire() itself dispenses and creates a new resource.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import genericPool from 'generic-pool';

const here = fileURLToPath(import.meta.url);

test('a client waiting for a connection gets one after a broken connection is destroyed', async () => {
  let opened = 0;
  // a pool of one connection (a connect is its own I/O); an acquire waits at most 1.5 s
  const pool = genericPool.createPool(
    {
      create: async () => {
        await stat(here);
        opened++;
        return { connection: opened };
      },
      destroy: async () => {
        await stat(here);
      },
    },
    { max: 1, min: 0, acquireTimeoutMillis: 1500 },
  );
  const outcome = [];
  // the first job finds its connection broken after a query and destroys it
  async function brokenJob() {
    const connection = await pool.acquire();
    await readFile(here);
    await pool.destroy(connection);
    outcome.push(`broken: destroyed connection ${connection.connection}`);
  }
  // the second job validates its input first (its own I/O), waits a moment (1 ms), then queries
  async function nextJob() {
    for (let i = 0; i < 3; i++) await stat(here);
    await new Promise((resolve) => setTimeout(resolve, 1));
    try {
      const connection = await pool.acquire();
      await readFile(here);
      await pool.release(connection);
      outcome.push(`next: used connection ${connection.connection}`);
    } catch (e) {
      outcome.push(`next: ${e.message}`);
    }
  }
  await Promise.all([brokenJob(), nextJob()]);
  await pool.drain();
  await pool.clear();
  assert.ok(outcome.some((o) => o.startsWith('next: used')), `the second job never got a connection (${outcome.join('; ')}): the destroyed connection was not replaced for a waiting client`);
});
