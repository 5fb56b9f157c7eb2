// LokiJS commits 4527d1c (the failing test) and 33c600c (the fix, https://github.com/techfort/LokiJS/commit/33c600c98d4769918fa871bf23d8aeeb76a54711),
// "Fix dirty-checking race condition": saveDatabase() serializes the database, hands it to the
// (asynchronous) persistence adapter and clears the collections' dirty flags only in the adapter's
// callback. A document updated while the save is under way is not in the saved file, and its dirty
// flag is then cleared by the callback, so autosave and close() never save it: the change is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import loki from 'lokijs';

function open(file) {
  return new loki(file, { adapter: new loki.LokiFsAdapter(), autosave: true, autosaveInterval: 60000 });
}

test('a document updated while the database is being saved is not lost', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'loki-dirty-'));
  try {
    const file = path.join(dir, 'armory.db');
    const db = open(file);
    const items = db.addCollection('items');
    items.insert({ name: 'mjolnir', owner: 'thor' });
    const gungnir = items.insert({ name: 'gungnir', owner: 'odin' });

    // the periodic save (what the autosave timer does) ...
    const saved = new Promise((resolve) => db.saveDatabase(resolve));
    // ... while a request that arrives a few milliseconds later updates a document after its own I/O
    const request = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await stat(dir);
      gungnir.owner = 'loki';
      items.update(gungnir);
    })();
    await Promise.all([saved, request]);

    // shutting down: close() saves the database when it is dirty
    await new Promise((resolve) => db.close(resolve));

    const reopened = open(file);
    await new Promise((resolve, reject) => reopened.loadDatabase({}, (err) => (err ? reject(err) : resolve())));
    reopened.autosaveDisable();
    const owner = reopened.getCollection('items').findOne({ name: 'gungnir' }).owner;
    assert.equal(owner, 'loki', `the update made during the save was lost: the saved owner is '${owner}'`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
