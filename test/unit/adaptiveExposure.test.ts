/**
 * Adaptive exposure (recorder/runs/adaptiveExposure.ts, issue 41 item 1): the ladder of noise levels, when
 * a level is widened, each run's noise, the manifest's record of the steps, and its validation.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AdaptiveExposure, adaptiveExposureFor, exposureLadder, triedText } from '../../server/src/recorder/runs/adaptiveExposure';
import { agentOptionLines } from '../../server/src/recorder/runs/runOnce';
import type { RecordOptions } from '../../server/src/recorder/runs/recordOptions';
import { parseRecordingManifest } from '../../server/src/recorder/runs/recordingManifest';
import type { RecordControl, RecordProgress } from '../../server/src/recorder/runs/recordRuns';
import { EvidenceRounds } from '../../server/src/recorder/runs/evidenceRounds';
import { DEFAULT_EVIDENCE_STOP } from '../../server/src/engine/ranking/evidenceStop';
import { testRunReport } from '../../server/src/lsp/testRunReport';
import { parseTestArgs, recordOptionsFor } from '../../server/src/cli/testCliCommand';

const finished = (index: number, outcome: 'pass' | 'fail') => ({ run: { index, outcome } }) as unknown as RecordProgress;

test('the ladder widens where, then how much: accesses → sync → all at twice p → all at 0.3 → PCT scheduling (Java)', () => {
  const pct = { noise: 0, noiseAt: 'all', pct: { depth: 3 } };
  assert.deepEqual(exposureLadder({ noise: 0.1, noiseAt: 'accesses' }), [
    { noise: 0.1, noiseAt: 'accesses' },
    { noise: 0.1, noiseAt: 'sync' },
    { noise: 0.2, noiseAt: 'all' },
    { noise: 0.3, noiseAt: 'all' },
    pct,
  ]);
  assert.deepEqual(exposureLadder({ noise: 0.3, noiseAt: 'all' }), [{ noise: 0.3, noiseAt: 'all' }, pct]);
  // Node.js: the probability grows, then wide noise (noiseAt all: delays at the event loop's scale), and last PCT for the event loop
  assert.deepEqual(exposureLadder({ noise: 0.1, noiseAt: 'accesses' }, 'node'), [
    { noise: 0.1, noiseAt: 'accesses' },
    { noise: 0.2, noiseAt: 'accesses' },
    { noise: 0.3, noiseAt: 'accesses' },
    { noise: 0.3, noiseAt: 'all' },
    pct,
  ]);
  assert.deepEqual(exposureLadder({ noise: 0.5, noiseAt: 'accesses' }, 'node'), [
    { noise: 0.5, noiseAt: 'accesses' },
    { noise: 0.5, noiseAt: 'all' },
    pct,
  ]);
  assert.deepEqual(exposureLadder({ noise: 0.3, noiseAt: 'all' }, 'node'), [{ noise: 0.3, noiseAt: 'all' }, pct]);
});

test('Node.js: the step to wide noise is said in the progress line and named in what was tried', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exposure-node-'));
  const said: string[] = [];
  const e = new AdaptiveExposure({ noise: 0.3, noiseAt: 'accesses', outDir: dir, recorder: 'node' }, 10, (_s, text) => said.push(text));
  assert.equal(e.reachedLast, false);
  for (let i = 0; i < 20; i++) {
    e.runNoise(i);
    e.runFinished(finished(i, 'pass'));
  }
  const step = await e.consider();
  assert.deepEqual([step?.noise, step?.noiseAt], [0.3, 'all']);
  assert.equal(said[0], 'no failure in 20 runs: wide noise now (timers up to twice their delay late, awaits and fs calls up to 8 ms), p 0.3 (from run 20)');
  assert.equal(e.reachedLast, false);
  assert.deepEqual(e.runNoise(20), { noise: 0.3, noiseAt: 'all' });
  e.runFinished(finished(20, 'pass'));
  assert.equal(e.tried(21), 'noise 0.3 (runs 0–19), wide noise 0.3 (runs 20–20)');
  // then PCT for the event loop
  for (let i = 21; i < 40; i++) {
    e.runNoise(i);
    e.runFinished(finished(i, 'pass'));
  }
  const last = await e.consider();
  assert.deepEqual([last?.noise, last?.pct], [0, { depth: 3 }]);
  assert.match(said[1], /^no failure in 20 runs: pct scheduling now \(a random priority per task and per fs request, 2 change points; .*\), depth 3, no noise \(from run 40\)$/);
  assert.equal(e.reachedLast, true);
});

test('uniform, a plan or noise 0 keep the noise as given', () => {
  const o = { noise: 0.1, noiseAt: 'accesses' as const, outDir: '/nonexistent' };
  assert.equal(adaptiveExposureFor(o, 'uniform'), undefined);
  assert.equal(adaptiveExposureFor({ ...o, noise: 0 }, 'adaptive'), undefined);
  assert.equal(adaptiveExposureFor({ ...o, plan: { file: 'p.json', plan: {} as never } }, 'adaptive'), undefined);
  assert.ok(adaptiveExposureFor(o, 'adaptive'));
});

test('a level is widened after 20 runs with fewer than 1 failure per 20; runs keep the noise they started with; the manifest lists the levels', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exposure-'));
  const manifest = { format: 'braid-recording', version: 1, command: ['java', 'x.Main'], cwd: dir, name: 'x', runs: 200, noise: 0.1, seed: 1, include: [], exclude: [], timeoutSeconds: 60, startedAt: '2026-11-29T09:00:00.000Z' };
  writeFileSync(path.join(dir, 'recording.json'), JSON.stringify(manifest));
  const said: string[] = [];
  const e = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: dir }, 10, (_s, text) => said.push(text));
  for (let i = 0; i < 19; i++) {
    e.runNoise(i);
    e.runFinished(finished(i, 'pass'));
  }
  assert.equal(await e.consider(), undefined, '19 runs are not enough to judge a level');
  const inFlight = e.runNoise(19);
  e.runFinished(finished(19, 'pass'));
  const step = await e.consider();
  assert.ok(step);
  assert.deepEqual({ noise: step.noise, noiseAt: step.noiseAt, fromRun: step.fromRun }, { noise: 0.1, noiseAt: 'sync', fromRun: 20 });
  assert.equal(said[0], 'no failure in 20 runs: noise now at sync points, p 0.1 (from run 20)');
  assert.deepEqual(inFlight, { noise: 0.1, noiseAt: 'accesses' }, 'a run keeps the noise it started with');
  assert.deepEqual(e.runNoise(20), { noise: 0.1, noiseAt: 'sync' });
  // one failure in 20 keeps the level
  for (let i = 21; i < 40; i++) e.runNoise(i);
  for (let i = 20; i < 40; i++) e.runFinished(finished(i, i === 33 ? 'fail' : 'pass'));
  assert.equal(await e.consider(), undefined);
  const m = parseRecordingManifest(JSON.parse(readFileSync(path.join(dir, 'recording.json'), 'utf8')));
  assert.ok(typeof m !== 'string', String(m));
  assert.equal(m.noiseAt, 'sync');
  assert.deepEqual(m.exposure, [
    { fromRun: 0, noise: 0.1, noiseAt: 'accesses' },
    { fromRun: 20, noise: 0.1, noiseAt: 'sync' },
  ]);
  assert.equal(triedText(e.levels, 40), 'noise 0.1 at accesses (runs 0–19), noise 0.1 at sync points (runs 20–39)');
});

test('the last level is PCT scheduling: said in the progress line, named in what was tried, and the manifest says pct with noise 0 (a fix check schedules by PCT too)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exposure-pct-'));
  const manifest = { format: 'braid-recording', version: 1, command: ['java', 'x.Main'], cwd: dir, name: 'x', runs: 200, noise: 0.3, noiseAt: 'all', seed: 1, include: [], exclude: [], timeoutSeconds: 60, startedAt: '2026-11-29T09:00:00.000Z' };
  writeFileSync(path.join(dir, 'recording.json'), JSON.stringify(manifest));
  const said: string[] = [];
  const e = new AdaptiveExposure({ noise: 0.3, noiseAt: 'all', outDir: dir }, 10, (_s, text) => said.push(text));
  assert.ok(e.hasPct);
  assert.equal(e.reachedPct, false);
  for (let i = 0; i < 20; i++) {
    e.runNoise(i);
    e.runFinished(finished(i, 'pass'));
  }
  const step = await e.consider();
  assert.ok(step?.pct, 'the level after both at 0.3 is PCT');
  assert.equal(e.reachedPct, true);
  assert.equal(said[0], 'no failure in 20 runs: pct scheduling now (a random priority per thread, 2 change points), depth 3, no noise (from run 20)');
  assert.deepEqual(e.runNoise(20), { noise: 0, noiseAt: 'all', pct: { depth: 3 } });
  // the last level: never widened further
  for (let i = 21; i < 60; i++) e.runNoise(i);
  for (let i = 20; i < 60; i++) e.runFinished(finished(i, 'pass'));
  assert.equal(await e.consider(), undefined);
  assert.equal(triedText(e.levels, 60), 'noise 0.3 at accesses and sync points (runs 0–19), pct scheduling (depth 3) (runs 20–59)');
  const m = parseRecordingManifest(JSON.parse(readFileSync(path.join(dir, 'recording.json'), 'utf8')));
  assert.ok(typeof m !== 'string', String(m));
  assert.deepEqual([m.noise, m.noiseAt, m.pct], [0, undefined, { depth: 3 }]);
  assert.deepEqual(m.exposure, [
    { fromRun: 0, noise: 0.3, noiseAt: 'all' },
    { fromRun: 20, noise: 0, pct: { depth: 3 } },
  ]);
  // the Node.js recorder's last level is PCT for the event loop too
  assert.equal(new AdaptiveExposure({ noise: 0.3, noiseAt: 'all', outDir: dir, recorder: 'node' }).hasPct, true);
});

test('a run at the PCT level gets the scheduler\'s agent options and no noise, whatever the recording\'s noise', () => {
  const o = { command: ['java', 'x.Main'], runs: 10, noise: 0.3, noiseAt: 'all', include: ['x'], exclude: [], outDir: '/tmp/x', timeoutSeconds: 60, jobs: 1, seed: 1, name: 'x', cwd: '/tmp' } as RecordOptions;
  const spec = { index: 3, execution: 'x-0003', seed: '4', tracePath: '/tmp/x/x-0003.trace.jsonl', logPath: '/tmp/x/x-0003.log' };
  const lines = agentOptionLines({ ...spec, noise: 0, noiseAt: 'all', pct: { depth: 3 }, pctSteps: 640 }, o);
  assert.ok(lines.includes('noise=0'), lines.join(' '));
  for (const l of ['noiseMode=pct', 'pctDepth=3', 'pctSteps=640']) assert.ok(lines.includes(l), `${l} missing: ${lines.join(' ')}`);
  assert.ok(!lines.some((l) => l.startsWith('noiseAt=')), lines.join(' '));
  const before = agentOptionLines(spec, o);
  assert.ok(before.includes('noise=0.3') && before.includes('noiseAt=all') && !before.some((l) => l.startsWith('noiseMode=')), before.join(' '));
});

test('a manifest with a bad exposure list is refused, naming the field', () => {
  const base = { format: 'braid-recording', version: 1, command: ['java', 'x.Main'], cwd: '/tmp', noise: 0.1 };
  assert.equal(parseRecordingManifest({ ...base, exposure: [{ fromRun: 0, noise: 2, noiseAt: 'all' }] }), 'exposure[0].noise: must be a probability from 0 to 1, got 2');
  assert.equal(parseRecordingManifest({ ...base, exposure: [{ fromRun: 0, noise: 0.1, noiseAt: 'here' }] }), 'exposure[0].noiseAt: must be "accesses", "sync" or "all", got "here"');
  assert.match(String(parseRecordingManifest({ ...base, exposure: {} })), /^exposure: must be an array/);
  assert.equal(parseRecordingManifest({ ...base, exposure: [{ fromRun: 0, noise: 0.1, noiseAt: 'accesses' }, { fromRun: 80, noise: 0, pct: { depth: 0 } }] }), 'exposure[1].pct: must be {"depth": D} with D a whole number from 1 to 100');
  assert.equal(parseRecordingManifest({ ...base, exposure: [{ fromRun: 80, noise: 0.1, pct: { depth: 3 } }] }), 'exposure[0].noise: must be 0 at a pct level, got 0.1');
  assert.equal(parseRecordingManifest({ ...base, exposure: [{ fromRun: 80, noise: 0, noiseAt: 'all', pct: { depth: 3 } }] }), 'exposure[0].noiseAt: a pct level has no noiseAt, got "all"');
});

test('a manifest\'s pct (--noise-mode pct) is read back, a bad one refused naming the field', () => {
  const base = { format: 'braid-recording', version: 1, command: ['java', 'x.Main'], cwd: '/tmp', noise: 0 };
  const m = parseRecordingManifest({ ...base, pct: { depth: 2 } });
  assert.ok(typeof m !== 'string', String(m));
  assert.deepEqual(m.pct, { depth: 2 });
  assert.equal(parseRecordingManifest({ ...base, pct: { depth: 0 } }), 'pct: must be {"depth": D} with D a whole number from 1 to 100');
  assert.equal(parseRecordingManifest({ ...base, pct: 'yes' }), 'pct: must be {"depth": D} with D a whole number from 1 to 100');
});

test('the Testing view\'s report of a test that never failed names the noise levels tried', () => {
  const r = testRunReport({ runs: 60, failed: 0, passed: 60, outDir: '/ws/.braid/traces/T-1', cancelled: false, stopped: 'max-runs', leadPValue: null, tried: 'noise 0.1 at accesses (runs 0–19), noise 0.1 at sync points (runs 20–59)' }, undefined, 'T.m');
  assert.match(r.output.join('\n'), /It never failed with noise 0\.1 at accesses \(runs 0–19\), noise 0\.1 at sync points \(runs 20–59\): Braid: Find Trigger Points/);
});

test('braid test --noise-mode: adaptive, uniform or pct, anything else refused by name', () => {
  assert.equal(parseTestArgs(['bank.AccountTest#m', '--noise-mode', 'uniform']).noiseMode, 'uniform');
  assert.equal(parseTestArgs(['bank.AccountTest#m', '--noise-mode', 'pct']).noiseMode, 'pct');
  assert.equal(parseTestArgs(['bank.AccountTest#m']).noiseMode, undefined);
  assert.throws(() => parseTestArgs(['bank.AccountTest#m', '--noise-mode', 'pcts']), /--noise-mode needs adaptive, uniform or pct, got "pcts"/);
});

test('braid test --noise-mode pct: the recording schedules by PCT (no noise) and adaptive exposure stays off', () => {
  const args = parseTestArgs(['bank.AccountTest#m', '--noise-mode', 'pct']);
  const plan = { tool: 'junit', name: 'T', command: ['java', '-cp', 'out', 'org.junit.platform.console.ConsoleLauncher'], cwd: '/ws', include: ['bank'], prepare: [] } as unknown as Parameters<typeof recordOptionsFor>[1];
  const o = recordOptionsFor(args, plan, false);
  assert.deepEqual([o.noise, o.pct], [0, { depth: 3 }]);
  assert.equal(adaptiveExposureFor({ ...o, outDir: '/tmp/x' }, 'pct'), undefined);
  assert.equal(adaptiveExposureFor({ ...o, outDir: '/tmp/x' }, 'adaptive'), undefined);
});

/**
 * recordRuns' loop with `jobs` workers, step by step and without processes: each start awaits
 * beforeRun(finished) and takes runNoise(index); runs finish oldest first while the other jobs' runs
 * are still going (every run passes). Returns each run's noise level as the ladder's index.
 */
