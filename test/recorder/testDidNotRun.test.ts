/**
 * A run in which the test never ran is not a failing run (server/src/recorder/java/testDidNotRun.ts,
 * the RepeatLauncher's outcome `norun`; docs/recorder.md "A run in which the test did not run"): a
 * selector that matches no test, a method or class whose discovery fails, a test skipped by its
 * condition. Real JVMs on the sample JUnit 5 project (test/fixtures/junit5-sample) with Debian's
 * junit5 console launcher: the recording stops at its first run with the launcher's reason naming
 * the selector, and no trace — so no failing run — is left for the analysis; a later run in which the
 * test did not run is dropped with its execution id, the other runs kept.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fixtureCopy, junitToolsSkip, preparedTestPlan } from '../helpers/junitProject';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { consoleLauncherNotRun, consoleLauncherSelectors } from '../../server/src/recorder/java/testDidNotRun';
import { noRunsIn } from '../../server/src/engine/confirm/couldNotCheck';

const skip = junitToolsSkip();

const HELPER = `package bank;

import org.junit.jupiter.api.Test;

class HelperTest {
  void notATest() {
    new Account().deposit(1);
  }

  @Test
  void real() {
    new Account().deposit(1);
  }
}
`;

/** Runs only while the JVM-wide counter is not 2: the third run in one JVM (system properties outlive a repetition's class loader) skips it. */
const SOMETIMES = `package bank;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

class SometimesTest {
  static boolean notTheThird() {
    new Account().deposit(1);
    int n = Integer.getInteger("braid.sometimes", 0);
    System.setProperty("braid.sometimes", String.valueOf(n + 1));
    return n != 2;
  }

  @Test
  @EnabledIf("notTheThird")
  void deposits() {
    new Account().deposit(2);
  }
}
`;

/** Its superclass's class file is deleted after the build: JUnit cannot discover the class. */
const BASE = `package bank;

abstract class BaseOfBroken {
  Account account = new Account();
}
`;
const BROKEN = `package bank;

import org.junit.jupiter.api.Test;

class BrokenDiscoveryTest extends BaseOfBroken {
  @Test
  void deposits() {
    account.deposit(1);
  }
}
`;

const OLD_STYLE = `package bank;

import org.junit.Test;

public class OldStyleTest {
  @Test
  public void deposits() {
    new Account().deposit(1);
  }
}
`;

/** Not a valid JUnit 4 test class: its test method is not public. */
const INVALID_OLD = `package bank;

import org.junit.Test;

public class InvalidOldTest {
  @Test
  void notPublic() {
    new Account().deposit(1);
  }
}
`;

/** Records the command of `braid test bank.HelperTest#real` with its selector replaced by `select` (`--select-method`/`--select-class` and value). */
async function recordSelector(ws: string, select: string[], runs: number, more: string[] = [], spec = 'bank.HelperTest#real') {
  const plan = preparedTestPlan(ws, spec);
  const at = plan.command.findIndex((a) => a === '--select-method' || a === '--select-class');
  assert.ok(at > 0, `a selector in ${plan.command.join(' ')}`);
  const command = [...plan.command.slice(0, at), ...select, ...plan.command.slice(at + 2)];
  const out = path.join(ws, 'traces');
  const o = parseRecordArgs(['--runs', String(runs), '--noise', '0.1', '--seed', '5', ...more, '--include', ...plan.include, '--name', plan.name, '--out', out, '--', ...command], ws);
  const summary = await recordRuns({ ...o, cwd: plan.cwd });
  return { summary, traces: readdirSync(out).filter((f) => /\.trace\.jsonl(\.part)?/.test(f)), logs: readdirSync(out).filter((f) => f.endsWith('.log')) };
}

