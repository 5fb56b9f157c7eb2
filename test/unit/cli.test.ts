/** The built `braid` CLI, run as a user would (needs `npm run build`). */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { tempDir, writeTraces } from '../helpers/traceBuilder';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'bin/braid.js');
const fixtures = path.join(root, 'test/fixtures/traces/tablelog');

function braid(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

before(() => assert.ok(existsSync(path.join(root, 'dist/braid.js')), 'dist/braid.js is missing: run `npm run build` first'));

/** Table 5's keys (TableLog.java lines 11/12 insert, 21/22 remove), written by hand. */
const KEY = {
  I5: 'P9|W1:TABLE@TableLog.java:11|W2:TABLE@TableLog.java:21|W2:LOG@TableLog.java:22|W1:LOG@TableLog.java:12',
  I1: 'P3|W1:TABLE@TableLog.java:11|W2:TABLE@TableLog.java:21',
  I2: 'P3|W1:LOG@TableLog.java:22|W2:LOG@TableLog.java:12',
  I3: 'P3|W1:TABLE@TableLog.java:21|W2:TABLE@TableLog.java:11',
  I4: 'P3|W1:LOG@TableLog.java:12|W2:LOG@TableLog.java:22',
};

test('analyze --format json prints the documented shape', () => {
  const r = braid('analyze', fixtures, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  // every documented top-level key (docs/cli.md "JSON"); no message: the result needs no explaining;
  // a confidence note: only 2 failing runs
  assert.deepEqual(Object.keys(j).sort(), ['bugs', 'confidence', 'diagnostics', 'executions', 'formatVersion', 'groups', 'options', 'patterns', 'runs', 'stats', 'tool', 'totalPatterns']);
  assert.match(j.confidence, /only 2 of 6 runs failed/);
  assert.deepEqual(j.groups, { cause: 5, harness: 0, symptom: 0 });
  assert.deepEqual([j.tool, j.formatVersion], ['braid', 1]);
  assert.deepEqual(j.options, { strategy: 'unicorn', accessWindow: 5, pairWindow: 100, formula: 'jaccard', happensBefore: true, grouping: true, testCode: [], windowWrites: 'adjacent' });
  assert.deepEqual(j.executions, { total: 6, failed: 2, passed: 4 });
  assert.equal(j.totalPatterns, 5);
  assert.deepEqual(j.diagnostics, []);
  // 6 runs of 4 events; each run has 2 pairs (one per variable); Table 5's I1–I5
  assert.deepEqual(j.stats, { events: 24, pairs: 12, patterns: 5, latePairs: 0, orderedPairs: 0 });
  assert.deepEqual(
    j.runs.map((x: Record<string, unknown>) => [x.execution, path.basename(String(x.file)), x.outcome, x.events, x.patterns]),
    [
      ['E1', 'E1.trace.jsonl', 'pass', 4, 2],
      ['E2', 'E2.trace.jsonl', 'pass', 4, 2],
      ['E3', 'E3.trace.jsonl', 'pass', 4, 2],
      ['E4', 'E4.trace.jsonl', 'pass', 4, 2],
      ['E5', 'E5.trace.jsonl', 'fail', 4, 3],
      ['E6', 'E6.trace.jsonl', 'fail', 4, 3],
    ],
  );
  assert.deepEqual(
    j.patterns.map((p: Record<string, unknown>) => [p.key, p.category, p.failed, p.passed, p.score, p.rank]),
    [
      [KEY.I5, 'multi-variable atomicity', 2, 0, 1, 1],
      [KEY.I2, 'order', 2, 2, 0.5, 2],
      [KEY.I1, 'order', 2, 2, 0.5, 2],
      [KEY.I4, 'order', 0, 2, 0, 4],
      [KEY.I3, 'order', 0, 2, 0, 4],
    ],
  );
  // 2 failing runs of 6: the best pattern's p = 1/C(6,2) = 0.067 is no evidence, so no bug heads it (evidence clustering);
  // every pattern is listed as without evidence
  assert.equal(j.bugs.length, 0);
  assert.deepEqual(j.patterns.map((p: { evidence: boolean }) => p.evidence), [false, false, false, false, false]);
  const thesis = JSON.parse(braid('analyze', fixtures, '--format', 'json', '--griffin-clustering', 'thesis').out);
  assert.equal(thesis.bugs.length, 1);
  assert.deepEqual(thesis.bugs[0].failingRuns, ['E5', 'E6']);
  const top = j.patterns[0];
  for (const k of ['rank', 'score', 'id', 'kind', 'failed', 'passed', 'accesses']) assert.ok(k in top, `pattern has ${k}`);
  assert.deepEqual([top.rank, top.score, top.id, top.kind, top.failed, top.passed], [1, 1, 'P9', 'WWWW', 2, 0]);
  assert.deepEqual(
    top.accesses.map((a: Record<string, unknown>) => [a.thread, a.type, a.variable, a.file, a.line, a.method]),
    [
      [1, 'W', 'TABLE', 'TableLog.java', 11, 'TableLog.insert'],
      [2, 'W', 'TABLE', 'TableLog.java', 21, 'TableLog.remove'],
      [2, 'W', 'LOG', 'TableLog.java', 22, 'TableLog.remove'],
      [1, 'W', 'LOG', 'TableLog.java', 12, 'TableLog.insert'],
    ],
  );
});

test('analyze --format sarif passes the SARIF 2.1.0 validator (sarif-multitool)', () => {
  const out = path.join(tempDir(), 'braid.sarif');
  const r = braid('analyze', fixtures, '--format', 'sarif', '--output', out);
  assert.equal(r.code, 0, r.err);
  const sarif = JSON.parse(require('node:fs').readFileSync(out, 'utf8'));
  assert.equal(sarif.version, '2.1.0');
  assert.equal(sarif.runs[0].results[0].ruleId, 'P9');
  assert.match(sarif.runs[0].results[0].message.text, /Rank 1, suspiciousness 1\.000/);
  // the interleaving step by step (issue 30): one threadFlow per thread role, executionOrder over the whole pattern
  const flow = sarif.runs[0].results[0].codeFlows[0];
  assert.deepEqual(flow.threadFlows.map((t: { id: string }) => t.id), ['T1', 'T2']);
  assert.deepEqual(
    flow.threadFlows.map((t: { locations: { executionOrder: number }[] }) => t.locations.map((l) => l.executionOrder)),
    [[1, 4], [2, 3]],
    'P9 W1 W2 W2 W1: thread 1 at steps 1 and 4, thread 2 at 2 and 3',
  );
  assert.equal(flow.threadFlows[0].locations[0].location.physicalLocation.region.startLine, 11);
  // 2 failing runs of 6: no pattern has evidence — a note, said in the message and the properties
  assert.equal(sarif.runs[0].results[0].level, 'note');
  assert.match(sarif.runs[0].results[0].message.text, /no evidence that it goes with failing/);
  assert.equal(sarif.runs[0].results[0].properties.evidence, false);
  assert.equal(sarif.runs[0].results[0].relatedLocations.length, 4);
  // one rule per pattern P1–P17; the stable pattern key as fingerprint
  assert.deepEqual(
    sarif.runs[0].tool.driver.rules.map((x: { id: string }) => x.id),
    Array.from({ length: 17 }, (_, k) => `P${k + 1}`),
  );
  assert.equal(sarif.runs[0].results[0].partialFingerprints.braidPatternKey, KEY.I5);
  assert.equal(sarif.runs[0].results.length, 5);
  const tool = path.join(root, 'node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool');
  const v = spawnSync(tool, ['validate', out], { encoding: 'utf8', env: { ...process.env, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' } });
  assert.equal(v.status, 0, v.stderr);
  assert.match(v.stdout, /Analysis completed successfully/);
  const problems = v.stdout.split('\n').filter((l) => /: (error|warning) [A-Z]+\d+/.test(l));
  assert.deepEqual(problems, []);
});

test('the validator does catch a broken SARIF file (the check can fail)', () => {
  const bad = path.join(tempDir(), 'bad.sarif');
  writeFileSync(bad, '{"version":"2.1.0","runs":[{"tool":{}}]}');
  const tool = path.join(root, 'node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool');
  const v = spawnSync(tool, ['validate', bad], { encoding: 'utf8', env: { ...process.env, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' } });
  assert.match(v.stdout, /: error JSON\d+/);
});

test('text output is a ranked table; options are applied', () => {
  const r = braid('analyze', fixtures, '--top', '1', '--formula', 'ochiai', '--pair-window', '0');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /UNICORN analysis of 6 runs \(2 failed, 4 passed\)/);
  assert.match(r.out, /pair window 0, formula ochiai/);
  // with a pair window of 0 no pair is combined: the top pattern is a pair
  assert.match(r.out, /^1\s+0\.707\s+P3\s+WW/m);
  // the LOG pair is tied with the first (same score, same methods): always printed with it
  assert.match(r.out, /2 tied patterns over TableLog.remove \| TableLog.insert/);
  assert.match(r.out, /2 more \(use --top N\)/);
  // nothing has evidence with 2 failing runs: one section, said so; GRIFFIN names no bug and says why
  assert.match(r.out, /^Without evidence — p ≥ 0\.05, or seen in nearly every passing run .*\(4\)$/m);
  assert.doesNotMatch(r.out, /^Causes/m);
  assert.match(r.out, /No bug yet: no pattern separates the failing from the passing runs with evidence/);
});

test('falcon strategy is selectable', () => {
  const r = braid('analyze', fixtures, '--strategy', 'falcon', '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.options.strategy, 'falcon');
  // FALCON finds Table 5's four pairs and never combines them into I5 (P9)
  assert.deepEqual(
    j.patterns.map((p: { key: string; failed: number; passed: number }) => [p.key, p.failed, p.passed]).sort(),
    [
      [KEY.I2, 2, 2],
      [KEY.I4, 0, 2],
      [KEY.I1, 2, 2],
      [KEY.I3, 0, 2],
    ].sort(),
  );
});

test('usage errors exit 2 with a clear message', () => {
  const r = braid('analyze', fixtures, '--formula', 'magic');
  assert.equal(r.code, 2);
  assert.match(r.err, /--formula must be jaccard, ochiai or tarantula, got "magic"/);
  const r2 = braid('analyze');
  assert.equal(r2.code, 2);
  assert.match(r2.err, /give at least one trace file or folder/);
});

test('a broken trace is reported on stderr with file and line, the rest is analyzed', () => {
  const dir = tempDir();
  for (const f of ['E1', 'E5']) writeFileSync(path.join(dir, `${f}.trace.jsonl`), require('node:fs').readFileSync(path.join(fixtures, `${f}.trace.jsonl`)));
  writeFileSync(path.join(dir, 'bad.trace.jsonl'), '{"braid":"trace","version":1,"execution":"b","outcome":"fail"}\n[1,1,"W",0,0\n');
  const r = braid('analyze', dir, '--format', 'json');
  assert.equal(r.code, 0);
  assert.match(r.err, /bad\.trace\.jsonl:2: error: invalid JSON/);
  assert.equal(JSON.parse(r.out).executions.total, 2);
});

test('--access-window: a window of 2 drops the pair of the oldest access with the third (W1 W2 W3 on x)', () => {
  const dir = writeTraces([{ execution: 'f', outcome: 'fail', events: ['W1 x S1', 'W2 x S2', 'W3 x S3'] }]);
  const lines = (w: string) => {
    const r = braid('analyze', dir, '--format', 'json', '--access-window', w);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.equal(j.options.accessWindow, Number(w));
    return j.patterns.map((p: { accesses: { line: number }[] }) => p.accesses.map((a) => a.line).join('-')).sort();
  };
  assert.deepEqual(lines('2'), ['1-2', '2-3']);
  assert.deepEqual(lines('5'), ['1-2', '1-3', '2-3']);
  const bad = braid('analyze', dir, '--access-window', '1');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--access-window/);
});

test('--griffin-t, --griffin-s and --no-bugs', () => {
  // F1 has A and C, F2 has B and C: their top sets {A, C} and {B, C} are 1/3 alike
  const dir = writeTraces([
    { execution: 'F1', outcome: 'fail', events: ['W1 a S1', 'W2 a S2', 'W5 c S5', 'W6 c S6'] },
    { execution: 'F2', outcome: 'fail', events: ['W3 b S3', 'W4 b S4', 'W5 c S5', 'W6 c S6'] },
    { execution: 'P1', outcome: 'pass', events: ['W7 d S7', 'W8 d S8'] },
  ]);
  // Algorithm 3's clusters: thesis mode, where a bug's failing runs are its failing-run cluster
  // (the merge step makes C, seen in both failing runs, one bug for both: tested in griffin.test.ts)
  const clusters = (...args: string[]) => {
    const r = braid('analyze', dir, '--format', 'json', '--griffin-merge', 'off', ...args);
    assert.equal(r.code, 0, r.err);
    return new Set(JSON.parse(r.out).bugs.map((b: { cluster: number }) => b.cluster)).size;
  };
  assert.equal(clusters(), 2, 'default s = 0.8 keeps F1 and F2 apart');
  assert.equal(clusters('--griffin-s', '0.33'), 1, '1/3 ≥ 0.33 merges');
  assert.equal(clusters('--griffin-s', '0.34'), 2, '1/3 < 0.34 does not');
  assert.equal(clusters('--griffin-t', '1'), 1, 'top-1 of both is C (in both failing runs)');
  const none = braid('analyze', dir, '--format', 'json', '--no-bugs');
  assert.equal(none.code, 0, none.err);
  assert.ok(!('bugs' in JSON.parse(none.out)), '--no-bugs leaves no bugs key');
  assert.equal(braid('analyze', dir, '--griffin-s', '1.5').code, 2);
  assert.equal(braid('analyze', dir, '--griffin-t', '0').code, 2);
});

test('--top defaults: 20 in text and SARIF, all in JSON; -o writes the report to a file', () => {
  // 25 pairs on 25 variables, all thread 1 → thread 2 (no two combine); v21–v25 also in a passing run (score 0.5)
  const events: string[] = [];
  for (let k = 1; k <= 25; k++) events.push(`W1 v${k} S${k}`, `W2 v${k} S${k + 100}`);
  const dir = writeTraces([
    { execution: 'f', outcome: 'fail', events },
    { execution: 'p', outcome: 'pass', events: events.slice(40) },
  ]);
  const text = braid('analyze', dir);
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out.match(/^\s*1\s+1\.000\s+P3\s/gm)?.length, 20);
  assert.match(text.out, /5 more \(use --top N\)/);
  const json = braid('analyze', dir, '--format', 'json');
  assert.equal(JSON.parse(json.out).patterns.length, 25);
  const out = path.join(tempDir(), 'r.sarif');
  const sarif = braid('analyze', dir, '--format', 'sarif', '-o', out);
  assert.equal(sarif.code, 0, sarif.err);
  assert.equal(sarif.out, '');
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).runs[0].results.length, 20);
  // the patterns tied with the first are printed past --top (up to 100)
  const top3 = braid('analyze', dir, '--top', '3');
  assert.equal(top3.out.match(/^\s*1\s+1\.000\s+P3\s/gm)?.length, 20);
  assert.match(top3.out, /5 more \(use --top N\)/);
});

test('exit code 1 when no trace could be analyzed', () => {
  const r = braid('analyze', tempDir());
  assert.equal(r.code, 1);
  assert.match(r.err, /error: no trace files \(\*\.trace\.jsonl, \*\.trace\.jsonl\.gz\) found/);
  assert.match(r.out, /No traces could be analyzed/);
});

test('folders are searched recursively for .trace.jsonl and .trace.jsonl.gz', () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
  writeFileSync(path.join(dir, 'E1.trace.jsonl'), readFileSync(path.join(fixtures, 'E1.trace.jsonl')));
  writeFileSync(path.join(dir, 'a', 'b', 'E5.trace.jsonl.gz'), gzipSync(readFileSync(path.join(fixtures, 'E5.trace.jsonl'))));
  writeFileSync(path.join(dir, 'a', 'E6.trace.json'), readFileSync(path.join(fixtures, 'E6.trace.jsonl'))); // not a trace name
  const r = braid('analyze', dir, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.runs.map((x: { execution: string; file: string }) => [x.execution, path.basename(x.file)]), [
    ['E1', 'E1.trace.jsonl'],
    ['E5', 'E5.trace.jsonl.gz'],
  ]);
});

test('analyze --help and summarize -h print their own usage and exit 0 (no trace is read)', () => {
  const a = braid('analyze', '--help');
  assert.equal(a.code, 0, a.err);
  assert.match(a.out, /^Usage:\n {2}braid analyze <trace files or folders\.\.\.> \[options\]/);
  assert.match(a.out, /--top N/);
  assert.doesNotMatch(a.out, /^ {2}braid (summarize|record)/m);
  const s = braid('summarize', '-h');
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /^Usage:\n {2}braid summarize /);
  assert.doesNotMatch(s.out, /--griffin-t/);
  // an unknown option is still a usage error
  assert.equal(braid('analyze', '--helpme').code, 2);
});

test('a bad --output is a usage error before any trace is read; an option without its value says so', () => {
  const dir = tempDir();
  const missing = path.join(dir, 'no-such-folder', 'out.json');
  for (const [cmd, extra] of [
    ['analyze', []],
    ['summarize', []],
    ['methods', []],
  ] as const) {
    const r = braid(cmd, fixtures, ...extra, '--output', missing);
    assert.equal(r.code, 2, `${cmd}: ${r.err}`);
    assert.match(r.err, new RegExp(`--output: the folder .*no-such-folder does not exist`), cmd);
    assert.equal(existsSync(path.join(dir, 'no-such-folder')), false);
  }
  const isDir = braid('analyze', fixtures, '--output', dir);
  assert.equal(isDir.code, 2);
  assert.match(isDir.err, /--output: .* is a folder; give a file name/);
  const noValue = braid('analyze', fixtures, '--format');
  assert.equal(noValue.code, 2);
  assert.match(noValue.err, /--format needs a value/);
});

test('a folder without traces next to folders with traces is a warning; the others are analyzed', () => {
  const empty = tempDir();
  const r = braid('analyze', empty, fixtures, '--format', 'json', '--no-bugs');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /: warning: no trace files \(\*\.trace\.jsonl, \*\.trace\.jsonl\.gz\) in this folder/);
  assert.equal(JSON.parse(r.out).executions.total, 6);
});

test('record --out naming a file: a clear error before any run', () => {
  const dir = tempDir();
  const file = path.join(dir, 'afile');
  writeFileSync(file, 'x');
  const r = braid('record', '--runs', '1', '--out', file, '--', 'java', 'NoSuchClassXyz');
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /the trace folder .*afile cannot be made: it \(or a folder above it\) is a file/);
});

