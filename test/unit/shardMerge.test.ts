/**
 * Mergeable run summaries (issue 14 items 3–5): the committed recordings of a
 * subject split in three shards, each analyzed on its own and written as a
 * summary file, then merged, give exactly the result of analyzing all the
 * traces together: the same ranked patterns (rank, score, counts, accesses
 * with stacks and values, groups, tie groups, p-values), runs, diagnostics
 * and GRIFFIN bugs. The same holds for the worker pool and the on-disk cache.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync, utimesSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Analyzer, AnalysisResult } from '../../server/src/engine/analysis';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { readSummaryFile, validateSummary, writeSummaryFile } from '../../server/src/engine/summary/summaryFile';
import { analyzeInputsRanked, addTraces } from '../../server/src/engine/summary/workspaceAnalysis';
import { SummaryCache } from '../../server/src/engine/summary/summaryCache';
import { recordedDir, recordedTraces } from '../helpers/recordedTraces';

const recorded = recordedDir;
const traces = recordedTraces;

/** Everything a user sees of a result, without the registry ids (process-local). */
function visible(r: AnalysisResult, analyzer: Analyzer) {
  const keyOf = (id: number) => analyzer.registry.pattern(id).key;
  return {
    executions: r.executions,
    message: r.message,
    confidence: r.confidence,
    stats: r.stats,
    diagnostics: r.diagnostics,
    patterns: r.patterns.map(({ index: _index, ...p }) => p),
    threadNames: r.patterns.map((p) => analyzer.registry.pattern(p.index).threadNames),
    runs: r.runs.map((x) => ({ ...x, patterns: Array.from(x.patterns, keyOf).sort(), afterFailure: x.afterFailure?.map(keyOf).sort() })),
    bugs: explainBugs(analyzer, r),
  };
}

async function serial(files: string[]): Promise<{ analyzer: Analyzer; result: AnalysisResult }> {
  const analyzer = new Analyzer();
  for (const f of files) await analyzer.addTrace(f);
  return { analyzer, result: analyzer.rank() };
}

for (const subject of ['airline', 'bank', 'hashmaprace', 'unsafelist']) {
  test(`${subject}: three shards summarized apart and merged = all traces analyzed together`, async () => {
    const files = traces(subject);
    assert.ok(files.length >= 30, `${files.length} traces`);
    const all = await serial(files);
    const third = Math.ceil(files.length / 3);
    const merged = new Analyzer();
    for (let k = 0; k < 3; k++) {
      const shard = new Analyzer();
      for (const f of files.slice(k * third, (k + 1) * third)) await shard.addTrace(f);
      // through JSON, as a file from another machine
      merged.addSummary(validateSummary(JSON.parse(JSON.stringify(shard.toSummary()))));
    }
    const mergedResult = merged.rank();
    assert.equal(mergedResult.executions.total, files.length);
    assert.ok(mergedResult.patterns.length > 0);
    assert.deepEqual(visible(mergedResult, merged), visible(all.result, all.analyzer));
  });
}