async function simulate(control: RecordControl, onFinished: (p: RecordProgress) => void, jobs: number, total: number): Promise<void> {
  const going: number[] = [];
  let next = 0;
  let done = 0;
  const start = async () => {
    if (next >= total || !(await control.beforeRun!(done))) return;
    const index = next++;
    control.runNoise?.(index);
    going.push(index);
  };
  for (let j = 0; j < jobs; j++) await start();
  while (going.length) {
    const index = going.shift()!;
    done++;
    onFinished({ type: 'run', run: { index, outcome: 'pass', traces: [] }, done, total, passed: done, failed: 0 } as unknown as RecordProgress);
    await start();
  }
}

test('with 2 jobs each level gets its 20 runs, not 30: the step comes when the level\'s 20th run finishes, not at a round\'s end (PCT from run 84, not 111)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exposure-jobs-'));
  const fromRuns = async (jobs: number) => {
    const e = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: dir }, 10);
    await simulate(e, (p) => e.runFinished(p), jobs, 120);
    return e.steps.map((s) => s.fromRun);
  };
  // a run of the level before is still going when a level starts: 21 runs for the first level, 21 for each after
  assert.deepEqual(await fromRuns(2), [21, 42, 63, 84], 'the bench and a fixed --runs N with 2 jobs');
  // one job: the levels' 20 runs each, PCT from run 80, as before
  assert.deepEqual(await fromRuns(1), [20, 40, 60, 80], 'one job');

  // --runs auto: the evidence rounds widen mid-round too, and the round callback says the steps since the last round
  const said: { finished: number; steps: number[] }[] = [];
  const e = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: dir }, 10);
  const rounds = new EvidenceRounds(DEFAULT_EVIDENCE_STOP, (_h, finished, steps) => {
    if (steps.length) said.push({ finished, steps: steps.map((s) => s.fromRun) });
  }, e);
  await simulate(rounds, (p) => rounds.runFinished(p), 2, 120);
  assert.deepEqual(e.steps.map((s) => s.fromRun), [21, 42, 63, 84], '--runs auto with 2 jobs');
  assert.deepEqual(e.steps.map((s) => s.because), ['no failure in 20 runs', 'no failure in 20 runs', 'no failure in 20 runs', 'no failure in 20 runs']);
  assert.ok(e.steps[3].pct, 'the last step is PCT');
  // each step is said once, at the first round's end after it
  assert.deepEqual(said, [
    { finished: 20, steps: [21] },
    { finished: 50, steps: [42] },
    { finished: 70, steps: [63] },
    { finished: 90, steps: [84] },
  ]);
});

