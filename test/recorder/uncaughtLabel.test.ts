/**
 * Issue 40, item 5: "an uncaught exception in a worker thread counts as a failing run while JUnit
 * reports the test green, with nothing saying so" — the run's detail now says that the program
 * reported success (exit code 0); a program that reported the failure itself gets no such label.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { classesDir, FAST_JVM, prepare, record } from './recorderHarness';
import { UNREPORTED } from '../../server/src/recorder/runs/uncaughtOutcome';

before(() => prepare());

test('a worker thread’s uncaught exception in a program that exits 0 fails the run and says the program did not report it', async () => {
  const s = await record('uncaught-worker', 'uncaught.WorkerThrows', { runs: 1, noise: 0, include: ['uncaught'] });
  assert.equal(s.failed, 1);
  const r = s.runs[0];
  assert.equal(r.reason, 'exception');
  assert.match(r.detail ?? '', /IllegalStateException: worker gave up in thread "worker" \(\d+\)/, "the thread named by its name and id");
  assert.ok((r.detail ?? '').includes(UNREPORTED), r.detail);
});

test('when the program reports the failure itself (exit code 1), no such label', async () => {
  const s = await record('uncaught-main', 'uncaught.WorkerThrows', { runs: 1, noise: 0, include: ['uncaught'], command: ['java', ...FAST_JVM, '-cp', classesDir, 'uncaught.WorkerThrows', 'main'] });
  assert.equal(s.failed, 1);
  assert.ok(!(s.runs[0].detail ?? '').includes(UNREPORTED), s.runs[0].detail);
});
