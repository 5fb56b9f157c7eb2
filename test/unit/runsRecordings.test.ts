/**
 * Issue 30, point 3, in the Runs view (vscode mock): several recordings are grouped (counts first,
 * then noise or plan and the command; newest first), their runs do not interleave by run number,
 * excluded runs are listed apart; the exclusion file keeps only paths inside the workspace folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
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
