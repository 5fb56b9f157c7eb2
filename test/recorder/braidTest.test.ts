/**
 * `braid test` as a user runs it (dist/braid.js, issue 29): the code lens' flow from a terminal on a
 * copy of the sample JUnit 5 project (test/fixtures/junit5-sample; Debian's junit5 console launcher
 * in /usr/share/java) — build, record until the evidence is in, analyze, report with the recording's
 * figures — and its usage errors, a test that cannot be found, a build that fails, a test that never fails.
 */
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { runBraid } from '../helpers/braidCli';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist/braid.js');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const TEST = 'bank.AccountTest#concurrentDepositsAreAllKept';
const noLauncher = !existsSync(LAUNCHER) && `the JUnit console launcher ${LAUNCHER} is missing (install Debian's junit5 package)`;
const noAgent = !existsSync(path.join(root, 'dist/braid-agent.jar')) && 'dist/braid-agent.jar is missing (npm run build)';

before(() => assert.ok(existsSync(cli), 'dist/braid.js is missing: run `npm run build` first'));

const braid = (args: string[], cwd = root) => runBraid(args, cwd);

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function sample(): string {
  const ws = tempDir('braid-test-cli-');
  made.push(ws);
  cpSync(path.join(root, 'test/fixtures/junit5-sample'), ws, { recursive: true });
  return ws;
}

