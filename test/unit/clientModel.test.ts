/**
 * The client's model of the server's results (client/src/model.ts): it fetches the patterns for the
 * Ranked Patterns tree up to braid.views.maxPatterns (default 500), the runs and the bugs, and keeps
 * the total so the tree can say how many more there are. Runs against the vscode mock.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { settings, useVscodeMock } from '../helpers/vscodeMock';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BraidModel } = require('../../client/src/model') as typeof import('../../client/src/model');

test('views.maxPatterns limits the patterns the tree gets; the total is kept', async () => {
  const requests: [string, unknown][] = [];
  const client = {
    onNotification: () => ({ dispose() {} }),
    sendRequest: async (method: string, params?: unknown) => {
      requests.push([method, params]);
      if (method === 'braid/patterns') {
        const limit = (params as { limit: number }).limit;
        return { summary: { state: 'done' }, total: 9, patterns: Array.from({ length: Math.min(9, limit) }, (_, k) => ({ key: `k${k}` })) };
      }
      if (method === 'braid/runs') return { runs: [] };
      return { bugs: [{ id: 1 }, null] };
    },
  };
  const model = new BraidModel(client as never, { warn() {} } as never);
  let changed = 0;
  model.onDidChange(() => changed++);
  await model.refresh();
  assert.deepEqual(requests.find((r) => r[0] === 'braid/patterns')?.[1], { offset: 0, limit: 500 }, 'default 500');
  settings['views.maxPatterns'] = 2;
  requests.length = 0;
  await model.refresh();
  delete settings['views.maxPatterns'];
  assert.deepEqual(requests.find((r) => r[0] === 'braid/patterns')?.[1], { offset: 0, limit: 2 });
  assert.deepEqual([model.patterns.length, model.patternTotal], [2, 9]);
  assert.deepEqual(model.bugs, [{ id: 1 }], 'malformed bugs are dropped');
  assert.equal(changed, 2);
});

test('an analysis that changed nothing fires no change and keeps the objects the views hold; a changed one fires', async () => {
  let total = 3;
  let verdict: string | undefined;
  const client = {
    onNotification: () => ({ dispose() {} }),
    sendRequest: async (method: string) => {
      if (method === 'braid/patterns') {
        return { summary: { state: 'done' }, total, patterns: Array.from({ length: total }, (_, k) => ({ key: `k${k}`, ...(k === 0 && verdict ? { verdict } : {}) })) };
      }
      if (method === 'braid/runs') return { runs: [] };
      return { bugs: [] };
    },
  };
  const model = new BraidModel(client as never, { warn() {} } as never);
  let changed = 0;
  let statuses = 0;
  model.onDidChange(() => changed++);
  model.onDidChangeStatus(() => statuses++);
  await model.refresh();
  const first = model.patterns;
  await model.refresh();
  assert.equal(changed, 1, 'the same results: no change event');
  assert.equal(statuses, 2, 'the status bar is told each time');
  assert.equal(model.patterns, first, 'the same objects as the trees hold');
  verdict = 'confirmed';
  await model.refresh();
  assert.equal(changed, 2, 'a verdict on a pattern is a change');
  assert.equal((model.patterns[0] as unknown as { verdict?: string }).verdict, 'confirmed');
  total = 4;
  await model.refresh();
  assert.equal(changed, 3, 'one more pattern is a change');
  assert.equal(model.patterns.length, 4);
});