test('every run fails: the noise steps down (half, a quarter, none) for passing runs to compare with; never after widening, never back up; the manifest keeps the noise that made them fail', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-exposure-down-'));
  const manifest = { format: 'braid-recording', version: 1, command: ['java', 'x.Main'], cwd: dir, name: 'x', runs: 200, noise: 0.1, seed: 1, include: [], exclude: [], timeoutSeconds: 60, startedAt: '2026-11-30T09:00:00.000Z' };
  writeFileSync(path.join(dir, 'recording.json'), JSON.stringify(manifest));
  const said: string[] = [];
  const e = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: dir }, 10, (_s, text) => said.push(text));
  assert.deepEqual(e.calmer, [{ noise: 0.05, noiseAt: 'accesses' }, { noise: 0.03, noiseAt: 'accesses' }, { noise: 0, noiseAt: 'accesses' }]);
  let run = 0;
  const batch = async (n: number, outcome: (k: number) => 'pass' | 'fail') => {
    for (let k = 0; k < n; k++, run++) {
      e.runNoise(run);
      e.runFinished(finished(run, outcome(k)));
    }
    return e.consider();
  };
  const s1 = await batch(20, () => 'fail');
  assert.deepEqual(s1 && { noise: s1.noise, noiseAt: s1.noiseAt, fromRun: s1.fromRun, lower: s1.lower }, { noise: 0.05, noiseAt: 'accesses', fromRun: 20, lower: true });
  assert.equal(said[0], 'all 20 runs failed: less noise now, p 0.05 (from run 20), for passing runs to compare with');
  // one passing run in 20 keeps the calmer level
  assert.equal(await batch(20, (k) => (k === 7 ? 'pass' : 'fail')), undefined);
  assert.deepEqual(e.current, { noise: 0.05, noiseAt: 'accesses' });
  // 1 passing in 30 is fewer than one per 20: down again, then to no noise
  assert.equal((await batch(10, () => 'fail'))?.noise, 0.03);
  const s3 = await batch(20, () => 'fail');
  assert.equal(s3?.noise, 0);
  assert.equal(said[2], "all 20 runs failed: no noise now, the program's own timing (from run 70), for passing runs to compare with");
  assert.equal(await batch(20, () => 'fail'), undefined, 'nothing below no noise');
  assert.equal(await batch(20, () => 'pass'), undefined, 'never back up (no widening after a step down)');
  assert.deepEqual(e.runNoise(run), { noise: 0, noiseAt: 'accesses' });
  const m = parseRecordingManifest(JSON.parse(readFileSync(path.join(dir, 'recording.json'), 'utf8')));
  assert.ok(typeof m !== 'string', String(m));
  assert.equal(m.noise, 0.1, 'a fix check records with the noise that made the runs fail');
  assert.deepEqual(m.exposure, [
    { fromRun: 0, noise: 0.1, noiseAt: 'accesses' },
    { fromRun: 20, noise: 0.05, noiseAt: 'accesses' },
    { fromRun: 50, noise: 0.03, noiseAt: 'accesses' },
    { fromRun: 70, noise: 0, noiseAt: 'accesses' },
  ]);
  assert.equal(triedText(e.levels, 130), 'noise 0.1 at accesses (runs 0–19), noise 0.05 at accesses (runs 20–49), noise 0.03 at accesses (runs 50–69), no noise (runs 70–129)');

  // widened first (no failure), then every run fails: no step down
  const w = new AdaptiveExposure({ noise: 0.1, noiseAt: 'accesses', outDir: dir }, 10);
  for (let i = 0; i < 20; i++) {
    w.runNoise(i);
    w.runFinished(finished(i, 'pass'));
  }
  assert.equal((await w.consider())?.noiseAt, 'sync');
  for (let i = 20; i < 40; i++) {
    w.runNoise(i);
    w.runFinished(finished(i, 'fail'));
  }
  assert.equal(await w.consider(), undefined);
  assert.deepEqual(w.current, { noise: 0.1, noiseAt: 'sync' });
});
