/**
 * Trigger points and noise plans for JavaScript (issue 32, point 4; docs/noise.md "Point ids"): on
 * a copy of test/fixtures/node/inflight (a Map check and set of in-flight requests with a disk
 * lookup awaited between them), `braid pinpoint` lists the await points the Node.js recorder
 * reaches, finds the await of the disk lookup (forkCache.mjs:20) as the trigger point, writes a
 * plan with JavaScript point ids, and `braid record --plan` reproduces the failure with it.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBraid, repoRoot } from '../helpers/braidCli';
import { parseNoisePlan } from '../../server/src/engine/noise/noisePlanFile';

test('braid pinpoint on a Node.js program: the awaited disk lookup is the trigger point, and its plan reproduces the failure', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-pinpoint-'));
  try {
    cpSync(path.join(repoRoot, 'test', 'fixtures', 'node', 'inflight'), dir, { recursive: true });
    const rec = await runBraid(['record', '--runs', '20', '--noise', '0.3', '--seed', '1', '--', process.execPath, 'main.mjs'], dir);
    assert.equal(rec.code, 0, rec.err);
    const pp = await runBraid(['pinpoint', '--budget', '80', '--seed', '5', '--format', 'json', '--', process.execPath, 'main.mjs'], dir);
    assert.equal(pp.code, 0, pp.err);
    const r = JSON.parse(pp.out);
    assert.ok(r.points.length > 0, pp.out);
    assert.deepEqual([r.points[0].file, r.points[0].line, r.points[0].method], ['forkCache.mjs', 20, 'DiskCache.get'], JSON.stringify(r.points));
    assert.match(r.points[0].id, /^js:forkCache\.mjs:20#\d+$/);
    assert.equal(path.basename(r.plan), 'main.json', 'named after the script');
    const plan = parseNoisePlan(readFileSync(r.plan, 'utf8'), r.plan);
    assert.ok(plan.points.every((p) => p.id.startsWith('js:')));
    const again = await runBraid(['record', '--runs', '10', '--plan', r.plan, '--seed', '7', '--', process.execPath, 'main.mjs'], dir);
    const m = /recorded 10 run\(s\) in [\d.]+ s: (\d+) passed, (\d+) failed/.exec(again.out + again.err);
    assert.ok(m, again.out + again.err);
    // runs with the plan fail (they reproduce the failure). How many is the machine's: fresh-clone CI
    // runs had 7 and 5 of 10 at their load, and this fixture also fails in many runs without noise
    // (8 of 10 here), so a share says nothing about the plan — the trigger point above is its
    // evidence. What can break is the plan itself: one that serialises the tasks, or points the
    // runtime does not find, would leave every run passing (at a 50 % rate, 0 of 10 is a 1-in-1000 chance).
    assert.ok(Number(m[2]) >= 1, `the plan reproduces the failure: ${m[2]} of 10 failed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
