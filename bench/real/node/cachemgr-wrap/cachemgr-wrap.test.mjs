// cache-manager issue "Concurrent calls to .wrap() don't use the cached value" (https://github.com/jaredwray/cacheable/issues/395;
// the fix's commit says "fixes 417"), fixed by pull
// request #599 "fix(caching): coalesce concurrent requests to wrap function": cache.wrap(key, fn)
// reads the key from the store, and on a miss awaits fn() and then stores its result. A second
// request for the same key that reads the store before the first one has stored its result misses
// too and calls fn again: the expensive loader (a database query, an upstream API call) runs once
// per concurrent request instead of once (a cache stampede).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { caching } from 'cache-manager';

const here = fileURLToPath(import.meta.url);

test('concurrent requests for one key load it once', async () => {
  const cache = await caching('memory', { max: 100, ttl: 60_000 });
  let loads = 0;
  // the expensive loader: a "database query" (file-system work)
  const loadProfile = async (id) => {
    loads++;
    const text = await readFile(here, 'utf8');
    return { id, size: text.length };
  };
  const getProfile = (id) => cache.wrap(`profile:${id}`, () => loadProfile(id));

  // two requests for the same profile: the second arrives after its own I/O (session lookup)
  const first = getProfile(42);
  const second = (async () => {
    await stat(here);
    await stat(here);
    await stat(here);
    await stat(here);
    await stat(here);
    return getProfile(42);
  })();
  const [a, b] = await Promise.all([first, second]);
  assert.deepEqual(a, b);
  assert.equal(loads, 1, `the profile was loaded ${loads} times for two concurrent requests`);
});
