// metautil issue #101 (https://github.com/metarhia/metautil/issues/101), "Semaphore wrong behavior in
// real life usage", fixed by pull request #100 (cfd36f0, "Fix counter increment", released in 3.5.18):
// "Semaphore never empty and counter value is greater than concurrency, if semaphore queue used."
// Semaphore.leave() increments the free counter and then hands the slot to a queued waiter, which
// never decrements it: once a request had to wait, the semaphore counts one slot too many. When no
// request waits (each enters after the other left), the counter comes back to the concurrency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import metautil from 'metautil';

const { Semaphore } = metautil;
const here = fileURLToPath(import.meta.url);

test('the semaphore is empty again once every request left it', async () => {
  // one request at a time may write the report file; up to 4 wait, for at most 3 s
  const semaphore = new Semaphore(1, 4, 3000);
  const served = [];
  async function request(id, checks) {
    // a request validates its input first (its own I/O)
    for (let i = 0; i < checks; i++) await stat(here);
    // and lets the event loop breathe before it takes the slot
    if (checks > 0) await new Promise((resolve) => setImmediate(resolve));
    await semaphore.enter();
    try {
      await readFile(here);
      served.push(id);
    } finally {
      semaphore.leave();
    }
  }
  await Promise.all([request('export', 0), request('import', 4)]);
  assert.equal(
    semaphore.empty && semaphore.counter === semaphore.concurrency,
    true,
    `after ${served.join(' and ')} left, the semaphore counts ${semaphore.counter} free slots of ${semaphore.concurrency} (empty: ${semaphore.empty}): two requests could now hold it at once`,
  );
});
