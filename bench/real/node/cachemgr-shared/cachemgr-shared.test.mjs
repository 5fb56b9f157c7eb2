// cache-manager issue #742 (https://github.com/jaredwray/cacheable/issues/742), "cache.wrap is shared
// between cache instances": since 5.3 wrap() coalesces concurrent calls through promise-coalesce,
// whose in-flight promises live in one module-level Map keyed by the wrap key alone. A wrap on a
// second cache instance with the same key, made while the first instance's wrap of that key is in
// flight, gets the first instance's promise: the result of the other cache's function (wrong data,
// or a reference error when the two caches hold different structures).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createCache, memoryStore } from 'cache-manager';

const here = fileURLToPath(import.meta.url);

test('two caches wrapping the same key each get their own value', async () => {
  const users = createCache(memoryStore({ max: 50, ttl: 60_000 }));
  const teams = createCache(memoryStore({ max: 50, ttl: 60_000 }));
  const loadUser = async (id) => {
    await readFile(here);
    return { kind: 'user', id, name: 'Ada' };
  };
  const loadTeam = async (id) => {
    await readFile(here);
    return { kind: 'team', id, members: ['Ada', 'Grace'] };
  };

  // request 1 looks up user 1; request 2, after its own I/O, looks up team 1
  const user = users.wrap('1', () => loadUser(1));
  const team = (async () => {
    await stat(here);
    await stat(here);
    await stat(here);
    await stat(here);
    await stat(here);
    return teams.wrap('1', () => loadTeam(1));
  })();
  const [u, t] = await Promise.all([user, team]);
  assert.equal(u.kind, 'user');
  assert.equal(t.kind, 'team', `the teams cache returned the users cache's value: ${JSON.stringify(t)}`);
});
