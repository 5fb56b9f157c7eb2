// p-memoize 4.0.2 (https://github.com/sindresorhus/p-memoize/pull/25, "Fix consecutive non awaited
// calls"; fixed for version 4 in 4.0.3 by pull request #37): 4.0.2 stores a call's promise in the
// cache only when the promise has settled (its finally), so a second call with the same key made
// while the first is still in flight finds nothing in the cache and runs the memoized function
// again — for a loader, a second load of the same resource.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pMemoize from 'p-memoize';

const here = fileURLToPath(import.meta.url);

test('two requests for one key load it once', async () => {
  let loads = 0;
  const loadSettings = pMemoize(async (name) => {
    loads++;
    const text = await readFile(here, 'utf8');
    return { name, size: text.length };
  });

  // request 1 loads the settings; request 2, after its own I/O, asks for the same settings
  const first = loadSettings('db');
  const second = (async () => {
    await stat(here);
    await stat(here);
    await stat(here);
    await stat(here);
    return loadSettings('db');
  })();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.size, b.size);
  assert.equal(loads, 1, `the memoized loader ran ${loads} times for one key`);
});
