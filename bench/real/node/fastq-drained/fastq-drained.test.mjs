// fastq issue #63 (https://github.com/mcollina/fastq/issues/63), "promise queue drained() method never
// returns if the queue is already completed", fixed by pull request #64 (e291e17, "fix:
// queueAsPromised.drained() resolves while queue is idle", released in 1.15.0): drained() hooks the
// queue's drain callback, which the queue calls when its last job finishes. When the jobs have all
// finished before drained() is called, the hook is installed after the queue's last drain call and the
// promise never settles; when drained() comes while a job still runs, it resolves when that job ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastq from 'fastq';

const here = fileURLToPath(import.meta.url);

test('drained() resolves once the queued thumbnails are written', async () => {
  const written = [];
  // the worker: a thumbnail of one image (its own I/O), two at a time
  const queue = fastq.promise(async (name) => {
    const data = await readFile(here);
    written.push(`${name}:${data.length}`);
  }, 2);
  queue.push('a.png');
  queue.push('b.png');

  // the shutdown path: it flushes its logs first (its own I/O), then waits for the queue
  for (let i = 0; i < 3; i++) await stat(here);
  await new Promise((resolve) => setImmediate(resolve));
  const outcome = await Promise.race([
    queue.drained().then(() => 'drained'),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200)),
  ]);
  assert.equal(
    outcome,
    'drained',
    `drained() had not resolved after 200 ms although ${written.length} of 2 thumbnails were written and the queue is idle`,
  );
});
