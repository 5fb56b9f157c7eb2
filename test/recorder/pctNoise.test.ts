/**
 * Schedule-based noise on a real JVM (`--noise-mode pct`, issue 41 item 2, the agent's
 * PctScheduler, recorder/runs/pctNoise.ts): the schedule's parameters are a function of the run's
 * seed (same seed → same change points and priorities in the header; the run length learned from
 * the runs before), and PCT exposes an ordering that uniform noise does not give
 * (test/fixtures/java/earlystart: the started thread's whole warm-up before the main thread's next
 * step). No timing assertions: the exposure test records rounds of runs until it has its evidence.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { tempDir } from '../helpers/traceBuilder';
import { inferTestCommand } from '../../server/src/recorder/java/testCommand';
import { locateTest } from '../../server/src/recorder/java/testLocate';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns, RecordSummary } from '../../server/src/recorder/runs/recordRuns';
import { DEFAULT_PCT_STEPS, PctOptions } from '../../server/src/recorder/runs/pctNoise';
import { classesDir, FAST_JVM, prepare, root, workDir } from './recorderHarness';

interface PctHeader {
  depth: number;
  steps: number;
  changePoints: number[];
  priorities: number[];
}
const options = (trace: string) =>
  JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]).recorder.options as { noise: number; noiseMode?: string; seed: string; pct?: PctHeader };

async function record(name: string, main: string, include: string, seed: number, runs: number, pct: PctOptions | undefined, jobs = 2): Promise<RecordSummary> {
  prepare();
  const outDir = path.join(workDir, 'traces', `${name}-${seed}`);
  return recordRuns({
    command: ['java', ...FAST_JVM, '-cp', classesDir, main],
    runs,
    noise: pct ? 0 : 0.1,
    include: [include],
    exclude: [],
    outDir,
    timeoutSeconds: 60,
    jobs,
    seed,
    name,
    cwd: root,
    ...(pct ? { pct } : {}),
  });
}

const byIndex = (s: RecordSummary) => [...s.runs].sort((a, b) => a.index - b.index);

test('pct: the same seed gives the same change points and priorities in the header; the next seed others; the manifest says pct', async () => {
  const a = byIndex(await record('pct-same-a', 'earlystart.Indexer', 'earlystart', 4100, 3, { depth: 3, steps: 500 }));
  const b = byIndex(await record('pct-same-b', 'earlystart.Indexer', 'earlystart', 4100, 3, { depth: 3, steps: 500 }));
  assert.equal(a.length, 3);
  const headers = a.map((r) => options(r.traces[0]));
  for (const [k, h] of headers.entries()) {
    assert.equal(h.noiseMode, 'pct');
    assert.equal(h.noise, 0);
    assert.ok(h.pct, `run ${k}: no pct parameters in the header`);
    assert.equal(h.pct.depth, 3);
    assert.equal(h.pct.steps, 500);
    assert.equal(h.pct.changePoints.length, 2, 'depth 3: two change points');
    for (const c of h.pct.changePoints) assert.ok(c >= 1 && c <= 500, `change point ${c} outside [1, 500]`);
    assert.deepEqual([...h.pct.changePoints].sort((x, y) => x - y), h.pct.changePoints);
    assert.equal(new Set(h.pct.priorities).size, h.pct.priorities.length, 'distinct priorities');
    for (const p of h.pct.priorities) assert.ok(p > 3, `initial priority ${p} not above the change points' (1, 2)`);
    assert.deepEqual(options(b[k].traces[0]).pct, h.pct, `run ${k}: the same seed gave another schedule`);
    // the agent reported the run's schedule
    assert.ok(a[k].pct && a[k].pct.steps > 0 && a[k].pct.threads === 2, `run ${k}: report ${JSON.stringify(a[k].pct)}`);
    // the analysis reads the trace with its pct line without a warning, and sees the events
    const read = await readTrace(a[k].traces[0], { event: () => {} });
    assert.ok(read.ok && read.eventCount > 0);
    assert.deepEqual(read.diagnostics.filter((d) => d.severity !== 'info'), []);
  }
  // run k has seed S + k: other draws
  assert.notDeepEqual(headers[0].pct, headers[1].pct);
  assert.notDeepEqual(headers[1].pct, headers[2].pct);
  const manifest = JSON.parse(readFileSync(path.join(workDir, 'traces', 'pct-same-a-4100', 'recording.json'), 'utf8'));
  assert.deepEqual([manifest.noise, manifest.pct], [0, { depth: 3 }]);
});

test('pct: without a run length given, the first run assumes the default and the next the length the first reported', async () => {
  const runs = byIndex(await record('pct-length', 'earlystart.Indexer', 'earlystart', 4200, 2, { depth: 2 }, 1));
  const first = options(runs[0].traces[0]).pct!;
  assert.equal(first.steps, DEFAULT_PCT_STEPS);
  assert.equal(first.changePoints.length, 1);
  assert.ok(runs[0].pct);
  assert.equal(options(runs[1].traces[0]).pct!.steps, runs[0].pct.steps);
});

test('pct exposes the early start (the indexer\'s warm-up before main publishes) that the same runs with uniform noise do not', async () => {
  // the indexer gets the higher priority in about half the runs; rounds of 10 until 3 failures (at most 60 runs)
  let failed = 0;
  let total = 0;
  const failures: string[] = [];
  for (let round = 0; round < 6 && failed < 3; round++) {
    const s = await record('pct-earlystart', 'earlystart.Indexer', 'earlystart', 4300 + round * 10, 10, { depth: 3 });
    failed += s.failed;
    total += s.total;
    for (const r of s.runs) if (r.outcome === 'fail') failures.push(readFileSync(r.logPath, 'utf8'));
  }
  assert.ok(failed >= 3, `pct: ${failed} failing runs of ${total}`);
  assert.ok(failures.every((log) => log.includes('FAIL dictionary not published')), 'every failure is the early start');
});

test('braid record --noise-mode pct: options, and clear refusals', () => {
  const o = parseRecordArgs(['--noise-mode', 'pct', '--pct-depth', '2', '--noise', '0.2', '--', 'java', '-cp', 'out', 'a.B']);
  assert.deepEqual([o.noise, o.pct], [0, { depth: 2 }]);
  assert.match(o.notes?.join('\n') ?? '', /--noise 0.2 is ignored: --noise-mode pct/);
  assert.deepEqual(parseRecordArgs(['--noise-mode', 'pct', '--', 'java', 'a.B']).pct, { depth: 3 });
  assert.equal(parseRecordArgs(['--noise-mode', 'uniform', '--', 'java', 'a.B']).pct, undefined);
  assert.throws(() => parseRecordArgs(['--noise-mode', 'pcts', '--', 'java', 'a.B']), /--noise-mode needs uniform, adaptive or pct, got "pcts"/);
  assert.throws(() => parseRecordArgs(['--pct-depth', '2', '--', 'java', 'a.B']), /--pct-depth is for --noise-mode pct/);
  assert.throws(() => parseRecordArgs(['--noise-mode', 'pct', '--pct-depth', '0', '--', 'java', 'a.B']), /--pct-depth/);
  // the Node.js recorder schedules the event loop's callbacks (docs/noise.md "PCT for the event loop")
  assert.deepEqual([parseRecordArgs(['--noise-mode', 'pct', '--', 'node', 'test.mjs']).pct, parseRecordArgs(['--noise-mode', 'pct', '--', 'node', 'test.mjs']).recorder], [{ depth: 3 }, 'node']);
});

const CONSOLE = '/usr/share/java/junit-platform-console-standalone.jar';
const missing =
  (!existsSync(CONSOLE) && `the JUnit console launcher ${CONSOLE} is missing (install Debian's junit5 package)`) ||
  (!existsSync(path.join(root, 'dist/braid-launcher.jar')) && 'dist/braid-launcher.jar is missing (node scripts/build-agent.mjs with junit5 installed)');
const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

test('pct in repetitions in one JVM: each repetition\'s header has the schedule of its own seed, and each reports its own', { skip: missing && !process.env.CI ? missing : false }, async () => {
  const ws = tempDir('braid-pct-repeat-');
  made.push(ws);
  cpSync(path.join(root, 'test/fixtures/junit5-sample'), ws, { recursive: true });
  const plan = inferTestCommand(ws, locateTest(ws, 'bank.AccountTest#concurrentDepositsAreAllKept'));
  for (const step of plan.prepare) {
    const r = spawnSync(step.command[0], step.command.slice(1), { cwd: step.cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  const o = parseRecordArgs(['--runs', '4', '--noise-mode', 'pct', '--seed', '11', '--include', ...plan.include, '--name', plan.name, '--out', path.join(ws, 'traces'), '--', ...plan.command], ws);
  const summary = await recordRuns({ ...o, cwd: plan.cwd });
  assert.equal(summary.total, 4);
  // the first JVM assumed the default run length; once the first run reported its own (far shorter),
  // one more JVM with it for the other runs (repeatedRuns.ts pctLengthStale)
  assert.equal(summary.jvms, 2, 'a JVM with the default run length, then one with the length learned');
  const traces = readdirSync(path.join(ws, 'traces')).filter((f) => f.endsWith('.trace.jsonl')).sort();
  assert.equal(traces.length, 4);
  const schedules = traces.map((f, k) => {
    const h = options(path.join(ws, 'traces', f));
    assert.equal(h.seed, String(11 + k));
    assert.equal(h.noiseMode, 'pct');
    assert.ok(h.pct && h.pct.changePoints.length === 2, `run ${k}: ${JSON.stringify(h.pct)}`);
    return JSON.stringify(h.pct);
  });
  assert.equal(new Set(schedules).size, 4, 'each seed its own schedule');
  for (const r of summary.runs) assert.ok(r.pct && r.pct.steps > 0, `run ${r.index}: report ${JSON.stringify(r.pct)}`);
});

test('pct in repetitions in one JVM: a repetition stopped at the time limit keeps its schedule report (the run length learned from it too)', { skip: missing && !process.env.CI ? missing : false }, async () => {
  // issue 41 "pct report lost on a timeout": the JVM's shutdown (the limit's SIGTERM) wrote the report
  // only for a JVM without segments, so a repetition cut short had none and PctRunLength learned from
  // the repetitions that ended alone
  const ws = tempDir('braid-pct-timeout-');
  made.push(ws);
  cpSync(path.join(root, 'test/fixtures/junit5-sample'), ws, { recursive: true });
  writeFileSync(
    path.join(ws, 'src/test/java/bank/HangTest.java'),
    'package bank;\n\nimport org.junit.jupiter.api.Test;\n\nclass HangTest {\n  @Test\n  void depositsThenHangs() throws InterruptedException {\n    Account account = new Account();\n    for (int i = 0; i < 5; i++) account.deposit(10);\n    Object never = new Object();\n    synchronized (never) {\n      never.wait();\n    }\n  }\n}\n',
  );
  const plan = inferTestCommand(ws, locateTest(ws, 'bank.HangTest#depositsThenHangs'));
  for (const step of plan.prepare) {
    const r = spawnSync(step.command[0], step.command.slice(1), { cwd: step.cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  // the limit covers the JVM's start on a busy machine: the test is about the report, not speed
  const o = parseRecordArgs(['--runs', '2', '--noise-mode', 'pct', '--timeout', '15', '--seed', '21', '--include', ...plan.include, '--name', plan.name, '--out', path.join(ws, 'traces'), '--', ...plan.command], ws);
  const summary = await recordRuns({ ...o, cwd: plan.cwd, jobs: 1 });
  const runs = byIndex(summary);
  assert.equal(runs.length, 2);
  for (const r of runs) {
    assert.equal(r.reason, 'timeout', `run ${r.index}: ${r.reason} ${r.detail ?? ''}`);
    assert.ok(r.pct && r.pct.steps > 0, `run ${r.index}: no schedule report after the time limit (${JSON.stringify(r.pct)})`);
  }
  // the second run's JVM assumed the length the first one reported
  assert.equal(options(runs[1].traces[0]).pct!.steps, runs[0].pct!.steps);
});
