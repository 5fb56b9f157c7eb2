/**
 * docs/recorder.md "Where the recorder's code lives" (issue 45 item 4) names every file of each folder
 * of server/src/recorder/, and no file that is not there: a newcomer finds a file by its folder's row.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

test('docs/recorder.md: the table of the recorder\'s folders lists exactly the files of each folder', () => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'recorder.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Where the recorder\'s code lives'));
  const rows = [...section.matchAll(/^\| `server\/src\/recorder\/([a-z]+)\/` \|[^|]*\| (.*) \|$/gm)];
  const folders = readdirSync(path.join(ROOT, 'server', 'src', 'recorder'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  assert.deepEqual(rows.map((r) => r[1]).sort(), folders, 'one row per folder');
  for (const [, folder, files] of rows) {
    const listed = [...files.matchAll(/`([A-Za-z0-9]+)`/g)].map((m) => m[1]).sort();
    const actual = readdirSync(path.join(ROOT, 'server', 'src', 'recorder', folder)).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3)).sort();
    assert.deepEqual(listed, actual, `server/src/recorder/${folder}/`);
  }
});
