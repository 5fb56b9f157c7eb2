/**
 * Issue 39, item 7: "extend the project's fuzzer to manifests, verdicts, excluded-runs files,
 * forcing plans, test discovery inputs and source maps, and run it in CI for a bounded time".
 * Every structured target of the fuzz campaign (scripts/fuzzTargets.ts, run by `npm run fuzz`)
 * gets a fixed number of mutated inputs at a fixed seed here, so `npm test` runs each oracle: an
 * input is refused with a message that says why, or used without anything throwing (see the
 * oracles). Each target must both accept and refuse some of its inputs (the mutations reach both).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { checkTarget, mutateSource, TARGETS, targetInput, type Target } from '../../scripts/fuzzTargets';
import { rng } from '../helpers/seededRandom';

/** Inputs per target: the whole file stays well under a minute on a shared machine. */
const CASES: Record<Target, number> = { summary: 30, snapshot: 20, plan: 40, manifest: 120, verdicts: 100, excludedRuns: 120, forcingPlan: 120, javaTests: 100, jsTests: 100, sourceMap: 60 };
const SEED = 39;

for (const target of TARGETS) {
  test(`fuzz ${target}: ${CASES[target]} mutated inputs at seed ${SEED}, each refused with a message or used without a crash`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `braid-fuzz-${target}-`));
    const seen = { accepted: 0, rejected: 0 };
    try {
      for (let n = 0; n < CASES[target]; n++) {
        const r = rng((SEED * 1000003 + n * 7919 + TARGETS.indexOf(target)) >>> 0);
        const input = await targetInput(target, r);
        try {
          seen[await checkTarget(target, input, path.join(dir, 'case'))]++;
        } catch (e) {
          assert.fail(`${target} case ${n} (seed ${SEED}; npm run fuzz -- --target ${target} --seed ${SEED} --case ${n} prints it): ${(e as Error)?.stack ?? String(e)}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(seen.accepted > 0, `${target}: no input used (${JSON.stringify(seen)})`);
    assert.ok(seen.rejected > 0, `${target}: no input refused (${JSON.stringify(seen)})`);
  });
}

test('the source mutation reaches the hostile shapes of issue 39 (nested classes, nested describes, `` test(`${ ``)', () => {
  const r = rng(5);
  const made = Array.from({ length: 400 }, () => mutateSource('class A {}', r));
  for (const shape of ['class A{class A{', "describe('a', () => {describe('a', () => {", 'test(`${test(`${']) {
    assert.ok(made.some((m) => m.includes(shape.repeat(50))), `no input repeats ${JSON.stringify(shape.slice(0, shape.length / 2))} 100 times`);
  }
});
