/**
 * Issue 30, point 2: the real failure of a run — the assertion or exception message and where the
 * program raised it — from the test framework's output, the agent's FAIL event or uncaught line,
 * instead of "exit code 1"; in the JSON report, the run DTOs, the labels and the bugs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { failureSummary, MAX_FAILURE_MESSAGE, parseFailureOutput, runFailure, shortFailureMessage } from '../../server/src/engine/runFailure';
import { Analyzer } from '../../server/src/engine/analysis';
import { jsonReport } from '../../server/src/engine/report/jsonReport';
import { toRunDto, failuresOf } from '../../server/src/lsp/analysisState';
import { failureWords, runLabel } from '../../client/src/runLabel';

const JUNIT5_CONSOLE = `
Thanks for using JUnit! Support its development at https://junit.org/sponsoring

\u001b[36m╷\u001b[0m
\u001b[36m│     └─\u001b[0m \u001b[31mconcurrentDepositsAreAllKept()\u001b[0m \u001b[31m✘\u001b[0m \u001b[31mevery deposit kept ==> expected: <100> but was: <90>\u001b[0m

Failures (1):
  JUnit Jupiter:AccountTest:concurrentDepositsAreAllKept()
    MethodSource [className = 'bank.AccountTest', methodName = 'concurrentDepositsAreAllKept', methodParameterTypes = '']
    => org.opentest4j.AssertionFailedError: every deposit kept ==> expected: <100> but was: <90>
       org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
       org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:560)
       bank.AccountTest.braid$assert$0(AccountTest.java)
       bank.AccountTest.concurrentDepositsAreAllKept(AccountTest.java:29)
       java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)
       [...]

Test run finished after 83 ms
[         1 tests failed          ]
`;

test('JUnit 5 console launcher: the assertion message and the test method\'s line (framework and stub frames skipped)', () => {
  assert.deepEqual(parseFailureOutput(JUNIT5_CONSOLE), {
    message: 'org.opentest4j.AssertionFailedError: every deposit kept ==> expected: <100> but was: <90>',
    location: { file: 'bank/AccountTest.java', line: 29, method: 'bank.AccountTest.concurrentDepositsAreAllKept' },
    assertion: true,
  });
});

test('Maven Surefire, JUnitCore (JUnit 4), TestNG and a plain uncaught exception', () => {
  const maven = `[INFO] Running bank.AccountTest
[ERROR] Tests run: 1, Failures: 1, Errors: 0, Skipped: 0
[ERROR] concurrentDepositsAreAllKept  Time elapsed: 0.05 s  <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <2> but was: <1>
\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
\tat bank.AccountTest.concurrentDepositsAreAllKept(AccountTest.java:25)
[ERROR] Failures:
[ERROR]   AccountTest.concurrentDepositsAreAllKept:25 expected: <2> but was: <1>
`;
  assert.deepEqual(parseFailureOutput(maven), { message: 'org.opentest4j.AssertionFailedError: expected: <2> but was: <1>', location: { file: 'bank/AccountTest.java', line: 25, method: 'bank.AccountTest.concurrentDepositsAreAllKept' }, assertion: true });
  const junit4 = `JUnit version 4.13.2\n.E\nTime: 0.01\nThere was 1 failure:\n1) deposits(bank.AccountTest)\njava.lang.AssertionError: expected:<100> but was:<90>\n\tat org.junit.Assert.fail(Assert.java:89)\n\tat org.junit.Assert.assertEquals(Assert.java:633)\n\tat bank.AccountTest.deposits(AccountTest.java:31)\n`;
  assert.equal(parseFailureOutput(junit4)?.message, 'java.lang.AssertionError: expected:<100> but was:<90>');
  assert.equal(parseFailureOutput(junit4)?.location?.line, 31);
  const testng = `FAILED: deposits\njava.lang.AssertionError: expected [100] but found [90]\n\tat org.testng.Assert.fail(Assert.java:110)\n\tat bank.AccountNgTest.deposits(AccountNgTest.java:18)\n`;
  assert.deepEqual(parseFailureOutput(testng)?.location, { file: 'bank/AccountNgTest.java', line: 18, method: 'bank.AccountNgTest.deposits' });
  const plain = 'Exception in thread "main" java.lang.IllegalStateException: out of stock\n\tat shop.Inventory.take(Inventory.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:840)\n';
  assert.deepEqual(parseFailureOutput(plain), { message: 'java.lang.IllegalStateException: out of stock', location: { file: 'shop/Inventory.java', line: 42, method: 'shop.Inventory.take' }, assertion: false });
  const gradle = 'AccountTest > concurrentDepositsAreAllKept() FAILED\n    org.opentest4j.AssertionFailedError at AccountTest.java:29\n';
  assert.deepEqual(parseFailureOutput(gradle), { message: 'org.opentest4j.AssertionFailedError', location: { file: 'AccountTest.java', line: 29 }, assertion: true });
  // prose that names an exception is not a report; a JVM that never started reports no failure of the program
  assert.equal(parseFailureOutput('we handle java.lang.IllegalStateException gracefully\n'), undefined);
  assert.equal(parseFailureOutput('ok\n'), undefined);
});

test('com.sun.* and javax.* frames: a class-path library on Java 9+ (no module prefix), the JDK with one or on Java 8', () => {
  // Jersey 1.x's NPE as Java 17 prints it: the JDK's frames carry their module, Jersey's do not
  const java17 = 'Exception in thread "pool-1-thread-2" java.lang.NullPointerException: view\n' +
    '\tat java.base/java.util.HashMap.putMapEntries(HashMap.java:496)\n' +
    '\tat com.sun.jersey.client.impl.CopyOnWriteHashMap.getView(CopyOnWriteHashMap.java:167)\n' +
    '\tat cow.CowDriverTest.lambda$readers$0(CowDriverTest.java:40)\n' +
    '\tat java.base/java.lang.Thread.run(Thread.java:840)\n';
  assert.deepEqual(parseFailureOutput(java17)?.location, { file: 'com/sun/jersey/client/impl/CopyOnWriteHashMap.java', line: 167, method: 'com.sun.jersey.client.impl.CopyOnWriteHashMap.getView' });
  // the JDK's own com.sun / javax classes print with their module: skipped as before
  const jdkModule = 'Exception in thread "main" java.lang.IllegalStateException: closed\n' +
    '\tat jdk.httpserver/com.sun.net.httpserver.HttpServer.stop(HttpServer.java:10)\n' +
    '\tat java.xml/javax.xml.parsers.DocumentBuilder.parse(DocumentBuilder.java:20)\n' +
    '\tat web.ServerTest.stops(ServerTest.java:12)\n';
  assert.equal(parseFailureOutput(jdkModule)?.location?.method, 'web.ServerTest.stops');
  // Java 8 prints no modules: com.sun / javax stay the JDK's by name
  const java8 = 'Exception in thread "main" java.lang.IllegalStateException: closed\n' +
    '\tat com.sun.net.httpserver.HttpServer.stop(HttpServer.java:10)\n' +
    '\tat web.ServerTest.stops(ServerTest.java:12)\n' +
    '\tat java.lang.Thread.run(Thread.java:748)\n';
  assert.equal(parseFailureOutput(java8)?.location?.method, 'web.ServerTest.stops');
});

test('the failure: the runner\'s reading first, then the FAIL event, the uncaught line, the detail; a time limit stays a time limit', () => {
  const failEvent = { kind: 'assert', detail: 'org.opentest4j.AssertionFailedError: expected: <2> but was: <1>', location: { file: 'bank/AccountTest.java', line: 25, method: 'bank.AccountTest.t' } };
  assert.deepEqual(runFailure({ outcome: 'fail', reason: 'exit-code', detail: 'exit code 1', failEvent }), { reason: 'assertion', message: failEvent.detail, location: failEvent.location });
  assert.deepEqual(runFailure({ outcome: 'fail', reason: 'exit-code', detail: 'exit code 1', message: 'java.lang.AssertionError: boom', location: { file: 'a/B.java', line: 3 } }), { reason: 'assertion', message: 'java.lang.AssertionError: boom', location: { file: 'a/B.java', line: 3 } });
  const uncaught = [{ thread: 3, exception: 'java.lang.ArrayIndexOutOfBoundsException', message: 'Index 4 out of bounds for length 4', frames: ['java.base/java.util.Arrays.copyOf(Arrays.java:3)', 'vectorcopy.MyVector.toArray(MyVector.java:33)'] }];
  assert.deepEqual(runFailure({ outcome: 'fail', reason: 'exception', detail: 'java.lang.ArrayIndexOutOfBoundsException: Index 4 out of bounds for length 4 in thread 3', uncaught }), {
    reason: 'exception',
    message: 'java.lang.ArrayIndexOutOfBoundsException: Index 4 out of bounds for length 4',
    location: { file: 'vectorcopy/MyVector.java', line: 33, method: 'vectorcopy.MyVector.toArray' },
  });
  assert.deepEqual(runFailure({ outcome: 'fail', reason: 'timeout', detail: 'no exit within 60 s; process tree killed', failEvent }), { reason: 'timeout', message: 'no exit within 60 s; process tree killed', location: failEvent.location });
  assert.deepEqual(runFailure({ outcome: 'fail', reason: 'exit-code', detail: 'exit code 3' }), { reason: 'exit-code', message: 'exit code 3' });
  assert.equal(runFailure({ outcome: 'pass', reason: 'ok' }), undefined);
  // bounded, one line: a hostile message cannot blow up a label
  const long = runFailure({ outcome: 'fail', reason: 'exit-code', message: 'java.lang.AssertionError: ' + 'x\n'.repeat(5000) })!;
  assert.ok(long.message!.length <= MAX_FAILURE_MESSAGE && !long.message!.includes('\n') && long.message!.endsWith('…'));
  assert.equal(shortFailureMessage('org.opentest4j.AssertionFailedError: expected: <2> but was: <1>'), 'AssertionFailedError: expected: <2> but was: <1>');
  assert.equal(failureSummary({ reason: 'assertion', message: 'org.opentest4j.AssertionFailedError: x', location: { file: 'bank/AccountTest.java', line: 25 } }), 'AssertionFailedError: x at AccountTest.java:25');
});

const FAILING = [
  '{"braid":"trace","version":1,"execution":"AccountTest.deposits-0001","program":"AccountTest"}',
  '{"def":"thread","id":1,"name":"main"}',
  '{"def":"var","id":0,"name":"bank.Account.balance"}',
  '{"def":"loc","id":1,"file":"bank/Account.java","line":8,"method":"bank.Account.deposit"}',
  '{"def":"loc","id":2,"file":"bank/AccountTest.java","line":29,"method":"bank.AccountTest.deposits","harness":true}',
  '[1,1,"R",0,1]',
  '[2,1,"W",0,1]',
  '[3,1,"FAIL",2,null,"assert","org.opentest4j.AssertionFailedError: expected: <2> but was: <1>"]',
  '{"outcome":"fail","reason":"exit-code","detail":"exit code 1"}',
];

test('analysis: a failing run carries its failure (FAIL event) into the JSON report, the summaries and the run DTO', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-failure-'));
  writeFileSync(path.join(dir, 'a.trace.jsonl'), FAILING.join('\n') + '\n');
  // the runner's reading of the output (outcome message/location) wins over the FAIL event
  writeFileSync(
    path.join(dir, 'b.trace.jsonl'),
    [...FAILING.slice(0, -1).map((l) => l.replace('deposits-0001', 'deposits-0002')), '{"outcome":"fail","reason":"exit-code","detail":"exit code 1","message":"java.lang.AssertionError: from the output","location":{"file":"bank/AccountTest.java","line":30}}'].join('\n') + '\n',
  );
  writeFileSync(path.join(dir, 'c.trace.jsonl'), ['{"braid":"trace","version":1,"execution":"AccountTest.deposits-0003"}', '{"outcome":"pass"}'].join('\n') + '\n');
  const a = new Analyzer();
  for (const f of ['a', 'b', 'c']) await a.addTrace(path.join(dir, `${f}.trace.jsonl`));
  const result = a.rank();
  const byId = new Map(result.runs.map((r) => [r.execution, r]));
  assert.deepEqual(byId.get('AccountTest.deposits-0001')!.failure, {
    reason: 'assertion',
    message: 'org.opentest4j.AssertionFailedError: expected: <2> but was: <1>',
    location: { file: 'bank/AccountTest.java', line: 29, method: 'bank.AccountTest.deposits' },
  });
  assert.deepEqual(byId.get('AccountTest.deposits-0002')!.failure, { reason: 'assertion', message: 'java.lang.AssertionError: from the output', location: { file: 'bank/AccountTest.java', line: 30 } });
  assert.equal(byId.get('AccountTest.deposits-0003')!.failure, undefined);
  const json = JSON.parse(JSON.stringify(jsonReport(result))) as { runs: { execution: string; failure?: unknown }[] };
  assert.deepEqual(json.runs.find((r) => r.execution === 'AccountTest.deposits-0001')!.failure, byId.get('AccountTest.deposits-0001')!.failure);
  // a summary (shards, snapshots) keeps it
  const summary = JSON.parse(JSON.stringify(a.toSummary())) as ReturnType<Analyzer['toSummary']>;
  assert.deepEqual(summary.runs.find((r) => r.execution === 'AccountTest.deposits-0001')!.failure, byId.get('AccountTest.deposits-0001')!.failure);
  const merged = new Analyzer();
  merged.addSummary(summary);
  assert.deepEqual(merged.runResults().find((r) => r.execution === 'AccountTest.deposits-0001')!.failure, byId.get('AccountTest.deposits-0001')!.failure);
  // the run DTO and the label: the message, not "exit code"
  const dto = toRunDto(byId.get('AccountTest.deposits-0001')!);
  assert.equal(dto.failure?.reason, 'assertion');
  assert.equal(runLabel(dto), 'AccountTest #1 ✗ AssertionFailedError: expected: <2> but was: <1>');
  assert.equal(failureWords({ ...dto, failure: { reason: 'timeout', message: 'no exit within 60 s' } }), 'timeout');
  // a bug's failing runs: their distinct failures, most frequent first
  const dtos = result.runs.map((r) => toRunDto(r));
  assert.deepEqual(
    failuresOf([dtos[0], dtos[0], dtos[1], undefined]).map((f) => [f.message, f.runs]),
    [
      [dtos[0].failure!.message, 2],
      [dtos[1].failure!.message, 1],
    ],
  );
});
