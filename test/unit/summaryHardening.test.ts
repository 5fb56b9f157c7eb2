/**
 * Issue 31, N8: what a shard (a summary file from another machine) can claim is bounded by what it can
 * hold — a pattern listed twice in one run, a stack deeper than a trace's can be, a diagnostic naming a
 * file that is not its run's — and one bad shard loses only itself.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateSummary } from '../../server/src/engine/summary/summaryFile';
import { MAX_STACK_DEPTH } from '../../server/src/engine/trace/traceSymbols';
import { tempDir } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const fixtures = path.join(root, 'test/fixtures/traces/tablelog');
const braid = (...args: string[]) => {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/braid.js'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

function shardOf(): { file: string; s: Record<string, any> } {
  const file = path.join(tempDir(), 'shard.braid-summary.json');
  assert.equal(braid('summarize', fixtures, '-o', file).code, 0);
  return { file, s: JSON.parse(readFileSync(file, 'utf8')) };
}

test('N8: a run listing one pattern 1,000 times is refused (it would count the run 1,000 times); the other inputs are still analyzed', () => {
  const { file, s } = shardOf();
  const k = s.runs.findIndex((r: { outcome: string }) => r.outcome === 'fail');
  s.runs[k].patterns = Array.from({ length: 1000 }, () => s.runs[k].patterns[0]);
  assert.throws(() => validateSummary(s), new RegExp(`runs\\[${k}\\]\\.patterns lists pattern \\d+ more than once`));
  writeFileSync(file, JSON.stringify(s));
  const r = braid('analyze', file, fixtures, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /lists pattern \d+ more than once/);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.executions, { total: 6, failed: 2, passed: 4 }, 'the traces are analyzed; the bad shard is left out');
  assert.ok(j.patterns.every((p: { failed: number }) => p.failed <= 2));
});

test('N8: a stack deeper than a trace can hold is refused with its index', () => {
  const { s } = shardOf();
  s.stacks.push(Array.from({ length: MAX_STACK_DEPTH + 1 }, () => 0));
  assert.throws(() => validateSummary(s), new RegExp(`stacks\\[${s.stacks.length - 1}\\] has ${MAX_STACK_DEPTH + 1} frames \\(at most ${MAX_STACK_DEPTH}\\)`));
});

test('N8: a diagnostic naming another file (/etc/shadow) is reported at its run, the file named only in the message', () => {
  const { file, s } = shardOf();
  s.runs[0].diagnostics = [{ severity: 'error', file: '/etc/shadow', line: 1, message: 'bad line' }];
  writeFileSync(file, JSON.stringify(s));
  const r = braid('analyze', file);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /^\/etc\/shadow/m);
  assert.match(r.err, /E1\.trace\.jsonl: error: bad line \(the summary names "\/etc\/shadow":1\)/);
  // a diagnostic that is not well formed refuses the shard
  s.runs[0].diagnostics = [{ severity: 'fatal', file: 1, message: {} }];
  assert.throws(() => validateSummary(s), /runs\[0\]\.diagnostics\[0\] must be \{severity: error\|warning\|info, file, line\?, message\}/);
});

test('N13 for shards: a value in a summary is kept bounded, as a trace\'s would be', () => {
  const { file, s } = shardOf();
  // a value for the first access of the first pattern: a 100,000-element array
  s.patterns.values = [[0, 0, Array.from({ length: 100000 }, (_, k) => k)]];
  writeFileSync(file, JSON.stringify(s));
  const r = braid('analyze', file, '--format', 'json');
  assert.equal(r.code, 0, r.err);
  const values = JSON.parse(r.out).patterns.flatMap((p: { accesses: { value?: unknown }[] }) => p.accesses.map((a) => a.value)).filter((v: unknown) => v !== undefined);
  assert.ok(values.includes('[100000 numbers]'), JSON.stringify(values).slice(0, 300));
});
