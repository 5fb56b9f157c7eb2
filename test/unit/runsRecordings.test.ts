/**
 * Issue 30, point 3, in the Runs view (vscode mock): several recordings are grouped (counts first,
 * then noise or plan and the command; newest first), their runs do not interleave by run number,
 * excluded runs are listed apart; the exclusion file keeps only paths inside the workspace folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useVscodeMock } from '../helpers/vscodeMock';
import type { RunDto } from '../../server/src/lsp/protocol';
import { excludedRunsText, parseExcludedRuns, readExcludedRuns } from '../../server/src/workspace/excludedRuns';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const model = require('../../client/src/model') as typeof import('../../client/src/model');

type Item = { label: string; description?: string; contextValue?: string; tooltip?: { value?: string } | string; collapsibleState: number };
const item = (n: unknown) => trees.treeItem(n as never) as unknown as Item;

const A = '/ws/.braid/traces/AccountTest.deposits-20261127-014244';
const B = '/ws/.braid/traces/AccountTest.deposits-20261127-014411';
function run(dir: string, k: number, fail: boolean): RunDto {
  const id = `${path.basename(dir)}-${String(k).padStart(4, '0')}`;
  return {
    execution: id,
    file: `${dir}/${id}.trace.jsonl`,
    outcome: fail ? 'fail' : 'pass',
    reason: fail ? 'exit-code' : 'ok',
    events: 40,
    patterns: 3,
    ...(fail ? { failure: { reason: 'assertion', message: 'org.opentest4j.AssertionFailedError: expected: <2> but was: <1>', location: { file: 'bank/AccountTest.java', line: 25 } } } : {}),
  };
}

test('two recordings: one group each, newest first, counts first; runs numbered inside their group', () => {
  const runs = [run(A, 0, true), run(B, 0, false), run(A, 1, false), run(B, 1, true), run(B, 2, true)];
  const recordings = new Map([
    [A, { command: ['java', '-jar', 'junit.jar', '--select-method', 'bank.AccountTest#deposits'], noise: 0.1 }],
    [B, { command: ['java', '-jar', 'junit.jar'], plan: 'deposits' }],
  ]);
  const t = new trees.RunsTree({ runs, unreadable: [], excluded: [{ file: `${A}/x-0009.trace.jsonl`, uri: 'file:///x' }], recordings, onDidChange: () => ({ dispose() {} }) } as never);
  const roots = t.getChildren();
  assert.deepEqual(
    roots.map((n) => [item(n).label, item(n).description]),
    [
      ['AccountTest · 01:44:11', '2/3 failed · plan deposits · java -jar junit.jar'],
      ['AccountTest · 01:42:44', '1/2 failed · noise 0.1 · java -jar junit.jar --select-method bank.AccountTest#deposits'],
      ['Excluded runs (1)', undefined],
    ],
  );
  assert.equal(item(roots[0]).contextValue, 'braid.recording');
  assert.deepEqual(t.getChildren(roots[1]).map((n) => item(n).label), ['#0 ✗ AssertionFailedError: expected: <2> but was: <1>', '#1 ✓']);
  const ex = t.getChildren(roots[2]);
  assert.deepEqual(ex.map((n) => [item(n).label, item(n).contextValue]), [['x-0009 ⊘ excluded', 'braid.excludedRun']]);
  // failing runs only: a recording without a failing run is left out
  t.setFilter(true);
  assert.equal(t.getChildren().filter((n) => (n as { kind: string }).kind === 'recording').length, 2);
});

test('one recording: its runs directly, with their full labels', () => {
  const runs = [run(A, 0, true), run(A, 1, false)];
  const t = new trees.RunsTree({ runs, unreadable: [], excluded: [], recordings: new Map(), onDidChange: () => ({ dispose() {} }) } as never);
  assert.deepEqual(t.getChildren().map((n) => item(n).label), ['AccountTest #0 ✗ AssertionFailedError: expected: <2> but was: <1>', 'AccountTest #1 ✓']);
  assert.match(item(t.getChildren()[0]).description ?? '', /^AccountTest\.java:25 · /);
});

test('recording.json fields are checked; the exclusion file keeps only paths inside the folder', async () => {
  assert.deepEqual(model.parseRecordingInfo('{"command":["java","X"],"noise":0.2,"plan":{"name":"p"},"startedAt":"2026-11-27T01:42:44Z"}'), { command: ['java', 'X'], noise: 0.2, plan: 'p', startedAt: '2026-11-27T01:42:44Z' });
  assert.deepEqual(model.parseRecordingInfo('{"command":"rm -rf /","noise":"x"}'), {});
  assert.deepEqual(parseExcludedRuns('{"runs":[".braid/traces/a/a-0001.trace.jsonl","../outside.trace.jsonl","/etc/passwd","C:/x",7,"a\\\\b.trace.jsonl"]}'), ['.braid/traces/a/a-0001.trace.jsonl', 'a/b.trace.jsonl']);
  assert.deepEqual(parseExcludedRuns('not json'), []);
  const ws = mkdtempSync(path.join(os.tmpdir(), 'braid-excluded-'));
  mkdirSync(path.join(ws, '.braid'));
  writeFileSync(path.join(ws, '.braid', 'excluded-runs.json'), excludedRunsText(['b/2.trace.jsonl', 'a/1.trace.jsonl', 'a/1.trace.jsonl']));
  assert.deepEqual([...(await readExcludedRuns([ws]))], [path.join(ws, 'a', '1.trace.jsonl'), path.join(ws, 'b', '2.trace.jsonl')]);
});

test('recordings of the code before a change and recordings without runs are listed apart, deletable (issue 43)', () => {
  const older = { dir: B, uri: `file://${B}`, files: [`${B}/x-0001.trace.jsonl`], changed: ['src/main/java/bank/Account.java'], runs: 80, failed: 15 };
  const C = '/ws/.braid/traces/AccountTest.nosuch-20261127-015000';
  const m = {
    runs: [run(A, 0, true)],
    unreadable: [],
    excluded: [],
    older: [older],
    empty: [{ dir: C, uri: `file://${C}` }],
    recordings: new Map([[C, { command: ['java', '-jar', 'junit.jar', '--select-method', 'bank.AccountTest#nosuch'], startedAt: '2026-11-27T01:50:00Z' }]]),
    onDidChange: () => ({ dispose() {} }),
  };
  const t = new trees.RunsTree(m as never);
  const roots = t.getChildren();
  const rows = roots.map((n) => [item(n).label, item(n).description, item(n).contextValue]);
  assert.deepEqual(rows.slice(1), [
    ['Before the change · AccountTest.deposits-20261127-014411', '15/80 failed · changed Account.java', 'braid.recording'],
    ['AccountTest.nosuch-20261127-015000 · 01:50:00 UTC · no run recorded', 'java -jar junit.jar --select-method bank.AccountTest#nosuch', 'braid.recording'],
  ]);
  assert.match(String((item(roots[1]).tooltip as { value: string }).value), /not analyzed with the current code[\s\S]*`src\/main\/java\/bank\/Account\.java`/);
  // its bugs stay offered for Check the Fix after the edit
  const pattern = { key: 'k1', rank: 1, score: 1, id: 'P3', kind: 'RWW', category: 'atomicity', failed: 15, passed: 0, accesses: [] };
  const withBugs = new trees.RunsTree({ ...m, beforeBugs: [{ bug: 1, shape: 'lost-update', headline: 'Both threads read `balance` = 0 …', pattern }] } as never);
  const olderNode = withBugs.getChildren()[1];
  const kids = withBugs.getChildren(olderNode);
  assert.deepEqual(kids.map((n) => item(n).label), ['Bug 1 · lost update — Check the Fix']);
  assert.deepEqual((item(kids[0]) as unknown as { command: { command: string; arguments: unknown[] } }).command, { command: 'braid.checkFix', title: 'Check the Fix', arguments: ['k1'] });
  // Check the Fix said fixed (issue 43): the bug shows as fixed, with its rates before and after
  const fixed = new trees.RunsTree({ ...m, beforeBugs: [{ bug: 1, shape: 'lost-update', pattern, fix: { verdict: 'fixed', before: { runs: 30, failed: 15 }, after: { runs: 20, failed: 0 } } }] } as never);
  const fixedKids = fixed.getChildren(fixed.getChildren()[1]);
  assert.deepEqual(fixedKids.map((n) => item(n).label), ['Bug 1 · lost update — fixed · failed 15/30 before, 0/20 after']);
  assert.equal((item(fixedKids[0]) as unknown as { iconPath: { id: string } }).iconPath.id, 'pass');
});

test('Delete Recording: a folder of one recording goes in one delete call, with progress; a folder holding other recordings loses only its files (issue 43)', async () => {
  const ws = mkdtempSync(path.join(os.tmpdir(), 'braid-delete-'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mock = require('../helpers/vscodeMock') as typeof import('../helpers/vscodeMock');
  mock.useVscodeMock([ws]);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { deleteRecording } = require('../../client/src/runActions') as typeof import('../../client/src/runActions');
  const dir = path.join(ws, '.braid', 'traces', 'AccountTest-1');
  mkdirSync(dir, { recursive: true });
  const runs: RunDto[] = [];
  for (let k = 0; k < 80; k++) {
    const r = run(dir, k, k % 5 === 0);
    writeFileSync(r.file, '{}\n');
    writeFileSync(r.file.replace('.trace.jsonl', '.log'), '');
    runs.push(r);
  }
  writeFileSync(path.join(dir, 'recording.json'), '{}');
  writeFileSync(path.join(dir, 'sources.json'), '{}');
  const log = { info: () => undefined };
  const model = { runs, excluded: [], older: [], empty: [] };
  mock.fsDeletes.length = 0;
  mock.ui.reset();
  mock.ui.answer('showWarningMessage', 'Delete');
  await deleteRecording({ dir }, model as never, log as never);
  assert.deepEqual(mock.fsDeletes, [dir], 'one call');
  assert.ok(!existsSync(dir));
  assert.ok(mock.ui.calls.some((c) => c.fn === 'withProgress'), 'with progress');
  // traces directly in .braid/traces beside another recording's folder: only this recording's files
  const root = path.join(ws, '.braid', 'traces');
  mkdirSync(path.join(root, 'other'), { recursive: true });
  writeFileSync(path.join(root, 'other', 'o-0001.trace.jsonl'), '{}\n');
  const flat = [run(root, 0, true), run(root, 1, false)];
  for (const r of flat) writeFileSync(r.file, '{}\n');
  // Check the Fix's verdicts beside the recording (fixVerdicts.ts) go with it
  writeFileSync(path.join(root, 'fix-checks.json'), '{}');
  mock.fsDeletes.length = 0;
  mock.ui.answer('showWarningMessage', 'Delete');
  await deleteRecording({ dir: root }, { runs: flat, excluded: [], older: [], empty: [] } as never, log as never);
  assert.ok(existsSync(path.join(root, 'other', 'o-0001.trace.jsonl')), 'the other recording stays');
  assert.ok(!existsSync(flat[0].file) && !existsSync(flat[1].file));
  assert.ok(!existsSync(path.join(root, 'fix-checks.json')), "the recording's fix-checks.json is deleted with it");
  // a recording of older code is deleted too
  const old = path.join(root, 'old-1');
  mkdirSync(old);
  writeFileSync(path.join(old, 'old-0001.trace.jsonl'), '{}\n');
  mock.ui.answer('showWarningMessage', 'Delete');
  await deleteRecording({ dir: old }, { runs: [], excluded: [], older: [{ dir: old, uri: '', files: [path.join(old, 'old-0001.trace.jsonl')], changed: ['A.java'], runs: 1, failed: 1 }], empty: [] } as never, log as never);
  assert.ok(!existsSync(old));
});
