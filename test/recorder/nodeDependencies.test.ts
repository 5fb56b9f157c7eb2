/**
 * The Node.js recorder records the project's runtime dependencies without being told (issue 38,
 * docs/recorder-node.md "Which files"): a race inside a package under node_modules that the
 * project's package.json lists in `dependencies` is recorded with no `--include`; devDependencies
 * and transitive packages are not; an include glob keeps its meaning (only what it names).
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileMatcher } from '../../server/src/recorder/node/match';
import { packageOfPath, runtimeDependencies } from '../../server/src/recorder/node/runtimeDependencies';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';

test('runtime dependencies: dependencies, optional and peer dependencies of the nearest package.json; never devDependencies or a name with a path', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-deps-'));
  try {
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ dependencies: { 'generic-pool': '3.1.2', '@scope/pkg': '1.0.0', '../escape': '1' }, optionalDependencies: { opt: '1' }, peerDependencies: { peer: '1' }, devDependencies: { mocha: '10' } }),
    );
    mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
    assert.deepEqual(runtimeDependencies(path.join(dir, 'src', 'deep')), ['@scope/pkg', 'generic-pool', 'opt', 'peer']);
    writeFileSync(path.join(dir, 'package.json'), '{ broken');
    assert.deepEqual(runtimeDependencies(dir), [], 'a broken package.json gives none (the recording still runs)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(packageOfPath('node_modules/generic-pool/lib/Pool.js'), 'generic-pool');
  assert.equal(packageOfPath('../../node_modules/@scope/pkg/index.js'), '@scope/pkg');
  assert.equal(packageOfPath('node_modules/a/node_modules/b/x.js'), 'b', 'a package of a package is its own');
  assert.equal(packageOfPath('src/app.js'), undefined);
});

test('the file rule: without include globs, the user\'s files and the runtime dependencies\' files; with include globs, only what they name', () => {
  const root = '/p';
  const m = fileMatcher({ root, include: [], exclude: [], packages: ['generic-pool'] });
  assert.equal(m('/p/src/app.js'), true);
  assert.equal(m('/p/node_modules/generic-pool/lib/Pool.js'), true);
  assert.equal(m('/p/node_modules/mocha/lib/runner.js'), false, 'not a runtime dependency');
  assert.equal(m('/p/node_modules/generic-pool/node_modules/debug/index.js'), false, 'transitive');
  assert.equal(fileMatcher({ root, include: [], exclude: ['node_modules'], packages: ['generic-pool'] })('/p/node_modules/generic-pool/lib/Pool.js'), false, 'an exclude glob still wins');
  const named = fileMatcher({ root, include: ['src/**/*.js'], exclude: [], packages: ['generic-pool'] });
  assert.equal(named('/p/node_modules/generic-pool/lib/Pool.js'), false, 'include globs name exactly what is recorded');
  assert.equal(fileMatcher({ root, include: [], exclude: [] })('/p/node_modules/generic-pool/lib/Pool.js'), false, 'no package list: node_modules is left out as before');
});

test('a race inside a runtime dependency is recorded with no --include; the header names the packages', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-deps-rec-'));
  try {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, dependencies: { counterlib: '1.0.0' } }));
    const lib = path.join(dir, 'node_modules', 'counterlib');
    mkdirSync(lib, { recursive: true });
    writeFileSync(path.join(lib, 'package.json'), JSON.stringify({ name: 'counterlib', version: '1.0.0', main: 'index.js' }));
    // a read, an await, a write: a lost update inside the package
    writeFileSync(
      path.join(lib, 'index.js'),
      ['class Counter {', '  constructor() { this.n = 0; }', '  async add() {', '    const v = this.n;', '    await new Promise((r) => setImmediate(r));', '    this.n = v + 1;', '  }', '}', 'module.exports = { Counter };', ''].join('\n'),
    );
    writeFileSync(path.join(dir, 'main.js'), ["const { Counter } = require('counterlib');", 'const c = new Counter();', 'Promise.all([c.add(), c.add()]).then(() => { if (c.n !== 2) process.exitCode = 1; });', ''].join('\n'));
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', process.execPath, 'main.js'], dir));
    assert.equal(summary.traces.length, 1, JSON.stringify(summary.runs));
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const header = lines[0];
    assert.deepEqual(header.recorder.options.packages, ['counterlib']);
    const locs = lines.filter((l) => l.def === 'loc').map((l) => `${l.file}:${l.line}`);
    assert.ok(locs.includes('node_modules/counterlib/index.js:4') && locs.includes('node_modules/counterlib/index.js:6'), `the package's read and write are recorded: ${locs.join(', ')}`);
    // the same with an include glob that names only the user's file: the package is not recorded
    const named = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--include', 'main.js', '--out', path.join(dir, 'out2'), '--', process.execPath, 'main.js'], dir));
    const namedLocs = readFileSync(named.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.def === 'loc').map((l) => l.file);
    assert.ok(!namedLocs.some((f: string) => f.includes('node_modules')), namedLocs.join(', '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
