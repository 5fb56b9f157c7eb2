// async-mutex issue #27 (https://github.com/DirtyHairy/async-mutex/issues/27), "Alternate release API
// seems broken", fixed in 0.2.6 ("Fix consecutive calls to mutex::release", 8331143): with
// `await mutex.acquire(); try { … } finally { mutex.release(); }` only the first two of four workers
// ever ran. Semaphore.release() calls the current releaser, which hands the lock to a waiter and
// stores the waiter's releaser, and then clears the stored releaser: the waiter's own release() later
// finds nothing to call and the mutex stays locked. When nobody waits at the first release, the
// second holder acquires afterwards and releases normally.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Mutex } from 'async-mutex';

const here = fileURLToPath(import.meta.url);

test('the mutex is free again once every holder released it', async () => {
  const mutex = new Mutex();
  const saved = [];
  // a save of one document under the store's lock (the alternate release API of the README);
  // a request validates its input first (its own I/O)
  async function save(id, checks) {
    for (let i = 0; i < checks; i++) await stat(here);
    await mutex.acquire();
    try {
      await readFile(here);
      await new Promise((resolve) => setTimeout(resolve, 1));
      saved.push(id);
    } finally {
      mutex.release();
    }
  }
  await Promise.all([save('settings', 0), save('profile', 5)]);
  assert.equal(mutex.isLocked(), false, `the mutex stayed locked after ${saved.join(' and ')} released it: the next save would wait forever`);
});
