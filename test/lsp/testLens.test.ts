/**
 * The "Braid: find the root cause" code lens over the real language server (stdio), on a copy of
 * the sample JUnit 5 project (test/fixtures/junit5-sample): lenses above the test class and
 * methods, braid/testCommand for a lens, and braid/record of that test (compiled first) when
 * Debian's junit5 jars and the recorder agent are there.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, cleanup, ROOT } from './lspHarness';
import type { RecordResult, RunsResult, SuggestCommandResult, TestCommandResult } from '../../server/src/lsp/protocol';

const TEST = 'src/test/java/bank/AccountTest.java';
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const canRecord = existsSync(LAUNCHER) && existsSync(path.join(ROOT, 'dist/braid-agent.jar'));

describe('test code lens on the sample JUnit 5 project', () => {
  let ws: string;
  let s: LspSession;
  let uri: string;
  let text: string;
  const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

  before(async () => {
    ws = mkdtempSync(path.join(tmpdir(), 'braid-junit5-lsp-'));
    cpSync(path.join(ROOT, 'test/fixtures/junit5-sample'), ws, { recursive: true });
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
    text = readFileSync(path.join(ws, TEST), 'utf8');
    uri = await s.open(TEST, text);
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('a lens above the test class and each test method, none above other methods', async () => {
    const lenses: any[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    const ours = lenses.filter((l) => l.command?.command === 'braid.recordTest');
    assert.deepEqual(
      ours.map((l) => [l.range.start.line, l.command.title, l.command.arguments[0].method ?? null]),
      [
        [lineOf('class AccountTest'), 'Braid: find the root cause', null],
        [lineOf('void concurrentDepositsAreAllKept'), 'Braid: find the root cause', 'concurrentDepositsAreAllKept'],
        [lineOf('void singleDeposit'), 'Braid: find the root cause', 'singleDeposit'],
      ],
    );
    for (const l of ours) {
      assert.equal(l.command.arguments[0].className, 'bank.AccountTest');
      assert.equal(l.command.arguments[0].framework, 'junit5');
      assert.equal(l.command.arguments[0].uri, uri);
    }
    const main = await s.open('src/main/java/bank/Account.java', readFileSync(path.join(ws, 'src/main/java/bank/Account.java'), 'utf8'));
    const none: any[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: main } });
    assert.deepEqual(none.filter((l) => l.command?.command === 'braid.recordTest'), [], 'no lens in a class without tests');
  });

  test('braid/testCommand: javac into .braid/build/classes, then the console launcher selecting the method', { skip: !existsSync(LAUNCHER) && 'Debian junit5 not installed' }, async () => {
    const r: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'bank.AccountTest', method: 'concurrentDepositsAreAllKept', framework: 'junit5' });
    assert.equal(r.tool, 'junit-console');
    assert.equal(r.prepare[0].command[0], 'javac');
    assert.equal(r.cwd, ws);
    assert.equal(r.name, 'AccountTest.concurrentDepositsAreAllKept');
    assert.deepEqual(r.include, ['bank']);
    assert.match(r.commandLine, /^java -jar \S*junit-platform-console-standalone\S*\.jar .* --select-method bank\.AccountTest#concurrentDepositsAreAllKept$/);
  });

  test('braid/testCommand names what is missing; braid/suggestCommand offers the main class of the open editor', async () => {
    await assert.rejects(s.connection.sendRequest('braid/testCommand', { uri, method: 'x' }), /needs "uri".*"className"/);
    const bank = await s.open('src/main/java/bank/Main.java', 'package bank;\npublic class Main { public static void main(String[] a) {} }');
    const sug: SuggestCommandResult = await s.connection.sendRequest('braid/suggestCommand', { uri: bank });
    assert.equal(sug.commandLine, 'java src/main/java/bank/Main.java');
  });

  test('braid/record of the lens\'s test: compiled once, N runs named after the test, analyzed', { skip: !canRecord && 'needs Debian junit5 and dist/braid-agent.jar (npm run build)', timeout: 180_000 }, async () => {
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'bank.AccountTest', method: 'concurrentDepositsAreAllKept', framework: 'junit5' });
    const since = s.notes.length;
    const res: RecordResult = await s.connection.sendRequest('braid/record', { command: plan.command, runs: 3, jobs: 2, noise: 0.1, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, timeoutSeconds: 60 });
    assert.equal(res.runs, 3);
    assert.equal(res.failed + res.passed, 3);
    assert.ok(existsSync(path.join(ws, '.braid/build/classes/bank/AccountTest.class')), 'compiled by the prepare step');
    const traces = readdirSync(res.outDir).filter((f) => f.endsWith('.trace.jsonl'));
    assert.equal(traces.length, 3);
    assert.ok(traces.every((f) => f.startsWith('AccountTest.concurrentDepositsAreAllKept-')), traces.join(', '));
    assert.ok(s.notes.slice(since).some((n) => n.method === 'braid/recordProgress' && /^Preparing: javac/.test(n.params.message ?? '')), 'progress tells about compiling');
    await s.analysisDone(since, (st) => st.executions.total === 3);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.equal(runs.runs.length, 3);
    // the accesses are of the code under test, not JUnit's
    const trace = readFileSync(path.join(res.outDir, traces[0]), 'utf8');
    assert.match(trace, /bank\/Account\.java/);
    assert.doesNotMatch(trace, /org\/junit/);
  });

  test('braid/record runs "auto" (the lens\' default): rounds of 10 analyzed, the evidence in the progress, stopped at the budget', { skip: !canRecord && 'needs Debian junit5 and dist/braid-agent.jar (npm run build)', timeout: 180_000 }, async () => {
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'bank.AccountTest', method: 'concurrentDepositsAreAllKept', framework: 'junit5' });
    const since = s.notes.length;
    // 12 runs cannot reach p < 1e-6 (at best 1/C(12,6)): the budget stops it, after one round's analysis at 10 runs
    const res: RecordResult = await s.connection.sendRequest('braid/record', { command: plan.command, runs: 'auto', maxRuns: 12, jobs: 2, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare });
    assert.equal(res.runs, 12);
    assert.equal(res.stopped, 'max-runs');
    const lead = res.leadPValue;
    assert.ok(lead === null || (lead !== undefined && lead > 1e-6 && lead < 0.05), String(lead));
    const progress = s.notes.slice(since).filter((n) => n.method === 'braid/recordProgress').map((n) => n.params);
    assert.ok(progress.every((p) => p.total === 12), 'the budget is the total');
    const round = progress.find((p) => p.evidence);
    assert.ok(round, 'a progress notification with the evidence after the first round');
    assert.match(round.evidence, /^(no failing run yet|no cause pattern with evidence yet|lead P\d+ on bank\.Account\.balance \(\d+ failed, \d+ passed\), p = \S+ \(needs < 1e-6\)(; \d+ bugs? of \d+ not settled yet)?)$/);
    assert.ok(round.done >= 10);
    await assert.rejects(s.connection.sendRequest('braid/record', { command: plan.command, runs: 'many' }), /"runs" ≥ 1 or "auto"/);
    await assert.rejects(s.connection.sendRequest('braid/record', { command: plan.command, runs: 'auto', maxRuns: 0 }), /"maxRuns" must be a whole number ≥ 1/);
  });

  test('a compile error in the prepare step stops the recording with the compiler\'s message', { skip: !existsSync(LAUNCHER) && 'Debian junit5 not installed', timeout: 60_000 }, async () => {
    writeFileSync(path.join(ws, 'src/main/java/bank/Broken.java'), 'package bank;\nclass Broken { int x = ; }\n');
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'bank.AccountTest', framework: 'junit5' });
    await assert.rejects(
      s.connection.sendRequest('braid/record', { command: plan.command, runs: 2, name: plan.name, cwd: plan.cwd, prepare: plan.prepare }),
      (e: Error) => /Preparing the test failed \(javac exit 1\)/.test(e.message) && /Broken\.java:2/.test(e.message),
    );
  });

  test('braid.testLens.enabled false: no test lenses', async () => {
    const off = new LspSession(ws, { testLens: { enabled: false } });
    try {
      await off.initialize();
      await off.analysisDone();
      const u = await off.open(TEST, text);
      const lenses: any[] = await off.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: u } });
      assert.deepEqual(lenses.filter((l) => l.command?.command === 'braid.recordTest'), []);
    } finally {
      await off.close();
    }
  });

  test('braid/record refuses a working folder outside the workspace', async () => {
    await assert.rejects(s.connection.sendRequest('braid/record', { command: ['java', '-version'], runs: 1, cwd: '/' }), /outside the workspace folder/);
  });
});
