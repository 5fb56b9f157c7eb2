/**
 * CodeVersions.justBefore (server/src/lsp/codeVersions.ts): out of the recordings of older code, the
 * ones of the code version just before the change — the newest (recording.json's start) and those whose
 * stamps agree with it on every source file either touched. An edit of a file neither touched keeps
 * one version; a touched file edited, added or deleted in between makes another.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CodeVersions, type OlderRecording } from '../../server/src/lsp/codeVersions';
import { codeStampText, contentHash } from '../../server/src/lsp/codeStamp';

const h = (s: string) => contentHash(Buffer.from(s));

test('the recordings of the version just before the change: the newest and those that ran the same touched files', async () => {
  const ws = mkdtempSync(path.join(os.tmpdir(), 'braid-versions-'));
  try {
    const versions = new CodeVersions(() => [ws]);
    const rec = (name: string, hour: string, files: Record<string, string>, touched: string[]): OlderRecording => {
      const dir = path.join(ws, '.braid', 'traces', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'sources.json'), codeStampText({ files: new Map(Object.entries(files).map(([f, c]) => [f, h(c)])) }));
      writeFileSync(path.join(dir, 'recording.json'), JSON.stringify({ format: 'braid-recording', version: 1, command: ['java', name], cwd: ws, name, runs: 1, startedAt: `2026-11-29T${hour}:00:00.000Z` }));
      // what an analysis learns: the files the recording's accesses point to
      const result = { patterns: [{ index: 0, accesses: touched.map((file) => ({ file })) }], runs: [{ file: path.join(dir, 'r.trace.jsonl'), outcome: 'fail', patterns: [0] }] };
      versions.learn(result as never, (f) => path.join(ws, f));
      return { dir, files: [path.join(dir, 'r.trace.jsonl')], changed: ['A.java'] };
    };
    const v1 = rec('v1', '06', { 'A.java': 'a1', 'Other.java': 'o1' }, ['A.java']);
    // an edit of a file neither recording touched: the same version
    const v1b = rec('v1b', '07', { 'A.java': 'a1', 'Other.java': 'o2' }, ['A.java']);
    const v2 = rec('v2', '08', { 'A.java': 'a2', 'Other.java': 'o2' }, ['A.java']);
    const v2b = rec('v2b', '09', { 'A.java': 'a2', 'Other.java': 'o3' }, ['A.java']);
    const names = async (older: OlderRecording[]) => (await versions.justBefore(older)).map((o) => path.basename(o.dir));
    assert.deepEqual(await names([v1, v1b, v2, v2b]), ['v2b', 'v2']);
    assert.deepEqual(await names([v1, v1b]), ['v1b', 'v1']);
    // a file the newer one touched, added in between (not in the older stamp): another version
    const v3 = rec('v3', '10', { 'A.java': 'a2', 'B.java': 'b1', 'Other.java': 'o3' }, ['A.java', 'B.java']);
    assert.deepEqual(await names([v2, v2b, v3]), ['v3']);
    assert.deepEqual(await names([]), []);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
