/** The built `braid` CLI, run as a user would (needs `npm run build`). */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'bin/braid.js');
const fixtures = path.join(root, 'test/fixtures/traces/tablelog');

function braid(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the CLI is built', () => {
  assert.ok(existsSync(path.join(root, 'dist/braid.js')), 'run `npm run build` first');
});

test('analyze --format json prints the documented shape', () => {
  const r = braid('analyze', fixtures, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.executions, { total: 6, failed: 2, passed: 4 });
  assert.ok(Array.isArray(j.patterns) && j.patterns.length === 5);
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
  assert.equal(sarif.runs[0].results[0].relatedLocations.length, 4);
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
});

test('falcon strategy is selectable', () => {
  const r = braid('analyze', fixtures, '--strategy', 'falcon', '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.options.strategy, 'falcon');
  assert.ok(j.patterns.every((p: { id: string }) => Number(p.id.slice(1)) <= 8));
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
