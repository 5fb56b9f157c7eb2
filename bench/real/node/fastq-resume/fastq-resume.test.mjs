// fastq pull request #81 (https://github.com/mcollina/fastq/pull/81), "Consistently respect the
// configured concurrency" (released in 1.17.0): resume() starts `concurrency` workers without looking
// at how many are still running. A queue paused while a job runs and resumed before that job ends
// runs one more job than its concurrency allows, and from then on keeps running that many.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import fastq from 'fastq';

const here = fileURLToPath(import.meta.url);

test('a paused and resumed queue of concurrency 1 runs one job at a time', async () => {
  let active = 0;
  let most = 0;
  // a job: an export that must not run beside another one (concurrency 1)
  async function exportJob(name) {
    active++;
    most = Math.max(most, active);
    await readFile(here);
    await readFile(here);
    active--;
    return name;
  }
  const queue = fastq.promise(exportJob, 1);

  const done = [queue.push('export 1')];
  // maintenance: the operator pauses the queue, queues two more exports, and resumes it after a
  // health check (its own I/O) — while export 1 may still be running
  await stat(here);
  queue.pause();
  done.push(queue.push('export 2'), queue.push('export 3'));
  for (let i = 0; i < 6; i++) await stat(here);
  queue.resume();
  await Promise.all(done);
  assert.equal(most, 1, `${most} exports ran at once in a queue of concurrency 1`);
});