test('consoleLauncherNotRun: the console launcher summary with no test started, or its discovery error, names the selector; a run in which a test or a class set-up failed is not one', () => {
  const summary = (found: number, started: number, failed: number, containersFailed = 0, skipped = 0) =>
    `\nTest run finished after 23 ms\n[         3 containers found      ]\n[         0 containers skipped    ]\n[         3 containers started    ]\n[         ${containersFailed} containers failed     ]\n[         ${found} tests found           ]\n[         ${skipped} tests skipped         ]\n[         ${started} tests started         ]\n[         ${failed} tests failed          ]\n`;
  assert.equal(consoleLauncherNotRun(summary(0, 0, 0), 2, ['bank.A#x']), 'no test matched bank.A#x');
  assert.equal(consoleLauncherNotRun(summary(1, 0, 0, 0, 1), 1, ['bank.A#x']), 'bank.A#x was skipped');
  assert.equal(consoleLauncherNotRun(summary(1, 0, 0, 1), 1, ['bank.A#x']), undefined, 'a failed @BeforeAll ran the project code: a failing run');
  assert.equal(consoleLauncherNotRun(summary(1, 1, 1), 1, ['bank.A#x']), undefined, 'a failed test');
  assert.equal(consoleLauncherNotRun(summary(0, 0, 0), 0, ['bank.A#x']), undefined, 'exit code 0: not this');
  assert.equal(consoleLauncherNotRun('boom\n', 1, ['bank.A#x']), undefined, 'not the console launcher');
  const discovery = [
    "org.junit.platform.commons.JUnitException: TestEngine with ID 'junit-jupiter' failed to discover tests",
    '\tat org.junit.platform.launcher.core.EngineDiscoveryOrchestrator.discoverEngineRoot(EngineDiscoveryOrchestrator.java:160)',
    "Caused by: org.junit.platform.commons.JUnitException: ClassSelector [className = 'bank.Nope'] resolution failed",
    'Caused by: org.junit.platform.commons.PreconditionViolationException: Could not load class with name: bank.Nope',
    'Caused by: java.lang.ClassNotFoundException: bank.Nope',
    '\t... 13 more',
  ].join('\n');
  assert.equal(
    consoleLauncherNotRun(discovery, 255, ['bank.Nope']),
    "the discovery of bank.Nope failed: TestEngine with ID 'junit-jupiter' failed to discover tests: ClassSelector [className = 'bank.Nope'] resolution failed: Could not load class with name: bank.Nope: java.lang.ClassNotFoundException: bank.Nope",
  );
  assert.deepEqual(consoleLauncherSelectors(['java', '-jar', 'c.jar', '--select-method', 'a.B#c', '-c', 'a.D', '--select-class=a.E', '--class-path', 'x']), ['a.B#c', 'a.D', 'a.E']);
});

test('Confirm by Forcing and Check the Fix: a group whose test did not run could not be checked "because the test did not run", not "the command failed"', () => {
  const c = noRunsIn('forced', { total: 0, interrupted: false, notReached: { reason: 'no test matched bank.A#x', hint: 'check the test selector', runs: 1, testDidNotRun: true } });
  assert.equal(c.why, 'the test did not run: no test matched bank.A#x (no forced run finished)');
  assert.equal(c.hint, 'check the test selector');
  assert.match(noRunsIn('forced', { total: 0, interrupted: false, notReached: { reason: 'main class a.B not found', hint: 'h', runs: 1 } }).why, /^the command failed: main class a\.B not found/);
});

