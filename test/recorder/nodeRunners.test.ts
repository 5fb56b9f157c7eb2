/**
 * vitest and jest projects (issue 42 item 3, docs/recorder-node.md "Test runners"): the runners
 * installed from the npm registry into a project under test-output/ (kept between runs of this file;
 * CI has the registry), the balancemap race (withdraw() reads a balance from a Map, awaits the audit,
 * writes it back) as the runner's test, recorded with the runner's own command as the lens runs it.
 * Both runners compile the user's modules with node:vm, not Node's module loaders: before, nothing of
 * the project was recorded (vitest) or the runs failed. Each records failing runs and ranks the check
 * (`Map.get`, line 24) and the write (`Map.set`, line 27) first, on the source's lines.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and npm.
 */
import test from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { balancemap, balancemapTest, npmProject, recordsTheRace } from '../helpers/npmProject';

test('a vitest project (TypeScript, vitest 2 in its devDependencies): the race is recorded on the .ts lines and ranked first', async () => {
  const dir = npmProject('vitest', { name: 'balancemap-vitest', private: true, type: 'module', devDependencies: { vitest: '2.1.9' } }, {
    'src/accounts.ts': readFileSync(path.join(balancemap, 'src', 'accounts.ts'), 'utf8'),
    'src/accounts.test.ts': balancemapTest("import { test, expect } from 'vitest';\nimport { Accounts } from './accounts.js';"),
  });
  await recordsTheRace(dir, ['npx', '--no', '--', 'vitest', 'run', 'src/accounts.test.ts'], 'src/accounts.ts', 16);
});

test('a jest project (CommonJS JavaScript, jest 29 in its devDependencies): the race is recorded in the test environment\'s own context and ranked first', async () => {
  const dir = npmProject('jest', { name: 'balancemap-jest', private: true, devDependencies: { jest: '29.7.0' } }, {
    'src/accounts.js': readFileSync(path.join(balancemap, 'js', 'accounts.js'), 'utf8'),
    'src/accounts.test.js': balancemapTest("const { Accounts } = require('./accounts');"),
  });
  await recordsTheRace(dir, ['npx', '--no', '--', 'jest', '--runTestsByPath', 'src/accounts.test.js'], 'src/accounts.js', 16);
});
