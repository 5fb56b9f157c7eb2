// steno issue #11 (https://github.com/typicode/steno/issues/11), "Why all callbacks are called before
// next write is issued?", fixed by "Fix callback issue, thanks to @mcheshkov" (released in 0.4.4):
// writeFile() while an earlier write of the same file is still in progress saves its data for later
// and its callback in the writer's one list of callbacks; when the earlier write's rename completes,
// every callback in the list is called, the later write's too, before the later data has been
// written. A caller that reads the file in its callback then finds the earlier data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import steno from 'steno';

const here = fileURLToPath(import.meta.url);

function save(file, data) {
  return new Promise((resolve, reject) => steno.writeFile(file, data, (err) => (err ? reject(err) : resolve())));
}

test('a write whose callback has been called is in the file', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'steno-earlycb-'));
  const file = path.join(dir, 'settings.json');
  try {
    // the user changes the theme: the settings are saved
    const first = save(file, JSON.stringify({ theme: 'dark' }));
    // a moment later (some I/O of its own) the user changes the language: the settings are saved again
    for (let i = 0; i < 4; i++) await stat(here);
    const second = save(file, JSON.stringify({ theme: 'dark', lang: 'fr' }));
    await first;
    await second;
    // the second save's callback came: the file holds its settings
    const saved = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(saved.lang, 'fr', `the second save's callback was called but the file holds ${JSON.stringify(saved)}`);
  } finally {
    // let a write saved for later finish before the folder goes
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rm(dir, { recursive: true, force: true });
  }
});
