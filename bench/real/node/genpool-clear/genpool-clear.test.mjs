// generic-pool issue #159 (https://github.com/coopernurse/node-pool/issues/159), "Drain and clear can
// occur too early when autostart = true and min > 0": a pool with min > 0 starts creating its minimum
// resources at once; drain() followed by clear() destroys the resources that are available, but a
// resource whose factory.create was still in flight is added to the pool after clear() and is never
// destroyed (a connection left open, the process does not exit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import genericPool from 'generic-pool';

const here = fileURLToPath(import.meta.url);

// A connection factory whose create does some file-system work (as opening a connection does I/O).
function connectionFactory(log) {
  let next = 1;
  return {
    async create() {
      const id = next++;
      for (let i = 0; i < 2 * id; i++) await stat(here);
      log.created.push(id);
      return { id };
    },
    async destroy(connection) {
      log.destroyed.push(connection.id);
    },
  };
}

async function startUp() {
  // the application's own start-up work before it decides to shut down again
  await stat(here);
  await new Promise((resolve) => setTimeout(resolve, 6));
}

test('drain() and clear() destroy every connection the pool created', async () => {
  const log = { created: [], destroyed: [] };
  const pool = genericPool.createPool(connectionFactory(log), { min: 2, max: 2 });
  await startUp();
  await pool.drain();
  await pool.clear();
  // let any create still in flight finish
  await new Promise((resolve) => setTimeout(resolve, 20));
  const leaked = log.created.filter((id) => !log.destroyed.includes(id));
  assert.deepEqual(leaked, [], `connections created but never destroyed after clear(): ${leaked.join(', ')}`);
});
