/**
 * The JS/TS test lens (issue 32, point 6): the tests and describe blocks of node:test, mocha, jest
 * and vitest found in .js/.ts sources by a lexical scan (comments, strings, templates and regular
 * expressions skipped; TypeScript and JSX syntax tolerated), the runner detected from the file and
 * package.json, the command that runs just that test (argv, name pattern escaped), and the lenses.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findJsTests, importedRunner, isJsTestFile, scanJs, testFileStem } from '../../server/src/recorder/node/jsTestDiscovery';
import { barePackage, detectRunner, escapeRegExp, inferJsTestCommand, mochaScriptLoaders, namePattern, runnerOfScript, scriptPreloads } from '../../server/src/recorder/node/jsTestCommand';
import { commandLine, TestCommandError } from '../../server/src/recorder/java/testCommand';
import { testCodeLenses } from '../../server/src/lsp/testLenses';
import { splitCommandLine } from '../../client/src/argv';

const titles = (text: string) => findJsTests(text).map((t) => [t.kind, t.titles.join(' / '), t.line]);

test('node:test in TypeScript: describe, test and it with their suites and lines; types, generics and comments do not confuse the scan', () => {
  const src = [
    "import { describe, test, it } from 'node:test';", // 0
    "import assert from 'node:assert/strict';",
    '',
    'interface Box<T> { v: T }', // 3
    "const re = /it\\('no'\\)[)(]/g; // a regex with quotes and parentheses",
    "/* test('in a block comment', () => {}) */",
    "const s = \"test('in a string', () => {})\";",
    'describe("Inventory", () => {', // 7
    '  const box: Box<number> = { v: 1 } as Box<number>;',
    "  test('two concurrent orders are both reserved', async (): Promise<void> => {", // 9
    '    const n = box.v / 2; // a division, not a regex',
    "    assert.equal(n, 0.5);",
    '  });',
    "  describe(`nested ${'no'}`, () => { it('in a template-named suite', () => {}); });", // 13: a name with a substitution has no entry
    '  describe(`nested`, () => {', // 14
    "    it('it\\'s escaped', () => {});", // 15
    '  });',
    '});',
    "test.only('focused', () => {});", // 18
    "test.skip('skipped', () => {});",
    "it.todo('later');",
    "describe.each([1, 2])('each %s', () => { it('inside each', () => {}); });",
    "it('pending');",
    'test(nameFromVariable, () => {});',
    "test('with subtests', async (t) => { await t.test('a subtest', () => {}); test('inside a test', () => {}); });", // 24
    "obj.test('a method', () => {});",
    "function it2() { return it; }",
  ].join('\n');
  assert.deepEqual(titles(src), [
    ['suite', 'Inventory', 7],
    ['test', 'Inventory / two concurrent orders are both reserved', 9],
    // line 13: a suite with a computed name has no entry, nor has the test inside it (its full name is not known)
    ['suite', 'Inventory / nested', 14],
    ['test', "Inventory / nested / it's escaped", 15],
    ['test', 'focused', 18],
    ['test', 'with subtests', 24],
  ]);
  const t = findJsTests(src).find((x) => x.titles.includes('focused'))!;
  assert.equal(t.character, 0);
  assert.equal(findJsTests(src)[1].character, 2, 'the column of `test`');
  assert.equal(importedRunner(src), 'node-test');
});

test('the scan blanks comments, strings, templates (with nested substitutions) and regular expressions, keeping lines and offsets', () => {
  const src = "a = `x${ {b: '}'} }y`; c = /[/]'/.source; d = 4 / 2 / 1; e = '\\'' // f('g')\nh";
  const { code, strings } = scanJs(src);
  assert.equal(code.length, src.length);
  assert.equal(code.split('\n').length, 2);
  assert.doesNotMatch(code, /[}g]|f\(|\/\]/, code);
  assert.match(code, /d = 4 \/ 2 \/ 1/, 'divisions stay');
  assert.ok(code.endsWith('\nh'));
  assert.equal(strings.get(src.indexOf("'\\''"))?.value, "'");
  assert.equal(strings.get(src.indexOf('`'))?.value, undefined, 'a template with a substitution has no value');
  // a quote or a regex that does not close on its line starts nothing
  const broken = "x = 'oops\ntest('after', () => {});\ny = a ! / 2\ntest('after 2', () => {});";
  assert.deepEqual(findJsTests(broken).map((f) => f.titles[0]), ['after', 'after 2']);
});

