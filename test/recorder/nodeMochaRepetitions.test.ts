/**
 * Many runs of one mocha test in one Node process (issue 42 item 5; docs/recorder-node.md "Repetitions
 * in one process", server/src/recorder/node/mochaRepetitions.ts and nodeRepeatDriver.ts): mocha 11
 * installed from the npm registry into a project under test-output/npm-runners (kept between runs),
 * the lens' command `npx --no -- mocha <spec> --grep ^<title>$`:
 * - the balancemap race (withdraw() reads a balance from a Map, awaits the audit, writes it back): all
 *   runs of a job in one Node process, failing and passing runs, and the same first pattern (the check,
 *   `Map.get` at line 24, and the write, `Map.set` at line 27) as one process per run (--fresh-process);
 * - module state starts fresh in each repetition (a module-level counter a shared module would count on);
 * - which mocha commands and configurations run as repetitions (the options mocha's own loader reads), and why the others do not;
 * - a TypeScript spec configured in .mocharc.json (tsx/cjs and a setup file by require, spec, timeout, ui tdd), as repetitions;
 * - a spec whose code under test cannot load stops the recording with the file and line.
 * Needs the bundles of node scripts/build.mjs and npm.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns, type RecordSummary } from '../../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { nodeRepeatCommandFor } from '../../server/src/recorder/node/nodeRepetitions';
import { balancemap, balancemapTest, npmProject } from '../helpers/npmProject';

const GREP = '^two withdrawals are both taken$';

function project(): string {
  const dir = npmProject('mocha-repeat', { name: 'balancemap-mocha-repeat', private: true, scripts: { test: 'mocha' }, devDependencies: { mocha: '11.7.5' } }, {
    'src/accounts.js': readFileSync(path.join(balancemap, 'js', 'accounts.js'), 'utf8'),
    'test/accounts.spec.js': balancemapTest("const assert = require('node:assert/strict');\nconst { Accounts } = require('../src/accounts');", { check: 'assert', test: 'it' }),
    'src/counter.js': 'let n = 0;\nexports.bump = () => ++n;\n',
    'test/counter.spec.js':
      "const assert = require('node:assert/strict');\nconst { bump } = require('../src/counter');\n" +
      "it('starts fresh', () => {\n  assert.equal(bump(), 1, 'the module was loaded afresh');\n  assert.equal(globalThis.seenBefore, undefined, 'the globals are fresh');\n  globalThis.seenBefore = true;\n});\n",
  });
  // the spec file the load-failure test below adds and removes: gone also after an interrupted run of this file
  rmSync(path.join(dir, 'test', 'broken.spec.js'), { force: true });
  return dir;
}

function record(dir: string, out: string, args: string[], command: string[]): Promise<RecordSummary> {
  rmSync(path.join(dir, out), { recursive: true, force: true });
  return recordRuns(parseRecordArgs([...args, '--out', path.join(dir, out), '--', ...command], dir));
}

test('which mocha commands run as repetitions (the options mocha itself loads), and why the others do not', async () => {
  const dir = project();
  const r = await nodeRepeatCommandFor(['npx', '--no', '--', 'mocha', 'test/accounts.spec.js', '--grep', GREP], dir);
  assert.ok('command' in r, JSON.stringify(r));
  assert.deepEqual([r.command.file, r.command.commonJs, r.command.mocha?.args.grep, r.command.mocha?.files], [path.join(dir, 'test/accounts.spec.js'), true, GREP, [path.join(dir, 'test/accounts.spec.js')]]);
  const why = async (command: string[]) => {
    const x = await nodeRepeatCommandFor(command, dir);
    return 'because' in x ? x.because : `repeated: ${x.command.mocha?.files.map((f) => path.relative(dir, f)).join(' ')}`;
  };
  assert.equal(await why(['mocha', 'test/accounts.spec.js']), 'repeated: test/accounts.spec.js');
  assert.equal(await why(['npx', '--no', '--', 'mocha', '-r', './src/counter.js', 'test/accounts.spec.js', 'test/counter.spec.js']), 'repeated: test/accounts.spec.js test/counter.spec.js');
  // no spec named: mocha's default, the test folder
  assert.equal(await why(['npx', '--no', '--', 'mocha']), 'repeated: test/accounts.spec.js test/counter.spec.js');
  assert.match(await why(['npx', '--no', '--', 'mocha', '-n', 'expose-gc', 'test/accounts.spec.js']), /Node option --node-option \(mocha starts a Node process of its own/);
  assert.match(await why(['npx', '--no', '--', 'mocha', '--enable-source-maps', 'test/accounts.spec.js']), /Node option --enable-source-maps/);
  assert.match(await why(['npx', '--no', '--', 'mocha', '--parallel', 'test/accounts.spec.js']), /--parallel runs the spec files in worker processes/);
  assert.match(await why(['npx', '--no', '--', 'mocha', 'test/nothing-here.spec.js']), /No test files found: "test\/nothing-here\.spec\.js"/);
  assert.match(await why(['npx', '--no', '--', 'vitest', 'run', 'a.test.ts']), /runs npx, not node --test or mocha/);
  // a configuration file: read by mocha's loader, applied (spec, timeout), or refused for what a repetition cannot honour
  writeFileSync(path.join(dir, '.mocharc.json'), '{ "timeout": 5000, "spec": ["test/counter.spec.js"] }\n');
  try {
    const c = await nodeRepeatCommandFor(['npx', '--no', '--', 'mocha'], dir);
    assert.ok('command' in c, JSON.stringify(c));
    assert.deepEqual([c.command.mocha?.args.timeout, c.command.mocha?.files], [5000, [path.join(dir, 'test/counter.spec.js')]]);
    writeFileSync(path.join(dir, '.mocharc.json'), '{ "node-option": ["import=tsx"] }\n');
    assert.match(await why(['npx', '--no', '--', 'mocha', 'test/accounts.spec.js']), /Node option --node-option/);
    writeFileSync(path.join(dir, '.mocharc.json'), '{ "timeout": 5000,\n');
    assert.match(await why(['npx', '--no', '--', 'mocha', 'test/accounts.spec.js']), /mocha's options cannot be read in one process: .*\.mocharc\.json/);
  } finally {
    rmSync(path.join(dir, '.mocharc.json'), { force: true });
  }
  // package.json's "mocha" (a package of its own in a folder of the project)
  const sub = path.join(dir, 'pkg-config');
  mkdirSync(path.join(sub, 'test'), { recursive: true });
  writeFileSync(path.join(sub, 'package.json'), '{ "name": "pkg-config", "private": true, "mocha": { "ui": "tdd", "spec": "test/*.js", "watch": true } }\n');
  writeFileSync(path.join(sub, 'test', 'a.js'), "test('a', () => {});\n");
  try {
    const w = await nodeRepeatCommandFor(['npx', '--no', '--', 'mocha'], sub);
    assert.match('because' in w ? w.because : 'repeated', /mocha --watch/);
  } finally {
    rmSync(sub, { recursive: true, force: true });
  }
});

test('a mocha test as repetitions in one process: failing and passing runs, and the same first pattern as one process per run', async () => {
  const dir = project();
  const command = ['npx', '--no', '--', 'mocha', 'test/accounts.spec.js', '--grep', GREP];
  const firsts: string[] = [];
  for (const [mode, extra] of [
    ['repetitions', ['--jobs', '1']],
    ['one process per run', ['--jobs', '2', '--fresh-process']],
  ] as const) {
    // evidence, not luck: a recording whose runs all failed or all passed is followed by one with the next seed (up to three)
    const traces: string[] = [];
    let failed = 0;
    let total = 0;
    for (let k = 0; k < 3 && (failed === 0 || failed === total); k++) {
      const s = await record(dir, `out-${mode === 'repetitions' ? 'r' : 'p'}${k}`, ['--runs', '10', '--noise', '0.5', '--seed', String(1 + 100 * k), ...extra], command);
      if (mode === 'repetitions') assert.deepEqual(s.nodeRepetitions, { processes: 1 }, `${mode}: all 10 runs in one Node process`);
      else assert.equal(s.nodeRepetitions, undefined);
      assert.equal(s.empty, 0);
      for (const r of s.runs) if (r.outcome === 'fail') assert.deepEqual([r.reason, r.location?.file, r.location?.line], ['exit-code', 'test/accounts.spec.js', 19], `${mode}: ${r.detail} ${r.message}`);
      const header = JSON.parse(readFileSync(s.traces[0], 'utf8').split('\n')[0]);
      assert.equal(header.program, 'npx-mocha', `${mode}: the trace's program`);
      traces.push(...s.traces);
      failed += s.failed;
      total += s.total;
    }
    assert.ok(failed > 0 && failed < total, `${mode}: ${failed} of ${total} runs failed`);
    const a = await analyzeTraceFiles(traces);
    firsts.push(
      (a.patterns[0]?.accesses ?? [])
        .map((x) => `${x.type} ${x.file}:${x.line}`)
        .sort()
        .join(' / '),
    );
  }
  assert.deepEqual(firsts, ['R src/accounts.js:24 / W src/accounts.js:27', 'R src/accounts.js:24 / W src/accounts.js:27']);
});

test('each mocha repetition starts with fresh module state and globals, all in one process', async () => {
  const dir = project();
  const s = await record(dir, 'out-fresh', ['--runs', '4', '--jobs', '1', '--noise', '0', '--seed', '1'], ['npx', '--no', '--', 'mocha', 'test/counter.spec.js']);
  assert.deepEqual(
    s.runs.map((r) => [r.outcome, r.message]),
    Array.from({ length: 4 }, () => ['pass', undefined]),
  );
  assert.deepEqual(s.nodeRepetitions, { processes: 1 });
});

test('a mocha spec whose code under test cannot load (a syntax error), as repetitions: the recording stops after its first run with the file and line, nothing is counted', async () => {
  const dir = project();
  writeFileSync(path.join(dir, 'src', 'broken.js'), 'module.exports = {\n  a: 1\n  b: 2,\n};\n');
  writeFileSync(path.join(dir, 'test', 'broken.spec.js'), "const broken = require('../src/broken');\nit('loads', () => {});\n");
  try {
    const s = await record(dir, 'out-broken', ['--runs', '4', '--jobs', '1', '--noise', '0', '--seed', '1'], ['npx', '--no', '--', 'mocha', 'test/broken.spec.js']);
    assert.equal(s.total, 0, 'no run counted');
    assert.equal(s.notReached?.runs, 1, `stopped at the first run: ${JSON.stringify(s.notReached)}`);
    assert.match(s.notReached?.reason ?? '', /^the program cannot load: src\/broken\.js:3: SyntaxError: Unexpected identifier/);
  } finally {
    rmSync(path.join(dir, 'src', 'broken.js'), { force: true });
    rmSync(path.join(dir, 'test', 'broken.spec.js'), { force: true });
  }
});

/** A TypeScript mocha project configured in .mocharc.json: tsx's CommonJS hooks and a setup file with a root hook by `require`, `extension`, `spec`, `timeout`, `ui: tdd`. */
function configuredProject(): string {
  return npmProject('mocha-config', { name: 'balancemap-mocha-config', private: true, scripts: { test: 'mocha' }, devDependencies: { mocha: '11.7.5', tsx: '^4' } }, {
    '.mocharc.json': JSON.stringify({ require: ['tsx/cjs', './test/setup.js'], extension: ['ts'], spec: ['test/**/*.spec.ts'], timeout: 7000, ui: 'tdd' }, null, 2) + '\n',
    'src/accounts.ts': readFileSync(path.join(balancemap, 'src', 'accounts.ts'), 'utf8'),
    'test/setup.js': 'globalThis.braidSetupRuns = (globalThis.braidSetupRuns ?? 0) + 1;\nexports.mochaHooks = {\n  beforeEach() {\n    globalThis.braidRootHookRuns = (globalThis.braidRootHookRuns ?? 0) + 1;\n  },\n};\n',
    'test/accounts.spec.ts':
      balancemapTest("import assert from 'node:assert/strict';\nimport { Accounts } from '../src/accounts';", { check: 'assert', test: 'test' }) +
      "\ntest('the setup ran once, its root hook before this test, and the timeout is the configuration\\'s', function () {\n  assert.equal((globalThis as any).braidSetupRuns, 1);\n  assert.equal((globalThis as any).braidRootHookRuns, 1);\n  assert.equal(this.timeout(), 7000);\n});\n",
  });
}

