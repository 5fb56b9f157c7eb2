// p-memoize PR #48 (https://github.com/sindresorhus/p-memoize/pull/48), "Allow `.set()` to be async,
// only cache promises until they resolve, synchronously cache pending promises …", fixed in 7.0.0
// (7a82e0f; it fixes #47 and #34): "if a function is called twice before the asynchronous cache is
// checked in the first call, the second call will not recognise the first one". Since 6.0.0 the
// memoized function awaits cache.has(key) and looks at its in-flight promises only when the cache
// already has the key, so a call that comes while the first one is still running calls the function
// again (the PR's test "pending promises are cached": invocationsCount 1). A call that comes after the
// first one settled is a cache hit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pMemoize from 'p-memoize';

const here = fileURLToPath(import.meta.url);
const CHECKS = 3;
const YIELDS = 6;

test('a memoized loader runs once for two requests of one key', async () => {
  let loads = 0;
  // an expensive lookup (a profile read from disk), memoized with the default Map cache
  const loadProfile = pMemoize(async (id) => {
    loads++;
    await readFile(here);
    return { id, name: 'Ada' };
  });
  // two requests for one profile: the second one validates its session first (its own I/O, then a
  // few turns of the event loop)
  const first = loadProfile('u1');
  const second = (async () => {
    for (let i = 0; i < CHECKS; i++) await stat(here);
    for (let i = 0; i < YIELDS; i++) await new Promise((resolve) => setImmediate(resolve));
    return loadProfile('u1');
  })();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.name, b.name);
  assert.equal(loads, 1, `the profile was loaded ${loads} times: the second request did not see the first one in flight`);
});