test('mocha, jest and vitest shapes: it/specify/context, it.concurrent, JSX with apostrophes in a .tsx test', () => {
  const mocha = "const { expect } = require('chai');\ndescribe('cache', function () {\n  context('when cold', function () {\n    specify('loads once', async function () {});\n  });\n  it.concurrent('x', () => {});\n});";
  assert.deepEqual(titles(mocha), [
    ['suite', 'cache', 1],
    ['suite', 'cache / when cold', 2],
    ['test', 'cache / when cold / loads once', 3],
    ['test', 'cache / x', 5],
  ]);
  const tsx = "import { test } from 'vitest';\nimport { render } from './r';\ntest('renders', () => {\n  render(<p>Don't panic</p>);\n});\ntest('second', () => {});";
  assert.deepEqual(titles(tsx), [
    ['test', 'renders', 2],
    ['test', 'second', 5],
  ]);
  assert.equal(importedRunner(tsx), 'vitest');
  assert.equal(importedRunner("import { expect, jest } from '@jest/globals';"), 'jest');
  assert.equal(importedRunner("const t = require('node:test');"), 'node-test');
  assert.equal(importedRunner("// from 'vitest'\nconst x = 'vitest';"), undefined, 'a comment or a plain string names no runner');
});

test('test files: *.test.* / *.spec.*, test folders, or a runner import; never node_modules', () => {
  assert.ok(isJsTestFile('/p/src/inventory.test.ts', ''));
  assert.ok(isJsTestFile('/p/src/inventory.spec.mjs', ''));
  assert.ok(isJsTestFile('/p/test/inventory.js', ''));
  assert.ok(isJsTestFile('/p/src/__tests__/a.tsx', ''));
  assert.ok(isJsTestFile('/p/src/check.ts', "import test from 'node:test';"));
  assert.ok(!isJsTestFile('/p/src/inventory.ts', "it('x', () => {})"), 'an app file calling it(…) is not a test file');
  assert.ok(!isJsTestFile('/p/node_modules/x/test/a.test.js', ''));
  assert.ok(!isJsTestFile('/p/test/a.java', ''));
  assert.equal(testFileStem('/p/src/inventory.test.ts'), 'inventory');
  assert.equal(testFileStem('/p/src/a.spec.mjs'), 'a');
  assert.equal(testFileStem('/p/src/plain.cjs'), 'plain');
});

test('name patterns: every regex character escaped, anchored, each runner\'s notion of the full name', () => {
  const tricky = 'adds (1 + 2) * 3 = $9? [a|b] {x} ^/\\ .';
  assert.equal(new RegExp(escapeRegExp(tricky)).exec(tricky)?.[0], tricky);
  const node = namePattern('node-test', ['Suite', tricky])!;
  assert.ok(new RegExp(node).test(tricky));
  assert.ok(!new RegExp(node).test(`${tricky}!`) && !new RegExp(node).test(`x${tricky}`), 'anchored both ends');
  assert.ok(new RegExp(node, 'u').test(tricky), 'valid with the u flag too');
  const jest = namePattern('jest', ['Suite', 'inner', 'adds (1)'])!;
  assert.equal(jest, '^Suite inner adds \\(1\\)$');
  assert.ok(new RegExp(namePattern('mocha', ['S', 'T'])!).test('S T'));
  const vitest = new RegExp(namePattern('vitest', ['S', 'T'])!);
  assert.ok(vitest.test('S T') && vitest.test('S > T'), 'vitest before and after 5');
  const suite = new RegExp(namePattern('jest', ['S'], true)!);
  assert.ok(suite.test('S any test') && !suite.test('Sx any'));
  assert.equal(namePattern('node-test', ['S'], true), '^S$', 'node:test: a suite\'s name selects its tests');
  assert.equal(namePattern('jest', []), undefined, 'the whole file');
});

