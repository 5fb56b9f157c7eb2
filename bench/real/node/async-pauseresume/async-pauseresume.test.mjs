// async pull request #536 (https://github.com/caolan/async/pull/536), "async.queue() can lose
// concurrency after .pause() / .resume()" (released in 0.9.2): "Concurrency is reduced by each task
// that finishes while paused. If all tasks complete (nothing is running when .resume() is called),
// then concurrency drops to 1." resume() starts one worker, whatever the concurrency; a task that
// ends while the queue is paused starts nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { readFile as readFileCb } from 'node:fs';
import { fileURLToPath } from 'node:url';
import async from 'async';

const here = fileURLToPath(import.meta.url);

test('a paused and resumed queue of concurrency 2 runs two jobs at a time again', async () => {
  let active = 0;
  let mostAfterResume = 0;
  let resumed = false;
  // a job: a thumbnail of one image (its own I/O), then a short pause (the upstream's rate limit)
  const q = async.queue((name, cb) => {
    active++;
    if (resumed) mostAfterResume = Math.max(mostAfterResume, active);
    readFileCb(here, () => {
      setTimeout(() => {
        active--;
        cb();
      }, 2);
    });
  }, 2);
  const drained = new Promise((resolve) => { q.drain = resolve; });
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) q.push(name);

  // the operator pauses the queue for a moment (a health check, its own I/O) and resumes it
  await stat(here);
  q.pause();
  await readFile(here);
  await stat(here);
  resumed = true;
  q.resume();
  await drained;
  assert.equal(mostAfterResume, 2, `after resume() the queue of concurrency 2 ran ${mostAfterResume} job(s) at a time`);
});