test('usage errors exit 2 and say what is wrong', async () => {
  const cases: [string[], RegExp][] = [
    [['test'], /give the test to run: Class#method or Class/],
    [['test', TEST, '--runs', '0'], /--runs must be a whole number ≥ 1, got "0"/],
    [['test', TEST, '--runs', 'many'], /--runs must be a whole number ≥ 1, got "many"/],
    [['test', TEST, '--runs', '5', '--max-runs', '10'], /--max-runs and --max-seconds go with --runs auto/],
    [['test', TEST, '--format', 'xml'], /--format must be text, json or sarif/],
    [['test', TEST, '--bogus'], /unknown option --bogus/],
    [['test', TEST, 'other.Test'], /give one test, got 2/],
    [['test', TEST, '--project', path.join(root, 'no-such-folder')], /--project .*no-such-folder: no such folder/],
    [['test', TEST, '--noise', '2', '--project', path.join(root, 'test/fixtures/junit5-sample')], /--noise 2: expected a probability between 0 and 1/],
    [['test', TEST, '--noise-at', 'everywhere', '--project', path.join(root, 'test/fixtures/junit5-sample')], /--noise-at needs accesses, sync or all, got "everywhere"/],
  ];
  for (const [args, message] of cases) {
    const r = await braid(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, message, args.join(' '));
    assert.match(r.err, /braid test --help/);
  }
  const help = await braid(['test', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /braid test <Class#method \| Class>/);
  assert.match(help.out, /--runs N\|auto/);
});

test('a test that cannot be found: exit 1, naming what was searched', async () => {
  const ws = sample();
  const r = await braid(['test', 'bank.LedgerTest#x', '--project', ws]);
  assert.equal(r.code, 1);
  assert.match(r.err, /no test class bank\.LedgerTest found: searched 2 \.java file\(s\) under .*, none named LedgerTest\.java/);
  const m = await braid(['test', 'AccountTest#nope', '--project', ws]);
  assert.equal(m.code, 1);
  assert.match(m.err, /bank\.AccountTest \(src\/test\/java\/bank\/AccountTest\.java\) has no test method nope; its tests: concurrentDepositsAreAllKept, singleDeposit/);
  // a class of the code under test is no test class
  const a = await braid(['test', 'bank.Account', '--project', ws]);
  assert.equal(a.code, 1);
  assert.match(a.err, /src\/main\/java\/bank\/Account\.java holds no JUnit 4\/5 or TestNG test class bank\.Account/);
});

test('a build that fails: exit 1 with the compiler\'s last lines; nothing recorded', { skip: noLauncher }, async () => {
  const ws = sample();
  writeFileSync(path.join(ws, 'src/main/java/bank/Broken.java'), 'package bank;\nclass Broken { int x = ; }\n');
  const r = await braid(['test', TEST, '--project', ws]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the build failed \(javac exit 1\)/);
  assert.match(r.err, /\| .*Broken\.java:2/);
  assert.equal(existsSync(path.join(ws, '.braid/traces')), false);
});

test(
  'braid test --runs auto --max-runs 60 --format json: built once, recorded in rounds until the evidence is in, the report of braid analyze with the recording\'s figures',
  { skip: noLauncher || noAgent, timeout: 400_000 },
  async () => {
    const ws = sample();
    const r = await braid(['test', TEST, '--project', ws, '--runs', 'auto', '--max-runs', '60', '--format', 'json', '--seed', '7']);
    assert.ok(r.code === 0 || r.code === 1, r.err);
    const j = JSON.parse(r.out);
    const rec = j.recording;
    // the recording's figures
    assert.equal(rec.test, TEST);
    assert.equal(rec.tool, 'junit-console');
    assert.equal(rec.mode, 'auto');
    assert.equal(rec.seed, 7);
    assert.equal(rec.noise, 0.1);
    assert.deepEqual([rec.runs, rec.failed, rec.passed], [j.executions.total, j.executions.failed, j.executions.passed]);
    assert.ok(rec.runs >= 20 && rec.runs <= 60, `runs ${rec.runs}`);
    assert.ok(rec.seconds > 0 && rec.buildSeconds > 0);
    // (seconds are rounded to 0.1 s: at tens of runs a second, repetitions in one JVM, that rounding shows;
    // runs/s to 0.01: over a long recording that shows too — 60 runs in 40.1 s are 1.5 runs/s, 60.15 runs)
    assert.ok(Math.abs(rec.runsPerSecond * rec.seconds - rec.runs) <= rec.runsPerSecond * 0.05 + rec.seconds * 0.005 + 0.05, `${rec.runsPerSecond} runs/s, ${rec.seconds} s`);
    assert.equal(rec.jvms, 1, 'the runs were repetitions in one JVM');
    assert.deepEqual(rec.rule, { pValue: 1e-6, top: 3, stableRounds: 2, roundRuns: 10, maxRuns: 60, maxSeconds: 300 });
    // a round every 10 runs (one job), the last one the whole recording
    assert.deepEqual(rec.rounds.map((x: { runs: number }) => x.runs), Array.from({ length: rec.runs / 10 }, (_, k) => 10 * (k + 1)));
    // the last round's failing runs that no bug with evidence explains (GRIFFIN ran: failing and passing runs)
    if (rec.failed > 0 && rec.passed > 0) assert.ok(Number.isInteger(rec.rounds.at(-1).unexplained) && rec.rounds.at(-1).unexplained <= rec.failed, JSON.stringify(rec.rounds.at(-1)));
    assert.ok(['evidence', 'max-runs', 'max-seconds'].includes(rec.stopped), rec.stopped);
    if (rec.stopped === 'evidence') {
      assert.ok(rec.leadPValue < 1e-6, `lead p ${rec.leadPValue}`);
      assert.equal(r.code, 0);
    } else assert.equal(rec.runs, 60, `stopped ${rec.stopped} after ${rec.runs} runs`);
    // the exit code says what was found (issue 40): 0 only when the lead reached the rule's p < 1e-6
    assert.equal(r.code, rec.leadPValue !== null && rec.leadPValue < 1e-6 ? 0 : 1);
    // progress on stderr: the build, then each round's runs, failed runs and the lead's p-value
    assert.match(r.err, /braid test: building: javac /);
    assert.match(r.err, /^10 runs, \d+ failed, [\d.]+ s · /m);
    assert.match(r.err, /lead P\d+ on bank\.Account\.balance \(\d+ failed, \d+ passed\), p = /);
    // the root cause: the first pattern is the lost update on bank.Account.balance
    assert.ok(j.executions.failed > 0, 'some run failed');
    const first = j.patterns[0];
    assert.ok(first.accesses.every((a: { variable: string }) => a.variable === 'bank.Account.balance'), JSON.stringify(first.accesses));
    assert.equal(first.group, 'cause');
    assert.ok(Array.isArray(j.bugs) && j.bugs.length >= 1, 'GRIFFIN found the bug');
    // traces where the lens puts them, with the manifest (the build step, the runs recorded)
    assert.equal(path.dirname(rec.traces), path.join(ws, '.braid/traces'));
    assert.match(path.basename(rec.traces), /^AccountTest\.concurrentDepositsAreAllKept-\d{8}-\d{6}$/);
    const manifest = JSON.parse(readFileSync(path.join(rec.traces, 'recording.json'), 'utf8'));
    assert.equal(manifest.runs, rec.runs);
    assert.equal(manifest.prepare[0].command[0], 'javac');
    assert.equal(readdirSync(rec.traces).filter((f) => f.endsWith('.trace.jsonl')).length, rec.runs);
    // the report is braid analyze's of the folder
    const a = await braid(['analyze', rec.traces, '--format', 'json']);
    assert.equal(a.code, 0, a.err);
    const aj = JSON.parse(a.out);
    const { recording: _r, ...report } = j;
    assert.deepEqual(report, aj);
  },
);

test('a test that never fails: stops at the budget, says so and suggests braid pinpoint; exit 1', { skip: noLauncher || noAgent, timeout: 200_000 }, async () => {
  const ws = sample();
  const r = await braid(['test', 'AccountTest#singleDeposit', '--project', ws, '--max-runs', '10', '--jobs', '2']);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /^braid test AccountTest#singleDeposit \(junit-console\): 10 runs in [\d.]+ s \([\d.]+ runs\/s; build [\d.]+ s\), 0 failed, 10 passed — stopped: budget of 10 runs reached$/m);
  assert.match(r.err, /The test never failed in 10 run\(s\) .*braid pinpoint -- java -jar \S*junit-platform-console-standalone\S* .*--select-method bank\.AccountTest#singleDeposit .*Find Trigger Points/);
});

test('a fixed --runs climbs the noise ladder too (adaptive, the default): a test that never fails gets noise at sync points after 20 runs, said in a note, the JSON and each trace\'s header', { skip: noLauncher || noAgent, timeout: 300_000 }, async () => {
  const ws = sample();
  const r = await braid(['test', 'AccountTest#singleDeposit', '--project', ws, '--runs', '26', '--seed', '5', '--format', 'json']);
  assert.equal(r.code, 1, r.err);
  const m = /note: no failure in 20 runs: noise now at sync points, p 0\.1 \(from run (\d+)\)/.exec(r.err);
  assert.ok(m, r.err);
  // one run at a time (braid test's default jobs): the step comes after the 20th run, before the 21st
  const from = Number(m[1]);
  assert.equal(from, 20);
  const rec = JSON.parse(r.out).recording;
  assert.deepEqual([rec.mode, rec.runs, rec.failed], ['fixed', 26, 0]);
  assert.deepEqual(rec.exposure, [{ noise: 0.1, noiseAt: 'accesses', fromRun: 0 }, { noise: 0.1, noiseAt: 'sync', fromRun: from }]);
  // a new noise restarts the JVM of repetitions (one job: one JVM per level)
  assert.equal(rec.jvms, 2);
  const manifest = JSON.parse(readFileSync(path.join(rec.traces, 'recording.json'), 'utf8'));
  assert.deepEqual(manifest.exposure.map((l: { fromRun: number; noiseAt?: string }) => [l.fromRun, l.noiseAt ?? 'accesses']), [[0, 'accesses'], [from, 'sync']]);
  const traces = readdirSync(rec.traces).filter((f) => f.endsWith('.trace.jsonl')).sort();
  assert.equal(traces.length, 26);
  for (const [k, f] of traces.entries()) {
    const h = JSON.parse(readFileSync(path.join(rec.traces, f), 'utf8').split('\n')[0]).recorder.options as { noise: number; noiseAt?: string };
    assert.deepEqual([h.noise, h.noiseAt], k < from ? [0.1, undefined] : [0.1, 'sync'], `run ${k} (${f})`);
  }
  // no run failed: the levels tried, and more runs as --runs (not --max-runs)
  assert.match(r.err, /tried noise 0\.1 at accesses \(runs 0–\d+\), noise 0\.1 at sync points \(runs \d+–25\)\)/);
  assert.match(r.err, /record more runs, so the noise can widen further \(--runs 200\)/);
});