test('a TypeScript mocha spec configured in .mocharc.json (require tsx/cjs and a setup file, spec, timeout, ui tdd) runs as repetitions in one process', async () => {
  const dir = configuredProject();
  // the setup, its root hook, the timeout and the tdd interface apply in every repetition, each with its own globals
  const setup = await record(dir, 'out-config-setup', ['--runs', '3', '--jobs', '1', '--noise', '0', '--seed', '1'], ['npx', '--no', '--', 'mocha', 'test/accounts.spec.ts', '--grep', '^the setup ran once']);
  assert.deepEqual(
    setup.runs.map((r) => [r.outcome, r.message]),
    Array.from({ length: 3 }, () => ['pass', undefined]),
  );
  assert.deepEqual(setup.nodeRepetitions, { processes: 1 });
  // the race: failing and passing runs, its check and write first (evidence, not luck: up to three seeds)
  const traces: string[] = [];
  let failed = 0;
  let total = 0;
  for (let k = 0; k < 3 && (failed === 0 || failed === total); k++) {
    const s = await record(dir, `out-config-${k}`, ['--runs', '10', '--jobs', '1', '--noise', '0.5', '--seed', String(1 + 100 * k)], ['npx', '--no', '--', 'mocha', 'test/accounts.spec.ts', '--grep', GREP]);
    assert.deepEqual(s.nodeRepetitions, { processes: 1 });
    assert.equal(s.empty, 0);
    for (const r of s.runs) if (r.outcome === 'fail') assert.deepEqual([r.reason, r.location?.file, r.location?.line], ['exit-code', 'test/accounts.spec.ts', 19], `${r.detail} ${r.message}`);
    traces.push(...s.traces);
    failed += s.failed;
    total += s.total;
  }
  assert.ok(failed > 0 && failed < total, `${failed} of ${total} runs failed`);
  const a = await analyzeTraceFiles(traces);
  assert.equal(
    (a.patterns[0]?.accesses ?? [])
      .map((x) => `${x.type} ${x.file}:${x.line}`)
      .sort()
      .join(' / '),
    'R src/accounts.ts:24 / W src/accounts.ts:27',
  );
});