for (const freshJvm of [false, true]) {
  const how = freshJvm ? 'one JVM per run (--fresh-jvm, the console launcher\'s output)' : 'repetitions in one JVM (the RepeatLauncher\'s norun)';
  const more = freshJvm ? ['--fresh-jvm'] : [];

  test(`${how}: a selector that matches no test stops the recording at its first run with "no test matched <selector>"; no trace, no failing run`, { skip, timeout: 120_000 }, async () => {
    const ws = fixtureCopy('junit5-sample', { 'src/test/java/bank/HelperTest.java': HELPER });
    const { summary, traces, logs } = await recordSelector(ws, ['--select-method', 'bank.HelperTest#notATest'], 20, more);
    assert.equal(summary.total, 0);
    assert.equal(summary.failed, 0);
    assert.deepEqual(traces, [], 'no trace for the analysis');
    assert.equal(summary.notReached?.testDidNotRun, true);
    assert.equal(summary.notReached?.stopped, true);
    assert.equal(summary.notReached?.runs, 1, 'stopped at the first run, not after 20');
    assert.equal(summary.notReached?.reason, 'no test matched bank.HelperTest#notATest');
    assert.equal(logs.length, 1, 'the run\'s log is kept');
  });

  test(`${how}: a method that does not exist and a class whose discovery fails stop the same way, with JUnit's reason`, { skip, timeout: 120_000 }, async () => {
    const ws = fixtureCopy('junit5-sample', { 'src/test/java/bank/HelperTest.java': HELPER });
    const missing = await recordSelector(ws, ['--select-method', 'bank.HelperTest#nope'], 20, more);
    assert.equal(missing.summary.total, 0);
    assert.deepEqual(missing.traces, []);
    assert.equal(missing.summary.notReached?.testDidNotRun, true);
    assert.equal(missing.summary.notReached?.runs, 1);
    assert.match(String(missing.summary.notReached?.reason), /^the discovery of bank\.HelperTest#nope failed: .*Could not find method with name \[nope\] in class \[bank\.HelperTest\]$/);

    const broken = fixtureCopy('junit5-sample', { 'src/test/java/bank/BaseOfBroken.java': BASE, 'src/test/java/bank/BrokenDiscoveryTest.java': BROKEN });
    const plan = preparedTestPlan(broken, 'bank.BrokenDiscoveryTest#deposits');
    // the superclass is gone after the build: loading the test class fails in JUnit's discovery
    const gone = findFiles(broken, 'BaseOfBroken.class');
    assert.ok(gone.length > 0, 'the build wrote BaseOfBroken.class');
    for (const f of gone) rmSync(f);
    const o = parseRecordArgs(['--runs', '20', '--noise', '0.1', ...more, '--include', ...plan.include, '--name', plan.name, '--out', path.join(broken, 'traces'), '--', ...plan.command], broken);
    const summary = await recordRuns({ ...o, cwd: plan.cwd });
    assert.equal(summary.total, 0);
    assert.equal(summary.failed, 0);
    assert.deepEqual(readdirSync(path.join(broken, 'traces')).filter((f) => f.includes('.trace.jsonl')), []);
    assert.equal(summary.notReached?.testDidNotRun, true);
    assert.equal(summary.notReached?.runs, 1);
    assert.match(String(summary.notReached?.reason), /^the discovery of bank\.BrokenDiscoveryTest#deposits failed: .*java\.lang\.NoClassDefFoundError: bank\/BaseOfBroken: java\.lang\.ClassNotFoundException: bank\.BaseOfBroken$/);
  });
}

const junit4Skip = skip || (!existsSync('/usr/share/java/junit4.jar') && 'Debian junit4 not installed');

for (const freshJvm of [false, true]) {
  const how = freshJvm ? 'one JVM per run' : 'repetitions in one JVM';
  test(`${how}: JUnit 4 (vintage) reports a selection it cannot run as a failed initializationError — no test matched, an invalid test class — and that is not a failing run either`, { skip: junit4Skip, timeout: 120_000 }, async () => {
    const more = freshJvm ? ['--fresh-jvm'] : [];
    const ws = fixtureCopy('junit5-sample', { 'src/test/java/bank/OldStyleTest.java': OLD_STYLE, 'src/test/java/bank/InvalidOldTest.java': INVALID_OLD });
    const missing = await recordSelector(ws, ['--select-method', 'bank.OldStyleTest#nope'], 20, more, 'bank.OldStyleTest#deposits');
    assert.equal(missing.summary.total, 0);
    assert.equal(missing.summary.failed, 0);
    assert.deepEqual(missing.traces, []);
    assert.equal(missing.summary.notReached?.testDidNotRun, true);
    assert.equal(missing.summary.notReached?.runs, 1);
    assert.equal(missing.summary.notReached?.reason, 'no test matched bank.OldStyleTest#nope: No tests found matching Method nope(bank.OldStyleTest)');
    rmSync(path.join(ws, 'traces'), { recursive: true });
    const invalid = await recordSelector(ws, ['--select-class', 'bank.InvalidOldTest'], 20, more, 'bank.OldStyleTest#deposits');
    assert.equal(invalid.summary.total, 0);
    assert.deepEqual(invalid.traces, []);
    assert.equal(invalid.summary.notReached?.runs, 1);
    assert.equal(invalid.summary.notReached?.reason, "the discovery of bank.InvalidOldTest failed: Invalid test class 'bank.InvalidOldTest': 1. Method notPublic() should be public");
  });
}

test('repetitions in one JVM: a later run in which the test was skipped (its condition ran the project\'s code) is dropped with its execution id; the runs that ran are kept', { skip, timeout: 120_000 }, async () => {
  const ws = fixtureCopy('junit5-sample', { 'src/test/java/bank/SometimesTest.java': SOMETIMES });
  const { summary, traces } = await recordSelector(ws, ['--select-method', 'bank.SometimesTest#deposits'], 5, [], 'bank.SometimesTest#deposits');
  assert.equal(summary.jvms, 1, 'one JVM: the counter is JVM-wide');
  assert.equal(summary.total, 4);
  assert.equal(summary.passed, 4);
  assert.equal(summary.failed, 0);
  assert.equal(traces.length, 4);
  const nr = summary.notReached;
  assert.equal(nr?.testDidNotRun, true);
  assert.equal(nr?.stopped, false);
  assert.equal(nr?.runs, 1);
  assert.deepEqual(nr?.executions, [summary.runs[0].execution.replace(/\d+$/, (d) => String(2).padStart(d.length, '0'))]);
  assert.match(String(nr?.reason), /^bank\.SometimesTest#deposits was skipped: .*notTheThird/);
  assert.ok(!traces.some((t) => t.startsWith(nr!.executions[0])), 'the skipped run left no trace');
});

function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, name));
    else if (e.name === name) out.push(p);
  }
  return out;
}
