/**
 * The extension's commands (client/src/commands.ts, docs/extension.md "Commands") run against a
 * small `vscode` mock (test/helpers/vscodeMock.ts) and a fake language client: Export SARIF
 * (braid.sarif.top, the file the user picked), Import Traces (only *.trace.jsonl[.gz], into
 * .braid/traces/imported, then re-analyze), Toggle Line Heat, Show Output, Open Tracer's default
 * run, Open Bug Graph without bugs, and Record Runs refused in Restricted Mode.
 */
import test, { beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { commands, settings, ui, Uri, useVscodeMock, workspace } from '../helpers/vscodeMock';

const ws = tempDir('braid-cmd-');
useVscodeMock([ws]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerCommands } = require('../../client/src/commands') as typeof import('../../client/src/commands');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerMethodsView } = require('../../client/src/methodsTree') as typeof import('../../client/src/methodsTree');

const requests: [string, unknown][] = [];
const logged: string[] = [];
const opened: unknown[][] = [];
let shownOutput = 0;
const model = {
  runs: [
    { execution: 'run-001', outcome: 'pass' },
    { execution: 'run-002', outcome: 'fail' },
  ],
  bugs: [] as { id: number }[],
  patterns: [{ key: 'k1' }] as unknown[],
  refresh: async () => undefined,
};
const runsTree = {
  failingOnly: false,
  sort: 'run',
  setFilter(failingOnly: boolean, sort: string) {
    runsTree.failingOnly = failingOnly;
    runsTree.sort = sort;
  },
};
registerCommands({
  context: { subscriptions: [], workspaceState: { get: (_k: string, d: unknown) => d, update: async () => undefined } },
  client: {
    sendRequest: async (method: string, params?: unknown) => {
      requests.push([method, params]);
      return method === 'braid/exportSarif' ? '{"version":"2.1.0","runs":[]}' : {};
    },
    onNotification: () => ({ dispose() {} }),
  },
  model,
  log: { info: (m: string) => logged.push(m), error: (m: string) => logged.push(m), show: () => shownOutput++ },
  webviews: {
    openTracer: (...a: unknown[]) => opened.push(['tracer', ...a]),
    openUnicorn: () => opened.push(['unicorn']),
    openGriffin: () => opened.push(['griffin']),
    openBugGraph: (...a: unknown[]) => opened.push(['bugGraph', ...a]),
    openExplanations: () => opened.push(['explanations']),
  },
  runsTree,
} as never);
// the Method Ranking view registers its commands next to its tree (client/src/methodsTree.ts)
const methodsModel = {
  onDidChange: () => ({ dispose() {} }),
  request: async (method: string) => {
    requests.push([method, {}]);
    return { state: 'done', methods: [{ rank: 1, score: 0.5, method: 'app.A.run', file: 'A.java', line: 3, loc: 4, locSource: 'source', runs: { failed: 1, passed: 1 } }], total: 1, executions: { total: 2, failed: 1, passed: 1 }, representation: 'inter', griffin: [], stats: { calls: 2, edges: 1, ms: 1 } };
  },
};
registerMethodsView({ subscriptions: [] } as never, methodsModel as never, () => opened.push(['methods']));

const run = (id: string, ...args: unknown[]) => {
  const fn = commands.registered.get(id);
  assert.ok(fn, `${id} is registered`);
  return fn(...args);
};
const messages = (fn: string) => ui.calls.filter((c) => c.fn === fn).map((c) => String(c.args[0]));

beforeEach(() => {
  ui.reset();
  requests.length = 0;
  opened.length = 0;
  workspace.isTrusted = true;
});

test('every command of package.json is registered (Refresh Explanations is, next to its tree, in extension.ts; the Method Ranking view commands by registerMethodsView above, in methodsTree.ts)', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
  const elsewhere = new Set(['braid.refreshExplanations', 'braid.testing.showRootCause', 'braid.testing.runWithBraid', 'braid.addMcpServer']);
  const declared = pkg.contributes.commands.map((c: { command: string }) => c.command).filter((c: string) => !elsewhere.has(c)).sort();
  assert.deepEqual([...commands.registered.keys()].sort(), declared);
});

