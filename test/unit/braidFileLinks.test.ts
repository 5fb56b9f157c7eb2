/**
 * Issue 39, LOW findings on the files Braid writes in a workspace:
 *  - "`<file>.<pid>.tmp` temp names followed through a planted link overwrite a user file
 *    (verdicts, plans, summaries, cache index)": every one is written through
 *    server/src/workspace/atomicWrite.ts (exclusive, unpredictable temporary name, O_NOFOLLOW);
 *    the verdicts' case is in test/lsp/verdictFile.test.ts;
 *  - "files under `.braid/` followed through symlinks (the cache written outside the workspace in
 *    Restricted Mode)": a linked `.braid` or `.braid/cache` means no cache, with a message; a linked
 *    folder inside the cache is removed, not written through.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Analyzer } from '../../server/src/engine/analysis';
import { writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import type { NoisePlan } from '../../server/src/engine/noise/noisePlan';
import { SummaryCache } from '../../server/src/engine/summary/summaryCache';
import { writeSummaryFile } from '../../server/src/engine/summary/summaryFile';
import { writeWorkspaceSnapshot } from '../../server/src/engine/summary/workspaceSnapshot';
import { temporaryNameFor, writeFileAtomic } from '../../server/src/workspace/atomicWrite';
import { readExcludedRuns } from '../../server/src/workspace/excludedRuns';
import { recordedTraces } from '../helpers/recordedTraces';

const PLAN: NoisePlan = {
  format: 'braid-noise-plan',
  version: 1,
  name: 'BankTest',
  command: ['java', '-cp', 'out', 'bank.Bank'],
  noise: { kind: 'sleep', ms: 5 },
  points: [{ id: 'bank/Bank.transfer(II)V@12', probability: 0.9 }],
};

function place() {
  const root = mkdtempSync(path.join(tmpdir(), 'braid-links-'));
  const ws = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  const victim = path.join(outside, 'important.txt');
  writeFileSync(victim, 'user data\n');
  return { root, ws, outside, victim, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** Plants `<file>.<pid>.tmp` → the victim, writes, and checks the victim is untouched and the file written. */
async function plantedTmp(name: string, write: (file: string) => Promise<void>, fileName = 'out.json') {
  test(`\`<file>.<pid>.tmp\` temp names followed through a planted link overwrite a user file: ${name}`, async () => {
    const p = place();
    try {
      const file = path.join(p.ws, fileName);
      symlinkSync(p.victim, `${file}.${process.pid}.tmp`);
      await write(file);
      assert.equal(readFileSync(p.victim, 'utf8'), 'user data\n', 'the planted link was not written through');
      assert.ok(existsSync(file) && readFileSync(file).length > 0, 'the file itself is written');
      assert.deepEqual(readdirSync(p.ws).filter((n) => n.endsWith('.tmp') && !n.includes(String(process.pid))), [], 'no temporary file is left');
    } finally {
      p.done();
    }
  });
}

plantedTmp('noise plans (writeNoisePlan)', (f) => writeNoisePlan(f, PLAN));
plantedTmp('summaries (writeSummaryFile)', async (f) => {
  const a = new Analyzer();
  await a.addTrace(recordedTraces('bank')[0]);
  await writeSummaryFile(f, a.toSummary());
}, 'shard.braid-summary.json');
plantedTmp('the workspace snapshot (writeWorkspaceSnapshot)', async (f) => {
  const a = new Analyzer();
  await a.addTrace(recordedTraces('bank')[0]);
  await writeWorkspaceSnapshot(f, a, [{ file: recordedTraces('bank')[0], size: 1, mtimeMs: 1 }]);
}, 'workspace-x.braid-snapshot');

test('`<file>.<pid>.tmp` temp names followed through a planted link overwrite a user file: the cache index', async () => {
  const p = place();
  try {
    const cacheRoot = path.join(p.ws, '.braid', 'cache');
    const cache = await SummaryCache.open(cacheRoot, new Analyzer().options);
    mkdirSync(cache.dir, { recursive: true });
    symlinkSync(p.victim, path.join(cache.dir, `index.json.${process.pid}.tmp`));
    cache.record(recordedTraces('bank')[0], 'a'.repeat(40), { size: 1, mtimeMs: 1 });
    await cache.save();
    assert.deepEqual(cache.problems, []);
    assert.equal(readFileSync(p.victim, 'utf8'), 'user data\n');
    assert.ok(JSON.parse(readFileSync(path.join(cache.dir, 'index.json'), 'utf8')));
  } finally {
    p.done();
  }
});

