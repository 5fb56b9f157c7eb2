/**
 * A JS/TS program that cannot load (issue 42 item 4, server/src/recorder/node/loadFailure.ts): the
 * error, file and line read from the output of tsx (esbuild), ts-node, Node's syntax errors and
 * module resolution, also inside node:test's `# ` lines; a program that loads and fails is not one.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { jsLoadFailure } from '../../server/src/recorder/node/loadFailure';
import { classifyNotReached } from '../../server/src/recorder/runs/notReached';

const cwd = '/p';

test('tsx (esbuild) transform error inside node:test output: file relative to the working folder, line, message', () => {
  const out = `TAP version 13\n# node:internal/modules/run_main:123\n#     triggerUncaughtException(\n#     ^\n# Error: Transform failed with 1 error:\n# /p/src/accounts.ts:27:52: ERROR: Expected ";" but found "x"\n#     at failureErrorWithLog (/p/node_modules/esbuild/lib/main.js:1752:15)\nnot ok 1 - /p/src/accounts.test.ts\n`;
  assert.deepEqual(jsLoadFailure(out, cwd), { message: 'src/accounts.ts:27:52: Expected ";" but found "x" (the TypeScript loader could not transform it)', file: 'src/accounts.ts', line: 27 });
});

test('ts-node compile error', () => {
  const out = `/p/node_modules/ts-node/src/index.ts:859\n    return new TSError(diagnosticText, diagnosticCodes, diagnostics);\n           ^\nTSError: ⨯ Unable to compile TypeScript:\nsrc/a.ts:3:5 - error TS1005: ';' expected.\n\n3 let b = a x;\n`;
  assert.deepEqual(jsLoadFailure(out, cwd), { message: "src/a.ts:3:5: error TS1005: ';' expected.", file: 'src/a.ts', line: 3 });
});

test("Node's syntax error (CommonJS and an ES module's file URL)", () => {
  const cjs = `/p/lib/bad.js:2\nlet b = a x;\n          ^\n\nSyntaxError: Unexpected identifier 'x'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n`;
  assert.deepEqual(jsLoadFailure(cjs, cwd), { message: "lib/bad.js:2: SyntaxError: Unexpected identifier 'x'", file: 'lib/bad.js', line: 2 });
  const esm = `file:///p/bad2.mjs:2\nexport let y = x +* 2;\n                  ^\n\nSyntaxError: Unexpected token '*'\n    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)\n`;
  assert.deepEqual(jsLoadFailure(esm, cwd), { message: "bad2.mjs:2: SyntaxError: Unexpected token '*'", file: 'bad2.mjs', line: 2 });
  // mocha's CLI prints a spec's load error after its own words (mocha 11, the spec imported by its esm-utils)
  const mocha = `\n Exception during run: /p/src/broken.js:3\n  b: 2,\n  ^\n\nSyntaxError: Unexpected identifier 'b'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n`;
  assert.deepEqual(jsLoadFailure(mocha, cwd), { message: "src/broken.js:3: SyntaxError: Unexpected identifier 'b'", file: 'src/broken.js', line: 3 });
});

test('a module not found: ES modules and CommonJS', () => {
  const esm = `node:internal/modules/esm/resolve:283\n    throw new ERR_MODULE_NOT_FOUND(\n          ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find module '/p/nope.mjs' imported from /p/src/main.mjs\n    at finalizeResolution (node:internal/modules/esm/resolve:283:11)\n`;
  assert.deepEqual(jsLoadFailure(esm, cwd), { message: 'module nope.mjs not found, imported from src/main.mjs', file: 'src/main.mjs' });
  const pkg = `Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'left-pad' imported from /p/src/main.mjs\n`;
  assert.equal(jsLoadFailure(pkg, cwd)?.message, 'package left-pad not found, imported from src/main.mjs');
  const cjs = `node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module './nope'\nRequire stack:\n- /p/src/miss.cjs\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n`;
  assert.deepEqual(jsLoadFailure(cjs, cwd), { message: 'module ./nope not found, required from src/miss.cjs', file: 'src/miss.cjs' });
});

test('a program that loads and fails is no load failure; the not-reached reason names the file and line', () => {
  const failing = `not ok 1 - two withdrawals are both taken\n  error: 'both withdrawals taken 50 !== 20'\n  stack: |-\n    TestContext.<anonymous> (/p/src/accounts.test.ts:20:10)\n# SyntaxError in a message is not a load error\n`;
  assert.equal(jsLoadFailure(failing, cwd), undefined);
  assert.equal(jsLoadFailure('TypeError: x is not a function\n    at main (/p/a.js:3:1)\n', cwd), undefined);
  // a SyntaxError thrown while the program runs (JSON.parse of a half-written file) is a failure of the program
  const parse = `/p/store.js:12\n    return JSON.parse(text);\n                ^\n\nSyntaxError: Unexpected end of JSON input\n    at JSON.parse (<anonymous>)\n    at load (/p/store.js:12:17)\n`;
  assert.equal(jsLoadFailure(parse, cwd), undefined);
  const nr = classifyNotReached(`/p/a.js:1\n{\n^\n\nSyntaxError: Unexpected end of input\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n`, 1, [], 'node', cwd);
  assert.equal(nr.reason, 'the program cannot load: a.js:1: SyntaxError: Unexpected end of input');
  assert.match(nr.hint, /fix a\.js line 1/);
});
