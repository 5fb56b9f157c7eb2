// lru-cache issue #388 (https://github.com/isaacs/node-lru-cache/issues/388), background fetches lost,
// fixed by "Allow ignored-abort fetches to update cache" (released in 11.2.2): with ignoreFetchAbort
// and allowStaleOnFetchAbort, a fetch() whose signal is aborted returns at once while the fetchMethod
// goes on in the background, and its result should then be stored. When nothing was cached for the key
// yet, the abort deletes the pending entry, and the background result, arriving later, finds the slot
// no longer holding its promise and is dropped: the value is never cached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { LRUCache } from 'lru-cache';

const here = fileURLToPath(import.meta.url);

test('a fetch aborted by its caller still caches the value fetched in the background', async () => {
  let fetched = 0;
  const cache = new LRUCache({
    max: 10,
    ttl: 10_000,
    ignoreFetchAbort: true,
    allowStaleOnFetchAbort: true,
    // the upstream lookup: some I/O
    fetchMethod: async (key) => {
      const text = await readFile(here, 'utf8');
      fetched++;
      return `${key}:${text.length}`;
    },
  });
  cache.set('motd', 'hello');

  // a request fetches the user's profile, but gives up (its client went away) after its own I/O
  const ac = new AbortController();
  const request = cache.fetch('profile:7', { signal: ac.signal });
  for (let i = 0; i < 3; i++) await stat(here);
  await new Promise((resolve) => setImmediate(resolve));
  ac.abort(new Error('client went away'));
  await request.catch(() => undefined);

  // the background fetch finishes; the next request should find the profile in the cache
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(fetched, 1);
  assert.ok(cache.get('profile:7') !== undefined, 'the profile fetched in the background was not cached');
});
