/**
 * The client's server-restart path (issue 15): the language server PROCESS
 * (not only its analysis worker) is killed with SIGKILL in the middle of an
 * analysis; its connection closes, the client's restart policy
 * (client/src/restartPolicy.ts restartAfterStop, what extension.ts's errorHandler.closed runs)
 * decides to restart, and a new server on the same workspace analyzes it
 * again and answers hovers. (The policy's limits are unit-tested in
 * test/unit/restartPolicy.test.ts.)
 *
 * VS Code's LanguageClient itself (which calls errorHandler.closed and
 * respawns the module over IPC) needs a VS Code host; this test drives the
 * same steps over stdio with the real server, and the policy directly.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LspSession, cleanup, copyFixture } from './lspHarness';
import { restartAfterStop } from '../../client/src/restartPolicy';

const SRC = 'src/main/java/shop/Inventory.java';

function processOf(s: LspSession): ChildProcess {
  return (s as unknown as { proc: ChildProcess }).proc;
}

test('SIGKILL of the language server process mid-analysis: connection closes, the policy restarts it, the new server analyzes again', { timeout: 120000 }, async () => {
  const ws = copyFixture();
  const stops: number[] = [];
  const first = new LspSession(ws);
  let second: LspSession | undefined;
  try {
    await first.initialize();
    const proc = processOf(first);
    const closed = new Promise<void>((resolve) => first.connection.onClose(() => resolve()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('exit', (_code, sig) => resolve(sig)));
    // kill while the first analysis runs (initialized was just sent)
    assert.ok(proc.kill('SIGKILL'));
    assert.equal(await exited, 'SIGKILL');
    await closed;
    // the client's closed() handler
    assert.equal(restartAfterStop(stops, Date.now()), true);
    assert.equal(stops.length, 1);
    // CloseAction.Restart: a new server process, initialized the same way
    second = new LspSession(ws);
    await second.initialize();
    const summary = await second.analysisDone();
    assert.deepEqual(summary.executions, { total: 6, failed: 2, passed: 4 });
    const text = readFileSync(path.join(ws, SRC), 'utf8');
    const uri = await second.open(SRC, text);
    const line0 = text.split('\n').findIndex((l) => l.includes('stock = stock - n') || l.includes('stock -'));
    const hover = await second.connection.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: Math.max(0, line0), character: 6 } });
    assert.ok(hover, 'the restarted server answers hovers');
  } finally {
    await second?.close();
    await first.close().catch(() => {});
    cleanup(ws);
  }
});