test('issue 31 N6: --top bounds every format, ties included — at most 100 patterns tied with the first, and the report says how many were left out', () => {
  // 150 pairs on 150 variables, each in both failing runs only, all over the same two methods: 150 patterns tied with the first
  const events = Array.from({ length: 150 }, (_, k) => [`W1 v${k} S1 @method=A.a`, `W2 v${k} S2 @method=A.b`]).flat();
  const dir = writeTraces([
    { execution: 'f1', outcome: 'fail', events },
    { execution: 'f2', outcome: 'fail', events },
    { execution: 'p1', outcome: 'pass', events: ['W1 other S3', 'W2 other S4'] },
    { execution: 'p2', outcome: 'pass', events: ['W1 other S3', 'W2 other S4'] },
  ]);
  const text = braid('analyze', dir, '--top', '3', '--pair-window', '0');
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out.match(/^\s*1\s+1\.000\s+P3\s/gm)?.length, 100);
  assert.match(text.out, /… 50 more patterns tied with the first left out/);
  const json = JSON.parse(braid('analyze', dir, '--top', '3', '--pair-window', '0', '--format', 'json').out);
  assert.equal(json.patterns.length, 100);
  assert.equal(json.tiedLeftOut, 50);
  assert.equal(json.totalPatterns, 151);
  const out = path.join(tempDir(), 'ties.sarif');
  assert.equal(braid('analyze', dir, '--top', '3', '--pair-window', '0', '--format', 'sarif', '-o', out).code, 0);
  const sarif = JSON.parse(readFileSync(out, 'utf8'));
  assert.ok(sarif.runs[0].results.length <= 101, String(sarif.runs[0].results.length));
  assert.equal(sarif.runs[0].properties.tiedLeftOut, 50);
  // --top above the cap lists them all
  assert.equal(JSON.parse(braid('analyze', dir, '--top', '200', '--pair-window', '0', '--format', 'json').out).patterns.length, 151);
});

