/**
 * mocha projects (issue 42 item 3, docs/recorder-node.md "Test runners"): mocha 11 installed from the
 * npm registry into projects under test-output/npm-runners (kept between runs), the balancemap race
 * (withdraw() reads a balance from a Map, awaits the audit, writes it back) as a mocha test, in a
 * CommonJS project (spec files `require`d) and an ES-module one (`"type": "module"`, spec files
 * `import`ed). The command is the one the lens infers (`npx --no -- mocha <file> --grep ^<title>$`,
 * jsTestCommand.ts), run as the lens runs it: the title holds regex characters, and a second test whose
 * title starts with the first one's and always fails must not run (else no run passes). Each ranks the
 * check (`Map.get`, line 24) and the write (`Map.set`, line 27) first, on the source's lines.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and npm.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferJsTestCommand } from '../../server/src/recorder/node/jsTestCommand';
import { importedRunner } from '../../server/src/recorder/node/jsTestDiscovery';
import { accountsEsm, balancemap, balancemapTest, npmProject, recordsTheRace } from '../helpers/npmProject';

const TITLE = 'two withdrawals (30 + 50) are both taken?';

/** The mocha spec: the race under `describe('accounts')`, and a longer-titled test that always fails. */
function spec(imports: string): string {
  const body = balancemapTest(imports, { check: 'assert', test: 'it' }).replace("it('two withdrawals are both taken'", `describe('accounts', () => {\nit(${JSON.stringify(TITLE)}`);
  return `${body}
it(${JSON.stringify(`${TITLE} (never selected)`)}, () => {
  throw new Error('a test the --grep pattern must not select');
});
});
`;
}

function lensCommand(dir: string, file: string): string[] {
  const abs = path.join(dir, file);
  const plan = inferJsTestCommand(dir, { file: abs, titles: ['accounts', TITLE], runner: importedRunner(readFileSync(abs, 'utf8')) });
  assert.equal(plan.cwd, dir);
  assert.deepEqual(plan.command, ['npx', '--no', '--', 'mocha', file, '--grep', '^accounts two withdrawals \\(30 \\+ 50\\) are both taken\\?$']);
  return plan.command;
}

test('a mocha project (CommonJS spec files): the lens\' command records the race and ranks it first', async () => {
  const dir = npmProject('mocha-cjs', { name: 'balancemap-mocha-cjs', private: true, scripts: { test: 'mocha' }, devDependencies: { mocha: '11.7.5' } }, {
    'src/accounts.js': readFileSync(path.join(balancemap, 'js', 'accounts.js'), 'utf8'),
    'test/accounts.spec.js': spec("const assert = require('node:assert/strict');\nconst { Accounts } = require('../src/accounts');"),
  });
  await recordsTheRace(dir, lensCommand(dir, 'test/accounts.spec.js'), 'src/accounts.js', 14);
});

test('a mocha project with "type": "module" (ES-module spec files imported by mocha): the race is recorded and ranked first', async () => {
  const dir = npmProject('mocha-esm', { name: 'balancemap-mocha-esm', private: true, type: 'module', scripts: { test: 'mocha' }, devDependencies: { mocha: '11.7.5' } }, {
    'src/accounts.js': accountsEsm(),
    'test/accounts.spec.js': spec("import assert from 'node:assert/strict';\nimport { describe, it } from 'mocha';\nimport { Accounts } from '../src/accounts.js';"),
  });
  await recordsTheRace(dir, lensCommand(dir, 'test/accounts.spec.js'), 'src/accounts.js', 14);
});
