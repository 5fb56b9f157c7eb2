/**
 * The client's server-restart path (issue 15): the language server PROCESS
 * (not only its analysis worker) is killed with SIGKILL in the middle of an
 * analysis; its connection closes, the client's restart policy
 * (client/src/restartPolicy.ts, what extension.ts's errorHandler.closed runs)
 * decides to restart, and a new server on the same workspace analyzes it
 * again and answers hovers. After 5 crashes within 3 minutes the policy stops.
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
import { ServerRestartPolicy } from '../../client/src/restartPolicy';

const SRC = 'src/main/java/shop/Inventory.java';

function processOf(s: LspSession): ChildProcess {
  return (s as unknown as { proc: ChildProcess }).proc;
}

test('SIGKILL of the language server process mid-analysis: connection closes, the policy restarts it, the new server analyzes again', { timeout: 120000 }, async () => {
  const ws = copyFixture();
  const policy = new ServerRestartPolicy();
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
    const decision = policy.closed();
    assert.deepEqual(decision, { restart: true, count: 1, message: 'the language server stopped unexpectedly; restarting (1/5 in 3 minutes)' });
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

test('restart policy: 5 restarts within 3 minutes, then it stays stopped; old crashes leave the window', () => {
  const p = new ServerRestartPolicy(5, 180000);
  const t0 = 1_000_000;
  for (let k = 1; k <= 5; k++) assert.deepEqual(p.closed(t0 + k * 1000), { restart: true, count: k, message: `the language server stopped unexpectedly; restarting (${k}/5 in 3 minutes)` });
  const sixth = p.closed(t0 + 6000);
  assert.equal(sixth.restart, false);
  assert.equal(sixth.message, 'Braid: the language server crashed 5 times in 3 minutes and stays stopped. See the Braid output; run "Developer: Reload Window" to start it again.');
  // 3 minutes after the first crashes they no longer count
  const later = p.closed(t0 + 6000 + 180001);
  assert.deepEqual([later.restart, later.count], [true, 1]);
});
