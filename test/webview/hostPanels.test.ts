/**
 * The host side of the webviews (client/src/webviews/panels.ts, docs/views.md "Messages"): what the
 * host sends before a view said `ready` is queued and flushed on `ready` (again after a hidden
 * view reloads); one panel per view, revealed when opened again; requests go to the language
 * server with the view's requestId; malformed messages are ignored; `changed` reaches every view.
 * Runs against the vscode mock (test/helpers/vscodeMock.ts) with a fake data source.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/traceBuilder';
import { MockPanel, Uri, useVscodeMock, window } from '../helpers/vscodeMock';

useVscodeMock([tempDir('braid-panels-')]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { registerWebviews } = require('../../client/src/webviews/panels') as typeof import('../../client/src/webviews/panels');

const calls: [string, unknown][] = [];
let changed: (() => void) | undefined;
const api = registerWebviews({ extensionUri: Uri.file('/ext'), subscriptions: [] } as never, {
  request: async <R>(method: string, params?: unknown): Promise<R> => {
    calls.push([method, params]);
    if (method === 'braid/bugGraph') throw new Error('no such bug');
    return { ok: method } as R;
  },
  onDidChange: (l: () => void) => {
    changed = l;
    return { dispose() {} };
  },
});
const settle = () => new Promise((r) => setImmediate(r));

test('messages before ready are queued and flushed on ready; one panel per view, revealed again', async () => {
  api.openBugGraph(2);
  const panel = window.panels.at(-1) as MockPanel;
  assert.equal(panel.viewType, 'braid.bugGraph');
  assert.match(panel.webview.html, /Content-Security-Policy/);
  assert.deepEqual(panel.posted, [], 'nothing posted before the view is ready');
  panel.fromView({ type: 'ready' });
  await settle();
  assert.deepEqual(panel.posted, [{ type: 'showBug', bug: 2 }]);
  api.openBugGraph(3);
  assert.equal(window.panels.filter((p) => p.viewType === 'braid.bugGraph').length, 1, 'the same panel');
  assert.equal(panel.revealed, 1);
  assert.deepEqual(panel.posted.at(-1), { type: 'showBug', bug: 3 }, 'posted at once when ready');
  // hidden: the view is torn down and reloads, so messages wait for its next ready
  panel.setVisible(false);
  changed!();
  assert.deepEqual(panel.posted.at(-1), { type: 'showBug', bug: 3 });
  panel.setVisible(true);
  panel.fromView({ type: 'ready' });
  await settle();
  assert.deepEqual(panel.posted.at(-1), { type: 'changed' });
  panel.dispose();
});

test('requests go to the server with their requestId; errors come back as text; malformed messages are ignored', async () => {
  api.openUnicorn();
  const panel = window.panels.at(-1) as MockPanel;
  panel.fromView({ type: 'ready' });
  panel.fromView({ type: 'request', requestId: 7, method: 'patterns', params: { offset: 0, limit: 10 } });
  panel.fromView({ type: 'request', requestId: 8, method: 'bugGraph', params: { bug: 99 } });
  panel.fromView({ type: 'request', requestId: 9, method: 'shutdown' });
  panel.fromView({ type: 'fetchEvents', requestId: 10, params: { run: '', offset: 0, limit: 10 } });
  panel.fromView('not an object');
  await settle();
  await settle();
  assert.deepEqual(calls, [
    ['braid/patterns', { offset: 0, limit: 10 }],
    ['braid/bugGraph', { bug: 99 }],
  ]);
  assert.deepEqual(
    panel.posted.filter((m) => (m as { type: string }).type === 'response'),
    [
      { type: 'response', requestId: 7, result: { ok: 'braid/patterns' } },
      { type: 'response', requestId: 8, error: 'no such bug' },
    ],
  );
  panel.dispose();
});
