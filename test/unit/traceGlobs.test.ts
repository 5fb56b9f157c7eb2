/**
 * Issue 39 (LOW): "`braid.traceGlobs` (not restricted) compiles `{` and `**a**…b` into unchecked
 * regexes (no analysis; catastrophic backtracking) and walks `../../..`" — globs are checked and
 * compiled by picomatch (server/src/workspace/glob.ts); the walk stays in the workspace folder
 * (traceFinder.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TraceFinder } from '../../server/src/workspace/traceFinder';
import { compileGlob } from '../../server/src/workspace/glob';
import { DEFAULT_SETTINGS } from '../../server/src/lsp/settings';
import { tempDir } from '../helpers/traceBuilder';

function workspaceWithTrace(): { ws: string; trace: string } {
  const ws = tempDir();
  const dir = path.join(ws, '.braid', 'traces', 'r');
  mkdirSync(dir, { recursive: true });
  const trace = path.join(dir, 'r-0000.trace.jsonl');
  writeFileSync(trace, '');
  return { ws, trace };
}

test('traceGlobs: "compiles `{`" — an unbalanced brace is left out with a reason, the other globs still find traces', async () => {
  const { ws, trace } = workspaceWithTrace();
  let finder: TraceFinder | undefined;
  assert.doesNotThrow(() => (finder = new TraceFinder([ws], ['{', ...DEFAULT_SETTINGS.traceGlobs])));
  assert.deepEqual((await finder!.find()).map((f) => f.path), [trace]);
  assert.match((finder as unknown as { problems?: string[] }).problems?.join('\n') ?? '', /braid\.traceGlobs: "\{" is not used/);
});

test('traceGlobs: "`**a**…b` into unchecked regexes (catastrophic backtracking)" — refused, and no accepted glob backtracks', async () => {
  const { ws } = workspaceWithTrace();
  const evil = '**a**a**a**a**a**a**a**a**a**a**b';
  const started = Date.now();
  const finder = new TraceFinder([ws], [evil, '+(a|aa)+(b)', '**/*a*a*b']);
  const name = 'a'.repeat(200) + '.trace.jsonl';
  writeFileSync(path.join(ws, name), '');
  await finder.find();
  for (const g of finder.globs) g.regex.test(name);
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  const problems = (finder as unknown as { problems?: string[] }).problems ?? [];
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /more than two \* wildcards/);
  assert.match(problems[1], /extglobs/);
});

test('traceGlobs: "walks `../../..`" — a glob leaving the workspace folder is refused, a base folder linked out of it is not walked', async () => {
  const outside = tempDir();
  mkdirSync(path.join(outside, 'secret'), { recursive: true });
  writeFileSync(path.join(outside, 'secret', 'x.trace.jsonl'), '');
  const ws = path.join(tempDir(), 'ws');
  mkdirSync(ws, { recursive: true });
  const rel = path.relative(ws, path.join(outside, 'secret')).split(path.sep).join('/');
  const up = new TraceFinder([ws], [`${rel}/*.trace.jsonl`, '../../../../../../**/*.trace.jsonl']);
  assert.deepEqual(await up.find(), []);
  assert.equal(((up as unknown as { problems?: string[] }).problems ?? []).length, 2);
  // .braid/traces is a link to a folder outside the workspace
  mkdirSync(path.join(ws, '.braid'));
  symlinkSync(path.join(outside, 'secret'), path.join(ws, '.braid', 'traces'));
  assert.deepEqual(await new TraceFinder([ws], ['.braid/traces/**/*.trace.jsonl']).find(), []);
});

test('traceGlobs: the default and the documented forms match as before', () => {
  const g = compileGlob('.braid/traces/**/*.trace.jsonl{,.gz}');
  assert.equal(g.base, '.braid/traces');
  for (const p of ['.braid/traces/a.trace.jsonl', '.braid/traces/x/y/a.trace.jsonl.gz']) assert.ok(g.regex.test(p), p);
  for (const p of ['.braid/traces/a.trace.json', 'x/.braid/traces/a.trace.jsonl', '.braid/traces/a.trace.jsonl.part', '.braid/a.trace.jsonl']) assert.ok(!g.regex.test(p), p);
  assert.ok(compileGlob('**/*.trace.jsonl').regex.test('deep/.er/a.trace.jsonl'));
  assert.ok(compileGlob('./runs/run-?[0-9].trace.jsonl').regex.test('runs/run-a7.trace.jsonl'));
  assert.ok(compileGlob('runs/[!x]*.trace.jsonl').regex.test('runs/a.trace.jsonl'));
  assert.ok(!compileGlob('runs/[!x]*.trace.jsonl').regex.test('runs/x.trace.jsonl'));
});
