/**
 * Issue 39, leftover of issue 31 N12: "`braid confirm` on a full disk exits 1 with 'ENOSPC … write',
 * no file named, and leaves a lock file and a log without trace". On a refused write braid confirm
 * must say "disk full writing <file>", exit 3 like braid record, and leave no lock and no orphan log
 * (the ENOSPC is injected by test/helpers/confirmWithFullDisk.ts).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';
import { EXIT_WRITE_FAILURE } from '../../server/src/recorder/runs/writeFailure';
import { LOCK_NAME } from '../../server/src/recorder/runs/recordingLock';
import { classesDir, FAST_JVM, prepare, root } from './recorderHarness';

before(() => prepare());

const helper = path.join(root, 'test/helpers/confirmWithFullDisk.ts');
const bank = path.join(root, 'test/fixtures/recorded/bank');

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

function confirmOnFullDisk(full: string, extra: string[] = []) {
  const cwd = tempDir();
  const r = spawnSync(process.execPath, ['--import', 'tsx', helper, bank, '--runs', '4', '--jobs', '1', '--seed', '2', ...extra, '--include', 'bank', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'bank.Bank'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, BRAID_TEST_FULL_DISK: full, BRAID_TEST_CWD: cwd },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, cwd };
}

/** Every run's log has its trace (a run that is not listed leaves nothing). */
function noOrphanLog(list: string[]): void {
  for (const f of list.filter((x) => x.endsWith('.log'))) assert.ok(list.includes(f.replace(/\.log$/, '.trace.jsonl')), `a log without trace: ${f}\n${list.join('\n')}`);
}

test('"braid confirm on a full disk exits 1 with ENOSPC … write, no file named, and leaves a lock file": the lock of a group cannot be written → "disk full writing <lock>", exit 3, no lock left', { timeout: 180_000 }, () => {
  const r = confirmOnFullDisk(`${path.sep}opposite${path.sep}${LOCK_NAME}`);
  assert.equal(r.code, EXIT_WRITE_FAILURE, r.out + r.err);
  assert.match(r.err, new RegExp(`^braid confirm: disk full writing \\S+[\\\\/]opposite[\\\\/]\\${LOCK_NAME}`, 'm'));
  const list = files(path.join(r.cwd, '.braid', 'confirm'));
  assert.ok(!list.some((f) => f.endsWith(LOCK_NAME)), `a lock file is left:\n${list.join('\n')}`);
  noOrphanLog(list);
});

test('"… and a log without trace": a run\'s trace cannot be completed → "disk full writing <trace>", exit 3, no log of the unfinished run', { timeout: 180_000 }, () => {
  const r = confirmOnFullDisk('forced-0001.trace.jsonl.part');
  assert.equal(r.code, EXIT_WRITE_FAILURE, r.out + r.err);
  assert.match(r.err, /^braid confirm: disk full writing \S+forced-0001\.trace\.jsonl\.part/m);
  const list = files(path.join(r.cwd, '.braid', 'confirm'));
  assert.ok(!list.some((f) => f.endsWith(LOCK_NAME)), `a lock file is left:\n${list.join('\n')}`);
  assert.ok(!list.some((f) => f.includes('forced-0001')), `files of the unfinished run are left:\n${list.join('\n')}`);
  noOrphanLog(list);
});
