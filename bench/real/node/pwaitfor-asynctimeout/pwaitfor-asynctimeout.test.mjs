// p-wait-for issue #27 (https://github.com/sindresorhus/p-wait-for/issues/27), "Timeout during execution
// of condition causes condition to be called forever", fixed by "Fix incorrect timeout behavior" (#28,
// released in 5.0.2): when the timeout expires while an asynchronous condition is still running, the
// wait rejects with a TimeoutError, but the running check, when it ends with false, schedules the next
// check anyway: the condition keeps being polled after the caller was told the wait is over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pWaitFor, { TimeoutError } from 'p-wait-for';

const here = fileURLToPath(import.meta.url);

// a health probe that never becomes healthy within the deadline: each probe does a little I/O
async function waitForService(stopped) {
  let probes = 0;
  const probe = async () => {
    if (stopped.value) return true;
    probes++;
    await stat(here);
    await readFile(here, 'utf8');
    return false;
  };
  let error;
  try {
    await pWaitFor(probe, { interval: 2, timeout: 12 });
  } catch (e) {
    error = e;
  }
  return { error, probes: () => probes };
}

test('no probe is started after the wait has timed out', async () => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stopped = { value: false };
    const { error, probes } = await waitForService(stopped);
    assert.ok(error instanceof TimeoutError, 'the wait should time out');
    const atTimeout = probes();
    // the caller has given up; a probe still running may finish, but no new one may start
    await new Promise((resolve) => setTimeout(resolve, 25));
    const later = probes();
    stopped.value = true; // let a runaway poll end so the process can exit
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(later, atTimeout, `the condition was polled ${later - atTimeout} more time(s) after the timeout`);
  }
});
