/**
 * ts-node projects (issue 42 item 3, docs/recorder-node.md "TypeScript"): ts-node 10 and TypeScript 5
 * installed from the npm registry into projects under test-output/npm-runners (kept between runs),
 * balancemap's TypeScript (withdraw() reads a balance from a Map, awaits the audit, writes it back)
 * with its node:test test, compiled by ts-node as the project sets it up (`transpileOnly`, as projects
 * set it for speed: type-checking each test process took 30 s here under load): a CommonJS project
 * (`-r ts-node/register`) and a `"type": "module"` one (`--loader ts-node/esm`). The command is the one
 * the lens infers from package.json (jsTestCommand.ts typeScriptLoader: ts-node is the loader the
 * project lists, although tsx is installed in the repository above it). Each ranks the check
 * (`Map.get`, line 24) and the write (`Map.set`, line 27) first, on the .ts lines.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and npm.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inferJsTestCommand } from '../../server/src/recorder/node/jsTestCommand';
import { balancemap, npmProject, recordsTheRace } from '../helpers/npmProject';

const devDependencies = { 'ts-node': '10.9.2', typescript: '5.9.3', '@types/node': '20.19.25' };
const accounts = readFileSync(path.join(balancemap, 'src', 'accounts.ts'), 'utf8');
const accountsTest = readFileSync(path.join(balancemap, 'src', 'accounts.test.ts'), 'utf8');

function lensCommand(dir: string, expected: string[]): string[] {
  const plan = inferJsTestCommand(dir, { file: path.join(dir, 'src', 'accounts.test.ts'), titles: ['two withdrawals are both taken'] });
  assert.deepEqual(plan.command, ['node', ...expected, '--test', '--test-name-pattern=^two withdrawals are both taken$', 'src/accounts.test.ts']);
  return plan.command;
}

test('a CommonJS TypeScript project with ts-node: the lens runs node -r ts-node/register --test, the race is recorded on the .ts lines and ranked first', async () => {
  const dir = npmProject('ts-node-cjs', { name: 'balancemap-ts-node-cjs', private: true, devDependencies }, {
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2022', module: 'commonjs', strict: true, esModuleInterop: true, skipLibCheck: true }, 'ts-node': { transpileOnly: true } }, null, 2),
    'src/accounts.ts': accounts,
    // CommonJS resolution: the import without the .js extension
    'src/accounts.test.ts': accountsTest.replace("from './accounts.js'", "from './accounts'"),
  });
  await recordsTheRace(dir, lensCommand(dir, ['-r', 'ts-node/register']), 'src/accounts.ts', 12);
});

test('a "type": "module" TypeScript project with ts-node: the lens runs node --loader ts-node/esm --test, the race is recorded on the .ts lines and ranked first', async () => {
  const dir = npmProject('ts-node-esm', { name: 'balancemap-ts-node-esm', private: true, type: 'module', devDependencies }, {
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, skipLibCheck: true }, 'ts-node': { transpileOnly: true } }, null, 2),
    'src/accounts.ts': accounts,
    'src/accounts.test.ts': accountsTest,
  });
  await recordsTheRace(dir, lensCommand(dir, ['--loader', 'ts-node/esm']), 'src/accounts.ts', 12);
});