test('airline: the manifest counts (100 runs, 27 failed) survive the merge of shard summary files', async () => {
  const files = traces('airline');
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-shards-'));
  try {
    for (let k = 0; k < 3; k++) {
      const shard = new Analyzer();
      for (const f of files.slice(k * 34, (k + 1) * 34)) await shard.addTrace(f);
      await writeSummaryFile(path.join(dir, `shard-${k + 1}.braid-summary.json`), shard.toSummary());
    }
    const { result, analyzer } = await analyzeInputsRanked([dir]);
    assert.deepEqual(result.executions, { total: 100, failed: 27, passed: 73 });
    const all = await serial(files);
    assert.deepEqual(visible(result, analyzer), visible(all.result, all.analyzer));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the worker pool (2 workers) gives the serial result, in input order', async () => {
  const files = traces('bank').slice(0, 24);
  const all = await serial(files);
  const pooled = new Analyzer();
  const r = await addTraces(pooled, files, { workers: 2 });
  assert.deepEqual(r, { read: 24, cached: 0 });
  assert.deepEqual(visible(pooled.rank(), pooled), visible(all.result, all.analyzer));
});

test('the summary cache: a second analysis reads no trace, a new trace is the only one read, a touched file with the same content is reused', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-cache-'));
  try {
    const src = traces('airline').slice(0, 12);
    const files = src.map((f) => path.join(dir, 'traces', path.basename(f)));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(dir, 'traces'));
    src.slice(0, 11).forEach((f, k) => copyFileSync(f, files[k]));
    const cacheDir = path.join(dir, 'cache');
    const first = new Analyzer();
    // the worker threads write the summaries, this thread the index
    assert.deepEqual(await addTraces(first, files.slice(0, 11), { workers: 2, cache: await SummaryCache.open(cacheDir, first.options) }), { read: 11, cached: 0 });
    const again = new Analyzer();
    assert.deepEqual(await addTraces(again, files.slice(0, 11), { workers: 1, cache: await SummaryCache.open(cacheDir, again.options) }), { read: 0, cached: 11 });
    copyFileSync(src[11], files[11]);
    const grown = new Analyzer();
    assert.deepEqual(await addTraces(grown, files, { workers: 1, cache: await SummaryCache.open(cacheDir, grown.options) }), { read: 1, cached: 11 });
    const all = await serial(files);
    assert.deepEqual(visible(grown.rank(), grown), visible(all.result, all.analyzer));
    // same bytes, new mtime: hashed, not analyzed
    utimesSync(files[0], new Date(), new Date(Date.now() + 5000));
    const touched = new Analyzer();
    assert.deepEqual(await addTraces(touched, files, { workers: 1, cache: await SummaryCache.open(cacheDir, touched.options) }), { read: 0, cached: 12 });
    // a broken cached summary: its trace is read again, the result is unchanged
    const runsDir = (await SummaryCache.open(cacheDir, touched.options)).runsDir;
    const victim = readdirSync(runsDir)[0];
    writeFileSync(path.join(runsDir, victim), '{"format":"braid-summary"');
    const repaired = new Analyzer();
    await addTraces(repaired, files, { workers: 1, cache: await SummaryCache.open(cacheDir, repaired.options) });
    assert.deepEqual(visible(repaired.rank(), repaired), visible(all.result, all.analyzer));
    assert.doesNotThrow(() => JSON.parse(readFileSync(path.join(runsDir, victim), 'utf8')));
    // other collection options: another cache, every trace read
    const other = new Analyzer({ accessWindow: 7 });
    assert.deepEqual(await addTraces(other, files, { workers: 1, cache: await SummaryCache.open(cacheDir, other.options) }), { read: 12, cached: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a summary made with other collection options is refused with the differing flags', async () => {
  const shard = new Analyzer({ accessWindow: 7, happensBefore: false });
  await shard.addTrace(traces('airline')[0]);
  const s = shard.toSummary();
  assert.throws(() => new Analyzer().addSummary(s), /--access-window 7 \(this analysis: 5\), --hb none \(this analysis: on\)/);
});

test('a broken summary file is skipped with an error naming the file and the bad entry; the traces are still analyzed', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-badsum-'));
  try {
    const shard = new Analyzer();
    await shard.addTrace(traces('airline')[0]);
    const s = JSON.parse(JSON.stringify(shard.toSummary()));
    s.runs[0].patterns.push(999999);
    const bad = path.join(dir, 'bad.braid-summary.json');
    writeFileSync(bad, JSON.stringify(s));
    const notJson = path.join(dir, 'cut.braid-summary.json');
    writeFileSync(notJson, '{"format": "braid-sum');
    await assert.rejects(readSummaryFile(bad), /runs\[0\]\.patterns\[\d+\] must be an integer from 0 to \d+, got 999999/);
    const missing = path.join(dir, 'gone.braid-summary.json');
    const { result } = await analyzeInputsRanked([bad, notJson, missing, traces('airline')[1]]);
    assert.equal(result.executions.total, 1);
    const errs = result.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errs.map((d) => d.file), [bad, notJson, missing]);
    assert.equal(errs[2].message, 'no such file');
    assert.match(errs[0].message, /not a valid Braid summary: runs\[0\]\.patterns.*the summary is skipped/);
    assert.match(errs[1].message, /not valid JSON/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a summary of another format version is refused', () => {
  const text = { format: 'braid-summary', version: 99 };
  assert.throws(() => validateSummary(text), /summary format version 99 is not supported/);
  assert.throws(() => validateSummary(JSON.parse(readFileSync(path.join(recorded, 'manifest.json'), 'utf8'))), /not a Braid summary/);
});

test('braid summarize on three shards, then braid analyze of the summaries: the same JSON report as braid analyze of all traces', () => {
  const cli = path.resolve(__dirname, '../../dist/braid.js');
  const braid = (...args: string[]) => {
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r;
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-cli-shards-'));
  try {
    const files = traces('hashmaprace');
    const third = Math.ceil(files.length / 3);
    for (let k = 0; k < 3; k++) {
      const r = braid('summarize', ...files.slice(k * third, (k + 1) * third), '--workers', k === 1 ? '2' : '1', '-o', path.join(dir, `shard-${k + 1}.braid-summary.json`));
      assert.match(r.stderr, /braid summarize: \d+ runs \(\d+ failed\), \d+ patterns → /);
    }
    const merged = braid('analyze', dir, '--format', 'json').stdout;
    const all = braid('analyze', path.join(recorded, 'hashmaprace'), '--format', 'json', '--workers', '1').stdout;
    assert.ok(JSON.parse(all).patterns.length > 0);
    assert.equal(merged, all);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('many distinct patterns (random 2-thread accesses, thousands of patterns per run): merged = together', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-random-shards-'));
  try {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const files: string[] = [];
    for (let n = 0; n < 6; n++) {
      const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: `r${n}`, outcome: n % 3 === 0 ? 'fail' : 'pass' })];
      lines.push('{"def":"thread","id":1,"name":"T1"}', '{"def":"thread","id":2,"name":"T2"}');
      for (let v = 0; v < 12; v++) lines.push(JSON.stringify({ def: 'var', id: v, name: `r.V.v${v}` }));
      for (let l = 1; l <= 60; l++) lines.push(JSON.stringify({ def: 'loc', id: l, file: 'r/V.java', line: l, method: `r.V.m${l % 7}` }));
      for (let i = 1; i <= 600; i++) lines.push(JSON.stringify([i, rnd() < 0.5 ? 1 : 2, rnd() < 0.5 ? 'R' : 'W', Math.floor(rnd() * 12), 1 + Math.floor(rnd() * 60)]));
      const f = path.join(dir, `r${n}.trace.jsonl`);
      writeFileSync(f, lines.join('\n') + '\n');
      files.push(f);
    }
    const all = await serial(files);
    assert.ok(all.result.patterns.length > 1000, `${all.result.patterns.length} patterns`);
    const merged = new Analyzer();
    for (const part of [files.slice(0, 2), files.slice(2, 3), files.slice(3)]) {
      const shard = new Analyzer();
      for (const f of part) await shard.addTrace(f);
      merged.addSummary(validateSummary(JSON.parse(JSON.stringify(shard.toSummary()))));
    }
    assert.deepEqual(visible(merged.rank(), merged), visible(all.result, all.analyzer));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run keeps its noise plan through a summary', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-plan-summary-'));
  try {
    const f = path.join(dir, 'p.trace.jsonl');
    writeFileSync(
      f,
      [
        JSON.stringify({ braid: 'trace', version: 1, execution: 'run-007', outcome: 'fail', recorder: { options: { plan: { name: 'checkout', file: '.braid/plans/checkout.json' } } } }),
        '{"def":"thread","id":1,"name":"T1"}',
        '{"def":"thread","id":2,"name":"T2"}',
        '{"def":"var","id":0,"name":"A.x"}',
        '{"def":"loc","id":1,"file":"A.java","line":3,"method":"A.run"}',
        '[1,1,"R",0,1]',
        '[2,2,"W",0,1]',
      ].join('\n') + '\n',
    );
    const shard = new Analyzer();
    await shard.addTrace(f);
    const merged = new Analyzer();
    const [run] = merged.addSummary(validateSummary(JSON.parse(JSON.stringify(shard.toSummary()))));
    assert.deepEqual(run.plan, { name: 'checkout', file: '.braid/plans/checkout.json' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
