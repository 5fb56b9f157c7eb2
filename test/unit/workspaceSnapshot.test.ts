/**
 * The workspace snapshot (issue 14 item 4): a whole Analyzer in one binary file of the cache.
 * Loading it gives the analyzer it was made of (same pattern ids, ranking, runs, GRIFFIN bugs),
 * interning goes on with the same ids (snapshot + one trace = every trace read, also when the
 * snapshot was built from merged summaries), a reopened session reads only new or changed
 * traces and drops removed ones, and a snapshot that cannot be used (truncated, corrupt,
 * another format or engine version, other options) is told as a warning and every trace is read.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Analyzer, AnalysisOptions, AnalysisResult } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { addTraces, analyzeInputsRanked } from '../../server/src/engine/summary/workspaceAnalysis';
import { SummaryCache } from '../../server/src/engine/summary/summaryCache';
import { decodeWorkspaceSnapshot, encodeWorkspaceSnapshot, snapshotPath } from '../../server/src/engine/summary/workspaceSnapshot';
import { WorkspaceSession } from '../../server/src/engine/summary/workspaceSession';
import { recordedTraces } from '../helpers/recordedTraces';

const traces = recordedTraces;

/** Everything a user sees of a result, with the registry ids (`index`: the same ids are the point). */
function visible(r: AnalysisResult, analyzer: Analyzer) {
  return {
    executions: r.executions,
    message: r.message,
    confidence: r.confidence,
    stats: r.stats,
    diagnostics: r.diagnostics,
    patterns: r.patterns,
    threadNames: r.patterns.map((p) => analyzer.registry.pattern(p.index).threadNames),
    runs: r.runs,
    bugs: explainBugs(analyzer, r),
  };
}

/** visible() without registry ids (runs merged from summaries number new patterns in the summary's order). */
function visibleByKey(r: AnalysisResult, analyzer: Analyzer) {
  const keyOf = (id: number) => analyzer.registry.pattern(id).key;
  const v = visible(r, analyzer);
  return {
    ...v,
    patterns: v.patterns.map(({ index: _index, ...p }) => p),
    runs: r.runs.map((x) => ({ ...x, patterns: Array.from(x.patterns, keyOf).sort(), afterFailure: x.afterFailure?.map(keyOf).sort() })),
  };
}

/** The ranking without first-occurrence descriptions (which run a pattern was first seen in may differ after removals). */
function ranking(r: AnalysisResult) {
  return {
    executions: r.executions,
    patterns: r.patterns.map((p) => [p.key, p.rank, p.score, p.failed, p.passed, p.group, p.tie, p.tieSize]),
    runs: r.runs.map((x) => [x.file, x.execution, x.outcome, x.patterns.length]),
  };
}

async function serial(files: string[], options: Partial<AnalysisOptions> = {}): Promise<{ analyzer: Analyzer; result: AnalysisResult }> {
  const analyzer = new Analyzer(options);
  for (const f of files) await analyzer.addTrace(f);
  return { analyzer, result: analyzer.rank() };
}

function roundTrip(a: Analyzer, options: Partial<AnalysisOptions> = {}): Analyzer {
  const buf = Buffer.concat(encodeWorkspaceSnapshot(a, []));
  return decodeWorkspaceSnapshot(buf, options).analyzer;
}

for (const [subject, options] of [
  ['unsafelist', {}],
  ['manythreads', {}],
  ['airline', { strategy: 'falcon' as const }],
] as const) {
  test(`${subject}${options.strategy ? ' (FALCON)' : ''}: a snapshot loads as the analyzer it was made of`, async () => {
    const all = await serial(traces(subject), options);
    const loaded = roundTrip(all.analyzer, options);
    assert.equal(loaded.registry.patternCount, all.analyzer.registry.patternCount);
    for (let id = 0; id < loaded.registry.patternCount; id++) {
      const a = all.analyzer.registry.pattern(id);
      const b = loaded.registry.pattern(id);
      assert.deepEqual([b.key, b.stacks, b.values, b.threadNames], [a.key, a.stacks, a.values, a.threadNames], `pattern ${id}`);
    }
    assert.deepEqual(visible(loaded.rank(), loaded), visible(all.result, all.analyzer));
  });
}

