/**
 * Check the Fix's message offers "Show in Runs" (client/src/confirm.ts): the button reveals and
 * selects the row that holds the check's verdict in the Runs view (`Bug 1 · lost update — fixed ·
 * failed 15/30 before, 0/20 after`, under the recording of the code version just before the change,
 * client/src/trees.ts RunsTree.fixRow), reading the results again when the row is not listed yet;
 * "could not check" keeps no verdict and offers no button. Against the vscode mock.
 */
import test, { beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { commands, ui, useVscodeMock } from '../helpers/vscodeMock';
import type { ConfirmResultDto, OlderRecordingDto, PatternDto } from '../../server/src/lsp/protocol';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const confirm = require('../../client/src/confirm') as typeof import('../../client/src/confirm');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cmds = require('../../client/src/commands') as typeof import('../../client/src/commands');

const lead: PatternDto = {
  rank: 1, score: 1, id: 'P7', kind: 'RWW', category: 'single-variable atomicity', failed: 15, passed: 0, key: 'k7',
  accesses: [
    { thread: 1, type: 'R', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 8, method: 'bank.Account.deposit', stack: [] },
    { thread: 2, type: 'W', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 10, method: 'bank.Account.deposit', stack: [] },
  ],
};
const older = (dir: string, justBefore: boolean): OlderRecordingDto => ({ dir, uri: `file://${dir}`, files: [`${dir}/r-0.trace.jsonl`], changed: ['src/bank/Account.java'], runs: 30, failed: 15, ...(justBefore ? { justBefore } : {}) });
const A = '/ws/.braid/traces/AccountTest-20261129-090000';
const B = '/ws/.braid/traces/AccountTest-20261129-080000';
const fix = { verdict: 'fixed' as const, before: { runs: 30, failed: 15 }, after: { runs: 20, failed: 0 } };

function model(extra: Record<string, unknown>) {
  return { patterns: [], patternTotal: 0, runs: [], unreadable: [], bugs: [], older: [], beforeBugs: [], empty: [], recordings: new Map(), onDidChange: () => ({ dispose() {} }), patternByKey: () => undefined, refresh: async () => undefined, ...extra };
}
type Item = { label: string; id?: string };
const item = (n: unknown) => trees.treeItem(n as never) as unknown as Item;

beforeEach(() => ui.reset());

test('the verdict row of a bug before the change is found by its pattern, under the recording of the code version just before the change', () => {
  // A is listed first (newest folder) but B is of the code version just before the change: the bugs go under B
  const t = new trees.RunsTree(model({ older: [older(A, false), older(B, true)], beforeBugs: [{ bug: 1, shape: 'lost-update', pattern: lead, fix }] }) as never);
  const roots = t.getChildren();
  const rowsOf = (dir: string) => t.getChildren(roots.find((n) => n.kind === 'older' && n.dir === dir)).map((n) => item(n).label);
  assert.deepEqual(rowsOf(A), []);
  assert.deepEqual(rowsOf(B), ['Bug 1 · lost update — fixed · failed 15/30 before, 0/20 after']);
  const row = t.fixRow('k7');
  assert.ok(row, 'the row of the check');
  assert.equal(item(row).id, `older-bug:${B}:1`);
  const parent = t.getParent(row!);
  assert.equal(parent?.kind === 'older' && parent.dir, B, 'reveal walks up to the recording row');
  assert.equal(t.getParent(parent!), undefined, 'the recording row is at the top');
  assert.equal(t.fixRow('other'), undefined);
});

test('a check of another pattern of the bug (its cluster: otherKeys) finds the bug\'s row too', () => {
  // the palette's Check the Fix took the first ranked pattern of an analysis not yet updated after the edit: k9,
  // one of bug 1's patterns but not its lead; the server shows that check on bug 1's row (braidServer.beforeBugs)
  const t = new trees.RunsTree(model({ older: [older(B, true)], beforeBugs: [{ bug: 1, shape: 'lost-update', pattern: lead, fix, otherKeys: ['k9'] }, { bug: 2, pattern: { ...lead, key: 'k5' } }] }) as never);
  const row = t.fixRow('k9');
  assert.ok(row, 'the row of the bug the checked pattern belongs to');
  assert.equal(item(row).id, `older-bug:${B}:1`);
  assert.equal(item(t.fixRow('k5')).id, `older-bug:${B}:2`, 'a lead finds its own bug');
  assert.equal(t.fixRow('k8'), undefined);
});

test('Show in Runs reveals and selects the row, reading the results again when it is not listed yet; without a row it says why', async () => {
  let listed = false;
  const revealed: unknown[][] = [];
  const d = {
    model: { refresh: async () => void (listed = true) },
    runsTree: { fixRow: (key: string) => (listed && key === 'k7' ? ({ kind: 'text', id: 'older-bug:x:1', label: 'Bug 1' } as never) : undefined) },
    runsView: { reveal: async (...a: unknown[]) => void revealed.push(a) },
  };
  assert.equal(await cmds.showFixInRuns(d as never, 'k7'), true);
  assert.deepEqual(revealed, [[{ kind: 'text', id: 'older-bug:x:1', label: 'Bug 1' }, { select: true, focus: true }]]);
  revealed.length = 0;
  assert.equal(await cmds.showFixInRuns(d as never, 'k8'), false);
  assert.deepEqual(revealed, []);
  assert.ok(commands.executed.some((c) => c[0] === 'braid.runs.focus'));
  assert.equal(ui.calls.find((c) => c.fn === 'showInformationMessage')?.args[0], cmds.FIX_NOT_LISTED);
});

/** Registers the confirm commands against a client that answers braid/confirm with `result`. */
function checkFixWith(result: ConfirmResultDto) {
  const registered = new Map<string, (...a: unknown[]) => unknown>();
  const shown: string[] = [];
  const client = {
    sendRequest: async (method: string) => (method === 'braid/confirmCommand' ? { command: ['java', '-cp', 'out', 'bank.AccountTest'], prepare: [] } : result),
    onProgress: () => ({ dispose() {} }),
  };
  confirm.registerConfirmCommands(
    { client: client as never, pattern: (k) => (k === 'k7' ? lead : undefined), first: () => lead, openTracer: () => undefined, showFixInRuns: (k) => void shown.push(k), log: { info() {}, warn() {} } as never, agentJar: () => '/x.jar' },
    (id, fn) => registered.set(id, fn),
  );
  return { run: () => registered.get(confirm.CHECK_FIX)!('k7'), shown };
}
const settle = () => new Promise((r) => setImmediate(r));

test('Check the Fix: the verdict message offers Show in Runs, which shows the check in the Runs view', async () => {
  const r = { key: 'k7', mode: 'checkFix', fix: { ...fix, verdict: 'fixed', reason: 'the interleaving can no longer happen', pValue: 1e-6 }, command: ['java'], runs: 40, seconds: 9 } as ConfirmResultDto;
  const c = checkFixWith(r);
  ui.answer('showInformationMessage', 'Run');
  ui.answer('showInformationMessage', confirm.SHOW_IN_RUNS);
  await c.run();
  await settle();
  const msg = ui.calls.filter((x) => x.fn === 'showInformationMessage').pop()!;
  assert.deepEqual(msg.args, ['Braid: fixed — the interleaving can no longer happen.', 'Show in Runs']);
  assert.deepEqual(c.shown, ['k7']);
  // not fixed: a warning, with the same button
  const nf = checkFixWith({ ...r, fix: { ...r.fix!, verdict: 'not fixed', reason: 'still fails 18 of 20 runs when the interleaving is forced' } });
  ui.answer('showInformationMessage', 'Run');
  await nf.run();
  await settle();
  assert.deepEqual(ui.calls.filter((x) => x.fn === 'showWarningMessage').pop()!.args, ['Braid: not fixed — still fails 18 of 20 runs when the interleaving is forced.', 'Show in Runs']);
  assert.deepEqual(nf.shown, [], 'dismissed: nothing revealed');
});

test('Check the Fix that could not check keeps no verdict: no Show in Runs', async () => {
  const r = { key: 'k7', mode: 'checkFix', couldNotCheck: { why: 'the command failed', hint: 'build it first' }, fix: { ...fix, verdict: 'could not check', reason: 'could not check', pValue: 1 }, command: ['java'], runs: 0, seconds: 1 } as ConfirmResultDto;
  const c = checkFixWith(r);
  ui.answer('showInformationMessage', 'Run');
  await c.run();
  await settle();
  assert.deepEqual(ui.calls.filter((x) => x.fn === 'showWarningMessage').pop()!.args, ['Braid could not check the fix: the command failed. What to do: build it first.']);
});
