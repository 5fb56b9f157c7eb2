/** Unit tests of the language server's and client's pure helpers. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob } from '../../server/src/workspace/glob';
import { findMethodDeclaration } from '../../server/src/lsp/features';
import { normalizeSettings, DEFAULT_SETTINGS } from '../../server/src/lsp/settings';
import { splitCommandLine } from '../../client/src/argv';
import { recordArgv } from '../../server/src/lsp/record';

test('trace globs: **, *, {,.gz} and the literal base folder', () => {
  const g = compileGlob('.braid/traces/**/*.trace.jsonl{,.gz}');
  assert.equal(g.base, '.braid/traces');
  for (const p of ['.braid/traces/a.trace.jsonl', '.braid/traces/x/y/a.trace.jsonl.gz']) assert.ok(g.regex.test(p), p);
  for (const p of ['.braid/traces/a.trace.json', 'x/.braid/traces/a.trace.jsonl', '.braid/traces/a.trace.jsonl.gzip', '.braid/a.trace.jsonl']) assert.ok(!g.regex.test(p), p);
  const any = compileGlob('**/*.trace.jsonl');
  assert.equal(any.base, '');
  assert.ok(any.regex.test('a.trace.jsonl') && any.regex.test('deep/er/a.trace.jsonl'));
  assert.ok(compileGlob('runs/run-?[0-9].trace.jsonl').regex.test('runs/run-a7.trace.jsonl'));
});

test('findMethodDeclaration finds the declaration above an access, not a call', () => {
  const text = ['class A {', '  void take() {', '    take();', '    x = 1;', '  }', '  A() {', '    y = 2;', '  }', '}'].join('\n');
  assert.equal(findMethodDeclaration(text, 'p.A.take', 3), 1);
  assert.equal(findMethodDeclaration(text, 'p.A.<init>', 6), 5);
  assert.equal(findMethodDeclaration(text, 'p.A.lambda$main$0', 6), undefined);
  assert.equal(findMethodDeclaration(text, 'p.A.missing', 6), undefined);
});

test('settings: defaults, and bad values fall back to them', () => {
  assert.deepEqual(normalizeSettings(undefined), DEFAULT_SETTINGS);
  const s = normalizeSettings({ analysis: { accessWindow: 1, pairWindow: 7, formula: 'nope' }, griffin: { t: 10, s: 2 }, traceGlobs: [] });
  assert.equal(s.analysis.accessWindow, 5);
  assert.equal(s.analysis.pairWindow, 7);
  assert.equal(s.analysis.formula, 'jaccard');
  assert.deepEqual({ t: s.griffin.t, s: s.griffin.s }, { t: 10, s: 0.8 });
  assert.deepEqual(s.traceGlobs, DEFAULT_SETTINGS.traceGlobs);
});

test('splitCommandLine handles quotes and escapes', () => {
  assert.deepEqual(splitCommandLine('java -cp "out dir" shop.Inventory'), ['java', '-cp', 'out dir', 'shop.Inventory']);
  assert.deepEqual(splitCommandLine(`mvn -q test '-Dtest=A B' x\\ y ""`), ['mvn', '-q', 'test', '-Dtest=A B', 'x y', '']);
  assert.throws(() => splitCommandLine('java "unclosed'), /unclosed/);
});

test('recordArgv builds `braid record` arguments', () => {
  assert.deepEqual(recordArgv({ command: ['java', 'A'], runs: 5, noise: 0.2, include: ['shop'], timeoutSeconds: 9, jobs: 2 }, '/o'), [
    '--runs', '5', '--noise', '0.2', '--include', 'shop', '--timeout', '9', '--jobs', '2', '--out', '/o', '--', 'java', 'A',
  ]);
  // where the noise goes: only when not the default
  assert.deepEqual(recordArgv({ command: ['java', 'A'], runs: 5, noiseAt: 'sync' }, undefined), ['--runs', '5', '--noise-at', 'sync', '--', 'java', 'A']);
  assert.deepEqual(recordArgv({ command: ['java', 'A'], runs: 5, noiseAt: 'accesses' }, undefined), ['--runs', '5', '--', 'java', 'A']);
  // noiseMode pct goes to braid record; adaptive and uniform are the run loop's (adaptiveExposure.ts)
  assert.deepEqual(recordArgv({ command: ['java', 'A'], runs: 5, noiseMode: 'pct' }, undefined), ['--runs', '5', '--noise-mode', 'pct', '--', 'java', 'A']);
  assert.deepEqual(recordArgv({ command: ['java', 'A'], runs: 5, noiseMode: 'uniform' }, undefined), ['--runs', '5', '--', 'java', 'A']);
});
