// node-persist issue #108 (https://github.com/simonlast/node-persist/issues/108), "Concurrent `setItem`
// and `getItem` can lead into an unhandled `does not look like a valid storage file`" (and #31, #99:
// "files can sometimes become corrupted as newer data only partially overwrites older data"), fixed by
// "attempt to resolve #108 for single process mode only" (the writeQueue options, released in 3.1.2):
// setItem writes the key's file with fs.writeFile at once, so two setItem calls of one key that
// overlap run two writes of the same file at the same time; the file ends with whichever write
// landed last, or with the shorter value followed by the tail of the longer one. The last setItem
// should win.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import storage from 'node-persist';

test('the last of two overlapping setItem calls of one key is the value read back', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'persist-setitem-'));
  try {
    const store = storage.create({ dir });
    await store.init();
    await store.setItem('session', { user: 'ann', cart: [] });

    // a few checkouts: each time a request saves a large snapshot of the session (its cart
    // history) and, after some I/O of its own, the next request saves the emptied cart
    for (let attempt = 0; attempt < 3; attempt++) {
      const snapshot = { user: 'ann', cart: Array.from({ length: 2000 }, (_, i) => `item-${attempt}-${i}`) };
      const first = store.setItem('session', snapshot);
      await stat(dir);
      const second = store.setItem('session', { user: 'ann', cart: [], checkout: attempt });
      await Promise.all([first, second]);

      let value;
      try {
        value = await store.getItem('session');
      } catch (err) {
        assert.fail(`the session file is corrupted: ${err.message}`);
      }
      assert.deepEqual(value, { user: 'ann', cart: [], checkout: attempt }, 'the earlier snapshot overwrote the later save');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