test('the runner: scripts.test first, then vitest / jest / mocha among the dependencies, else node:test', () => {
  assert.equal(runnerOfScript('vitest run --coverage'), 'vitest');
  assert.equal(runnerOfScript('tsc && node --import tsx --test src/*.test.ts'), 'node-test');
  assert.equal(runnerOfScript('cross-env NODE_ENV=test mocha -r ts-node/register'), 'mocha');
  assert.equal(runnerOfScript('echo no tests'), undefined);
  assert.equal(detectRunner([{ scripts: { test: 'node --test' }, devDependencies: { jest: '1' } }]), 'node-test');
  assert.equal(detectRunner([{ devDependencies: { mocha: '1', vitest: '1' } }]), 'vitest');
  assert.equal(detectRunner([{ dependencies: { jest: '1' } }]), 'jest');
  assert.equal(detectRunner([{}, { devDependencies: { mocha: '1' } }]), 'mocha', 'a workspace root\'s dependencies count');
  assert.equal(detectRunner([{}]), 'node-test');
  assert.deepEqual(scriptPreloads('node --import tsx --test src/*.test.ts'), ['--import', 'tsx']);
  assert.deepEqual(scriptPreloads('node -r ./setup.js --import=tsx --test'), ['-r', './setup.js', '--import=tsx']);
  assert.deepEqual(scriptPreloads('node --import tsx --test && echo'), [], 'not one plain node command');
  assert.deepEqual(scriptPreloads('node --import tsx app.ts'), [], 'not a test run');
  assert.equal(barePackage('ts-node/esm'), 'ts-node');
  assert.equal(barePackage('@swc-node/register/esm'), '@swc-node/register');
  assert.equal(barePackage('./setup.js'), undefined);
  assert.equal(barePackage('node:test'), undefined);
  assert.equal(barePackage('file:///x.mjs'), undefined);
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'braid-jstest-'));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}
const installed = (pkg: string) => ({ [`node_modules/${pkg}/package.json`]: '{}' });

