/**
 * Issue 30, point 3: "Exclude Run" persists in .braid/excluded-runs.json; the server leaves the run
 * out of the analysis (and lists it apart in braid/runs), and takes it back when it is included.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import type { RunsResult } from '../../server/src/lsp/protocol';
import { excludedRunsText } from '../../server/src/workspace/excludedRuns';

test('an excluded run leaves the analysis and comes back when included', async () => {
  const ws = copyFixture();
  const s = new LspSession(ws);
  try {
    await s.initialize();
    const first = await s.analysisDone();
    const total = first.executions.total as number;
    const runs: RunsResult = await s.connection.sendRequest('braid/runs');
    const failing = runs.runs.find((r) => r.outcome === 'fail')!;
    const rel = path.relative(ws, path.resolve(ws, failing.file)).split(path.sep).join('/');
    mkdirSync(path.join(ws, '.braid'), { recursive: true });
    writeFileSync(path.join(ws, '.braid', 'excluded-runs.json'), excludedRunsText([rel, '../outside.trace.jsonl']));
    let since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri('.braid/excluded-runs.json'), type: 1 }] });
    const st = await s.analysisDone(since, (x) => x.executions.total === total - 1);
    assert.equal(st.executions.failed, first.executions.failed - 1);
    const after: RunsResult = await s.connection.sendRequest('braid/runs');
    assert.ok(!after.runs.some((r) => r.execution === failing.execution));
    assert.deepEqual(after.excluded?.map((x) => path.resolve(x.file)), [path.resolve(ws, rel)]);
    writeFileSync(path.join(ws, '.braid', 'excluded-runs.json'), excludedRunsText([]));
    since = s.notes.length;
    await s.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: s.uri('.braid/excluded-runs.json'), type: 2 }] });
    const back = await s.analysisDone(since, (x) => x.executions.total === total);
    assert.equal(back.executions.failed, first.executions.failed);
    assert.ok(readdirSync(path.join(ws, '.braid', 'traces')).length > 0);
  } finally {
    await s.close();
    cleanup(ws);
  }
});