test('unsafelist: the snapshot keeps recorded values, thread names and failing runs', async () => {
  const all = await serial(traces('unsafelist'));
  const loaded = roundTrip(all.analyzer);
  const r = loaded.rank();
  assert.ok(r.executions.failed > 0 && r.executions.passed > 0);
  assert.ok(r.patterns.some((p) => p.accesses.some((a) => a.threadName !== undefined)));
  assert.ok(r.patterns.some((p) => p.accesses.some((a) => a.value !== undefined)));
  assert.ok(r.runs.some((x) => x.afterFailure !== undefined));
});

for (const subject of ['unsafelist', 'hashmaprace']) {
  test(`${subject}: snapshot of all traces but the last + the last read = every trace read (same ids, ranking, GRIFFIN)`, async () => {
    const files = traces(subject);
    const head = await serial(files.slice(0, -1));
    const loaded = roundTrip(head.analyzer);
    await loaded.addTrace(files[files.length - 1]);
    const all = await serial(files);
    assert.equal(loaded.registry.patternCount, all.analyzer.registry.patternCount);
    assert.equal(loaded.registry.pairCount, all.analyzer.registry.pairCount);
    assert.deepEqual(visible(loaded.rank(), loaded), visible(all.result, all.analyzer));
  });
}

test('unsafelist: after loading, reading traces again finds their patterns (P1–P17) under the same ids', async () => {
  const files = traces('unsafelist');
  const all = await serial(files);
  const loaded = roundTrip(all.analyzer);
  const before = loaded.registry.patternCount;
  let combined = 0;
  for (const f of files.slice(0, 20)) {
    const run = (await loaded.addTrace(f))!;
    assert.deepEqual(run.patterns, all.result.runs.find((r) => r.file === f)!.patterns, f);
    combined += run.patterns.filter((id) => loaded.registry.pattern(id).def.n > 3).length;
  }
  assert.ok(combined > 0, 'the traces have P4–P17 patterns');
  assert.equal(loaded.registry.patternCount, before);
});

