import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTraceFiles, removeRunFiles } from '../../server/src/recorder/runs/runFiles';
import { inProgressTraceFiles, inProgressPath } from '../../server/src/recorder/runs/inProgressTraces';
import { siblingFiles } from '../../server/src/recorder/runs/siblingFiles';

function folder(names: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-runfiles-'));
  for (const n of names) writeFileSync(path.join(dir, n), '');
  return dir;
}

test('a run\'s final traces: its own and its further processes\', sorted, not another run\'s', async () => {
  const dir = folder(['run-0003.trace.jsonl', 'run-0003~77.trace.jsonl', 'run-0003~5.trace.jsonl', 'run-00031.trace.jsonl', 'run-0004.trace.jsonl', 'run-0003.trace.jsonl.part', 'run-0003~9.trace.jsonl.gz']);
  try {
    const got = (await runTraceFiles(path.join(dir, 'run-0003.trace.jsonl'))).map((f) => path.basename(f));
    assert.deepEqual(got, ['run-0003.trace.jsonl', 'run-0003~5.trace.jsonl', 'run-0003~77.trace.jsonl']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run\'s in-progress traces: the .part file and .part~<pid> of further JVMs only', async () => {
  const dir = folder(['run-0003.trace.jsonl.part', 'run-0003.trace.jsonl.part~12', 'run-0003.trace.jsonl.part~x', 'run-0003.trace.jsonl.part~', 'run-0004.trace.jsonl.part', 'run-0003.trace.jsonl']);
  try {
    const got = (await inProgressTraceFiles(inProgressPath(path.join(dir, 'run-0003.trace.jsonl')))).map((f) => path.basename(f));
    assert.deepEqual(got, ['run-0003.trace.jsonl.part', 'run-0003.trace.jsonl.part~12']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('removing a run\'s files leaves the other runs\' files', async () => {
  const dir = folder(['run-0003.trace.jsonl', 'run-0003~5.trace.jsonl', 'run-0003.trace.jsonl.part~12', 'run-0004.trace.jsonl', 'run-0004.trace.jsonl.part']);
  try {
    await removeRunFiles(path.join(dir, 'run-0003.trace.jsonl'));
    assert.deepEqual(await siblingFiles(dir, () => true), [path.join(dir, 'run-0004.trace.jsonl'), path.join(dir, 'run-0004.trace.jsonl.part')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a folder that cannot be read has no files', async () => {
  const dir = path.join(os.tmpdir(), 'braid-runfiles-missing-' + process.pid);
  assert.equal(existsSync(dir), false);
  assert.deepEqual(await siblingFiles(dir, () => true), []);
  assert.deepEqual(await runTraceFiles(path.join(dir, 'run-0001.trace.jsonl')), []);
});
