/**
 * The Testing view's requests over the real language server (stdio), on a copy of the sample
 * JUnit 5 project (test/fixtures/junit5-sample): braid/testItems of a file (its open editor's
 * unsaved text first) and of the workspace (the lens' tests, the lens' arguments), and
 * braid/testRunReport after braid/record of the lens' command — "failed k of N (x %)" or "passed N
 * of N with noise" from this recording's analyzed runs — when Debian's junit5 and the agent are there.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspSession, cleanup, ROOT } from './lspHarness';
import type { RecordResult, TestCommandResult, TestItemsResult, TestRunReportDto } from '../../server/src/lsp/protocol';

const TEST = 'src/test/java/bank/AccountTest.java';
const LAUNCHER = '/usr/share/java/junit-platform-console-standalone.jar';
const canRecord = existsSync(LAUNCHER) && existsSync(path.join(ROOT, 'dist/braid-agent.jar'));

describe('Testing view requests on the sample JUnit 5 project', () => {
  let ws: string;
  let s: LspSession;
  let uri: string;

  before(async () => {
    ws = mkdtempSync(path.join(tmpdir(), 'braid-testing-lsp-'));
    cpSync(path.join(ROOT, 'test/fixtures/junit5-sample'), ws, { recursive: true });
    // build outputs and hidden folders are not searched
    mkdirSync(path.join(ws, 'target/generated'), { recursive: true });
    writeFileSync(path.join(ws, 'target/generated/CopyTest.java'), readFileSync(path.join(ws, TEST), 'utf8'));
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
    uri = pathToFileURL(path.join(ws, TEST)).href;
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  test('braid/testItems of the workspace and of a file: the lens\' tests with the lens\' arguments', async () => {
    const all: TestItemsResult = await s.connection.sendRequest('braid/testItems', {});
    assert.deepEqual(all.files.map((f) => f.uri), [uri], 'only the test file; target/ skipped, Account.java has no test');
    const [cls] = all.files[0].items;
    assert.deepEqual([cls.label, cls.description, cls.args], ['AccountTest', 'bank', { uri, className: 'bank.AccountTest', framework: 'junit5' }]);
    assert.deepEqual(cls.children.map((c) => [c.label, c.args.method]), [['concurrentDepositsAreAllKept', 'concurrentDepositsAreAllKept'], ['singleDeposit', 'singleDeposit']]);
    // an open editor's unsaved text wins over the file on disk
    const text = readFileSync(path.join(ws, TEST), 'utf8').replace('void singleDeposit', 'void twoDeposits');
    await s.open(TEST, text);
    const one: TestItemsResult = await s.connection.sendRequest('braid/testItems', { uri });
    const methods = one.files[0].items[0].children;
    assert.deepEqual(methods.map((c) => c.label), ['concurrentDepositsAreAllKept', 'twoDeposits']);
    const lenses: any[] = await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    const methodLenses = lenses.filter((l) => l.command?.command === 'braid.recordTest' && l.command.arguments[0].method);
    assert.deepEqual(
      methods.map((c) => [c.range.start.line, c.range.start.character, c.args]),
      methodLenses.map((l) => [l.range.start.line, l.range.start.character, l.command.arguments[0]]),
      'each item where its lens is, with its argument',
    );
    // a file outside the workspace folder is not read
    const outside = pathToFileURL(path.join(ROOT, 'test/fixtures/junit5-sample', TEST)).href;
    const none: TestItemsResult = await s.connection.sendRequest('braid/testItems', { uri: outside });
    assert.deepEqual(none.files, [{ uri: outside, items: [] }]);
  });

  test('braid/testRunReport needs braid/record\'s answer', async () => {
    await assert.rejects(s.connection.sendRequest('braid/testRunReport', {}), /needs "result"/);
  });

  test('Run with Braid: braid/testCommand, braid/record, then braid/testRunReport in the Testing view\'s words', { skip: !canRecord && 'needs Debian junit5 and dist/braid-agent.jar (npm run build)', timeout: 240_000 }, async () => {
    const all: TestItemsResult = await s.connection.sendRequest('braid/testItems', {});
    const item = all.files[0].items[0].children[0];
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', item.args);
    const result: RecordResult = await s.connection.sendRequest('braid/record', { command: plan.command, runs: 4, jobs: 2, noise: 0.3, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, timeoutSeconds: 60 });
    assert.equal(result.runs, 4);
    const report: TestRunReportDto = await s.connection.sendRequest('braid/testRunReport', { result, what: 'AccountTest.concurrentDepositsAreAllKept' });
    assert.equal(report.runs, 4);
    assert.equal(report.failed, result.failed);
    if (result.failed > 0) {
      assert.equal(report.outcome, 'failed');
      assert.equal(report.summary, `failed ${result.failed} of 4 (${Math.round((result.failed / 4) * 100)} %)`);
      assert.equal(report.message, `flaky: failed ${result.failed} of 4 runs with noise`);
      assert.ok(report.failures.length >= 1, 'the failing runs\' assertion');
      const f = report.failures[0];
      assert.match(f.message ?? '', /every deposit kept/);
      assert.equal(f.location?.line, 29);
      assert.equal(f.location?.uri, uri);
      assert.equal(f.expected, '100');
    } else {
      assert.deepEqual([report.outcome, report.summary, report.suggestTriggerPoints], ['passed', 'passed 4 of 4 with noise', true]);
    }
    assert.match(report.output.join('\n'), new RegExp(`Traces: ${result.outDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    // the recording knows the code it ran (issue 43): its sources.json stamps the test and the class under test
    const stamp = JSON.parse(readFileSync(path.join(result.outDir, 'sources.json'), 'utf8')) as { files: Record<string, string> };
    assert.match(stamp.files[TEST] ?? '', /^[0-9a-f]{64}$/);
  });

  test('a test that does not exist: JUnit\'s own words, not "the command never reached the program" (issue 43)', { skip: !canRecord && 'needs Debian junit5 and dist/braid-agent.jar (npm run build)', timeout: 240_000 }, async () => {
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'bank.AccountTest', framework: 'junit5', method: 'noSuchTest' });
    await assert.rejects(
      s.connection.sendRequest('braid/record', { command: plan.command, runs: 2, jobs: 1, noise: 0.1, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, timeoutSeconds: 60 }),
      (err: Error) => {
        assert.match(err.message, /^The test was not found: .*noSuchTest.*\. Nothing was recorded\.$/);
        assert.doesNotMatch(err.message, /never reached the program|\u001b/);
        return true;
      },
    );
  });
});
