/**
 * Reopening a workspace (issue 14 item 4): the language server's analysis worker writes the
 * workspace snapshot to <workspace>/.braid/cache after a round, and a new session starts from it,
 * reading only the trace added meanwhile. A broken snapshot is a warning, and every trace is read.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { snapshotPath } from '../../server/src/engine/summary/workspaceSnapshot';
import { FAIL, traceText } from './fixtureTraces';

function snapshotFile(ws: string): string | undefined {
  const cache = path.join(ws, '.braid', 'cache');
  if (!existsSync(cache)) return undefined;
  // the snapshot's name is keyed by this machine's key (cacheKey.ts): workspace-<name>.braid-snapshot
  for (const d of readdirSync(cache)) {
    const f = snapshotPath(path.join(cache, d));
    if (existsSync(f)) return f;
  }
  return undefined;
}

async function until<T>(f: () => T | undefined, what: string, ms = 30000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The server logs a round after its status: wait for the line. */
function logged(s: LspSession, re: RegExp): Promise<unknown> {
  return s.waitFor('window/logMessage', (p) => re.test(p.message), 0, 30000);
}

test('language server: a reopened workspace starts from the snapshot and reads only the new trace; a broken snapshot is a warning and everything is read', async () => {
  const ws = copyFixture();
  try {
    const first = new LspSession(ws);
    await first.initialize();
    const st1 = await first.analysisDone();
    assert.equal(st1.executions.total, 6);
    await logged(first, /\(6 read, 0 cached, 0 removed\)/);
    const file = await until(() => snapshotFile(ws), 'the workspace snapshot');
    await first.close();

    writeFileSync(path.join(ws, '.braid/traces/run-007.trace.jsonl'), traceText({ execution: 'run-007', outcome: 'fail', events: FAIL }));
    const second = new LspSession(ws);
    await second.initialize();
    const st2 = await second.analysisDone(0, (x) => x.executions.total === 7);
    assert.deepEqual(st2.executions, { total: 7, failed: 3, passed: 4 });
    await logged(second, /\(1 read, 6 cached, 0 removed\)/);
    await second.close();

    writeFileSync(file, 'BRAIDSNP broken');
    const third = new LspSession(ws);
    await third.initialize();
    const st3 = await third.analysisDone(0, (x) => x.executions.total === 7);
    assert.deepEqual(st3.executions, { total: 7, failed: 3, passed: 4 });
    await logged(third, /\(7 read, 0 cached, 0 removed\)/);
    await logged(third, /workspace snapshot .* not used: not a Braid workspace snapshot; every trace is read again/);
    await third.close();
  } finally {
    cleanup(ws);
  }
});