test('Runs view: failing-only filter and failing-first sort, with the context keys that pick the title-bar icon', async () => {
  await run('braid.runsFailingOnly');
  await run('braid.runsSortFailingFirst');
  assert.deepEqual([runsTree.failingOnly, runsTree.sort], [true, 'failing']);
  assert.ok(commands.executed.some((c) => c[0] === 'setContext' && c[1] === 'braid.runsFailingOnly' && c[2] === true));
  await run('braid.runsShowAll');
  await run('braid.runsSortByRun');
  assert.deepEqual([runsTree.failingOnly, runsTree.sort], [false, 'run']);
  assert.ok(commands.executed.some((c) => c[0] === 'setContext' && c[1] === 'braid.runsFailingFirst' && c[2] === false));
});

test('Method Ranking: Compare opens the comparison webview; Reveal focuses the view and reveals the method', async () => {
  opened.length = 0;
  await run('braid.compareSuspiciousMethods');
  assert.deepEqual(opened, [['methods']]);
  await run('braid.revealMethod', 'app.A.run');
  assert.deepEqual(ui.calls.filter((c) => c.fn === 'reveal').map((c) => [c.args[0], (c.args[1] as { method: { method: string } }).method.method]), [['braid.methods', 'app.A.run']]);
  assert.ok(commands.executed.some((c) => c[0] === 'braid.methods.focus'));
  requests.length = 0;
  opened.length = 0;
});

test('Export SARIF writes the top braid.sarif.top patterns to the file the user picked; cancelling writes nothing', async () => {
  const target = path.join(ws, 'out.sarif');
  settings['sarif.top'] = 7;
  ui.answer('showSaveDialog', Uri.file(target));
  await run('braid.exportSarif');
  assert.deepEqual(requests, [['braid/exportSarif', { top: 7 }]]);
  assert.equal(readFileSync(target, 'utf8'), '{"version":"2.1.0","runs":[]}');
  assert.deepEqual(messages('showInformationMessage'), ['Braid: wrote out.sarif']);
  delete settings['sarif.top'];
  requests.length = 0;
  await run('braid.exportSarif'); // the dialog is cancelled (no answer)
  assert.deepEqual(requests, []);
});

test('Import Traces copies only *.trace.jsonl[.gz] into .braid/traces/imported and re-analyzes', async () => {
  const src = tempDir('braid-import-');
  for (const f of ['a.trace.jsonl', 'b.trace.jsonl.gz', 'notes.txt']) writeFileSync(path.join(src, f), f);
  ui.answer('showOpenDialog', ['a.trace.jsonl', 'b.trace.jsonl.gz', 'notes.txt'].map((f) => Uri.file(path.join(src, f))));
  await run('braid.importTraces');
  assert.deepEqual(readdirSync(path.join(ws, '.braid/traces/imported')).sort(), ['a.trace.jsonl', 'b.trace.jsonl.gz']);
  assert.deepEqual(messages('showInformationMessage'), ['Braid: imported 2 traces into .braid/traces/imported (skipped 1 files not named *.trace.jsonl[.gz]).']);
  assert.deepEqual(requests.map((r) => r[0]), ['braid/reanalyze']);
});

test('Toggle Line Heat flips braid.heat.enabled in the user settings; Show Output shows the log', async () => {
  settings['heat.enabled'] = true;
  workspace.updates.length = 0;
  await run('braid.toggleHeat');
  assert.deepEqual(workspace.updates, [['braid.heat.enabled', false, 1]]);
  delete settings['heat.enabled'];
  const before = shownOutput;
  await run('braid.showOutput');
  assert.equal(shownOutput, before + 1);
});

