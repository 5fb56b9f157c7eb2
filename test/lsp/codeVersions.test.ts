/**
 * Issue 43, point 1: recordings know the code they ran. A recording whose source file changed since
 * (its sources.json) leaves the analysis of the current code and is listed apart in braid/runs; a
 * recording of the edited code is analyzed alone (never merged with the old one); unsaved edits move
 * the heat and hide the hover on changed lines.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import type { LineScoresParams, RunsResult } from '../../server/src/lsp/protocol';
import { codeStampText, stampOf } from '../../server/src/lsp/codeStamp';

const SRC = 'src/main/java/shop/Inventory.java';

/** Moves the fixture's traces into a recording folder `name` with a stamp of the code as it is now. */
async function recording(ws: string, name: string, from: string): Promise<string> {
  const dir = path.join(ws, '.braid', 'traces', name);
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(from).filter((f) => f.endsWith('.trace.jsonl'))) cpSync(path.join(from, f), path.join(dir, f));
  writeFileSync(path.join(dir, 'sources.json'), codeStampText(await stampOf(ws)));
  return dir;
}

test('a recording of older code is listed apart, and the recording of the edited code is analyzed alone', async () => {
  const ws = copyFixture();
  const traces = path.join(ws, '.braid', 'traces');
  const original = path.join(ws, 'original-traces');
  renameSync(traces, original);
  const a = await recording(ws, 'inventory-a', original);
  writeFileSync(path.join(a, 'recording.json'), JSON.stringify({ format: 'braid-recording', version: 1, command: ['java', '-cp', 'out', 'shop.Inventory'], cwd: ws, name: 'inventory-a', runs: 6, noise: 0.1, seed: 1, include: ['shop'], exclude: [], timeoutSeconds: 60, startedAt: '2026-11-29T06:00:00.000Z' }));
  // the thesis' clustering makes a bug of the fixture's two failing runs (as test/lsp/server.test.ts)
  const s = new LspSession(ws, { griffin: { clustering: 'thesis' } });
  try {
    await s.initialize();
    const first = await s.analysisDone(0, (x) => x.executions.total > 0);
    assert.equal(first.executions.total, 6);
    const uri = s.uri(SRC);
    const inventory = (p: LineScoresParams) => p.files.find((f) => decodeURIComponent(f.uri).endsWith('shop/Inventory.java'))!.lines.map((l) => l.line);
    const initial = inventory(await s.waitFor('braid/lineScores', () => true, 0));
    assert.ok(initial.includes(10) && initial.includes(16) && initial.includes(17), `heat on lines 10, 16 and 17: ${initial}`);
    const disk = readFileSync(path.join(ws, SRC), 'utf8');
    await s.open(SRC, disk);
    const hover = (line0: number) => s.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: line0, character: 12 } }) as Promise<any>;
    assert.ok(await hover(9), 'a hover on line 10 before any edit');

    // an unsaved edit: a line added above line 10 and line 16 changed — the heat moves, changed lines lose it
    let since = s.notes.length;
    const lines = disk.split('\n');
    const edited = [...lines.slice(0, 8), '        // checked under a lock', ...lines.slice(8, 15), '        stock += n; // edited', ...lines.slice(16)].join('\n');
    await s.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
    const shown = inventory(await s.waitFor('braid/lineScores', () => true, since));
    // lines 1–8 stay, 9–16 lie between the edits (hidden), 17 on move down by the added line
    assert.deepEqual(shown, initial.filter((l) => l <= 8 || l >= 17).map((l) => (l >= 17 ? l + 1 : l)));
    assert.equal(await hover(10), null, 'line 11 (was 10) is between the edits: no hover of the old code');
    assert.equal(await hover(16), null, 'the changed line has no hover');
    assert.ok(await hover(17), 'line 18 (was 17, after the edits) keeps its hover');

    // saved: the recording is one of older code — out of the analysis, listed apart with what changed
    writeFileSync(path.join(ws, SRC), edited);
    since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
    const after = await s.analysisDone(since, (x) => x.executions.total === 0);
    assert.equal(after.executions.total, 0);
    let runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.equal(runs.runs.length, 0);
    assert.equal(runs.older?.length, 1);
    assert.equal(path.basename(runs.older![0].dir), 'inventory-a');
    assert.deepEqual(runs.older![0].changed, [SRC]);
    assert.deepEqual([runs.older![0].runs, runs.older![0].failed], [6, first.executions.failed]);
    assert.equal(runs.older![0].files.length, 6);
    // the old code's bug stays offered for Check the Fix: its lead pattern, and its recording's command
    assert.ok(runs.beforeBugs?.length, 'the bugs before the change');
    const key = runs.beforeBugs![0].pattern.key;
    const cmd: { command?: string[] } = await s.connection.sendRequest('braid/confirmCommand', { key });
    assert.deepEqual(cmd.command, ['java', '-cp', 'out', 'shop.Inventory'], 'Check the Fix finds the recording of the code before the change');
    // no lens of the old code's bug is left on the file
    const lenses = (await s.connection.sendRequest('textDocument/codeLens', { textDocument: { uri } })) as { command?: { title: string } }[];
    assert.deepEqual(lenses.map((l) => l.command?.title).filter((t) => /Bug \d|rank \d/.test(t ?? '')), []);

    // a recording of the edited code: analyzed alone, 6 runs (not 12)
    since = s.notes.length;
    await recording(ws, 'inventory-b', original);
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri('.braid/traces/inventory-b/run-001.trace.jsonl'), type: 1 }] });
    const fixed = await s.analysisDone(since, (x) => x.executions.total > 0);
    assert.equal(fixed.executions.total, 6);
    runs = await s.connection.sendRequest('braid/runs');
    assert.ok(runs.runs.every((r) => r.file.includes(`${path.sep}inventory-b${path.sep}`)));
    assert.equal(runs.older?.length, 1);

    // the edit undone: the old recording is one of the current code again (both analyzed)
    writeFileSync(path.join(ws, SRC), disk);
    since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri, type: 2 }] });
    const back = await s.analysisDone(since, (x) => x.executions.total === 6);
    assert.equal(back.executions.total, 6);
    runs = await s.connection.sendRequest('braid/runs');
    assert.equal(path.basename(runs.older![0].dir), 'inventory-b', 'now the recording of the edit is the older one');
  } finally {
    await s.close();
    cleanup(ws);
  }
});

