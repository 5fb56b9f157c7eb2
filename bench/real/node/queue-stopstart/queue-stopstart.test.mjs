// queue pull request #26 (https://github.com/jessetane/queue/pull/26), "Added fix for resuming queue
// with pending workers" (released in 4.0.1): "when you create queue with concurrency value more than
// 1, stop it and try to run again calling 'start' method, queue doesn't resume. It happens only when
// pending value is more than one and running is set to false." A queue stopped while its workers
// run and started again before they finish never runs the jobs still queued; started after they
// finish, it goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { readFile as readFileCb } from 'node:fs';
import { fileURLToPath } from 'node:url';
import queue from 'queue';

const here = fileURLToPath(import.meta.url);

test('a queue stopped and started again runs every job', async () => {
  const q = queue({ concurrency: 2 });
  const ran = [];
  // a job: an upload of one file (its own I/O), then a short pause (the upstream's rate limit), then
  // its callback
  const upload = (name) => (cb) => {
    readFileCb(here, () => {
      setTimeout(() => {
        ran.push(name);
        cb();
      }, 2);
    });
  };
  for (const name of ['a', 'b', 'c', 'd']) q.push(upload(name));
  const ended = new Promise((resolve) => q.on('end', () => resolve(true)));
  q.start();

  // the operator pauses the uploads for a moment (a health check, its own I/O) and starts them again
  await stat(here);
  q.stop();
  await readFile(here);
  await stat(here);
  await stat(here);
  q.start();

  let timer;
  const stuck = new Promise((resolve) => { timer = setTimeout(() => resolve(false), 3000); });
  const done = await Promise.race([ended, stuck]);
  clearTimeout(timer);
  assert.ok(done, `the queue never finished after start(): ran ${ran.join(',')} of a,b,c,d`);
  assert.equal(ran.length, 4);
});
