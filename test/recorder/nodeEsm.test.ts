/**
 * ES modules as projects set them up (issue 42 item 3, docs/recorder-node.md "How it works"): real
 * recordings of test/fixtures/node/balancemap (a check-then-act across an await, node:test) as a
 * `"type": "module"` TypeScript project run with `node --import tsx --test`, as `.mts` files, and as
 * plain ES-module JavaScript. Before, a TypeScript file loaded as an ES module was never instrumented
 * (the loader hooks left `.ts` URLs to the user's loader, whose ES-module output they then skipped):
 * "the command never reached the program". Each layout records failing runs and ranks the
 * check (`Map.get`, line 24) and the write (`Map.set`, line 27) first, on the source's lines.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs) and tsx in the repository's node_modules.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';

const root = path.resolve(__dirname, '..', '..');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'balancemap');
const work = path.join(root, 'test-output', 'recorder', `node-esm-${process.pid}`);

/** A copy of the subject as an ES-module project (`"type": "module"` in its package.json). */
function esmCopy(name: string): string {
  const dir = path.join(work, name);
  cpSync(fixture, dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) && !f.includes(`${path.sep}fixes`) });
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, type: 'module' }, null, 2));
  return dir;
}

/** Records `command` in `dir` (12 runs, noise 0.5) and checks the failing runs and the first pattern. */
async function recordsTheRace(dir: string, command: string[], file: string): Promise<void> {
  const s = await recordRuns(parseRecordArgs(['--runs', '12', '--jobs', '2', '--noise', '0.5', '--seed', '1', '--out', path.join(dir, 'out'), '--', ...command], dir));
  assert.equal(s.notReached, undefined, `the program was reached: ${JSON.stringify(s.notReached?.reason)}`);
  assert.equal(s.total, 12);
  assert.ok(s.failed > 0 && s.passed > 0, `failing and passing runs: ${s.failed} failed, ${s.passed} passed`);
  const r = await analyzeTraceFiles(s.traces);
  const first = r.patterns[0];
  assert.ok(first, 'a pattern');
  const spots = first.accesses.map((a) => `${a.type} ${a.file}:${a.line}`);
  assert.deepEqual([...new Set(spots)].sort(), [`R ${file}:24`, `W ${file}:27`], `first pattern: ${spots.join(' | ')}`);
}

before(() => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
});

test('a "type": "module" TypeScript project under node --import tsx --test records the race on the .ts lines', async () => {
  const dir = esmCopy('type-module');
  await recordsTheRace(dir, ['node', '--import', 'tsx', '--test', 'src/accounts.test.ts'], 'src/accounts.ts');
});

test('.mts files (tsx, node:test) record the race on the .mts lines', async () => {
  const dir = path.join(work, 'mts');
  cpSync(fixture, dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) && !f.includes(`${path.sep}fixes`) });
  renameSync(path.join(dir, 'src', 'accounts.ts'), path.join(dir, 'src', 'accounts.mts'));
  const t = path.join(dir, 'src', 'accounts.test.ts');
  writeFileSync(path.join(dir, 'src', 'accounts.test.mts'), readFileSync(t, 'utf8').replace("from './accounts.js'", "from './accounts.mjs'"));
  rmSync(t);
  await recordsTheRace(dir, ['node', '--import', 'tsx', '--test', 'src/accounts.test.mts'], 'src/accounts.mts');
});

test('plain ES-module JavaScript ("type": "module", .js) records the race', async () => {
  const dir = esmCopy('esm-js');
  // the TypeScript without its types: the same lines
  const strip = (text: string) =>
    text
      .replace(/^export interface AuditLog \{\n[^}]*\}\n/m, (m) => m.replace(/[^\n]/g, '').replace(/\n/g, '\n'))
      .replace(/private readonly balances = new Map<string, number>\(\);/, 'balances = new Map();')
      .replace(/constructor\(private readonly audit: AuditLog\) \{\}/, 'constructor(audit) { this.audit = audit; }')
      .replace(/\((\w+): string, (\w+): number\)/g, '($1, $2)')
      .replace(/\((\w+): string\)/g, '($1)')
      .replace(/\): (Promise<\w+>|number|void) \{/g, ') {');
  writeFileSync(path.join(dir, 'src', 'accounts.js'), strip(readFileSync(path.join(dir, 'src', 'accounts.ts'), 'utf8')));
  const testFile = readFileSync(path.join(dir, 'src', 'accounts.test.ts'), 'utf8')
    .replace("import { Accounts, type AuditLog } from './accounts.js';", "import { Accounts } from './accounts.js';")
    .replace('const audit: AuditLog = {', 'const audit = {')
    .replace('async record(): Promise<void> {', 'async record() {')
    .replace('async function later<T>(f: () => Promise<T>): Promise<T> {', 'async function later(f) {');
  writeFileSync(path.join(dir, 'src', 'accounts.test.js'), testFile);
  rmSync(path.join(dir, 'src', 'accounts.ts'));
  rmSync(path.join(dir, 'src', 'accounts.test.ts'));
  await recordsTheRace(dir, ['node', '--test', 'src/accounts.test.js'], 'src/accounts.js');
});
