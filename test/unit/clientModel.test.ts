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
