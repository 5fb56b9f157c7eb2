/**
 * Many runs of one JUnit test in one JVM (issue 29, point 2; server/src/recorder/java/repeatedRuns.ts,
 * Braid's RepeatLauncher in dist/braid-launcher.jar): the JUnit console launcher command Braid builds
 * for a test is recorded as repetitions in one JVM, each its own trace (execution id, header, noise
 * seed, outcome line with the assertion message) — and the analysis still ranks the root cause first;
 * a repetition that leaves a thread running ends its JVM (the next run starts a fresh one); a
 * failed static initializer ends it too; `--fresh-jvm` keeps one JVM per run. Uses the sample
 * JUnit 5 project (test/fixtures/junit5-sample) and Debian's junit5 console launcher.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureCopy, JUNIT_CONSOLE, junitToolsSkip, recordTest } from '../helpers/junitProject';
import { tempDir } from '../helpers/traceBuilder';
import { bugLinesIn, rootCauseFirst } from '../helpers/rootCause';
import { parseRepetitionReport, repeatCommandFor, runnerJitOptions, LAUNCHER_MAIN } from '../../server/src/recorder/java/repeatedRuns';
import { analyzeInputsRanked } from '../../server/src/engine/summary/workspaceAnalysis';

const CONSOLE = JUNIT_CONSOLE;
const skip = junitToolsSkip();

/** A copy of the sample project; extra test sources added. */
const project = (extra: Record<string, string> = {}) => fixtureCopy('junit5-sample', extra);

function record(ws: string, test: string, runs: number, more: string[] = []) {
  return recordTest(ws, test, ['--runs', String(runs), '--noise', '0.1', '--seed', '11', ...more]);
}

function header(file: string): { execution: string; recorder: { options: { seed: string; pid: number } } } {
  return JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
}

