/**
 * Issue 31, N3 and N4: a `.braid/cache` that came with a cloned repository is never trusted.
 *   N3 — a snapshot (or a run summary) made elsewhere, listing the real traces' hashes over other
 *        content, used to change what `braid analyze --cache` reports; the cache's names are now keyed
 *        by this machine's key (cacheKey.ts), so it is never read.
 *   N4 — a snapshot whose run has `execution: {}` (checksum recomputed) crashed the analysis; every
 *        run field is now checked, and any doubt means the traces are read.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as zlib from 'node:zlib';
import { Analyzer, fileHash } from '../../server/src/engine/analysis';
import { analyzeInputsRanked } from '../../server/src/engine/summary/workspaceAnalysis';
import { SummaryCache } from '../../server/src/engine/summary/summaryCache';
import { decodeWorkspaceSnapshot, encodeWorkspaceSnapshot, snapshotPath } from '../../server/src/engine/summary/workspaceSnapshot';
import { summarizeTrace } from '../../server/src/engine/summary/traceSummary';
import { cacheName } from '../../server/src/engine/summary/cacheKey';
import { recordedTraces } from '../helpers/recordedTraces';

/** A workspace with copies of a subject's first traces and an empty cache folder. */
function workspace(subject: string, n: number) {
  const dir = mkdtempSync(path.join(tmpdir(), `braid-trust-${subject}-`));
  const traces = path.join(dir, 'traces');
  mkdirSync(traces);
  const files = recordedTraces(subject)
    .slice(0, n)
    .map((f) => {
      const to = path.join(traces, path.basename(f));
      copyFileSync(f, to);
      return to;
    });
  return { dir, traces, files, cacheDir: path.join(dir, '.braid', 'cache') };
}

async function serial(files: string[]) {
  const a = new Analyzer();
  for (const f of files) await a.addTrace(f);
  return a.rank();
}

const firstKeys = (r: { patterns: { key: string }[] }) => r.patterns.slice(0, 5).map((p) => p.key);

