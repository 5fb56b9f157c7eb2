/**
 * The Testing view's "Run with Braid" profile (client/src/testing.ts) against the `vscode` mock with
 * its Testing API (test/helpers/vscodeTestingMock.ts) and a fake language client: the server's test
 * items become TestItems, the profile's label follows braid.record.runs, a run records the lens'
 * command (braid/testCommand → braid/record, `auto` by default) with its progress in the output,
 * and the server's report marks the test failed (flaky, one message per distinct failure, the root
 * cause) or passed; cancelling cancels the recording; untrusted workspaces record nothing.
 */
import test, { beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/traceBuilder';
import { cancellation, events, MockController, MockTestItem, TestMessage, tests, useTestingMock } from '../helpers/vscodeTestingMock';
import { changeConfiguration, commands, MarkdownString, settings, ui, Uri, workspace } from '../helpers/vscodeMock';
import type { RecordParams, RecordResult, TestItemDto, TestItemsResult, TestRunReportDto } from '../../server/src/lsp/protocol';

const ws = tempDir('braid-testing-');
useTestingMock([ws]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BraidTesting, markdownText, profileLabel, ROOT_CAUSE_COMMAND, FLAKY_MESSAGE_CONTEXT, LONG_RUN_ACKNOWLEDGED, shortSummary, progressText, PROGRESS_CHARS } = require('../../client/src/testing') as typeof import('../../client/src/testing');
const { LAST_COMMAND_KEY } = require('../../client/src/recording') as typeof import('../../client/src/recording');

const FILE = Uri.file(`${ws}/src/test/java/bank/AccountTest.java`).toString();
const dto = (label: string, line: number, method?: string, children: TestItemDto[] = []): TestItemDto => ({
  id: `${FILE}#bank.AccountTest${method ? `#${method}` : ''}`,
  label,
  ...(method ? {} : { description: 'bank' }),
  uri: FILE,
  range: { start: { line, character: 4 }, end: { line, character: 4 + label.length } },
  args: { uri: FILE, className: 'bank.AccountTest', framework: 'junit5', ...(method ? { method } : {}) },
  children,
});
const classDto = () => dto('AccountTest', 5, undefined, [dto('transfers', 9, 'transfers'), dto('deposits', 20, 'deposits')]);

/** the fake language client: answers per method, records requests, keeps the progress handler */
let requests: [string, unknown, unknown][] = [];
let progress: ((p: unknown) => void) | undefined;
let answers: Record<string, (params: unknown, token: unknown) => unknown> = {};
const client = {
  sendRequest: async (method: string, params?: unknown, token?: unknown) => {
    requests.push([method, params, token]);
    const a = answers[method];
    if (!a) throw new Error(`unexpected request ${method}`);
    return a(params, token);
  },
  onNotification: (method: string, handler: (p: unknown) => void) => {
    assert.equal(method, 'braid/recordProgress');
    progress = handler;
    return { dispose: () => (progress = undefined) };
  },
};
const logged: string[] = [];
const log = { info: (m: string) => logged.push(m), error: (m: string) => logged.push(`error: ${m}`) };

const plan = { tool: 'junit-console', prepare: [{ command: ['javac'], cwd: ws }], command: ['java', '-jar', 'launcher.jar'], cwd: ws, name: 'AccountTest.transfers', include: ['bank'], commandLine: 'java -jar launcher.jar' };
const recorded = (over: Partial<RecordResult> = {}): RecordResult => ({ runs: 20, failed: 3, passed: 17, outDir: `${ws}/.braid/traces/x`, cancelled: false, ...over });
const failedReport = (): TestRunReportDto => ({
  outcome: 'failed',
  runs: 20,
  failed: 3,
  summary: 'failed 3 of 20 (15 %)',
  message: 'flaky: failed 3 of 20 runs with noise',
  failures: [
    { reason: 'assertion', message: 'AssertionFailedError: expected: <2> but was: <1>', location: { file: 'bank/AccountTest.java', line: 14, uri: FILE }, runs: 2, expected: '2', actual: '1' },
    { reason: 'exception', message: 'IllegalStateException: closed', runs: 1 },
  ],
  rootCause: { key: 'K1', rank: 1, sentence: 'Thread t1 read balance, then thread t2 wrote it.', score: 0.9, failed: 3, passed: 0, uri: Uri.file(`${ws}/src/main/java/bank/Account.java`).toString(), line: 12, bug: 1 },
  output: ['Braid: AccountTest.transfers failed 3 of 20 (15 %) with noise.', 'Root cause: pattern #1'],
  suggestTriggerPoints: false,
});

let testing: InstanceType<typeof BraidTesting>;
let ctrl: MockController;
const item = (id: string): MockTestItem => {
  const find = (list: MockTestItem[]): MockTestItem | undefined => {
    for (const i of list) {
      if (i.id === id) return i;
      const c = find(i.children.all());
      if (c) return c;
    }
    return undefined;
  };
  const it = find(ctrl.items.all());
  assert.ok(it, `item ${id}`);
  return it;
};
const METHOD = `${FILE}#bank.AccountTest#transfers`;
const CLASS = `${FILE}#bank.AccountTest`;
const runWith = async (include: MockTestItem[] | undefined, token = cancellation().token, exclude?: MockTestItem[]) => {
  await ctrl.profiles[0].runHandler({ include, exclude, profile: ctrl.profiles[0] }, token);
  return ctrl.runs[ctrl.runs.length - 1];
};

beforeEach(async () => {
  for (const k of Object.keys(settings)) delete settings[k];
  ui.reset();
  commands.executed = [];
  requests = [];
  logged.length = 0;
  workspace.isTrusted = true;
  answers = {
    'braid/testItems': (p) => ({ files: (p as { uri?: string }).uri === undefined || (p as { uri?: string }).uri === FILE ? [{ uri: FILE, items: [classDto()] }] : [] }) satisfies TestItemsResult,
    'braid/testCommand': () => plan,
    'braid/record': () => {
      progress?.({ done: 0, total: 200, failed: 0, passed: 0, message: 'Preparing: javac…' });
      progress?.({ done: 10, total: 200, failed: 2, passed: 8, evidence: 'lead P1 on bank.Account.balance (2 failed, 0 passed), p = 1e-2 (needs < 1e-6)' });
      return recorded();
    },
    'braid/testRunReport': () => failedReport(),
  };
  testing?.dispose();
  testing = new BraidTesting(client as never, log as never);
  ctrl = tests.controllers[tests.controllers.length - 1];
  await ctrl.resolveHandler!(undefined);
});

test('the server\'s tests become test items: a class (its package as description) with its methods, at their names', () => {
  assert.equal(ctrl.id, 'braid');
  assert.equal(ctrl.label, 'Braid');
  assert.deepEqual(requests[0].slice(0, 2), ['braid/testItems', {}]);
  const cls = item(CLASS);
  assert.equal(cls.label, 'AccountTest');
  assert.equal(cls.description, 'bank');
  assert.deepEqual(cls.children.all().map((c) => c.label), ['transfers', 'deposits']);
  const m = item(METHOD);
  assert.equal(m.parent, cls);
  assert.equal(m.uri?.toString(), FILE);
  assert.deepEqual([m.range?.start.line, m.range?.start.character, m.range?.end.character], [9, 4, 13]);
});

test('a file\'s items follow its edits and its deletion', async () => {
  answers['braid/testItems'] = () => ({ files: [{ uri: FILE, items: [dto('AccountTest', 5, undefined, [dto('transfers', 9, 'transfers')])] }] });
  await testing.loadFile(FILE);
  assert.deepEqual(item(CLASS).children.all().map((c) => c.label), ['transfers']);
  for (const l of events.watcher.delete) l(Uri.parse(FILE));
  assert.equal(ctrl.items.size, 0);
});

test('listing a file\'s tests again updates its items in place (no delete: the Test Explorer keeps them expanded) and keeps the last run\'s summary beside a test', async () => {
  await runWith([item(METHOD) as never]);
  const deleted: string[] = [];
  const del = ctrl.items.delete.bind(ctrl.items);
  ctrl.items.delete = (id: string) => (deleted.push(id), del(id));
  await testing.loadFile(FILE);
  await testing.loadAll();
  assert.deepEqual(deleted, [], 'a class still in the file is added again under its id, not deleted first');
  assert.equal(item(METHOD).description, '✗ 3/20 · 15 %');
  assert.equal(item(CLASS).description, 'bank');
  answers['braid/testItems'] = () => ({ files: [] });
  await testing.loadAll();
  assert.deepEqual(deleted, [CLASS], 'a class gone from the workspace is deleted');
});

test('the profile: a Run profile, the default, labelled with braid.record.runs (until the evidence is in when unset)', () => {
  const p = ctrl.profiles[0];
  assert.equal(p.kind, 1);
  assert.equal(p.isDefault, true);
  assert.equal(p.label, 'Run with Braid (until the evidence is in, with noise)');
  settings['record.runs'] = 50;
  changeConfiguration('braid.record.runs');
  assert.equal(p.label, 'Run with Braid (50× with noise)');
  assert.equal(profileLabel(20), 'Run with Braid (20× with noise)');
});

test('a test that failed in some runs: recorded as the lens does, progress in its output, failed as flaky with one message per distinct failure and the root cause', async () => {
  const run = await runWith([item(METHOD) as never]);
  const methods = requests.map((r) => r[0]);
  assert.deepEqual(methods.slice(-3), ['braid/testCommand', 'braid/record', 'braid/testRunReport']);
  assert.deepEqual(requests.find((r) => r[0] === 'braid/testCommand')![1], { uri: FILE, className: 'bank.AccountTest', framework: 'junit5', method: 'transfers' });
  const params = requests.find((r) => r[0] === 'braid/record')![1] as RecordParams;
  assert.equal(params.runs, 'auto', 'the lens\' default: until the evidence is in');
  assert.deepEqual([params.name, params.cwd, params.include, params.prepare], [plan.name, plan.cwd, plan.include, plan.prepare]);
  assert.ok(requests.find((r) => r[0] === 'braid/record')![2], 'the run\'s cancellation token goes with the request');
  assert.deepEqual((requests.find((r) => r[0] === 'braid/testRunReport')![1] as { what: string }).what, 'AccountTest.transfers');
  assert.deepEqual(run.events.map((e) => e.slice(0, 2)), [['enqueued', METHOD], ['started', METHOD], ['failed', METHOD]]);
  assert.ok(run.ended);
  const out = run.output.map((o) => o.text).join('');
  assert.ok(run.output.every((o) => o.test === METHOD), 'the output belongs to the test');
  assert.match(out, /^Braid: recording AccountTest\.transfers until the evidence is in with noise 0\.1 \(junit-console\): java -jar launcher\.jar\r\n/);
  assert.match(out, /\r\x1b\[KPreparing: javac…\r\x1b\[K10 runs · 2 failed · lead P1 on bank\.Account\.balance/);
  assert.match(out, /Braid: AccountTest\.transfers failed 3 of 20 \(15 %\) with noise\.\r\nRoot cause: pattern #1\r\n$/);
  assert.equal(item(METHOD).description, '✗ 3/20 · 15 %');
  const messages = run.events[2][2] as TestMessage[];
  assert.equal(messages.length, 3);
  const head = messages[0].message as MarkdownString & { isTrusted?: unknown };
  // the text is escaped (appendText), the link is Markdown
  assert.equal(head.value.replace(/\\(.)/g, '$1'), 'flaky: failed 3 of 20 runs with noise\n\nRoot cause — pattern #1 (Bug 1): Thread t1 read balance, then thread t2 wrote it.\n\n[Show the root cause](command:braid.testing.showRootCause?%5B%22K1%22%5D)');
  assert.deepEqual(head.isTrusted, { enabledCommands: [ROOT_CAUSE_COMMAND] });
  // spaces stay spaces (appendText's &nbsp; kept a long sentence from wrapping in the peek)
  assert.match(head.value, /^flaky\\: failed 3 of 20 runs with noise\n\nRoot cause — pattern \\#1 \\\(Bug 1\\\)\\: Thread t1 read balance\\, /);
  assert.equal(messages[0].location?.uri.toString(), FILE);
  assert.equal(messages[0].location?.range.start.line, 9);
  assert.equal(messages[1].message, 'AssertionFailedError: expected: <2> but was: <1> — 2 of 20 runs');
  assert.deepEqual([messages[1].expectedOutput, messages[1].actualOutput], ['2', '1']);
  assert.equal(messages[1].location?.range.start.line, 13, 'the assertion\'s line (1-based in the report)');
  assert.equal(messages[2].message, 'IllegalStateException: closed — 1 of 20 runs');
  assert.equal(messages[2].location, undefined);
  assert.ok(messages.every((m) => m.contextValue === FLAKY_MESSAGE_CONTEXT), 'the root-cause button on every message');
});

test('message text as Markdown: punctuation, theme icons and HTML escaped, spaces kept', () => {
  assert.equal(markdownText('a $(x) *b* <i> & [c](d) #1'), 'a \\$\\(x\\) \\*b\\* \\<i\\> \\& \\[c\\]\\(d\\) \\#1');
});

test('Test Results messages: "use a weaker Markdown escaper than elsewhere (bare URLs become links)" — the one Markdown escaper (mdText)', () => {
  const { mdText } = require('../../server/src/engine/outputEscaping') as typeof import('../../server/src/engine/outputEscaping');
  for (const s of ['see https://evil.example/x?a=1 now', 'www.evil.example and user@evil.example', 'a\u2028b\rc "q" \'s\' 50% ;:,', 'x <https://evil.example> y']) {
    assert.equal(markdownText(s), mdText(s), s);
  }
  // no bare URL left for a linkifier: the scheme's colon and slashes are escaped
  assert.ok(!/https:\/\//.test(markdownText('see https://evil.example/x')));
  assert.ok(!/www\.evil/.test(markdownText('www.evil.example')));
});

test('the root-cause button and link reveal the pattern in Ranked Patterns and open its first access', async () => {
  await runWith([item(METHOD) as never]);
  ui.reset();
  commands.executed = [];
  await commands.registered.get(ROOT_CAUSE_COMMAND)!({ test: { id: METHOD }, message: {} });
  assert.deepEqual(commands.executed, [['braid.revealPattern', 'K1']]);
  const shown = ui.calls.find((c) => c.fn === 'showTextDocument');
  assert.ok(shown);
  assert.match(String(shown.args[0]), /Account\.java$/);
  assert.equal((shown.args[1] as { selection: { start: { line: number } } }).selection.start.line, 11);
  commands.executed = [];
  await commands.registered.get(ROOT_CAUSE_COMMAND)!('K1');
  assert.deepEqual(commands.executed, [['braid.revealPattern', 'K1']]);
  commands.executed = [];
  await commands.registered.get(ROOT_CAUSE_COMMAND)!({ test: { id: 'unknown' } });
  assert.deepEqual(commands.executed, []);
  assert.ok(ui.calls.some((c) => c.fn === 'showInformationMessage' && /no root cause/.test(String(c.args[0]))));
});

test('a test that never failed passes "passed N of N with noise", its output suggests Find Trigger Points; braid.record.runs is used when set', async () => {
  settings['record.runs'] = 20;
  answers['braid/record'] = () => recorded({ failed: 0, passed: 20 });
  answers['braid/testRunReport'] = () => ({ outcome: 'passed', runs: 20, failed: 0, summary: 'passed 20 of 20 with noise', failures: [], output: ['Braid: AccountTest.transfers passed 20 of 20 with noise.', 'It never failed: Braid: Find Trigger Points looks for the source lines where timing noise makes it fail.'], suggestTriggerPoints: true });
  const run = await runWith([item(METHOD) as never]);
  assert.equal((requests.find((r) => r[0] === 'braid/record')![1] as RecordParams).runs, 20);
  assert.deepEqual(run.events.map((e) => e.slice(0, 2)), [['enqueued', METHOD], ['started', METHOD], ['passed', METHOD]]);
  assert.equal(item(METHOD).description, '✓ 20/20');
  assert.match(run.output.map((o) => o.text).join(''), /recording AccountTest\.transfers 20× with noise[\s\S]*Find Trigger Points/);
});

test('a class with its methods selected records the class once; excluded items are not recorded', async () => {
  const run = await runWith([item(CLASS) as never, item(METHOD) as never]);
  assert.deepEqual(run.events.map((e) => e.slice(0, 2)), [['enqueued', CLASS], ['started', CLASS], ['failed', CLASS]]);
  assert.equal((requests.find((r) => r[0] === 'braid/testCommand')![1] as { method?: string }).method, undefined);
  const none = await runWith([item(CLASS) as never], undefined, [item(CLASS) as never]);
  assert.deepEqual(none.events, []);
  assert.ok(none.ended);
});

test('Cancel in the Testing view cancels the recording: the test is skipped, the ones after it too', async () => {
  const c = cancellation();
  answers['braid/record'] = (_p, token) =>
    new Promise((resolve) => (token as { onCancellationRequested(l: () => void): void }).onCancellationRequested(() => resolve(recorded({ runs: 0, failed: 0, passed: 0, cancelled: true }))));
  answers['braid/testRunReport'] = () => ({ outcome: 'none', runs: 0, failed: 0, summary: 'cancelled', failures: [], output: ['Braid: recording of AccountTest.transfers cancelled before any run finished; nothing was recorded.'], suggestTriggerPoints: false });
  const other = `${FILE}#bank.AccountTest#deposits`;
  const done = runWith([item(METHOD) as never, item(other) as never], c.token);
  await new Promise((r) => setTimeout(r, 10));
  c.cancel();
  const run = await done;
  assert.deepEqual(run.events.map((e) => e.slice(0, 2)), [['enqueued', METHOD], ['enqueued', other], ['started', METHOD], ['skipped', METHOD], ['skipped', other]]);
  assert.equal(requests.filter((r) => r[0] === 'braid/record').length, 1);
});

test('an untrusted workspace records nothing; a server error (no build tool found) errors the test with its message', async () => {
  workspace.isTrusted = false;
  let run = await runWith([item(METHOD) as never]);
  assert.equal(run.events[2][0], 'errored');
  assert.match(String((run.events[2][2] as TestMessage[])[0].message), /needs a trusted workspace/);
  assert.ok(!requests.some((r) => r[0] === 'braid/record'));
  workspace.isTrusted = true;
  answers['braid/testCommand'] = () => {
    throw new Error('no JUnit console launcher found');
  };
  run = await runWith([item(METHOD) as never]);
  assert.equal(run.events[2][0], 'errored');
  assert.match(String((run.events[2][2] as TestMessage[])[0].message), /^Braid: no JUnit console launcher found$/);
});

/** a Memento of plain values */
const memento = () => {
  const m = new Map<string, unknown>();
  return { get: <T>(k: string, d?: T) => (m.has(k) ? (m.get(k) as T) : d), update: async (k: string, v: unknown) => void m.set(k, v), keys: () => [...m.keys()] };
};

test('the first ▷ says that it starts a long recording and asks once; declined, nothing is recorded (issue 43)', async () => {
  const context = { globalState: memento(), workspaceState: memento() };
  testing.dispose();
  testing = new BraidTesting(client as never, log as never, context as never);
  ctrl = tests.controllers[tests.controllers.length - 1];
  await ctrl.resolveHandler!(undefined);
  const before = requests.length;
  await runWith([item(METHOD) as never]);
  const longRun = (c: { fn: string; args: unknown[] }) => c.fn === 'showWarningMessage' && /Run with Braid records/.test(String(c.args[0]));
  const asked = ui.calls.filter(longRun);
  assert.equal(asked.length, 1);
  assert.match(String(asked[0].args[0]), /records the test again and again with timing noise until the evidence is in .* 40 s to 5 minutes/);
  assert.ok(!requests.slice(before).some((r) => r[0] === 'braid/record'), 'declined: nothing recorded');
  ui.answer('showWarningMessage', 'Record');
  await runWith([item(METHOD) as never]);
  assert.ok(requests.some((r) => r[0] === 'braid/record'));
  assert.equal(context.globalState.get(LONG_RUN_ACKNOWLEDGED), true);
  // the command that recorded runs is what Record Runs offers next
  assert.equal(context.workspaceState.get(LAST_COMMAND_KEY), 'java -jar launcher.jar');
  await runWith([item(METHOD) as never]);
  assert.equal(ui.calls.filter(longRun).length, 2, 'asked again after the decline, never after the Record');
});

test('a command that recorded nothing is not remembered for Record Runs (issue 43)', async () => {
  const context = { globalState: memento(), workspaceState: memento() };
  await context.globalState.update(LONG_RUN_ACKNOWLEDGED, true);
  testing.dispose();
  testing = new BraidTesting(client as never, log as never, context as never);
  ctrl = tests.controllers[tests.controllers.length - 1];
  await ctrl.resolveHandler!(undefined);
  answers['braid/record'] = () => {
    throw new Error('The test was not found: Could not find method with name [transfers] in class [bank.AccountTest]. Nothing was recorded.');
  };
  const run = await runWith([item(METHOD) as never]);
  const last = run.events.at(-1)!;
  assert.equal(last[0], 'errored', JSON.stringify(run.events));
  assert.match(String((last[2] as TestMessage[])[0].message), /Could not find method with name \[transfers\]/);
  assert.equal(context.workspaceState.get(LAST_COMMAND_KEY), undefined);
});

test('the result beside a test fits the default width; the rate before a change beside it (issue 43)', () => {
  assert.equal(shortSummary({ outcome: 'failed', runs: 80, failed: 15, summary: 'failed 15 of 80 (19 %)' }), '✗ 15/80 · 19 %');
  assert.equal(shortSummary({ outcome: 'passed', runs: 200, failed: 0, summary: 'passed 200 of 200 with noise', before: { runs: 80, failed: 15 } }), '✓ 200/200 · was ✗ 15/80');
  assert.equal(shortSummary({ outcome: 'none', runs: 0, failed: 0, summary: 'cancelled' }), 'cancelled');
  assert.ok(shortSummary({ outcome: 'failed', runs: 200, failed: 150, summary: '', before: { runs: 200, failed: 199 } }).length <= 26);
});

test('progress lines stay short enough to be rewritten in place', () => {
  const long = progressText({ done: 30, total: 200, failed: 9, passed: 21, evidence: 'lead P14 on bank.Account.balance (9 failed, 0 passed), p = 3.2e-5 (needs < 1e-6), top 3 stable' }, true);
  assert.ok(long.length <= PROGRESS_CHARS, long);
  assert.match(long, /^30 runs · 9 failed · lead P14 on bank\.Account\.balance.*…$/);
  assert.equal(progressText({ done: 3, total: 20, failed: 1, passed: 2 }, false), '3/20 runs · 1 failed, 2 passed');
});

test('"Run with Braid" from a test\'s menu or the gutter records that test with Braid\'s profile (issue 43)', async () => {
  const reg = commands.registered.get('braid.testing.runWithBraid');
  assert.ok(reg, 'the command is registered');
  await reg!(item(METHOD));
  const run = ctrl.runs[ctrl.runs.length - 1];
  assert.deepEqual(run.events.map((e) => e.slice(0, 2)), [['enqueued', METHOD], ['started', METHOD], ['failed', METHOD]]);
  assert.ok(requests.some((r) => r[0] === 'braid/record'));
  const before = ctrl.runs.length;
  await reg!({ id: 'no-such-test' });
  assert.equal(ctrl.runs.length, before, 'an unknown item records nothing');
});
