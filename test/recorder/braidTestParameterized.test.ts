/**
 * `braid test Class#method` on a JUnit 5 @ParameterizedTest (stormpot's tests are such; issue 38 had
 * to record them with `braid record`): the console launcher's method selector needs the parameter
 * types, which Braid reads from the test's source; `Class#method(int)` as written works too. A copy
 * of test/fixtures/junit5-sample with a parameterized version of its flaky test.
 */
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { runBraid } from '../helpers/braidCli';

const root = path.resolve(__dirname, '..', '..');
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const skip = (!existsSync(LAUNCHER) && `the JUnit console launcher ${LAUNCHER} is missing (install Debian's junit5 package)`) || (!existsSync(path.join(root, 'dist/braid-agent.jar')) && 'dist/braid-agent.jar is missing (npm run build)');

const PARAM_TEST = `package bank;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ParamDepositTest {
  @ParameterizedTest
  @ValueSource(ints = {10})
  void concurrentDeposits(int amount) throws InterruptedException {
    Account account = new Account();
    CountDownLatch open = new CountDownLatch(1);
    Runnable clerk = () -> {
      try {
        open.await();
      } catch (InterruptedException e) {
        return;
      }
      for (int i = 0; i < 5; i++) account.deposit(amount);
    };
    Thread a = new Thread(clerk, "clerk-1");
    Thread b = new Thread(clerk, "clerk-2");
    a.start();
    b.start();
    open.countDown();
    a.join();
    b.join();
    assertEquals(10 * amount, account.balance(), "every deposit kept");
  }
}
`;

let ws: string | undefined;
after(() => {
  if (ws) rmSync(ws, { recursive: true, force: true });
});

test('a parameterized test by its name, and with its parameter types: every run runs the test (none "never reached")', { skip, timeout: 300_000 }, async () => {
  ws = tempDir('braid-test-param-');
  cpSync(path.join(root, 'test/fixtures/junit5-sample'), ws, { recursive: true });
  writeFileSync(path.join(ws, 'src/test/java/bank/ParamDepositTest.java'), PARAM_TEST);
  for (const name of ['bank.ParamDepositTest#concurrentDeposits', 'ParamDepositTest#concurrentDeposits(int)']) {
    const r = await runBraid(['test', name, '--project', ws, '--runs', '4', '--format', 'json', '--seed', '5'], root);
    assert.ok(r.code === 0 || r.code === 1, `${name}: exit ${r.code}: ${r.err.slice(-1500)}`);
    let j: any;
    assert.doesNotThrow(() => (j = JSON.parse(r.out)), `${name}: exit ${r.code}, no JSON report: ${r.err.slice(-1500)}`);
    assert.equal(j.executions.total, 4, `${name}: ${r.err.slice(-800)}`);
    // the test ran: its accesses of the account were recorded
    assert.ok(j.patterns.some((p: { accesses: { variable: string }[] }) => p.accesses.some((a) => a.variable === 'bank.Account.balance')), `${name}: ${JSON.stringify(j.patterns.slice(0, 2))}`);
  }
});