test('unsafelist: a snapshot of merged summaries (patterns adopted, no pair read here) + one trace read finds no pattern twice', async () => {
  const files = traces('unsafelist');
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-snap-'));
  try {
    const merged = new Analyzer();
    await addTraces(merged, files.slice(0, -1), { workers: 1, cache: await SummaryCache.open(dir, merged.options) });
    const loaded = roundTrip(merged);
    await loaded.addTrace(files[files.length - 1]);
    const all = await serial(files);
    const keys = Array.from({ length: loaded.registry.patternCount }, (_, id) => loaded.registry.pattern(id).key);
    assert.equal(new Set(keys).size, keys.length, 'a pattern interned twice');
    assert.equal(loaded.registry.patternCount, all.analyzer.registry.patternCount);
    assert.deepEqual(ranking(loaded.rank()), ranking(all.result));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A copy of a subject's traces in a temp folder (mtimes kept), with its session files. */
function workspace(subject: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-snap-ws-'));
  const files = traces(subject).map((f) => {
    const to = path.join(dir, path.basename(f));
    copyFileSync(f, to);
    return to;
  });
  const info = (list: string[]) =>
    list.map((p) => {
      const st = statSync(p);
      return { path: p, mtimeMs: st.mtimeMs, size: st.size };
    });
  return { dir, files, info, cacheDir: path.join(dir, '.braid', 'cache') };
}

test('session: reopening loads the snapshot and reads only the new trace; a removed trace is dropped; a changed one read again', async () => {
  const ws = workspace('hashmaprace');
  try {
    const { files, info, cacheDir } = ws;
    const first = new WorkspaceSession();
    const r1 = await first.update({ options: {}, files: info(files.slice(0, -1)), cacheDir });
    assert.equal(r1.read, files.length - 1);
    assert.equal(r1.fromSnapshot, 0);
    assert.ok(first.snapshotPending);
    await first.writeSnapshot();
    assert.ok(!first.snapshotPending);
    assert.ok(statSync(snapshotPath((await SummaryCache.open(cacheDir, first.analyzer!.options)).dir)).size > 0);

    // reopen with one new trace
    const second = new WorkspaceSession();
    const r2 = await second.update({ options: {}, files: info(files), cacheDir });
    assert.deepEqual([r2.fromSnapshot, r2.read, r2.changed, r2.removed, r2.problems], [files.length - 1, 1, 1, 0, []]);
    const all = await serial(files);
    assert.deepEqual(visibleByKey(second.analyzer!.rank(), second.analyzer!), visibleByKey(all.result, all.analyzer));
    await second.writeSnapshot();

    // reopen without trace 3
    const third = new WorkspaceSession();
    const less = files.filter((_, k) => k !== 3);
    const r3 = await third.update({ options: {}, files: info(less), cacheDir });
    assert.deepEqual([r3.fromSnapshot, r3.read, r3.changed, r3.removed], [files.length, 0, 0, 1]);
    assert.deepEqual(ranking(third.analyzer!.rank()), ranking((await serial(less)).result));
    await third.writeSnapshot();

    // reopen with trace 5 changed (now holding trace 7's run; trace 7 is gone)
    writeFileSync(files[5], readFileSync(files[7]));
    const changed = less.filter((f) => f !== files[7]);
    const fourth = new WorkspaceSession();
    const r4 = await fourth.update({ options: {}, files: info(changed), cacheDir });
    assert.deepEqual([r4.fromSnapshot, r4.changed, r4.removed], [files.length - 1, 1, 1]);
    assert.deepEqual(ranking(fourth.analyzer!.rank()), ranking((await serial(changed)).result));
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test('session with a pool of 2 worker threads: summaries cached per run, then the snapshot; reopening reads only the new trace', async () => {
  const ws = workspace('airline');
  try {
    const { files, info, cacheDir } = ws;
    const first = new WorkspaceSession();
    const r1 = await first.update({ options: {}, files: info(files.slice(0, -1)), cacheDir, workers: 2 });
    assert.deepEqual([r1.read, r1.fromSnapshot], [files.length - 1, 0]);
    const dir = (await SummaryCache.open(cacheDir, first.analyzer!.options)).dir;
    assert.equal(readdirSync(path.join(dir, 'runs')).length, files.length - 1);
    await first.writeSnapshot();
    const second = new WorkspaceSession();
    const r2 = await second.update({ options: {}, files: info(files), cacheDir, workers: 2 });
    assert.deepEqual([r2.fromSnapshot, r2.read, r2.changed], [files.length - 1, 1, 1]);
    const all = await serial(files);
    assert.deepEqual(visibleByKey(second.analyzer!.rank(), second.analyzer!), visibleByKey(all.result, all.analyzer));
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test('session: a truncated, corrupt, other-version, other-engine or other-options snapshot is a warning, and every trace is read', async () => {
  const ws = workspace('unsafelist');
  try {
    const { files, info, cacheDir } = ws;
    const s = new WorkspaceSession();
    await s.update({ options: {}, files: info(files), cacheDir });
    await s.writeSnapshot();
    const file = snapshotPath((await SummaryCache.open(cacheDir, s.analyzer!.options)).dir);
    const good = readFileSync(file);
    const all = await serial(files);
    const expected = visibleByKey(all.result, all.analyzer);
    const text = good.toString('latin1');
    const patch = (from: string, to: string) => {
      assert.equal(from.length, to.length);
      const at = text.indexOf(from);
      assert.ok(at > 0, from);
      const b = Buffer.from(good);
      b.write(to, at, 'latin1');
      return b;
    };
    const flipped = Buffer.from(good);
    flipped[good.length - 100] ^= 0x55;
    const cases: [string, Buffer, RegExp][] = [
      ['truncated', good.subarray(0, good.length - 1000), /truncated/],
      ['corrupt', flipped, /checksum/],
      ['empty', Buffer.alloc(0), /not a Braid workspace snapshot/],
      ['other format version', patch('"version":1', '"version":7'), /format version 7/],
      ['other engine', patch('"engine":"braid-engine-', '"engine":"braid-Xngine-'), /engine version/],
    ];
    for (const [what, bytes, why] of cases) {
      writeFileSync(file, bytes);
      const again = new WorkspaceSession();
      const r = await again.update({ options: {}, files: info(files), cacheDir });
      assert.equal(r.fromSnapshot, 0, what);
      assert.equal(r.problems.length, 1, what);
      assert.equal(r.problems[0].severity, 'warning');
      assert.match(r.problems[0].message, why, what);
      assert.match(r.problems[0].message, /every trace is read again/);
      assert.equal(r.changed, files.length, what);
      const a = again.analyzer!;
      assert.deepEqual(visibleByKey(a.rank(), a), expected, what);
      // the next write replaces the broken snapshot
      assert.ok(again.snapshotPending, what);
    }
    // other collection options: decoding refuses it (the cache folder of other options never holds it)
    assert.throws(() => decodeWorkspaceSnapshot(good, { accessWindow: 9 }), /--access-window 5 \(this analysis: 9\)/);
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});

test('braid analyze --cache: the snapshot holds the first traces, the rest are read; a rerun reads nothing; a changed or removed trace means every trace is read', async () => {
  const ws = workspace('unsafelist');
  try {
    const { files, dir, cacheDir } = ws;
    const extra = files.pop()!;
    const aside = path.join(path.dirname(dir), `${path.basename(dir)}-aside.trace.jsonl.gz`);
    copyFileSync(extra, aside);
    rmSync(extra);
    const snap = async () => snapshotPath((await SummaryCache.open(cacheDir, new Analyzer().options)).dir);
    const run = async () => {
      const { result, analyzer } = await analyzeInputsRanked([dir], {}, { cacheDir });
      return visibleByKey(result, analyzer);
    };
    const first = await run();
    const written = statSync(await snap()).mtimeMs;
    const expected = await serial(files);
    assert.deepEqual(first, visibleByKey(expected.result, expected.analyzer));
    // nothing new: the snapshot is used and not written again
    assert.deepEqual(await run(), first);
    assert.equal(statSync(await snap()).mtimeMs, written);
    // one new trace (last in name order): snapshot + that trace = every trace read
    copyFileSync(aside, extra);
    const all = await serial([...files, extra]);
    assert.deepEqual(await run(), visibleByKey(all.result, all.analyzer));
    assert.notEqual(statSync(await snap()).mtimeMs, written);
    // a trace removed: not the snapshot's prefix any more, every trace read (same result as reading them)
    rmSync(files[2]);
    const less = [...files.filter((_, k) => k !== 2), extra];
    const fewer = await serial(less);
    assert.deepEqual(await run(), visibleByKey(fewer.result, fewer.analyzer));
    // a broken snapshot: a warning, and every trace read
    writeFileSync(await snap(), 'not a snapshot');
    const { result } = await analyzeInputsRanked([dir], {}, { cacheDir });
    assert.ok(result.diagnostics.some((d) => d.severity === 'warning' && /not used: not a Braid workspace snapshot/.test(d.message)));
    assert.deepEqual(ranking(result), ranking(fewer.result));
    rmSync(aside);
  } finally {
    rmSync(ws.dir, { recursive: true, force: true });
  }
});
