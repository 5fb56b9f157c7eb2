/**
 * Reports are streamed (issue 14): the JSON writer gives exactly
 * JSON.stringify(value, null, 2) in bounded chunks and waits for the sink;
 * a report of thousands of patterns is written through the CLI in every
 * format, parses back, and `--top` is honoured in each (needs `npm run build`).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { JsonRows, writeJson } from '../../server/src/engine/report/jsonStream';
import { tempDir, writeTraces } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'bin/braid.js');

function braid(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

before(() => assert.ok(existsSync(path.join(root, 'dist/braid.js')), 'dist/braid.js is missing: run `npm run build` first'));

test('writeJson: the text of JSON.stringify(value, null, 2), lists given as rows at any depth', async () => {
  const value = {
    tool: 'braid',
    none: undefined,
    fn: () => 1,
    empty: [],
    emptyObject: {},
    patterns: new JsonRows(3, (k) => ({ k, s: [k, { deep: [k] }], u: undefined })),
    runs: [{ results: new JsonRows(2, (k) => `r${k}`), more: [1, [2, [3, [4, [5]]]]] }],
    noRows: new JsonRows(0, () => 0),
    text: 'a "quoted"\nline',
  };
  // the same value with plain arrays, written by hand
  const plain = {
    tool: 'braid',
    none: undefined,
    fn: () => 1,
    empty: [],
    emptyObject: {},
    patterns: [0, 1, 2].map((k) => ({ k, s: [k, { deep: [k] }], u: undefined })),
    runs: [{ results: ['r0', 'r1'], more: [1, [2, [3, [4, [5]]]]] }],
    noRows: [],
    text: 'a "quoted"\nline',
  };
  let text = '';
  await writeJson(value, (s) => {
    text += s;
  });
  assert.equal(text, JSON.stringify(plain, null, 2));
});

test('writeJson: 200,000 rows in chunks of about 64 KiB, never two chunks in flight', async () => {
  const n = 200_000;
  const row = (k: number) => ({ rank: k + 1, key: `P3|W1:v${k}@Fixture.java:${k}|W2:v${k}@Fixture.java:${k + 1}` });
  const chunks: number[] = [];
  let inFlight = false;
  let text = '';
  await writeJson({ patterns: new JsonRows(n, row) }, (s) => {
    assert.equal(inFlight, false, 'the writer waits for the sink before the next chunk');
    chunks.push(s.length);
    text += s;
    inFlight = true;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        inFlight = false;
        resolve();
      }),
    );
  });
  assert.ok(chunks.length > 100, `${chunks.length} chunks`);
  // one chunk: up to 64 Ki characters plus the row that crossed the limit
  assert.ok(Math.max(...chunks) < 65536 + 200, `largest chunk ${Math.max(...chunks)}`);
  const parsed = JSON.parse(text);
  assert.equal(parsed.patterns.length, n);
  assert.deepEqual(parsed.patterns[n - 1], { rank: n, key: `P3|W1:v${n - 1}@Fixture.java:${n - 1}|W2:v${n - 1}@Fixture.java:${n}` });
});

test('a report of 6,000 patterns streams in every format; --top is honoured in text, JSON and SARIF', () => {
  // failing run f: one W1/W2 pair on each of N variables; failing run g: only v1's pair; passing run p: pairs N/2+1..N.
  // Jaccard over 2 failing runs: v1 2/(2+0) = 1; v2..v(N/2) 1/(2+0) = 0.5; the rest 1/(2+1) = 1/3.
  const N = 6000;
  const pair = (k: number) => [`W1 v${k} S${k}`, `W2 v${k} S${k + 100000}`];
  const all: string[] = [];
  for (let k = 1; k <= N; k++) all.push(...pair(k));
  const dir = writeTraces([
    { execution: 'f', outcome: 'fail', events: all },
    { execution: 'g', outcome: 'fail', events: pair(1) },
    { execution: 'p', outcome: 'pass', events: all.slice(N) },
  ]);
  const out = path.join(tempDir(), 'report.json');
  // every pattern (--top all; JSON's default is the first 1,000)
  const json = braid('analyze', dir, '--format', 'json', '--no-bugs', '--top', 'all', '-o', out);
  assert.equal(json.code, 0, json.err);
  const j = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(j.totalPatterns, N);
  assert.equal(j.patterns.length, N);
  assert.deepEqual(j.groups, { cause: N, harness: 0, symptom: 0 });
  assert.deepEqual(j.executions, { total: 3, failed: 2, passed: 1 });
  assert.deepEqual(
    [j.patterns[0].key, j.patterns[0].rank, j.patterns[0].score, j.patterns[0].failed, j.patterns[0].passed],
    ['P3|W1:v1@Fixture.java:1|W2:v1@Fixture.java:100001', 1, 1, 2, 0],
  );
  const by = (score: number) => j.patterns.filter((p: { score: number }) => p.score === score);
  assert.equal(by(0.5).length, N / 2 - 1);
  assert.equal(by(0.333333).length, N / 2);
  assert.ok(by(0.5).every((p: { rank: number; failed: number; passed: number }) => p.rank === 2 && p.failed === 1 && p.passed === 0));
  assert.ok(by(0.333333).every((p: { rank: number; failed: number; passed: number }) => p.rank === N / 2 + 1 && p.failed === 1 && p.passed === 1));
  // every access described: both threads, with the statement's line and method
  assert.deepEqual(
    j.patterns[0].accesses.map((a: Record<string, unknown>) => [a.thread, a.type, a.variable, a.line, a.method]),
    [
      [1, 'W', 'v1', 1, 'Fixture.m1'],
      [2, 'W', 'v1', 100001, 'Fixture.m100001'],
    ],
  );

  // --top 7: the first pattern and six of rank 2, in each format
  const top = braid('analyze', dir, '--format', 'json', '--no-bugs', '--top', '7');
  assert.equal(top.code, 0, top.err);
  const t = JSON.parse(top.out);
  assert.equal(t.totalPatterns, N);
  assert.deepEqual(
    t.patterns.map((p: { rank: number }) => p.rank),
    [1, 2, 2, 2, 2, 2, 2],
  );
  const sarif = braid('analyze', dir, '--format', 'sarif', '--top', '7');
  assert.equal(sarif.code, 0, sarif.err);
  const results = JSON.parse(sarif.out).runs[0].results;
  assert.deepEqual(
    results.map((r: { properties: { rank: number } }) => r.properties.rank),
    [1, 2, 2, 2, 2, 2, 2],
  );
  const text = braid('analyze', dir, '--no-bugs', '--top', '7');
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out.match(/^\s*\d+\s+\d\.\d{3}\s+P3\s/gm)?.length, 7);
  assert.match(text.out, new RegExp(`… ${N - 7} more \\(use --top N\\)`));
  assert.match(text.out, new RegExp(`; ${N} patterns\\n`));
});