test('after a restart, a recording whose code changed while the editor was closed is found older', async () => {
  const ws = copyFixture();
  const traces = path.join(ws, '.braid', 'traces');
  const original = path.join(ws, 'original-traces');
  renameSync(traces, original);
  await recording(ws, 'inventory-a', original);
  writeFileSync(path.join(ws, SRC), readFileSync(path.join(ws, SRC), 'utf8').replace('stock = stock - 1;', 'stock--;'));
  const s = new LspSession(ws);
  try {
    await s.initialize();
    // the first analysis learns which files the recording touched, the next one leaves it out
    await s.analysisDone(0, (x) => x.executions.total === 0);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.equal(runs.older?.length, 1);
  } finally {
    await s.close();
    cleanup(ws);
  }
});

test('a recording folder without any run (its recording failed) is listed in braid/runs to be deleted', async () => {
  const ws = copyFixture();
  const failed = path.join(ws, '.braid', 'traces', 'AccountTest.nosuch-20261129-060000');
  mkdirSync(failed, { recursive: true });
  writeFileSync(path.join(failed, 'recording.json'), '{}');
  mkdirSync(path.join(ws, '.braid', 'traces', 'not-a-recording'));
  const s = new LspSession(ws);
  try {
    await s.initialize();
    await s.analysisDone(0, (x) => x.executions.total > 0);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.deepEqual(runs.empty?.map((e) => e.dir), [failed]);
  } finally {
    await s.close();
    cleanup(ws);
  }
});

test('after a restart, the code before the change is the recordings of the code version just before it, not those of an older version', async () => {
  const ws = copyFixture();
  const traces = path.join(ws, '.braid', 'traces');
  const original = path.join(ws, 'original-traces');
  renameSync(traces, original);
  const src = path.join(ws, SRC);
  const text = readFileSync(src, 'utf8');
  // three code versions (a comment appended each time: no line moves), a recording of the first two
  const version = async (v: number, hour: string) => {
    writeFileSync(src, `${text}${'\n// edited'.repeat(v - 1)}`);
    const dir = await recording(ws, `inventory-v${v}`, original);
    // runs of their own (the same content is counted once)
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl'))) {
      const file = path.join(dir, f);
      writeFileSync(file, readFileSync(file, 'utf8').replace('"execution":"run-', `"execution":"v${v}-run-`));
    }
    writeFileSync(path.join(dir, 'recording.json'), JSON.stringify({ format: 'braid-recording', version: 1, command: ['java', '-cp', 'out', 'shop.Inventory', `v${v}`], cwd: ws, name: `inventory-v${v}`, runs: 6, noise: 0.1, seed: 1, include: ['shop'], exclude: [], timeoutSeconds: 60, startedAt: `2026-11-29T${hour}:00:00.000Z` }));
    return dir;
  };
  await version(1, '06');
  const v2 = await version(2, '07');
  writeFileSync(src, `${text}${'\n// edited'.repeat(2)}`);
  const s = new LspSession(ws, { griffin: { clustering: 'thesis' } });
  try {
    await s.initialize();
    // the first analysis holds both recordings' 12 runs (nothing known yet); the next one none
    await s.analysisDone(0, (x) => x.executions.total === 0);
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.deepEqual(runs.older?.map((o) => [path.basename(o.dir), o.justBefore === true]).sort(), [['inventory-v1', false], ['inventory-v2', true]]);
    assert.ok(runs.beforeBugs?.length, 'the bugs of the code before the change');
    const lead = runs.beforeBugs![0].pattern;
    // its counts are those of v2's runs alone (mixed with v1's, twice as many failing runs held it)
    const before = runs.older!.find((o) => o.dir === v2)!;
    assert.ok(lead.failed > 0 && lead.failed <= before.failed! && lead.failed + lead.passed <= before.runs!, `the lead pattern of v2's runs alone (${before.failed}/${before.runs} failed): ${lead.failed} failed, ${lead.passed} passed`);
    const cmd: { command?: string[] } = await s.connection.sendRequest('braid/confirmCommand', { key: lead.key });
    assert.deepEqual(cmd.command, ['java', '-cp', 'out', 'shop.Inventory', 'v2'], `Check the Fix runs the recording just before the change (${v2})`);
  } finally {
    await s.close();
    cleanup(ws);
  }
});
