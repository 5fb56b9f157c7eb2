/**
 * Node.js forcing with the task's awaits outside the include list (issue 40; docs/recorder-node.md
 * "Forcing", server/src/recorder/node/boundaries.ts): test/fixtures/node/driverboundary, recorded with
 * `--include lib` — the request awaits the library in app.mjs, which is not recorded, then reads the
 * settings in lib (synchronous code); the reload's readFile callback replaces them. Before, the
 * request's task passed no suspension point forcing knew before the read: the root cause was "not
 * forced" (and still is with BRAID_NODE_FORCE_OUTSIDE=0, the earlier behaviour). Now a forcing run
 * gives the files outside the include list their awaits as suspension points: the group's runs learn
 * the request's await in app.mjs and hold the request there — confirmed. The decoy (the metrics flow's
 * read of the reload count after the same kind of await: an order that never matters) is held the
 * same way and is not confirmed. And a recording (no forcing plan) leaves those files as they are.
 * On a committed recording (20 runs, wide noise 0.5, 2 failed), through the CLI. Counts of runs, no
 * timing. Needs dist/ built (node scripts/build.mjs).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'dist', 'braid.js');
const hook = path.join(root, 'dist', 'braid-node-hook.mjs');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'driverboundary');
const work = path.join(root, 'test-output', 'recorder', `node-driver-boundary-${process.pid}`);
const dir = path.join(work, 'driverboundary');

function braid(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', timeout: 900_000, env: { ...process.env, ...env } });
}

const ROOT_CAUSE = 'P2|W1:Settings.values@lib/settings.mjs:17|R2:Settings.values@lib/settings.mjs:26';
const DECOY = 'P2|W1:Settings.reloads@lib/settings.mjs:18|R2:Settings.reloads@lib/settings.mjs:23';

before(() => {
  assert.ok(existsSync(cli) && existsSync(hook), 'dist/ is built (node scripts/build.mjs)');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  cpSync(fixture, dir, { recursive: true, filter: (f) => !f.includes(`${path.sep}.braid`) });
  const r = braid(['analyze', 'recorded', '--format', 'json']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const keys = (JSON.parse(r.stdout).patterns as { key: string }[]).map((p) => p.key);
  assert.ok(keys.includes(ROOT_CAUSE) && keys.includes(DECOY), `the recording has both patterns: ${keys.join(', ')}`);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

function confirm(key: string, runs: number, env: Record<string, string> = {}) {
  const r = braid(['confirm', 'recorded', '--pattern', key, '--runs', String(runs), '--jobs', '2', '--wait-ms', '2000', '--format', 'json', '--', 'node', 'app.mjs'], env);
  assert.ok(r.status === 0 || r.status === 1, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

test('without the boundaries outside the include list (BRAID_NODE_FORCE_OUTSIDE=0, as before): the read after the driver\'s await is not forced', () => {
  const j = confirm(ROOT_CAUSE, 4, { BRAID_NODE_FORCE_OUTSIDE: '0' });
  assert.equal(j.verdict, 'not forced', JSON.stringify(j));
  assert.equal(j.forced.forcedOk, 0, JSON.stringify(j.forced));
});

test('the request held at its await in the driver (not recorded) before the library\'s read: the root cause is confirmed', () => {
  const j = confirm(ROOT_CAUSE, 10);
  assert.equal(j.verdict, 'confirmed', JSON.stringify(j));
  // the group's first runs (one per job) learn where the read was last holdable; the others hold there
  assert.ok(j.forced.forcedOk >= 5 && j.forced.failed >= 5, `forced in most runs, and they fail: ${JSON.stringify(j.forced)}`);
  assert.ok(j.opposite.forcedOk >= 5 && j.opposite.failed <= 1, `the opposite order imposed, and it passes: ${JSON.stringify(j.opposite)}`);
});

test('the decoy of the same program, held the same way, is not confirmed', () => {
  const j = confirm(DECOY, 10);
  assert.notEqual(j.verdict, 'confirmed', JSON.stringify(j));
  assert.notEqual(j.verdict, 'confirms the window', JSON.stringify(j));
});

test('a recording leaves the files outside the include list as they are; a forcing run gives them their awaits (an ES module and a CommonJS file)', () => {
  const probe = path.join(work, 'probe');
  mkdirSync(path.join(probe, 'lib'), { recursive: true });
  writeFileSync(path.join(probe, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(probe, 'lib', 'x.mjs'), 'export const box = { n: 0 };\n');
  writeFileSync(path.join(probe, 'helper.cjs'), 'exports.wait = async function wait(p) { return await p; };\n');
  writeFileSync(
    path.join(probe, 'main.mjs'),
    [
      "import { createRequire } from 'node:module';",
      "import { box } from './lib/x.mjs';",
      "const { wait } = createRequire(import.meta.url)('./helper.cjs');",
      'async function f() { box.n = await wait(1); }',
      'await f();',
      'console.log(JSON.stringify({ esm: String(f), cjs: String(wait), n: box.n }));',
    ].join('\n'),
  );
  const run = (force: boolean) => {
    const options = path.join(probe, `options-${force}.json`);
    const o = { out: path.join(probe, `t-${force}.trace.jsonl`), execution: 'probe', seed: '1', noise: 0, include: ['lib'], exclude: [], root: probe, program: 'main.mjs' };
    writeFileSync(options, JSON.stringify(force ? { ...o, force: { order: 'pattern', waitMs: 100, times: 1, accesses: [], waits: [] } } : o));
    const r = spawnSync(process.execPath, ['main.mjs'], {
      cwd: probe,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NODE_OPTIONS: `--import ${pathToFileURL(hook).href}`, BRAID_NODE_HOOK: hook, BRAID_NODE_OPTIONS: options },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as { esm: string; cjs: string; n: number };
  };
  const recording = run(false);
  assert.equal(recording.n, 1);
  assert.equal(recording.esm, 'async function f() { box.n = await wait(1); }', 'a recording: the driver as it is');
  assert.equal(recording.cjs, 'async function wait(p) { return await p; }');
  const forcing = run(true);
  assert.equal(forcing.n, 1);
  assert.match(forcing.esm, /box\.n = __bC\(await __bA\(wait\(1\),__bl\+\d+\),__bl\+\d+\)/, 'a forcing run: its await is a suspension point');
  assert.match(forcing.cjs, /return __bC\(await __bA\(p,__bl\+\d+\),__bl\+\d+\)/);
});