function outcome(file: string): Record<string, unknown> {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

test('repeatCommandFor: the console launcher command Braid builds becomes the RepeatLauncher on the same class path; others stay one JVM per run', async () => {
  // the runner JVM compiles with C1 only, before the test's own JVM options (which win); BRAID_FULL_JIT=1 keeps the default
  const JIT = ['-XX:TieredStopAtLevel=1'];
  assert.deepEqual(runnerJitOptions({}), JIT);
  assert.deepEqual(runnerJitOptions({ BRAID_FULL_JIT: '1' }), []);
  const cmd = ['java', '-jar', '/usr/share/java/junit-platform-console-standalone-1.9.1.jar', '--disable-banner', '--disable-ansi-colors', '--details=summary', '--fail-if-no-tests', '--class-path', '/w/out:/w/lib/a.jar', '--select-method', 'bank.AccountTest#x'];
  const r = (await repeatCommandFor(cmd, '/d/braid-launcher.jar'));
  // the class path's folder (the project's classes) is loaded afresh by each repetition (freshStatic.test.ts); the jars stay on -cp
  assert.deepEqual(r, {
    command: ['java', ...JIT, '-cp', [cmd[2], '/d/braid-launcher.jar', '/w/lib/a.jar'].join(path.delimiter), LAUNCHER_MAIN, '--fresh-classes', '/w/out', '--select-method', 'bank.AccountTest#x'],
    program: cmd[2],
    freshClasses: ['/w/out'],
    sharedCommand: ['java', ...JIT, '-cp', [cmd[2], '/d/braid-launcher.jar', '/w/out:/w/lib/a.jar'].join(path.delimiter), LAUNCHER_MAIN, '--select-method', 'bank.AccountTest#x'],
  });
  assert.deepEqual((await repeatCommandFor(['java', '-Xmx1g', '-jar', CONSOLE, '-cp', 'out', '-c', 'a.B'], 'L.jar'))?.command, ['java', ...JIT, '-Xmx1g', '-cp', [CONSOLE, 'L.jar'].join(path.delimiter), LAUNCHER_MAIN, '--fresh-classes', 'out', '--select-class', 'a.B']);
  // the Maven plan's @file class path (dependency:build-classpath's file) is read, relative to cwd
  const dir = tempDir();
  writeFileSync(path.join(dir, 'cp.txt'), '/m/lib/junit.jar:/m/lib/x.jar\n');
  const maven = [...cmd.slice(0, 7), '--class-path', '/m/target/test-classes', '--class-path', '@cp.txt', '--select-method', 'a.B#c'];
  assert.deepEqual((await repeatCommandFor(maven, 'L.jar', dir))?.command, ['java', ...JIT, '-cp', [cmd[2], 'L.jar', '/m/lib/junit.jar:/m/lib/x.jar'].join(path.delimiter), LAUNCHER_MAIN, '--fresh-classes', '/m/target/test-classes', '--select-method', 'a.B#c']);
  // an unreadable file, or one of several words: one JVM per run
  assert.equal((await repeatCommandFor([...cmd.slice(0, 8), '@/w/missing-cp.txt', '--select-method', 'a.B#c'], 'L.jar')), undefined);
  writeFileSync(path.join(dir, 'two.txt'), '/a.jar /b.jar\n');
  assert.equal((await repeatCommandFor([...cmd.slice(0, 8), '@two.txt', '--select-method', 'a.B#c'], 'L.jar', dir)), undefined);
  // other launcher options, other programs: one JVM per run
  assert.equal((await repeatCommandFor([...cmd, '--include-tag', 'slow'], 'L.jar')), undefined);
  assert.equal((await repeatCommandFor(['java', '-jar', '/x/app.jar', '--select-class', 'a.B'], 'L.jar')), undefined);
  assert.equal((await repeatCommandFor(['mvn', '-o', 'test'], 'L.jar')), undefined);
  assert.equal((await repeatCommandFor(cmd.slice(0, 9), 'L.jar')), undefined, 'no selector');
  assert.deepEqual(parseRepetitionReport('{"execution":"e-1","outcome":"fail","message":"m","last":true}'), { execution: 'e-1', outcome: 'fail', message: 'm', last: true });
  assert.equal(parseRepetitionReport('{"outcome":"fail"'), undefined);
});

test('30 runs of a flaky JUnit 5 test in one JVM: 30 traces with their own ids, seeds and outcomes (the assertion message on the failing ones); the root cause ranks first', { skip, timeout: 240_000 }, async () => {
  const ws = project();
  const { summary } = await record(ws, 'bank.AccountTest#concurrentDepositsAreAllKept', 30);
  assert.equal(summary.total, 30);
  assert.equal(summary.jvms, 1, 'one JVM for all runs');
  assert.ok(summary.failed > 0 && summary.passed > 0, `failed ${summary.failed}, passed ${summary.passed}`);
  const traces = readdirSync(path.join(ws, 'traces')).filter((f) => f.endsWith('.trace.jsonl')).sort();
  assert.equal(traces.length, 30);
  assert.equal(readdirSync(path.join(ws, 'traces')).filter((f) => f.endsWith('.log')).length, 30);
  const pids = new Set<number>();
  traces.forEach((f, k) => {
    const h = header(path.join(ws, 'traces', f));
    assert.equal(h.execution, f.replace(/\.trace\.jsonl$/, ''));
    assert.equal(h.recorder.options.seed, String(11 + k), 'run k has seed S+k');
    pids.add(h.recorder.options.pid);
    const out = outcome(path.join(ws, 'traces', f));
    const run = summary.runs[k];
    assert.equal(out.outcome, run.outcome);
    if (out.outcome === 'fail') {
      assert.match(String(out.message), /^org\.opentest4j\.AssertionFailedError: every deposit kept ==> expected: <100> but was: <\d+>$/);
      assert.deepEqual(out.location, { file: 'bank/AccountTest.java', line: 29, method: 'bank.AccountTest.concurrentDepositsAreAllKept' });
      assert.match(readFileSync(run.logPath, 'utf8'), /AssertionFailedError: every deposit kept/);
    } else assert.equal(out.message, undefined);
  });
  assert.equal(pids.size, 1, 'every trace was written by one JVM');
  // a failing repetition's test method ends by throwing into JUnit (not recorded): its frame must not
  // stay under the next repetitions' stacks (before, they grew by one frame per failing run)
  traces.forEach((f) => {
    const locMethod = new Map<number, string>();
    const stacks = new Map<number, number[]>();
    for (const line of readFileSync(path.join(ws, 'traces', f), 'utf8').split('\n')) {
      if (line.startsWith('{"def":"loc"')) {
        const d = JSON.parse(line);
        locMethod.set(d.id, d.method);
      } else if (line.startsWith('{"def":"stack"')) {
        const d = JSON.parse(line);
        stacks.set(d.id, d.frames ?? [...(stacks.get(d.parent) ?? []), d.frame]);
      } else if (line.startsWith('[') && /^\[\d+,\d+,"[RW]"/.test(line)) {
        const frames = stacks.get(JSON.parse(line)[5]) ?? [];
        const own = frames.filter((l) => locMethod.get(l) === 'bank.AccountTest.concurrentDepositsAreAllKept').length;
        assert.ok(own <= 1, `${f}: the test method ${own} times on one access's stack`);
      }
    }
  });
  // each file on its own is a valid trace: analyzed without errors, and the root cause comes first
  const { result } = await analyzeInputsRanked([path.join(ws, 'traces')], {});
  assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.equal(result.executions.total, 30);
  assert.equal(result.executions.failed, summary.failed);
  const check = rootCauseFirst(result, bugLinesIn(path.join(ws, 'src/main/java')));
  assert.ok(check.ok, check.why);
});

const LINGER = `package bank;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Leaves a non-daemon thread running after the test. */
class LingerTest {
  @Test
  void leavesAThread() {
    Account account = new Account();
    Thread t = new Thread(() -> {
      account.deposit(1);
      try {
        Thread.sleep(20_000);
      } catch (InterruptedException e) {
        return;
      }
    }, "lingerer");
    t.start();
    assertEquals(0, 0);
  }
}
`;

test('a repetition that leaves a thread running ends its JVM: the next run starts a fresh one', { skip, timeout: 120_000 }, async () => {
  const ws = project({ 'src/test/java/bank/LingerTest.java': LINGER });
  const { summary } = await record(ws, 'bank.LingerTest#leavesAThread', 3);
  assert.equal(summary.total, 3);
  assert.equal(summary.passed, 3);
  assert.equal(summary.jvms, 3, 'a JVM per run: each left a thread running');
  const pids = new Set(summary.runs.map((r) => header(r.traces[0]).recorder.options.pid));
  assert.equal(pids.size, 3);
  assert.match(readFileSync(summary.runs[0].logPath, 'utf8'), /threads left running by this run: .*lingerer.*the next run starts a fresh JVM/);
});

const BROKEN_INIT = `package bank;

import org.junit.jupiter.api.Test;

/** A static initializer that fails: every later use of the class in this JVM is a NoClassDefFoundError. */
class BrokenInitTest {
  static final int VALUE = init();

  static int init() {
    new Account().deposit(1);
    return Integer.parseInt("not a number");
  }

  @Test
  void usesTheClass() {
    new Account().deposit(VALUE);
  }
}
`;

test('a failed static initializer of the project\'s class stays in its repetition\'s class loader: each run fails the same way, in one JVM', { skip, timeout: 120_000 }, async () => {
  const ws = project({ 'src/test/java/bank/BrokenInitTest.java': BROKEN_INIT });
  const { summary } = await record(ws, 'bank.BrokenInitTest#usesTheClass', 2);
  assert.equal(summary.failed, 2);
  assert.equal(summary.jvms, 1);
  // the initializer ran again in the second run (with shared classes: NoClassDefFoundError, Could not initialize class)
  for (const r of summary.runs) assert.match(String(r.message), /ExceptionInInitializerError|NumberFormatException/);
});

test('--fresh-jvm keeps one JVM per run', { skip, timeout: 120_000 }, async () => {
  const ws = project();
  const { summary } = await record(ws, 'bank.AccountTest#singleDeposit', 3, ['--fresh-jvm']);
  assert.equal(summary.total, 3);
  assert.equal(summary.passed, 3);
  assert.equal(summary.jvms, undefined, 'not repetitions');
  const pids = new Set(summary.runs.map((r) => header(r.traces[0]).recorder.options.pid));
  assert.equal(pids.size, 3);
});

const JUNIT4 = `package bank;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class OldStyleTest {
  @Test
  public void deposits() throws Exception {
    Account account = new Account();
    Runnable clerk = () -> {
      for (int i = 0; i < 5; i++) account.deposit(10);
    };
    Thread a = new Thread(clerk);
    Thread b = new Thread(clerk);
    a.start();
    b.start();
    a.join();
    b.join();
    assertEquals("every deposit kept", 100, account.balance());
  }
}
`;

test('a JUnit 4 test (the vintage engine of the console launcher\'s jar): repetitions in one JVM too, the failing runs with JUnit 4\'s message', { skip: skip || (!existsSync('/usr/share/java/junit4.jar') && 'Debian junit4 not installed'), timeout: 120_000 }, async () => {
  const ws = project({ 'src/test/java/bank/OldStyleTest.java': JUNIT4 });
  const { summary } = await record(ws, 'bank.OldStyleTest#deposits', 20, ['--noise', '0.3']);
  assert.equal(summary.total, 20);
  assert.equal(summary.jvms, 1);
  assert.ok(summary.failed > 0, 'some run failed');
  for (const r of summary.runs) {
    if (r.outcome === 'fail') {
      assert.match(String(r.message), /^java\.lang\.AssertionError: every deposit kept expected:<100> but was:<\d+>$/);
      assert.deepEqual(r.location, { file: 'bank/OldStyleTest.java', line: 20, method: 'bank.OldStyleTest.deposits' });
    } else assert.equal(r.message, undefined);
  }
});
