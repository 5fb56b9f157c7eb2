/**
 * The advice when no run failed (recorder/runs/neverFailedAdvice.ts, issue 41): what was tried — adaptive
 * exposure's levels or the one noise — and only next steps not tried yet, in the CLI's or the editor's words.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AdaptiveExposure } from '../../server/src/recorder/runs/adaptiveExposure';
import { neverFailedAdvice, nextText } from '../../server/src/recorder/runs/neverFailedAdvice';
import type { RecordProgress } from '../../server/src/recorder/runs/recordRuns';
import { testRunReport } from '../../server/src/lsp/testRunReport';

const finished = (index: number) => ({ run: { index, outcome: 'pass' } }) as unknown as RecordProgress;

/** an adaptive exposure that ran `runs` passing runs, considering a step every 20 */
async function ran(recorder: 'java' | 'node', runs: number): Promise<AdaptiveExposure> {
  const e = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: mkdtempSync(path.join(os.tmpdir(), 'braid-advice-')), recorder });
  for (let i = 0; i < runs; i++) {
    e.runNoise(i);
    e.runFinished(finished(i));
    if ((i + 1) % 20 === 0 && i + 1 < runs) await e.consider();
  }
  return e;
}

test('braid test, the ladder stopped before PCT: names the levels, more runs and --noise-mode pct', async () => {
  const e = await ran('java', 60);
  const a = neverFailedAdvice({ runs: 60, recorder: 'java', noise: 0.1, exposure: e, where: 'test' });
  assert.equal(a.tried, 'noise 0.1 at accesses (runs 0–19), noise 0.1 at sync points (runs 20–39), noise 0.2 at accesses and sync points (runs 40–59)');
  assert.deepEqual(a.next, ['record more runs, so the noise can widen further (--max-runs 200)', 'schedule the threads instead of noise (--noise-mode pct)']);
  assert.equal(nextText(a.next), 'record more runs, so the noise can widen further (--max-runs 200); or schedule the threads instead of noise (--noise-mode pct)');
  // braid test --runs 60: the ladder climbs with a fixed number of runs too; more runs is --runs there
  const fixed = neverFailedAdvice({ runs: 60, recorder: 'java', noise: 0.1, exposure: e, fixedRuns: true, where: 'test' });
  assert.deepEqual(fixed.next, ['record more runs, so the noise can widen further (--runs 200)', 'schedule the threads instead of noise (--noise-mode pct)']);
});

test('the ladder reached PCT: neither more runs nor --noise-mode pct is advised', async () => {
  const e = await ran('java', 100);
  assert.equal(e.reachedPct, true);
  const a = neverFailedAdvice({ runs: 100, recorder: 'java', noise: 0.1, exposure: e, where: 'test' });
  assert.match(a.tried, /pct scheduling \(depth 3\) \(runs 80–99\)$/);
  assert.deepEqual(a.next, []);
});

test('braid record (one noise): more noise at sync points, more runs, PCT, --fail-on-output; Node.js: wide noise and no PCT', () => {
  const java = neverFailedAdvice({ runs: 100, recorder: 'java', noise: 0.1, where: 'record' });
  assert.equal(java.tried, 'noise 0.1 at accesses (100 runs)');
  assert.deepEqual(java.next, [
    'more noise, at sync points too (--noise 0.3 --noise-at all)',
    'more runs (--runs 200)',
    'adaptive exposure, which widens the noise while no run fails (--noise-mode adaptive)',
    'schedule the threads instead of noise (--noise-mode pct)',
    'if the failure shows only in the output (a logged error, exit code 0): --fail-on-output REGEX',
  ]);
  const node = neverFailedAdvice({ runs: 100, recorder: 'node', noise: 0.1, failOnOutput: true, where: 'record' });
  assert.equal(node.tried, 'noise 0.1 at awaits, timers and fs calls (100 runs)');
  assert.deepEqual(node.next, ['wide noise (--noise 0.3 --noise-at all: timers up to twice their delay late, awaits and fs calls up to 8 ms)', 'more runs (--runs 200)', 'adaptive exposure, which widens the noise while no run fails (--noise-mode adaptive)']);
  const pct = neverFailedAdvice({ runs: 50, recorder: 'java', noise: 0, pct: true, where: 'record' });
  assert.equal(pct.tried, 'pct scheduling (50 runs)');
  assert.ok(!pct.next.some((n) => /noise-mode pct/.test(n)), pct.next.join(' | '));
});

test('the editor: settings instead of options; the Testing view says what to try next', async () => {
  const e = await ran('node', 40);
  const a = neverFailedAdvice({ runs: 40, recorder: 'node', noise: 0.1, exposure: e, where: 'editor' });
  assert.equal(a.tried, 'noise 0.1 (runs 0–19), noise 0.2 (runs 20–39)');
  assert.deepEqual(a.next, ['record more runs, so the noise can widen further (braid.record.runs, or record again)']);
  const uniform = neverFailedAdvice({ runs: 30, recorder: 'java', noise: 0.1, where: 'editor' });
  assert.deepEqual(uniform.next, [
    'more noise, at sync points too (braid.record.noise 0.3, braid.record.noiseAt "all")',
    'adaptive exposure, which widens the noise while no run fails (braid.record.noiseMode "adaptive")',
    'schedule the threads instead of noise (braid.record.noiseMode "pct")',
  ]);
  const r = testRunReport({ runs: 30, failed: 0, passed: 30, outDir: '/ws/.braid/traces/T-1', cancelled: false, tried: uniform.tried, next: nextText(uniform.next) }, undefined, 'T.m');
  assert.match(r.output.join('\n'), /It never failed with noise 0\.1 at accesses \(30 runs\): Braid: Find Trigger Points looks for the source lines where timing noise makes it fail; or try more noise, at sync points too .*; or schedule the threads instead of noise \(braid\.record\.noiseMode "pct"\)\./);
});
