/**
 * The empty Ranked Patterns and Bugs views after an edit (client/src/emptyStates.ts, package.json
 * viewsWelcome): once the recordings are of the code before the edit, the views no longer say "appear
 * here once traces are analyzed" / "none failed yet" but what is true — the recordings are of the code
 * before the edit — with Record Runs again, the recordings before the change and Check the Fix as
 * command links; the status bar says the same. Against the vscode mock.
 */
import test, { beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ui, useVscodeMock } from '../helpers/vscodeMock';
import type { OlderRecordingDto, PatternDto } from '../../server/src/lsp/protocol';
import { noRunsStatus, RESULTS_CONTEXT, resultsContext, type ResultsContext } from '../../client/src/emptyStates';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cmds = require('../../client/src/commands') as typeof import('../../client/src/commands');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
const older: OlderRecordingDto = { dir: '/ws/.braid/traces/recorded', uri: 'file:///ws/.braid/traces/recorded', files: ['/ws/.braid/traces/recorded/r-0.trace.jsonl'], changed: ['src/vectorcopy/VectorCopy.java'], runs: 24, failed: 10, justBefore: true };
const pattern = { key: 'k1' } as PatternDto;
const pass = { outcome: 'pass' as const };
const fail = { outcome: 'fail' as const };

beforeEach(() => ui.reset());

test('the context: no run of the current code but recordings before the change; runs since the edit, none failing, and bugs before it; else current', () => {
  assert.equal(resultsContext({ runs: [], older: [older], beforeBugs: [] }), 'codeChanged');
  assert.equal(resultsContext({ runs: [pass, pass], older: [older], beforeBugs: [{}] }), 'noFailureSinceChange');
  assert.equal(resultsContext({ runs: [pass, fail], older: [older], beforeBugs: [{}] }), 'current', 'a failing run since the edit: its own bugs');
  assert.equal(resultsContext({ runs: [pass], older: [older], beforeBugs: [] }), 'current', 'no bug before the change to check');
  assert.equal(resultsContext({ runs: [], older: [], beforeBugs: [] }), 'current', 'nothing recorded: the usual "no recorded runs yet"');
});

/** The `when` clauses of viewsWelcome: `key == value`, `key != value`, joined by `&&`. */
function holds(when: string | undefined, ctx: ResultsContext): boolean {
  if (!when) return true;
  return when.split('&&').every((c) => {
    const m = /^\s*([\w.]+)\s*(==|!=)\s*(\w+)\s*$/.exec(c);
    assert.ok(m && m[1] === RESULTS_CONTEXT, `a when clause on ${RESULTS_CONTEXT}: ${c}`);
    return m[2] === '==' ? ctx === m[3] : ctx !== m[3];
  });
}
const welcome = (view: string, ctx: ResultsContext) => (pkg.contributes.viewsWelcome as { view: string; contents: string; when?: string }[]).filter((w) => w.view === view && holds(w.when, ctx)).map((w) => w.contents);

test('each view shows one welcome text per context: after an edit it says the recordings are of the code before it, with the actions as command links', () => {
  const declared = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const ctx of ['codeChanged', 'noFailureSinceChange', 'current'] as const) {
    for (const view of ['braid.patterns', 'braid.bugs']) assert.equal(welcome(view, ctx).length, 1, `${view} in ${ctx}`);
  }
  const [patterns] = welcome('braid.patterns', 'codeChanged');
  assert.match(patterns, /The recordings are of the code before your edit/);
  assert.doesNotMatch(patterns, /once traces are analyzed/);
  const [bugs] = welcome('braid.bugs', 'codeChanged');
  assert.match(bugs, /No bug of the current code yet: the recordings are of the code before your edit/);
  assert.doesNotMatch(bugs, /None failed yet/);
  assert.match(welcome('braid.bugs', 'noFailureSinceChange')[0], /None of the runs recorded since your edit failed/);
  assert.match(welcome('braid.bugs', 'current')[0], /None failed yet\?/);
  for (const text of [patterns, bugs, welcome('braid.bugs', 'noFailureSinceChange')[0]]) {
    const links = [...text.matchAll(/\[([^\]]+)\]\(command:([\w.]+)\)/g)].map((m) => m[2]);
    assert.ok(links.includes('braid.checkFix') && links.includes('braid.showBeforeTheChange'), text);
    for (const l of links) assert.ok(declared.has(l), `${l} is a declared command`);
  }
  assert.ok([...patterns.matchAll(/command:braid\.recordRuns/g)].length === 1, 'Record Runs again');
});

test('the status bar with no run of the current code says the recordings are of the code before the edit, naming the changed files', () => {
  assert.deepEqual(noRunsStatus([]), { text: '$(pulse) Braid: no runs', tooltip: 'No traces found (braid.traceGlobs). Record runs or import traces.' });
  const s = noRunsStatus([older, { ...older, changed: ['src/vectorcopy/VectorCopy.java', 'src/a/B.java'] }]);
  assert.equal(s.text, '$(history) Braid: no runs since your edit');
  assert.match(s.tooltip, /^The recordings are of the code before your edit \(changed VectorCopy\.java, B\.java\)/);
});

test('Show the Recordings Before the Change reveals, selects and expands the row holding the bugs before the change', async () => {
  const model = { patterns: [], patternTotal: 0, runs: [], unreadable: [], bugs: [], older: [{ ...older, dir: '/ws/b', justBefore: false }, older], beforeBugs: [{ bug: 1, pattern }], empty: [], recordings: new Map(), onDidChange: () => ({ dispose() {} }), refresh: async () => undefined };
  const runsTree = new trees.RunsTree(model as never);
  const revealed: unknown[][] = [];
  const d = { model, runsTree, runsView: { reveal: async (...a: unknown[]) => void revealed.push(a) } };
  assert.equal(await cmds.showBeforeTheChange(d as never), true);
  const [row, how] = revealed[0] as [{ kind: string; dir: string; bugs?: unknown[] }, unknown];
  assert.deepEqual([row.kind, row.dir, row.bugs?.length, how], ['older', older.dir, 1, { select: true, focus: true, expand: true }]);
  // nothing before a change: said, nothing revealed
  model.older = [];
  revealed.length = 0;
  assert.equal(await cmds.showBeforeTheChange(d as never), false);
  assert.deepEqual(revealed, []);
  assert.equal(ui.calls.find((c) => c.fn === 'showInformationMessage')?.args[0], cmds.NOTHING_BEFORE);
});