test('atomic writes: a file that is a link is replaced, not written through; temporary names differ each time', async () => {
  const p = place();
  try {
    const file = path.join(p.ws, 'verdicts.json');
    symlinkSync(p.victim, file);
    await writeFileAtomic(file, '{}\n');
    assert.equal(readFileSync(p.victim, 'utf8'), 'user data\n');
    assert.equal(readFileSync(file, 'utf8'), '{}\n');
    assert.notEqual(temporaryNameFor(file), temporaryNameFor(file));
    assert.equal(path.dirname(temporaryNameFor(file)), p.ws);
  } finally {
    p.done();
  }
});

test('files under `.braid/` followed through symlinks (the cache written outside the workspace in Restricted Mode): a linked .braid or .braid/cache is not used as the cache', async () => {
  const p = place();
  try {
    symlinkSync(p.outside, path.join(p.ws, '.braid'));
    const r = await SummaryCache.workspaceDir(p.ws);
    assert.equal(r.dir, undefined);
    assert.match(r.problem ?? '', /summary cache is not used: .*\.braid is a symbolic link/);
    rmSync(path.join(p.ws, '.braid'));
    mkdirSync(path.join(p.ws, '.braid'));
    symlinkSync(p.outside, path.join(p.ws, '.braid', 'cache'));
    assert.match((await SummaryCache.workspaceDir(p.ws)).problem ?? '', /cache is a symbolic link/);
    rmSync(path.join(p.ws, '.braid', 'cache'));
    assert.deepEqual(await SummaryCache.workspaceDir(p.ws), { dir: path.join(p.ws, '.braid', 'cache') });
  } finally {
    p.done();
  }
});

test('files under `.braid/` followed through symlinks: a link at a cache folder\'s own name is removed, and nothing is written where it pointed', async () => {
  const p = place();
  try {
    const cacheRoot = path.join(p.ws, '.braid', 'cache');
    const probe = await SummaryCache.open(cacheRoot, new Analyzer().options);
    mkdirSync(path.dirname(probe.dir), { recursive: true });
    symlinkSync(p.outside, probe.dir);
    const cache = await SummaryCache.open(cacheRoot, new Analyzer().options);
    cache.record(recordedTraces('bank')[0], 'a'.repeat(40), { size: 1, mtimeMs: 1 });
    await cache.save();
    assert.deepEqual(readdirSync(p.outside), ['important.txt'], 'nothing written outside the workspace');
    assert.ok(existsSync(path.join(cache.dir, 'index.json')));
  } finally {
    p.done();
  }
});

test('files under `.braid/` followed through symlinks: an excluded-runs file that is a link (or under a linked .braid) is not read', async () => {
  const p = place();
  try {
    const text = JSON.stringify({ format: 'braid-excluded-runs', version: 1, runs: ['traces/a.trace.jsonl'] });
    writeFileSync(path.join(p.outside, 'excluded.json'), text);
    mkdirSync(path.join(p.ws, '.braid'));
    symlinkSync(path.join(p.outside, 'excluded.json'), path.join(p.ws, '.braid', 'excluded-runs.json'));
    assert.equal((await readExcludedRuns([p.ws])).size, 0, 'a linked file is not read');
    rmSync(path.join(p.ws, '.braid'), { recursive: true });
    mkdirSync(path.join(p.outside, 'dotbraid'));
    writeFileSync(path.join(p.outside, 'dotbraid', 'excluded-runs.json'), text);
    symlinkSync(path.join(p.outside, 'dotbraid'), path.join(p.ws, '.braid'));
    assert.equal((await readExcludedRuns([p.ws])).size, 0, 'a linked .braid is not read');
    rmSync(path.join(p.ws, '.braid'));
    mkdirSync(path.join(p.ws, '.braid'));
    writeFileSync(path.join(p.ws, '.braid', 'excluded-runs.json'), text);
    assert.deepEqual([...(await readExcludedRuns([p.ws]))], [path.join(p.ws, 'traces', 'a.trace.jsonl')], 'a regular file is read');
  } finally {
    p.done();
  }
});
