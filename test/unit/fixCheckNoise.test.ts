/**
 * Check the Fix records the runs after the fix with the recording's noise (issue 41: a recording made
 * with `--noise-mode pct` has noise 0 in its manifest, and its runs after the fix ran with no noise at
 * all — failing less whatever the fix, a push towards "fixed"): the last noise level, where it went
 * (`--noise-at`) and PCT's scheduler come from the manifest into the options of the runs after the fix.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { afterRunOptions, FixCheckOptions, recordingNoiseOf } from '../../server/src/recorder/runs/fixCheck';

const base: Omit<FixCheckOptions, 'recordNoise'> = {
  command: ['java', '-cp', 'out', 'bank.Bank'],
  cwd: '/w',
  include: ['bank'],
  exclude: [],
  runs: 10,
  noise: 0,
  timeoutSeconds: 60,
  jobs: 2,
  seed: 7,
  name: 'bank',
  outRoot: '/w/.braid/confirm',
};

test('a PCT recording: the runs after the fix are scheduled by PCT with its depth (its noise is 0)', () => {
  const noise = recordingNoiseOf({ noise: 0, pct: { depth: 3 } });
  assert.deepEqual(noise, { recordNoise: 0, recordPct: { depth: 3 } });
  const o = afterRunOptions({ ...base, ...noise }, '/w/after', 20);
  assert.deepEqual(o.pct, { depth: 3 });
  assert.equal(o.noise, 0);
  assert.equal(o.runs, 20);
  assert.equal(o.outDir, '/w/after');
  assert.equal(o.name, 'bank-after');
  assert.equal(o.seed, 7 + 300_000);
});

test('noise at synchronization points (or widened there by adaptive exposure): the runs after the fix put it there too', () => {
  const o = afterRunOptions({ ...base, ...recordingNoiseOf({ noise: 0.3, noiseAt: 'all' }) }, '/w/after', 10);
  assert.equal(o.noise, 0.3);
  assert.equal(o.noiseAt, 'all');
  assert.equal(o.pct, undefined);
});

test('a noise the user gives replaces the level and PCT, and keeps where it goes; no manifest: the default 0.1', () => {
  assert.deepEqual(recordingNoiseOf({ noise: 0, noiseAt: 'sync', pct: { depth: 2 } }, 0.2), { recordNoise: 0.2, recordNoiseAt: 'sync' });
  assert.deepEqual(recordingNoiseOf(undefined), { recordNoise: 0.1 });
  const o = afterRunOptions({ ...base, ...recordingNoiseOf({ noise: 0.1 }) }, '/w/after', 10);
  assert.equal(o.noiseAt, undefined);
  assert.equal(o.pct, undefined);
});