test('node:test commands: plain JS; TypeScript through tsx when installed, else an error naming tsx; the test script\'s loader', (t) => {
  const dir = project({ 'package.json': '{"name":"p"}', 'src/a.test.js': '', 'src/b.test.ts': '' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const js = inferJsTestCommand(dir, { file: path.join(dir, 'src/a.test.js'), titles: ['Inventory', 'adds (twice)'] });
  assert.deepEqual(js.command, ['node', '--test', '--test-name-pattern=^adds \\(twice\\)$', 'src/a.test.js']);
  assert.equal(js.tool, 'node-test');
  assert.equal(js.cwd, dir);
  assert.equal(js.name, 'a.adds-twice', 'the file and the test in words: the Runs view shows "a #n"');
  assert.deepEqual(js.include, []);
  assert.deepEqual(js.prepare, []);
  assert.deepEqual(inferJsTestCommand(dir, { file: path.join(dir, 'src/a.test.js'), titles: [] }).command, ['node', '--test', 'src/a.test.js'], 'the whole file');
  assert.throws(() => inferJsTestCommand(dir, { file: path.join(dir, 'src/b.test.ts'), titles: ['x'] }), (e: Error) => e instanceof TestCommandError && /tsx is not installed/.test(e.message) && /npm install --save-dev tsx/.test(e.message));
  writeFileSync(path.join(dir, 'package.json'), '{"scripts":{"test":"node -r ./setup.js --import ts-node/esm --test"}}');
  assert.throws(() => inferJsTestCommand(dir, { file: path.join(dir, 'src/b.test.ts'), titles: ['x'] }), /loads ts-node\/esm, but ts-node is not installed/);
  mkdirSync(path.join(dir, 'node_modules/ts-node'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/ts-node/package.json'), '{}');
  assert.deepEqual(inferJsTestCommand(dir, { file: path.join(dir, 'src/b.test.ts'), titles: ['x'] }).command.slice(0, 6), ['node', '-r', './setup.js', '--import', 'ts-node/esm', '--test'], 'the script\'s loader and setup file');
  writeFileSync(path.join(dir, 'package.json'), '{}');
  mkdirSync(path.join(dir, 'node_modules/tsx'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/tsx/package.json'), '{}');
  const ts = inferJsTestCommand(dir, { file: path.join(dir, 'src/b.test.ts'), titles: ['S', 'two orders'] });
  assert.deepEqual(ts.command, ['node', '--import', 'tsx', '--test', '--test-name-pattern=^two orders$', 'src/b.test.ts']);
  // the command line shown (and offered by Record Runs) reads back to the same argv
  assert.deepEqual(splitCommandLine(commandLine(ts.command)), ts.command);
  const odd = inferJsTestCommand(dir, { file: path.join(dir, 'src/b.test.ts'), titles: ['say "hi" \\ $HOME `x`'] });
  assert.deepEqual(splitCommandLine(commandLine(odd.command)), odd.command);
});

test('a TypeScript test under node:test with ts-node: -r ts-node/register for CommonJS, --loader ts-node/esm for ES modules; the loader package.json lists comes first', (t) => {
  const dir = project({ 'package.json': '{"devDependencies":{"ts-node":"10"}}', 'src/b.test.ts': '', 'src/c.test.mts': '', 'src/d.test.cts': '' });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cmd = (f: string) => inferJsTestCommand(dir, { file: path.join(dir, f), titles: [] }).command;
  assert.throws(() => cmd('src/b.test.ts'), (e: Error) => e instanceof TestCommandError && /package\.json lists ts-node, but it is not installed in .*run npm install/.test(e.message));
  mkdirSync(path.join(dir, 'node_modules/ts-node'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/ts-node/package.json'), '{}');
  mkdirSync(path.join(dir, 'node_modules/tsx'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/tsx/package.json'), '{}');
  assert.deepEqual(cmd('src/b.test.ts'), ['node', '-r', 'ts-node/register', '--test', 'src/b.test.ts'], 'listed ts-node before the installed tsx; CommonJS');
  assert.deepEqual(cmd('src/c.test.mts'), ['node', '--loader', 'ts-node/esm', '--test', 'src/c.test.mts']);
  writeFileSync(path.join(dir, 'tsconfig.json'), '{\n  // ts-node as ES modules\n  "compilerOptions": { "module": "nodenext", },\n  "ts-node": { "esm": true },\n}\n');
  assert.deepEqual(cmd('src/b.test.ts'), ['node', '--loader', 'ts-node/esm', '--test', 'src/b.test.ts'], 'tsconfig.json (with comments) asks for ES modules');
  rmSync(path.join(dir, 'tsconfig.json'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module","devDependencies":{"ts-node":"10"}}');
  assert.deepEqual(cmd('src/b.test.ts'), ['node', '--loader', 'ts-node/esm', '--test', 'src/b.test.ts'], '"type": "module"');
  assert.deepEqual(cmd('src/d.test.cts'), ['node', '-r', 'ts-node/register', '--test', 'src/d.test.cts'], '.cts is CommonJS');
  writeFileSync(path.join(dir, 'package.json'), '{"devDependencies":{"tsx":"4","ts-node":"10"}}');
  assert.deepEqual(cmd('src/b.test.ts'), ['node', '--import', 'tsx', '--test', 'src/b.test.ts'], 'both listed: tsx');
});

test('mocha: the test script\'s loader options carried over; a TypeScript spec without a loader for mocha is an error naming what to add', (t) => {
  const dir = project({ 'package.json': '{"scripts":{"test":"mocha -r ts-node/register --node-option import=tsx --timeout 5000"}}', 'test/a.spec.ts': '', 'test/b.spec.js': '', ...installed('mocha') });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cmd = (f: string) => inferJsTestCommand(dir, { file: path.join(dir, f), titles: ['S', 'T'], runner: 'mocha' }).command;
  assert.deepEqual(mochaScriptLoaders('mocha --require=tsx/cjs -n import=tsx test/**/*.spec.ts'), ['--require=tsx/cjs', '-n', 'import=tsx']);
  assert.deepEqual(mochaScriptLoaders('cross-env X=1 mocha -r ts-node/register'), [], 'not one plain mocha command');
  assert.throws(() => cmd('test/a.spec.ts'), /loads ts-node\/register, but ts-node is not installed/);
  mkdirSync(path.join(dir, 'node_modules/ts-node'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/ts-node/package.json'), '{}');
  assert.throws(() => cmd('test/a.spec.ts'), /loads tsx, but tsx is not installed/, 'a loader named in --node-option');
  mkdirSync(path.join(dir, 'node_modules/tsx'), { recursive: true });
  writeFileSync(path.join(dir, 'node_modules/tsx/package.json'), '{}');
  assert.deepEqual(cmd('test/a.spec.ts'), ['npx', '--no', '--', 'mocha', '-r', 'ts-node/register', '--node-option', 'import=tsx', 'test/a.spec.ts', '--grep', '^S T$']);
  writeFileSync(path.join(dir, 'package.json'), '{"scripts":{"test":"mocha"}}');
  assert.deepEqual(cmd('test/b.spec.js'), ['npx', '--no', '--', 'mocha', 'test/b.spec.js', '--grep', '^S T$']);
  assert.throws(() => cmd('test/a.spec.ts'), (e: Error) => e instanceof TestCommandError && /cannot run the TypeScript test test\/a\.spec\.ts with mocha: no TypeScript loader is configured for mocha in /.test(e.message) && /\.mocharc\.json/.test(e.message));
  writeFileSync(path.join(dir, '.mocharc.json'), '{"require":"ts-node/register"}');
  assert.deepEqual(cmd('test/a.spec.ts'), ['npx', '--no', '--', 'mocha', 'test/a.spec.ts', '--grep', '^S T$'], 'mocha reads its own configuration');
});

test('vitest, jest and mocha through npx --no -- (never downloads), the file relative to the nearest package.json; a missing runner is an error', (t) => {
  const dir = project({
    'package.json': '{"private":true,"devDependencies":{"vitest":"^1"}}',
    ...installed('vitest'),
    'packages/web/package.json': '{"devDependencies":{"jest":"^29"}}',
    'packages/web/src/a.test.ts': '',
    'packages/api/package.json': '{"scripts":{"test":"mocha"}}',
    'packages/api/test/a.spec.js': '',
    'packages/ui/package.json': '{}',
    'packages/ui/src/b.test.tsx': '',
  });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ui = inferJsTestCommand(dir, { file: path.join(dir, 'packages/ui/src/b.test.tsx'), titles: ['Button', 'renders'] });
  assert.equal(ui.tool, 'vitest', 'the workspace root\'s devDependencies');
  assert.equal(ui.cwd, path.join(dir, 'packages/ui'));
  assert.deepEqual(ui.command, ['npx', '--no', '--', 'vitest', 'run', 'src/b.test.tsx', '-t', '^Button(?: | > )renders$']);
  assert.throws(() => inferJsTestCommand(dir, { file: path.join(dir, 'packages/web/src/a.test.ts'), titles: ['x'] }), /jest is not installed in .*packages\/web.*Braid does not download it/);
  mkdirSync(path.join(dir, 'node_modules/jest'));
  writeFileSync(path.join(dir, 'node_modules/jest/package.json'), '{}');
  mkdirSync(path.join(dir, 'node_modules/mocha'));
  writeFileSync(path.join(dir, 'node_modules/mocha/package.json'), '{}');
  const web = inferJsTestCommand(dir, { file: path.join(dir, 'packages/web/src/a.test.ts'), titles: ['S', 'a.b'], suite: false });
  assert.deepEqual(web.command, ['npx', '--no', '--', 'jest', '--runTestsByPath', 'src/a.test.ts', '-t', '^S a\\.b$']);
  const api = inferJsTestCommand(dir, { file: path.join(dir, 'packages/api/test/a.spec.js'), titles: ['cache'], suite: true });
  assert.deepEqual(api.command, ['npx', '--no', '--', 'mocha', 'test/a.spec.js', '--grep', '^cache ']);
  assert.equal(api.name, 'a.cache');
  // the file's own import wins over package.json
  const own = inferJsTestCommand(dir, { file: path.join(dir, 'packages/api/test/a.spec.js'), titles: ['x'], runner: 'node-test' });
  assert.deepEqual(own.command, ['node', '--test', '--test-name-pattern=^x$', 'test/a.spec.js']);
});

test('the lenses: one per test and describe of a JS/TS test file, with the recordTest arguments; none in other files', () => {
  const text = "import { describe, it } from 'node:test';\ndescribe('Inventory', () => {\n  it('reserves', async () => {});\n});\n";
  const uri = 'file:///w/src/inventory%20x.test.ts';
  const lenses = testCodeLenses(uri, text);
  assert.deepEqual(
    lenses.map((l) => [l.range.start.line, l.range.start.character, l.command!.title, l.command!.command]),
    [
      [1, 0, 'Braid: find the root cause', 'braid.recordTest'],
      [2, 2, 'Braid: find the root cause', 'braid.recordTest'],
    ],
  );
  assert.deepEqual(lenses[0].command!.arguments![0], { uri, className: 'inventory x.test.ts', method: 'Inventory', framework: 'js', titles: ['Inventory'], suite: true, runner: 'node-test' });
  assert.deepEqual(lenses[1].command!.arguments![0], { uri, className: 'inventory x.test.ts', method: 'reserves', framework: 'js', titles: ['Inventory', 'reserves'], runner: 'node-test' });
  assert.match(lenses[1].command!.tooltip!, /"Inventory › reserves"/);
  assert.deepEqual(testCodeLenses('file:///w/src/inventory.ts', "it('x', () => {})"), [], 'not a test file');
  assert.deepEqual(testCodeLenses('file:///w/src/notes.md', text), []);
});