test('issue 31 N7: a shard of 10,002 failing runs: the thesis clustering says it cannot and only the bugs are lost; the evidence clustering explains them', () => {
  const dir = tempDir();
  const shard = path.join(dir, 'many.braid-summary.json');
  assert.equal(braid('summarize', fixtures, '-o', shard).code, 0);
  const s = JSON.parse(readFileSync(shard, 'utf8'));
  const failing = s.runs.filter((r: { outcome: string }) => r.outcome === 'fail');
  s.runs = Array.from({ length: 10002 }, (_, k) => ({ ...failing[k % failing.length], execution: `X${k}`, file: `/x/${k}.trace.jsonl` })).concat(
    s.runs.filter((r: { outcome: string }) => r.outcome === 'pass'),
  );
  writeFileSync(shard, JSON.stringify(s));
  const thesis = braid('analyze', shard, '--griffin-clustering', 'thesis', '--top', '2');
  assert.equal(thesis.code, 0, thesis.err);
  assert.match(thesis.err, /GRIFFIN: error: no bugs: Algorithm 3 compares every pair of failing runs: 10002 failing runs are too many/);
  assert.match(thesis.out, /UNICORN analysis of 10006 runs \(10002 failed, 4 passed\)/);
  const evidence = braid('analyze', shard, '--top', '2');
  assert.equal(evidence.code, 0, evidence.err);
  assert.match(evidence.out, /GRIFFIN — 1 bug explaining 10002 of 10002 failing runs/);
});

test('issue 31 N6: --format json lists 1,000 patterns unless --top says otherwise; --top all lists every one', () => {
  const events = Array.from({ length: 1200 }, (_, k) => [`W1 v${k} S1 @method=A.a`, `W2 v${k} S2 @method=A.b`]).flat();
  const dir = writeTraces([
    { execution: 'f1', outcome: 'fail', events },
    { execution: 'p1', outcome: 'pass', events: ['W1 other S3', 'W2 other S4'] },
  ]);
  const json = JSON.parse(braid('analyze', dir, '--pair-window', '0', '--format', 'json').out);
  assert.equal(json.totalPatterns, 1201);
  assert.equal(json.patterns.length, 1000);
  assert.equal(json.tiedLeftOut, 200);
  const all = JSON.parse(braid('analyze', dir, '--pair-window', '0', '--format', 'json', '--top', 'all').out);
  assert.equal(all.patterns.length, 1201);
  assert.equal(all.tiedLeftOut, undefined);
  assert.equal(parseAnalyzeArgs([dir, '--top', 'all']).topAll, true);
  assert.throws(() => parseAnalyzeArgs([dir, '--top', 'many']), /--top/);
});
