/**
 * A JS/TS program that cannot load stops the recording at once (issue 42 item 4, docs/recorder-node.md
 * "A program that cannot load"): real runs of a TypeScript test through tsx with a syntax error in the
 * code under test, a plain script with a syntax error, and an ES module importing a missing file. The
 * first run's error (file, line) is the recording's reason, no run is counted and no trace is kept.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and tsx in the repository's node_modules.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';

const root = path.resolve(__dirname, '..', '..');
const work = path.join(root, 'test-output', 'recorder', `node-load-${process.pid}`);

function record(dir: string, command: string[], runs = 4) {
  return recordRuns(parseRecordArgs(['--runs', String(runs), '--jobs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', ...command], dir));
}

before(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
});

test('a TypeScript syntax error in the code under test (tsx, node:test): the recording stops after its first run with the file and line, nothing is counted', async () => {
  const dir = path.join(work, 'tsx');
  cpSync(path.join(root, 'test', 'fixtures', 'node', 'balancemap'), dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  const file = path.join(dir, 'src', 'accounts.ts');
  writeFileSync(file, readFileSync(file, 'utf8').replace('const balance = this.balances.get(account) ?? 0;', 'const balance = this.balances.get(account) ?? 0 x;'));
  const s = await record(dir, ['node', '--import', 'tsx', '--test', 'src/accounts.test.ts']);
  assert.equal(s.total, 0, 'no run counted');
  assert.ok(s.notReached?.stopped, JSON.stringify(s.notReached));
  assert.equal(s.notReached!.runs, 1, 'stopped at the first run');
  assert.match(s.notReached!.reason, /^the program cannot load: src\/accounts\.ts:24:\d+: Expected ";" but found "x"/);
  assert.match(s.notReached!.hint, /fix src\/accounts\.ts line 24/);
  assert.deepEqual(readdirSync(path.join(dir, 'out')).filter((f) => f.endsWith('.jsonl')), [], 'no trace kept');
});

test('a plain script with a syntax error, and an ES module importing a missing file: stopped with the error', async () => {
  const dir = path.join(work, 'plain');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'shared.js'), 'exports.state = { n: 0 };\n');
  writeFileSync(path.join(dir, 'app.js'), "const { state } = require('./shared');\nsetTimeout(() => state.n++, 1);\nrequire('./broken');\n");
  writeFileSync(path.join(dir, 'broken.js'), 'module.exports = {\n  a: 1\n  b: 2,\n};\n');
  const s = await record(dir, ['node', 'app.js']);
  assert.equal(s.total, 0);
  assert.match(s.notReached?.reason ?? '', /^the program cannot load: broken\.js:3: SyntaxError: Unexpected identifier/);
  writeFileSync(path.join(dir, 'main.mjs'), "import { n } from './missing.mjs';\nconsole.log(n);\n");
  const m = await record(dir, ['node', 'main.mjs']);
  assert.equal(m.total, 0);
  assert.match(m.notReached?.reason ?? '', /module missing\.mjs not found, imported from main\.mjs/);
});

test('a program that loads and fails is recorded as before (a failing run, not a load failure)', async () => {
  const dir = path.join(work, 'fails');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'app.js'), "const state = { n: 0 };\nstate.n++;\nif (state.n === 1) throw new SyntaxError('Unexpected token in the input the program parses');\n");
  const s = await record(dir, ['node', 'app.js'], 2);
  assert.equal(s.total, 2);
  assert.equal(s.failed, 2);
  assert.equal(s.notReached, undefined);
});
