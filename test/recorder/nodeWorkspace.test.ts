/**
 * A test in a workspace package of an npm-workspaces monorepo (issue 42 item 3, docs/recorder-node.md
 * "Which files"): packages/teller (its mocha test) requires packages/accounts (balancemap's Accounts:
 * withdraw() reads a balance from a Map, awaits the audit, writes it back) by its package name, through
 * the node_modules symlink npm makes; mocha 11 is installed from the npm registry at the root
 * (test-output/npm-runners, kept between runs). Node loads the accounts package from its real path,
 * outside the teller's folder: before, none of its code was recorded ('no file of the program was
 * instrumented'). Both packages' code is recorded — the teller's by its own lines, the accounts' named
 * from the workspace root (`packages/accounts/src/accounts.js`) — and the check (line 24) and write
 * (line 27) rank first, with the lens' command (run in the package's folder, the runner from its test
 * script) and with `npm test -w` from the root.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and npm.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferJsTestCommand } from '../../server/src/recorder/node/jsTestCommand';
import { balancemap, balancemapTest, npmProject, recordsTheRace } from '../helpers/npmProject';

/** The teller: its own code touches an array once per account opened (recorded, in one task: no pattern of its own). */
const TELLER = `const { Accounts } = require('@bank/accounts');

class Teller {
  constructor(audit) {
    this.accounts = new Accounts(audit);
    this.opened = [];
  }

  open(account, amount) {
    this.opened.push(account);
    this.accounts.open(account, amount);
  }

  withdraw(account, amount) {
    return this.accounts.withdraw(account, amount);
  }

  balance(account) {
    return this.accounts.balance(account);
  }
}
module.exports = { Teller };
`;

function monorepo(): string {
  return npmProject('workspaces', { name: 'bank', private: true, workspaces: ['packages/*'], devDependencies: { mocha: '11.7.5' } }, {
    'packages/accounts/package.json': JSON.stringify({ name: '@bank/accounts', version: '1.0.0', main: 'src/accounts.js' }, null, 2) + '\n',
    'packages/accounts/src/accounts.js': readFileSync(path.join(balancemap, 'js', 'accounts.js'), 'utf8'),
    'packages/teller/package.json': JSON.stringify({ name: '@bank/teller', version: '1.0.0', scripts: { test: 'mocha' }, dependencies: { '@bank/accounts': '1.0.0' } }, null, 2) + '\n',
    'packages/teller/src/teller.js': TELLER,
    'packages/teller/test/teller.spec.js': balancemapTest("const assert = require('node:assert/strict');\nconst { Teller: Accounts } = require('../src/teller');", { check: 'assert', test: 'it' }),
  });
}

/** The files the recording's first trace defines sites in. */
function tracedFiles(trace: string): Set<string> {
  const files = new Set<string>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const m = /^\{"def":"loc",.*?"file":("(?:[^"\\]|\\.)*")/.exec(line);
    if (m) files.add(JSON.parse(m[1]) as string);
  }
  return files;
}

test('the lens on a test of a workspace package: run in the package\'s folder with the root\'s mocha, both packages\' code recorded, the race in the workspace dependency ranked first', async () => {
  const dir = monorepo();
  const teller = path.join(dir, 'packages', 'teller');
  const plan = inferJsTestCommand(dir, { file: path.join(teller, 'test', 'teller.spec.js'), titles: ['two withdrawals are both taken'] });
  assert.equal(plan.cwd, teller, 'the package\'s folder');
  assert.deepEqual(plan.command, ['npx', '--no', '--', 'mocha', 'test/teller.spec.js', '--grep', '^two withdrawals are both taken$']);
  const { summary } = await recordsTheRace(dir, plan.command, 'packages/accounts/src/accounts.js', 12, teller);
  const files = tracedFiles(summary.traces[0]);
  assert.ok(files.has('src/teller.js'), `the teller's code: ${[...files].join(', ')}`);
  assert.ok(files.has('packages/accounts/src/accounts.js'), `the accounts package's code: ${[...files].join(', ')}`);
});

test('npm test -w <package> from the workspace root records the same race', async () => {
  const dir = monorepo();
  const { summary } = await recordsTheRace(dir, ['npm', 'test', '-w', '@bank/teller'], 'packages/accounts/src/accounts.js', 12);
  const files = tracedFiles(summary.traces[0]);
  assert.ok(files.has('packages/teller/src/teller.js'), `the teller's code: ${[...files].join(', ')}`);
});
