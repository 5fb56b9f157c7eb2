/**
 * The failure a JavaScript run's output reports (server/src/engine/jsFailureOutput.ts): node:test's
 * TAP block, an error line with its frames (node:test's spec reporter, mocha, an uncaught error),
 * vitest and jest; the first frame of the user's code, relative to the working folder.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseJsFailureOutput } from '../../server/src/engine/jsFailureOutput';

const CWD = '/work/app';

test('node:test TAP: the error, its name, and the first own frame of the stack', () => {
  const out = [
    'TAP version 13',
    '# BRAID-TRUTH late-ready',
    '# Subtest: the app starts processing jobs once the scheduler is ready',
    'not ok 1 - the app starts processing jobs once the scheduler is ready',
    '  ---',
    '  duration_ms: 316.56',
    "  location: '/work/app/lateready.test.mjs:37:1'",
    "  failureType: 'testCodeFailure'",
    '  error: "the scheduler\'s \'ready\' event never reached the app"',
    "  code: 'ERR_ASSERTION'",
    "  name: 'AssertionError'",
    '  stack: |-',
    '    file:///work/app/lateready.test.mjs:45:12',
    '    async Test.run (node:internal/test_runner/test:797:9)',
    '  ...',
    '1..1',
  ].join('\n');
  assert.deepEqual(parseJsFailureOutput(out, CWD), { message: "AssertionError: the scheduler's 'ready' event never reached the app", location: { file: 'lateready.test.mjs', line: 45 }, assertion: true });
});

test('TAP with a multi-line error and no stack: the test\'s location', () => {
  const out = ['not ok 2 - adds', '  ---', "  location: '/work/app/t.test.js:3:1'", '  error: |-', '    Expected values to be strictly equal:', '', '    1 !== 2', "  name: 'AssertionError'", '  ...'].join('\n');
  const f = parseJsFailureOutput(out, CWD)!;
  assert.equal(f.message, 'AssertionError: Expected values to be strictly equal: 1 !== 2');
  assert.deepEqual(f.location, { file: 't.test.js', line: 3 });
});

test('an error line with frames: spec reporter, mocha, an uncaught error; node internals and node_modules skipped', () => {
  const spec = ['✖ two workers log in once (52.1ms)', '  AssertionError [ERR_ASSERTION]: a worker failed to set the shared value', '      at TestContext.<anonymous> (file:///work/app/test/cache.test.mjs:57:12)', '      at async Test.run (node:internal/test_runner/test:797:9)'].join('\n');
  assert.deepEqual(parseJsFailureOutput(spec, CWD), { message: 'AssertionError: a worker failed to set the shared value', location: { file: 'test/cache.test.mjs', line: 57 }, assertion: true });
  const uncaught = ['/work/app/main.js:12', "  throw new TypeError('x is gone');", '  ^', '', 'TypeError: x is gone', '    at Object.fn (/work/app/node_modules/lib/index.js:3:9)', '    at run (/work/app/src/main.js:12:9)', '', 'Node.js v20.11.0'].join('\n');
  assert.deepEqual(parseJsFailureOutput(uncaught, CWD), { message: 'TypeError: x is gone', location: { file: 'src/main.js', line: 12 }, assertion: false });
  assert.equal(parseJsFailureOutput('Error: this line is prose with no frame below\nok', CWD), undefined);
});

test('vitest and jest', () => {
  const vitest = [' FAIL  src/counter.test.ts > counter > counts', 'AssertionError: expected 1 to be 2 // Object.is equality', ' ❯ src/counter.test.ts:9:21', '      7|   it("counts", async () => {'].join('\n');
  assert.deepEqual(parseJsFailureOutput(vitest, CWD), { message: 'AssertionError: expected 1 to be 2 // Object.is equality', location: { file: 'src/counter.test.ts', line: 9 }, assertion: true });
  const jest = ['  ● counter › counts', '', '    expect(received).toBe(expected) // Object.is equality', '', '    Expected: 2', '    Received: 1', '', '      at Object.<anonymous> (src/counter.test.ts:9:21)'].join('\n');
  assert.deepEqual(parseJsFailureOutput(jest, CWD), { message: 'expect(received).toBe(expected) // Object.is equality', location: { file: 'src/counter.test.ts', line: 9 }, assertion: true });
});