test('Open Tracer without a run opens the first failing run; Open Bug Graph without bugs says why and what to do, and opens no empty graph', async () => {
  await run('braid.openTracer');
  assert.deepEqual(opened, [['tracer', 'run-002', undefined]]);
  await run('braid.openBugGraph');
  assert.deepEqual(messages('showInformationMessage'), ['Braid: no bug to show yet: no pattern separates the failing runs from the passing ones with evidence. Record more runs.']);
  assert.deepEqual(opened, [['tracer', 'run-002', undefined]], 'no empty bug graph');
  await run('braid.openUnicorn');
  await run('braid.openGriffin');
  await run('braid.openExplanations');
  assert.deepEqual(opened.slice(-3), [['unicorn'], ['griffin'], ['explanations']]);
});

test('Record Runs is refused in Restricted Mode: a warning, no recording', async () => {
  workspace.isTrusted = false;
  await run('braid.recordRuns', 'java -cp out Main');
  assert.equal(messages('showWarningMessage').length, 1);
  assert.match(messages('showWarningMessage')[0], /needs a trusted workspace/);
  assert.deepEqual(requests, []);
  // trusted: the command line and the braid.record.* settings become the request
  workspace.isTrusted = true;
  settings['record.runs'] = 3;
  settings['record.include'] = ['shop'];
  await run('braid.recordRuns', 'java -cp "my out" shop.Shop');
  delete settings['record.runs'];
  delete settings['record.include'];
  assert.deepEqual(requests, [['braid/record', { command: ['java', '-cp', 'my out', 'shop.Shop'], runs: 3, noise: 0.1, include: ['shop'], timeoutSeconds: 60, jobs: 1 }]]);
  // braid.record.freshJvm: one JVM per run (sent only when set: the server's default is repetitions)
  requests.length = 0;
  settings['record.freshJvm'] = true;
  await run('braid.recordRuns', 'java -cp out shop.Shop');
  delete settings['record.freshJvm'];
  assert.equal((requests[0][1] as { freshJvm?: boolean }).freshJvm, true);
  // braid.record.sharedLibraries: every jar shared by the repetitions (sent only when set)
  requests.length = 0;
  settings['record.sharedLibraries'] = true;
  await run('braid.recordRuns', 'java -cp out shop.Shop');
  delete settings['record.sharedLibraries'];
  assert.equal((requests[0][1] as { sharedLibraries?: boolean }).sharedLibraries, true);
});

test('issue 30, empty paths: no run, no failing run, no pattern — each says what happened and what to do', async () => {
  const saved = { runs: model.runs, patterns: model.patterns };
  try {
    // no run at all: Open Tracer does not open an empty Tracer; it offers Record Runs
    model.runs = [];
    model.patterns = [];
    await run('braid.openTracer');
    assert.deepEqual(opened, []);
    assert.deepEqual(messages('showInformationMessage'), [
      'Braid: no recorded runs yet. Record runs of the flaky test ("Braid: find the root cause" above it) or of the program (Record Runs), or import traces.',
    ]);
    assert.deepEqual(ui.calls.find((c) => c.fn === 'showInformationMessage')!.args.slice(1), ['Record Runs']);
    ui.reset();
    await run('braid.openBugGraph');
    assert.match(messages('showInformationMessage')[0], /no recorded runs yet/);
    // runs, none failed: the bug graph and SARIF say so and name the next steps
    ui.reset();
    model.runs = [{ execution: 'run-001', outcome: 'pass' }, { execution: 'run-003', outcome: 'pass' }];
    await run('braid.openBugGraph');
    assert.deepEqual(messages('showInformationMessage'), ['Braid: no bug to show: none of the 2 runs failed. Record more runs, raise braid.record.noise, or use Find Trigger Points to make the failure appear.']);
    ui.reset();
    await run('braid.exportSarif');
    assert.deepEqual(messages('showInformationMessage'), ['Braid: nothing to export yet — no ranked pattern. None of the 2 runs failed: record more runs, raise braid.record.noise, or use Find Trigger Points.']);
    assert.deepEqual(requests, [], 'no save dialog, no request');
    assert.equal(ui.calls.filter((c) => c.fn === 'showSaveDialog').length, 0);
    assert.deepEqual(opened, []);
  } finally {
    Object.assign(model, saved);
  }
});
