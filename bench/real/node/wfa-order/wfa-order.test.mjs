// write-file-atomic pull request #22 (https://github.com/npm/write-file-atomic/pull/22), "Serialize
// Writes to the Same File": concurrent writeFileAtomic calls on one file each write their own
// temporary file and rename it over the target when their own write is done, so the renames happen
// in completion order, not call order — an earlier, larger write can land after a later one and the
// file keeps stale content (on Windows the overlapping renames fail with EPERM). The fix (released in
// 2.3.0) queues writes to the same file so that they happen, and the last call wins, in call order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

function save(file, data) {
  return new Promise((resolve, reject) => writeFileAtomic(file, data, (err) => (err ? reject(err) : resolve())));
}

test('the last of two concurrent writes to one file wins', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wfa-order-'));
  try {
    const file = path.join(dir, 'settings.json');
    // the application saves its settings twice in a row: a full snapshot, then the small final state
    const snapshot = JSON.stringify({ version: 1, history: 'x'.repeat(16 * 1024) });
    const final = JSON.stringify({ version: 2 });
    await Promise.all([save(file, snapshot), save(file, final)]);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(saved.version, 2, `the file kept version ${saved.version}: the earlier write was renamed over the later one`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
