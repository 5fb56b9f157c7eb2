/**
 * Two confirmations of the same pattern that start in the same second (two seeds at once from a bench,
 * or two windows on one workspace) used to share one folder, `<name>-P<rank>-<time>`, and write their
 * plans and forced runs into it. Each now gets a folder of its own, created exclusively: the base, then
 * `-2`, `-3`…
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshFolder } from '../../server/src/recorder/runs/confirmRuns';

test('freshFolder: concurrent calls with one base get distinct folders, each created', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'braid-confirm-fresh-'));
  try {
    const base = path.join(root, '.braid', 'confirm', 'x-P1-20261130-190000');
    const folders = await Promise.all([freshFolder(base), freshFolder(base), freshFolder(base)]);
    assert.deepEqual([...folders].sort(), [base, `${base}-2`, `${base}-3`]);
    for (const f of folders) assert.ok(existsSync(f), f);
    assert.equal(await freshFolder(base), `${base}-4`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
