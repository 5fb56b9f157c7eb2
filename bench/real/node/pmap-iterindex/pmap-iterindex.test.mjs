// p-map PR #88 (https://github.com/sindresorhus/p-map/pull/88), "Fix `pMapIterable` mapper index for
// out-of-order promise inputs", fixed in 7.0.5 (1af51b5): the index pMapIterable hands the mapper is
// meant to be the element's position in the source, as pMap's, but `mapper(await value, index++)`
// reads the shared counter only after the element's promise settled, so the elements are numbered in
// the order their promises happen to resolve. When the promises settle in source order the indexes
// are right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { pMapIterable } from 'p-map';

const here = fileURLToPath(import.meta.url);
const YIELDS = 14;

test('pMapIterable hands the mapper each element\'s position in the source', async () => {
  // two rows of a report, the input as promises (as the README allows): the header is read from
  // disk, the total is computed in slices that yield to the event loop between them
  const header = readFile(here).then(() => 'header');
  const total = (async () => {
    for (let i = 0; i < YIELDS; i++) await new Promise((resolve) => setImmediate(resolve));
    return 'total';
  })();
  const rows = [];
  for await (const row of pMapIterable([header, total], (name, index) => ({ name, index }), { concurrency: 2 })) rows.push(row);
  const misplaced = rows.filter((row, position) => row.index !== position);
  assert.deepEqual(misplaced, [], `the mapper got ${rows.map((r) => `${r.name} at ${r.index}`).join(', ')}: the rows would be written to the wrong places`);
});