test('N3: a snapshot made elsewhere over the real traces\' hashes is never read: the traces decide what is reported', async () => {
  const ws = workspace('airline', 12);
  try {
    // the "attacker": an analysis of other traces, with a header listing this workspace's traces as they are
    const other = new Analyzer();
    for (const f of recordedTraces('bank').slice(0, 12)) await other.addTrace(f);
    const listed = await Promise.all(
      ws.files.map(async (f) => {
        const st = statSync(f);
        return { file: f, size: st.size, mtimeMs: st.mtimeMs, hash: await fileHash(f) };
      }),
    );
    const forged = Buffer.concat(encodeWorkspaceSnapshot(other, listed));
    const cache = await SummaryCache.open(ws.cacheDir, new Analyzer().options);
    mkdirSync(cache.dir, { recursive: true });
    // under the name older versions used, and under a name keyed by someone else's key
    writeFileSync(path.join(cache.dir, 'workspace.braid-snapshot'), forged);
    writeFileSync(path.join(cache.dir, 'workspace-0123456789abcdef0123456789abcdef01234567.braid-snapshot'), forged);
    const { result } = await analyzeInputsRanked([ws.traces], {}, { cacheDir: ws.cacheDir });
    const truth = await serial(ws.files);
    assert.deepEqual(firstKeys(result), firstKeys(truth), 'the ranking of the workspace\'s own traces');
    assert.ok(result.patterns[0].accesses.every((a) => a.file.includes('airline')), JSON.stringify(result.patterns[0].accesses.map((a) => a.file)));
    // our own snapshot is written under this machine's keyed name, and read back next time
    assert.ok(statSync(snapshotPath(cache.dir)).size > 0);
    assert.match(path.basename(snapshotPath(cache.dir)), /^workspace-[0-9a-f]{40}\.braid-snapshot$/);
    const again = await analyzeInputsRanked([ws.traces], {}, { cacheDir: ws.cacheDir });
    assert.deepEqual(firstKeys(again.result), firstKeys(truth));
    assert.deepEqual(again.result.diagnostics.filter((d) => d.severity !== 'info'), []);
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test('N3: a run summary planted under a trace\'s SHA-1 is never read; ours is stored under the keyed name', async () => {
  const ws = workspace('airline', 6);
  try {
    const cache = await SummaryCache.open(ws.cacheDir, new Analyzer().options);
    mkdirSync(cache.runsDir, { recursive: true });
    const victim = ws.files[0];
    const hash = await fileHash(victim);
    // a summary of another program's trace, under the names a cache lookup of the victim could use
    const planted = path.join(tmpdir(), `braid-trust-planted-${process.pid}`);
    mkdirSync(planted, { recursive: true });
    await summarizeTrace(recordedTraces('bank')[0], {}, planted);
    const made = path.join(planted, `${cacheName(await fileHash(recordedTraces('bank')[0]))}.json`);
    copyFileSync(made, path.join(cache.runsDir, `${hash}.json`));
    const st = statSync(victim);
    writeFileSync(path.join(cache.dir, 'index.json'), JSON.stringify({ [path.resolve(victim)]: { size: st.size, mtimeMs: st.mtimeMs, hash } }));
    rmSync(planted, { recursive: true, force: true });
    const reopened = await SummaryCache.open(ws.cacheDir, new Analyzer().options);
    assert.deepEqual(await reopened.peek(victim), { hash }, 'no summary under this machine\'s name: a miss');
    assert.equal(cacheName(hash).length, 40);
    assert.notEqual(cacheName(hash), hash);
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

/** The snapshot with its header's JSON text changed (same length) and the checksum recomputed. */
function patched(good: Buffer, from: RegExp, to: (m: string) => string): Buffer {
  const headerBytes = good.readUInt32LE(8);
  const header = good.toString('latin1', 16, 16 + headerBytes);
  const m = from.exec(header);
  assert.ok(m, String(from));
  const replacement = to(m[0]);
  assert.ok(replacement.length <= m[0].length);
  const b = Buffer.from(good);
  b.write(replacement.padEnd(m[0].length, ' '), 16 + m.index, 'latin1');
  const crc = (zlib as unknown as { crc32: (d: Uint8Array, v?: number) => number }).crc32(b.subarray(16), 0);
  b.writeUInt32LE(crc >>> 0, 12);
  return b;
}

/** The snapshot with its header object changed (written back into the header's room) and the checksum recomputed. */
function withHeader(good: Buffer, change: (h: Record<string, any>) => void): Buffer {
  const room = good.readUInt32LE(8);
  const h = JSON.parse(good.toString('utf8', 16, 16 + room));
  change(h);
  const text = JSON.stringify(h);
  assert.ok(Buffer.byteLength(text) <= room, 'fits the header room');
  const b = Buffer.from(good);
  b.fill(0x20, 16, 16 + room);
  b.write(text, 16, 'utf8');
  const crc = (zlib as unknown as { crc32: (d: Uint8Array, v?: number) => number }).crc32(b.subarray(16), 0);
  b.writeUInt32LE(crc >>> 0, 12);
  return b;
}

test('N4 (found by npm run fuzz): unreadable traces, trace entries and run diagnostics of the wrong shape are refused', async () => {
  const ws = workspace('airline', 4);
  try {
    await analyzeInputsRanked([ws.traces], {}, { cacheDir: ws.cacheDir });
    const good = Buffer.from(require('node:fs').readFileSync(snapshotPath((await SummaryCache.open(ws.cacheDir, new Analyzer().options)).dir)));
    assert.throws(() => decodeWorkspaceSnapshot(withHeader(good, (h) => (h.unreadable = [{ file: 'x', diagnostics: [null] }])), {}), /unreadable\[0\] must be \{file, diagnostics\}/);
    assert.throws(() => decodeWorkspaceSnapshot(withHeader(good, (h) => (h.traces = [{ file: 7 }])), {}), /traces\[0\] must be \{file, size, mtimeMs, hash\?\}/);
    assert.throws(() => decodeWorkspaceSnapshot(withHeader(good, (h) => (h.runs[0].diagnostics = [{ severity: 'fatal' }])), {}), /run 0: "diagnostics" must be a list/);
    // the unchanged header still decodes
    assert.equal(decodeWorkspaceSnapshot(withHeader(good, () => {}), {}).analyzer.rank().executions.total, 4);
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test('N4: a snapshot whose run fields have the wrong types (checksum recomputed) is refused with the run and field named; the traces are read', async () => {
  const ws = workspace('airline', 8);
  try {
    const first = await analyzeInputsRanked([ws.traces], {}, { cacheDir: ws.cacheDir });
    const cache = await SummaryCache.open(ws.cacheDir, new Analyzer().options);
    const file = snapshotPath(cache.dir);
    const good = Buffer.from(require('node:fs').readFileSync(file));
    const cases: [string, Buffer, RegExp][] = [
      ['execution {}', patched(good, /"execution":"[^"]+"/g, () => '"execution":{}'), /run 0: "file" and "execution" must be strings/],
      ['outcome', patched(good, /"outcome":"(pass|fail)"/, () => '"outcome":"boom"'), /run 0: "outcome" must be "pass" or "fail"/],
      ['events', patched(good, /"events":\d+/, () => '"events":-1'), /run 0: "events" and "droppedEvents" must be counts/],
    ];
    for (const [what, bytes, why] of cases) {
      assert.throws(() => decodeWorkspaceSnapshot(bytes, {}), why, what);
      writeFileSync(file, bytes);
      const r = await analyzeInputsRanked([ws.traces], {}, { cacheDir: ws.cacheDir });
      assert.deepEqual(firstKeys(r.result), firstKeys(first.result), what);
      assert.equal(r.result.executions.total, 8, what);
      const warning = r.result.diagnostics.find((d) => d.severity === 'warning');
      assert.match(warning?.message ?? '', /not used: .*every trace is read again/, what);
    }
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});
