// opossum issue #385 (https://github.com/nodeshift/opossum/issues/385), circuit stuck open, fixed by
// pull request #386 "fix: Fix stuck open" (released in 4.2.1): open() cleared the reset timer every
// time it was called. When a request that was already in flight fails after another failure has
// opened the circuit, fail() calls open() again: the reset timer is cleared, and since the state is
// already OPEN no 'open' event starts a new one — the circuit never goes half-open and stays open
// for good, although the service it protects has recovered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import CircuitBreaker from 'opossum';

const here = fileURLToPath(import.meta.url);

test('an open circuit goes half-open after resetTimeout and closes when the service is back', async () => {
  let serviceUp = false;
  // a call to the upstream service: some I/O, then its answer or its error
  async function callService(reads) {
    for (let i = 0; i < reads; i++) await readFile(here);
    if (!serviceUp) throw new Error('503 Service Unavailable');
    return 'ok';
  }
  const breaker = new CircuitBreaker(callService, { resetTimeout: 5, errorThresholdPercentage: 1, timeout: false });

  // two requests in flight while the service is down: a quick one and a slower one
  await Promise.allSettled([breaker.fire(1), breaker.fire(4)]);
  // the service recovers; after resetTimeout the breaker lets a trial request through
  serviceUp = true;
  await new Promise((resolve) => setTimeout(resolve, 40));
  const answer = await breaker.fire(1).catch((err) => err.message);
  assert.equal(answer, 'ok', `the circuit is stuck open 35 ms after resetTimeout: ${answer}`);
});
