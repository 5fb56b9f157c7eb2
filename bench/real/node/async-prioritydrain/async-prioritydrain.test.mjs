// async PR #1623 (https://github.com/caolan/async/pull/1623), "fix: stop priorityQueue from draining
// while items still pending", fixed in 3.0.0 (ce0a7e2): "the priorityQueue drains if an empty array of
// tasks is pushed even if other tasks are processing". priorityQueue's own push() calls drain on an
// empty array without asking whether the queue is idle, as the plain queue's push does. When the
// empty batch comes after the running task finished, the drain it calls is a true one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import priorityQueue from 'async/priorityQueue.js';

const here = fileURLToPath(import.meta.url);
const CHECKS = 4;

test('the priority queue drains only when no task is left', async () => {
  const converted = [];
  // an image converter: one file at a time
  const q = priorityQueue((file, done) => {
    readFile(here).then(() => { converted.push(file); done(); }, done);
  }, 1);
  const early = [];
  let finished;
  const allDone = new Promise((resolve) => { finished = resolve; });
  q.drain = () => {
    if (converted.length < 1) early.push(`drain with ${converted.length} of 1 converted`);
    else finished();
  };
  // the batches come from a directory scan: the first folder has one image, the second none
  q.push(['cover.png'], 1);
  for (let i = 0; i < CHECKS; i++) await stat(here);
  q.push([], 1);
  await allDone;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(early, [], `the queue drained before cover.png was converted (${early.join('; ')}): a caller that waits for drain would read a missing file`);
});
