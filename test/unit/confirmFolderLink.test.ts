/**
 * Issue 39 (LOW, "files under .braid/ followed through symlinks"): a confirmation writes its plans
 * and forced runs into <cwd>/.braid/confirm, never through a .braid or .braid/confirm that a cloned
 * repository linked elsewhere — it stops with an error naming the link, before anything runs.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { confirmPattern } from '../../server/src/recorder/runs/confirmRuns';
import type { ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';

const pattern: ForcedPattern = {
  key: 'k',
  id: 'P1',
  kind: 'RW',
  rank: 1,
  accesses: [
    { thread: 1, type: 'R', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 10, method: 'bank.Account.deposit' },
    { thread: 2, type: 'W', variable: 'bank.Account.balance', file: 'bank/Account.java', line: 11, method: 'bank.Account.deposit' },
  ],
};

for (const linked of ['.braid', '.braid/confirm']) {
  test(`a linked ${linked} is not written through: the confirmation stops naming the link, nothing lands outside`, async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'braid-confirm-link-'));
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'braid-confirm-elsewhere-'));
    try {
      if (linked === '.braid/confirm') mkdirSync(path.join(cwd, '.braid'));
      symlinkSync(elsewhere, path.join(cwd, linked));
      const marker = path.join(cwd, 'ran');
      await assert.rejects(
        confirmPattern(pattern, { command: ['sh', '-c', `touch ${marker}`], cwd, include: ['bank'], exclude: [], runs: 1, noise: 0, timeoutSeconds: 10, jobs: 1, seed: 1, name: 'x' }),
        (e: Error) => e.message.includes('symbolic link') && e.message.includes(path.join(cwd, linked)),
      );
      assert.deepEqual(readdirSync(elsewhere), [], 'nothing written where the link points');
      assert.equal(existsSync(marker), false, 'the command never ran');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
}
