// async issue #988 (https://github.com/caolan/async/issues/988), "auto allows functions to start after
// error is passed", fixed for good by "stop running tasks after an error. fixes #1023" (45e4d8c,
// released in 2.0.0; pull request #993 of 1.5.1 only stops the tasks started in auto's first loop):
// after a task of async.auto calls back with an error, the final callback gets the error at once, but
// a task that depends on tasks still running is started anyway when they finish. When the error comes
// after those tasks finished, the dependent task started before the error and nothing starts after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import async from 'async';

const here = fileURLToPath(import.meta.url);

// one order: the tasks started, and how many had started when the auto reported its error
async function placeOrder() {
  const started = [];
  let failedAt = -1;
  await new Promise((resolve) => {
    async.auto({
      // the order's customer record (its own I/O)
      customer: (cb) => {
        started.push('customer');
        readFile(here, 'utf8').then((text) => cb(null, { id: 7, size: text.length }));
      },
      // the order's lines (quick)
      lines: (cb) => {
        started.push('lines');
        stat(here).then(() => cb(null, [1, 2, 3]));
      },
      // the stock check (a lookup, then the stock service's answer): the item is out of stock
      stock: (cb) => {
        started.push('stock');
        stat(here).then(() => setTimeout(() => cb(new Error('out of stock')), 3));
      },
      // charging the customer needs the customer and the lines: it must not run once the order failed
      charge: ['customer', 'lines', (cb) => {
        started.push('charge');
        setImmediate(() => cb(null, 'charged'));
      }],
    }, (err) => {
      if (err) failedAt = started.length;
      // let the tasks still running finish
      setTimeout(resolve, 20);
    });
  });
  return { started, failedAt };
}

test('no task of async.auto starts after the auto reported an error', async () => {
  const { started, failedAt } = await placeOrder();
  assert.ok(failedAt >= 0, 'the stock check fails the order');
  assert.deepEqual(
    started.slice(failedAt),
    [],
    `tasks started after the order failed: ${started.slice(failedAt).join(', ')} (the customer was charged for a failed order)`,
  );
});
