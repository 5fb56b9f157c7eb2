/**
 * The "Braid: find the root cause" code lens on a TypeScript node:test file over the real language
 * server (stdio), on a copy of test/fixtures/e2e/ts-flaky (its node_modules a link to the
 * repository's, for tsx): lenses above the describe block and each test, braid/testCommand gives
 * `node --import tsx --test --test-name-pattern=^…$ src/inventory.test.ts` in the project folder,
 * names tsx when it is missing, and braid/record of that command (the Node.js recorder) records
 * accesses on the `.ts` lines.
 */
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, cleanup, ROOT } from './lspHarness';
import type { RecordResult, RecordTestArgs, TestCommandResult } from '../../server/src/lsp/protocol';

const TEST = 'src/inventory.test.ts';
const canRecord = existsSync(path.join(ROOT, 'dist/braid-node-hook.mjs'));

describe('test code lens on a TypeScript node:test project', () => {
  let ws: string;
  let s: LspSession;
  let uri: string;
  let text: string;
  const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

  before(async () => {
    ws = mkdtempSync(path.join(tmpdir(), 'braid-ts-lsp-'));
    cpSync(path.join(ROOT, 'test/fixtures/e2e/ts-flaky'), ws, { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(ws, 'node_modules'), 'dir');
    // the server itself keeps this test runner's NODE_TEST_CONTEXT out of the recorded `node --test` (runOnce.ts)
    s = new LspSession(ws);
    await s.initialize();
    await s.analysisDone();
    text = readFileSync(path.join(ws, TEST), 'utf8');
    uri = await s.open(TEST, text, 'typescript');
  });
  after(async () => {
    await s?.close();
    cleanup(ws);
  });

  const lenses = async (u: string) => ((await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri: u } })) as any[]).filter((l) => l.command?.command === 'braid.recordTest');

  test('a lens above the describe block and each test, carrying its names; none in the module under test', async () => {
    const ours = await lenses(uri);
    assert.deepEqual(
      ours.map((l) => [l.range.start.line, l.command.title, (l.command.arguments[0] as RecordTestArgs).titles]),
      [
        [lineOf("describe('Inventory'"), 'Braid: find the root cause', ['Inventory']],
        [lineOf("test('two concurrent orders"), 'Braid: find the root cause', ['Inventory', 'two concurrent orders are both reserved']],
        [lineOf("test('one order'"), 'Braid: find the root cause', ['Inventory', 'one order']],
      ],
    );
    for (const l of ours) {
      const a = l.command.arguments[0] as RecordTestArgs;
      assert.equal(a.framework, 'js');
      assert.equal(a.runner, 'node-test');
      assert.equal(a.className, 'inventory.test.ts');
      assert.equal(a.uri, uri);
    }
    assert.equal(ours[0].command.arguments[0].suite, true);
    const main = await s.open('src/inventory.ts', readFileSync(path.join(ws, 'src/inventory.ts'), 'utf8'), 'typescript');
    assert.deepEqual(await lenses(main), [], 'no lens in a module without tests');
  });

  test('braid/testCommand: node --import tsx --test with the test\'s name pattern, in the project folder', async () => {
    const [, lens] = await lenses(uri);
    const r: TestCommandResult = await s.connection.sendRequest('braid/testCommand', lens.command.arguments[0]);
    assert.equal(r.tool, 'node-test');
    assert.deepEqual(r.command, ['node', '--import', 'tsx', '--test', '--test-name-pattern=^two concurrent orders are both reserved$', 'src/inventory.test.ts']);
    assert.equal(r.cwd, ws);
    assert.equal(r.name, 'inventory.two-concurrent-orders-are-both-reserved');
    assert.deepEqual(r.include, []);
    assert.deepEqual(r.prepare, []);
    assert.equal(r.commandLine, 'node --import tsx --test "--test-name-pattern=^two concurrent orders are both reserved$" src/inventory.test.ts');
    const suite: TestCommandResult = await s.connection.sendRequest('braid/testCommand', (await lenses(uri))[0].command.arguments[0]);
    assert.deepEqual(suite.command, ['node', '--import', 'tsx', '--test', '--test-name-pattern=^Inventory$', 'src/inventory.test.ts']);
    // the whole file: no titles
    const file: TestCommandResult = await s.connection.sendRequest('braid/testCommand', { uri, className: 'inventory.test.ts', framework: 'js' });
    assert.deepEqual(file.command, ['node', '--import', 'tsx', '--test', 'src/inventory.test.ts']);
  });

  test('braid/record of the lens\'s command: the Node.js recorder, runs named after the test, accesses on the .ts lines', { skip: !canRecord && 'needs dist/braid-node-hook.mjs (node scripts/build.mjs)', timeout: 120_000 }, async () => {
    const [, lens] = await lenses(uri);
    const plan: TestCommandResult = await s.connection.sendRequest('braid/testCommand', lens.command.arguments[0]);
    const since = s.notes.length;
    const res: RecordResult = await s.connection.sendRequest('braid/record', { command: plan.command, runs: 4, jobs: 2, noise: 0.5, include: plan.include, name: plan.name, cwd: plan.cwd, prepare: plan.prepare, timeoutSeconds: 60 });
    assert.equal(res.runs, 4);
    assert.equal(res.failed + res.passed, 4);
    const traces = readdirSync(res.outDir).filter((f) => f.endsWith('.trace.jsonl'));
    assert.equal(traces.length, 4, traces.join(', '));
    assert.ok(traces.every((f) => f.startsWith('inventory.two-concurrent-orders-are-both-reserved-')), traces.join(', '));
    const trace = readFileSync(path.join(res.outDir, traces[0]), 'utf8');
    // the reads and writes of Inventory.reserved at the // @bug lines of the TypeScript source, nothing of tsx or node_modules
    const bugLines = readFileSync(path.join(ws, 'src/inventory.ts'), 'utf8').split('\n').flatMap((l, i) => (l.includes('// @bug') ? [i + 1] : []));
    assert.equal(bugLines.length, 2);
    assert.match(trace, /inventory\.ts/);
    assert.doesNotMatch(trace, /node_modules/);
    assert.ok(bugLines.every((l) => trace.includes(`"file":"src/inventory.ts","line":${l},"method":"Inventory.reserve"`)), `accesses at inventory.ts:${bugLines.join(', ')}`);
    await s.analysisDone(since, (st) => st.executions.total === 4);
  });

  test('no tsx in the project: braid/testCommand says what is missing', async () => {
    rmSync(path.join(ws, 'node_modules'));
    try {
      const [, lens] = await lenses(uri);
      // the project's test script loads tsx (`node --import tsx --test`): it must be installed
      await assert.rejects(s.connection.sendRequest('braid/testCommand', lens.command.arguments[0]), /loads tsx, but tsx is not installed in .*run npm install/);
    } finally {
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(ws, 'node_modules'), 'dir');
    }
  });
});
