/**
 * Braid's Node.js recorder (issue 32, docs/recorder-node.md): the command rule, the source
 * transform (instrumented code computes what the original computes), and live recordings of
 * test/fixtures/node/cachecheck (a check-then-act across `await` on a shared cache): valid traces,
 * passing and failing runs, uncaught errors as failures, and the root-cause lines ranked first.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { instrument } from '../../server/src/recorder/node/transform';
import { BraidRuntime } from '../../server/src/recorder/node/runtime';
import { deriveNodeName, movePreloadsToNodeOptions, recorderFor } from '../../server/src/recorder/node/nodeRunner';
import { fileMatcher, globRegExp } from '../../server/src/recorder/node/match';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';
import { readTrace } from '../../server/src/engine/trace/traceReader';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { bugLinesIn, rootCauseFirst } from '../helpers/rootCause';

const root = path.resolve(__dirname, '..', '..');
const fixture = path.join(root, 'test', 'fixtures', 'node', 'cachecheck');
const work = path.join(root, 'test-output', 'recorder', `node-${process.pid}`);

/** `braid record --runs N --noise 0 --seed 1 [extra] --out <dir>/<out> -- <command>` run in `dir`. */
function recordIn(dir: string, command: string[], o: { runs?: number; out?: string; extra?: string[] } = {}) {
  return recordRuns(parseRecordArgs(['--runs', String(o.runs ?? 1), '--noise', '0', '--seed', '1', ...(o.extra ?? []), '--out', path.join(dir, o.out ?? 'out'), '--', ...command], dir));
}

/** The lines of a trace file, parsed. */
function traceLines(file: string): any[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

test('the recorder rule: Node commands and JS/TS include globs get the Node.js recorder', () => {
  for (const c of [['node', 'app.js'], ['/usr/bin/node', '--test'], ['npx', 'mocha'], ['npm', 'test'], ['tsx', 'a.ts'], ['./run.mjs'], ['vitest', 'run']]) assert.equal(recorderFor(c, []), 'node', c.join(' '));
  for (const c of [['java', '-cp', 'out', 'bank.Bank'], ['mvn', 'test'], ['./gradlew', 'test']]) assert.equal(recorderFor(c, []), 'java', c.join(' '));
  assert.equal(recorderFor(['sh', 'run.sh'], ['src/**/*.js', 'lib/*.ts']), 'node');
  assert.equal(recorderFor(['sh', 'run.sh'], ['bank']), 'java');
  assert.equal(deriveNodeName(['node', '--enable-source-maps', 'app.js']), 'app');
  assert.equal(deriveNodeName(['node', '--test']), 'node-test');
  assert.equal(deriveNodeName(['npx', 'mocha']), 'npx-mocha');
  const o = parseRecordArgs(['--runs', '3', '--', 'node', 'app.js'], fixture);
  assert.equal(o.recorder, 'node');
  assert.equal(o.name, 'app');
  assert.equal(parseRecordArgs(['--recorder', 'java', '--', 'node', 'x.js'], fixture).recorder, undefined);
});

test('node\'s own preload options (a TS loader) move into NODE_OPTIONS ahead of the hook; other options and the program\'s arguments stay', () => {
  assert.deepEqual(movePreloadsToNodeOptions(['node', '--import', 'tsx', '--enable-source-maps', 'main.ts', '--import', 'x']), {
    command: ['node', '--enable-source-maps', 'main.ts', '--import', 'x'],
    preload: ['--import=tsx'],
  });
  assert.deepEqual(movePreloadsToNodeOptions(['node', '-r', 'ts-node/register', '--loader=./l.mjs', 'app.ts']), { command: ['node', 'app.ts'], preload: ['--require=ts-node/register', '--loader=./l.mjs'] });
  assert.deepEqual(movePreloadsToNodeOptions(['node', '--import', 'my loader.mjs', 'a.js']), { command: ['node', '--import', 'my loader.mjs', 'a.js'], preload: [] }, 'a value with a space stays');
  assert.deepEqual(movePreloadsToNodeOptions(['npx', '--import', 'tsx', 'a.ts']).preload, [], 'only node itself');
});

test('include and exclude globs: the user files, node_modules only when named', () => {
  const m = fileMatcher({ root: '/p', include: [], exclude: ['test/**'] });
  assert.equal(m('/p/src/a.js'), true);
  assert.equal(m('/p/node_modules/x/index.js'), false);
  assert.equal(m('/p/test/a.test.js'), false);
  assert.equal(m('/other/a.js'), false);
  assert.equal(m('/p/README.md'), false);
  const only = fileMatcher({ root: '/p', include: ['src', 'node_modules/lru-cache/**'], exclude: [] });
  assert.equal(only('/p/src/deep/a.mjs'), true);
  assert.equal(only('/p/lib/a.js'), false);
  assert.equal(only('/p/node_modules/lru-cache/index.js'), true);
  assert.ok(globRegExp('*.js').test('a/b/c.js'));
  assert.ok(!globRegExp('src/*.js').test('src/a/b.js'));
});

/** A program exercising the constructs the transform rewrites; it returns what it computed. */
const SNIPPET = `
let counter = 0;
const bump = () => counter++;
function add(n) { counter += n; return counter; }
class Box {
  constructor(v) { this.v = v; this.items = []; }
  get double() { return this.v * 2; }
  async grow(n) { await null; this.v += n; return this.v; }
  static make() { return new Box(1); }
}
class Big extends Box {
  constructor() { super(10); }
  async grow(n) { const r = await super.grow(n); return r + 1; }
}
async function run() {
  const out = [];
  const o = { a: 1, b: { c: 2 } };
  o.a++; ++o.a; o.b.c += 3; o['x'] = 5; const k = 'x'; o[k] *= 2; out.push(o.a--, --o.a); delete o.a;
  const m = new Map([[1, 'one']]); m.set(2, 'two'); const s = new Set(); s.add(3);
  const arr = [1, 2]; arr.push(3); arr[0] = arr[1] + arr.length; arr.splice(1, 1, ...[7, 8]);
  bump(); bump(); add(5);
  const b = Box.make(); const big = new Big();
  out.push(await b.grow(2), await big.grow(1), b.double, o?.b?.c, o.x, m.get(2), m.has(1), s.has(3), arr.join(','), counter, m.size);
  const { x, ...rest } = o; out.push(x, JSON.stringify(rest), JSON.stringify({ counter }));
  const f = async (y) => y * 2; out.push(await f(4));
  const g = function* () { yield 1; yield 2; }; out.push([...g()].join(''));
  const both = await Promise.all([f(1), (async () => { await null; return counter; })()]);
  out.push(both.join('/'), \`t\${counter}\`, typeof counter, [counter].length);
  function strict() { 'use strict'; return this === undefined; } out.push(strict());
  outer: for (const i of [1, 2]) { for (const j of [1, 2]) { if (j === 2) continue outer; out.push(i * j); } }
  let late; const setLate = (v) => { late = v; }; setLate(4); late ??= 9; out.push(late);
  const ns = { Box }; const nb = new ns.Box(3); const nk = new ns['Box'](4); out.push(nb.v, nk.v);
  const noop = () => {}; const anoop = async () => {}; noop(); await anoop(); out.push(await(async () => 7)());
  const obj = () => ({ k: counter }); const twice = (v) => ((v * 2)); const pair = (a) => (a, a + 1); out.push(obj().k, twice(3), pair(1), [1].map(() => ({})).length);
  return out;
}
return run();
`;

test('the transform keeps what the program computes and records its shared accesses', async () => {
  const expected = await new Function(SNIPPET)();
  const code = instrument(SNIPPET, { file: 'snippet.js', module: false }).code;
  assert.equal(code.split('\n').length, SNIPPET.split('\n').length, 'no line added or removed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const out = path.join(dir, 't.trace.jsonl.part');
    const rt = new BraidRuntime({ out, execution: 'snippet-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const got = await new Function('__braid', code)(rt);
    rt.close();
    assert.deepEqual(got, expected);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const events = lines.filter((l) => l.startsWith('['));
    assert.ok(events.some((l) => /"W",\d+,\d+,\d+,\d+,-1,\d+\]$/.test(l)), 'writes with values');
    const vars = lines.filter((l) => l.includes('"def":"var"')).map((l) => JSON.parse(l).name);
    assert.ok(vars.includes('snippet.js:counter'), `the shared module variable: ${vars.join(', ')}`);
    assert.ok(vars.includes('Box.v') && vars.includes('Map') && vars.includes('Array'), vars.join(', '));
    assert.ok(!vars.some((v) => v.includes(':late')) || vars.includes('snippet.js:run.late'), 'a closure variable is named after its function');
    const locs = lines.filter((l) => l.includes('"def":"loc"')).map((l) => JSON.parse(l));
    assert.ok(locs.some((l) => l.call === 'Map.set' && l.line === 19), 'Map.set at its line');
    assert.ok(locs.some((l) => l.method === 'Box.grow' && l.line === 8), 'this.v += n in Box.grow');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('file-system calls are accesses of their path, EventEmitter calls of the event\'s listener list', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const file = path.join(dir, 'f.txt');
    const src = [
      "const { existsSync, writeFileSync, unlinkSync } = require('fs');",
      "const { EventEmitter } = require('events');",
      `const f = ${JSON.stringify(file)};`,
      "writeFileSync(f, 'x'); const had = existsSync(f); unlinkSync(f);",
      "const e = new EventEmitter(); e.emit('ready'); let heard = 0; e.once('ready', () => { heard++; }); e.emit('ready');",
      "function unlinkSyncLocal() { const unlinkSync = () => 0; return unlinkSync(f); } unlinkSyncLocal();",
      "const fs = require('fs'); var import_fs = require('node:fs'); fs.writeFileSync(f, 'y'); const again = (0, import_fs.existsSync)(f); fs.promises.stat(f).catch(() => 0); fs.renameSync(f, f + '2'); fs.rmSync(f + '2');",
      'return [had, existsSync(f), heard, again];',
    ].join('\n');
    const code = instrument(src, { file: 'fsev.js', module: false }).code;
    const out = path.join(dir, 't.trace.jsonl.part');
    const rt = new BraidRuntime({ out, execution: 'fsev-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const got = new Function('__braid', 'require', code)(rt, createRequire(__filename));
    rt.close();
    assert.deepEqual(got, [true, false, 1, true], 'the program computes what it did');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const vars = new Map(lines.filter((l) => l.includes('"def":"var"')).map((l) => JSON.parse(l)).map((v) => [v.id, v.name]));
    const locs = new Map(lines.filter((l) => l.includes('"def":"loc"')).map((l) => JSON.parse(l)).map((l) => [l.id, l]));
    const events = lines.filter((l) => l.startsWith('[')).map((l) => JSON.parse(l)).filter((e) => e[2] === 'R' || e[2] === 'W');
    const at = (name: string) => events.filter((e) => vars.get(e[3]) === name).map((e) => `${e[2]} ${locs.get(e[4]).call} ${locs.get(e[4]).line}`);
    // one object per path: the write, the check and the removal of f, the shadowed unlinkSync not at all
    // through the module object too: fs.writeFileSync, (0, import_fs.existsSync) — a TS loader's form — fs.promises.stat
    assert.deepEqual(at('file'), ['W fs.writeFileSync 4', 'R fs.existsSync 4', 'W fs.unlinkSync 4', 'W fs.writeFileSync 7', 'R fs.existsSync 7', 'R fs.stat 7', 'W fs.renameSync 7', 'W fs.renameSync 7', 'W fs.rmSync 7', 'R fs.existsSync 8']);
    // one object per path: f and f2 (rename's destination)
    assert.equal(new Set(events.filter((e) => vars.get(e[3]) === 'file').map((e) => e[6])).size, 2);
    assert.deepEqual(at('EventEmitter'), ['R EventEmitter.emit 5', 'W EventEmitter.once 5', 'R EventEmitter.emit 5']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the transform: Atomics operations go through the runtime unless Atomics is shadowed; they return what Atomics returns', () => {
  const src = [
    'const c = new Int32Array(new SharedArrayBuffer(8));',
    'Atomics.store(c, 0, 5); const old = Atomics.add(c, 0, 2); const cas = Atomics.compareExchange(c, 0, 7, 9);',
    'const seen = Atomics.load(c, 0); const woke = Atomics.notify(c, 0); const waited = Atomics.wait(c, 1, 1, 0);',
    'function local() { const Atomics = { load: () => -1 }; return Atomics.load(c, 0); }',
    'const plain = new Int32Array(4); Atomics.store(plain, 1, 3);',
    'return [old, cas, seen, woke, waited, local(), Atomics.load(plain, 1)];',
  ].join('\n');
  const code = instrument(src, { file: 'atomics.js', module: false }).code;
  assert.equal((code.match(/__braid\.at\(/g) ?? []).length, 8, 'eight calls rewritten, not the shadowed one');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const out = path.join(dir, 't.trace.jsonl.part');
    const rt = new BraidRuntime({ out, execution: 'atomics-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const got = new Function('__braid', code)(rt);
    rt.close();
    assert.deepEqual(got, [5, 7, 9, 0, 'not-equal', -1, 3]);
    const events = readFileSync(out, 'utf8').trim().split('\n').filter((l) => l.startsWith('[')).map((l) => JSON.parse(l));
    const kinds = events.map((e) => e[2]).join(' ');
    // store: W SND; add and compareExchange: RCV R W SND; load: R (its RCV before the next event);
    // notify: RCV SND; wait: R; the unshared view: no access at all
    assert.equal(kinds, 'W SND RCV R W SND RCV R W SND R RCV SND R', kinds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a "use strict" directive without a semicolon (standard style, generic-pool) stays valid JavaScript: the prelude and a function\'s frame come after a semicolon', async () => {
  const src = `'use strict'\nclass List {\n  constructor () {\n    'use strict'\n    this.head = null\n  }\n  add (x) { this.head = x }\n}\nfunction f () {\n  "use strict"\n  return new List()\n}\nmodule.exports = f\n`;
  const code = instrument(src, { file: 'list.js', module: false }).code;
  assert.equal(code.split('\n').length, src.split('\n').length, 'no line added or removed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const rt = new BraidRuntime({ out: path.join(dir, 't.trace.jsonl.part'), execution: 'list-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const mod = { exports: {} as any };
    new Function('__braid', 'module', 'exports', code)(rt, mod, mod.exports);
    const list = mod.exports();
    list.add(7);
    rt.close();
    assert.equal(list.head, 7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a parenthesized argument or assigned value (lokijs: `query.push((obj = {}, obj[k] = v, obj))`, `this.maxId = (… + 1)`) keeps its parentheses, and `new` of a shared variable (lru-cache: `new AC()`) constructs its value: the same values', async () => {
  const src = `const query = [];\nconst template = { owner: 'odin', name: 'gungnir' };\nlet obj;\nfor (const k in template) {\n  query.push((\n    obj = {},\n    obj[k] = template[k],\n    obj\n  ));\n}\nconst m = new Map();\nm.set((0, 'k'), (1, 2));\nconst coll = { maxId: 0 };\ncoll.maxId = (query.length + 1);\nlet total = 1;\nconst add = (n) => { total += (n * 2); total = (total + 1); };\nadd(3);\nlet AC = class { constructor () { this.ok = 1; } };\nconst makeAc = () => new AC();\nAC = class { constructor () { this.ok = 2; } };\nreturn [query, m.get('k'), coll.maxId, total, makeAc().ok];\n`;
  const expected = new Function(src)();
  const code = instrument(src, { file: 'byexample.js', module: false }).code;
  assert.equal(code.split('\n').length, src.split('\n').length, 'no line added or removed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const rt = new BraidRuntime({ out: path.join(dir, 't.trace.jsonl.part'), execution: 'byexample-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const got = new Function('__braid', code)(rt);
    rt.close();
    assert.deepEqual(got, expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ES modules are instrumented too (top-level await, import/export)', () => {
  const code = instrument(`import { x } from './x.js';\nexport let n = 0;\nexport async function f() { n = await x(); return n; }\nawait f();\n`, { file: 'm.mjs', module: true }).code;
  assert.match(code, /__braid\.mod\("m\.mjs"/);
  assert.match(code, /__braid\.aw\(/);
  assert.match(code, /__braid\.wv\(/);
});

test('cachecheck: 30 runs with noise give valid traces, passing and failing runs, and the check-then-act lines ranked first', async () => {
  rmSync(work, { recursive: true, force: true });
  const o = parseRecordArgs(['--runs', '30', '--noise', '0.5', '--seed', '1', '--jobs', '2', '--out', path.join(work, 'cachecheck'), '--', process.execPath, 'app.js'], fixture);
  assert.equal(o.recorder, 'node');
  const summary = await recordRuns(o);
  assert.equal(summary.total, 30);
  assert.equal(summary.empty, 0, 'every run recorded events');
  assert.ok(summary.failed > 0, 'some runs fail');
  assert.ok(summary.passed > 0, 'some runs pass');
  for (const r of summary.runs.filter((r) => r.outcome === 'fail')) {
    assert.equal(r.reason, 'exception', `${r.execution}: ${r.detail}`);
    assert.match(r.detail ?? '', /two user objects/);
  }
  for (const t of summary.traces) {
    const read = await readTrace(t, { event() {} });
    const errors = read.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(errors, [], `${t} reads without errors`);
    assert.ok(read.ok && read.eventCount > 0);
    if (read.outcome === 'fail') {
      assert.ok(read.firstFail !== undefined, 'a failing run has its FAIL event');
      assert.equal(read.uncaught.length, 1, 'and its uncaught line');
    }
  }
  const result = await analyzeTraceFiles(summary.traces);
  assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.equal(result.executions.failed, summary.failed);
  const bugs = bugLinesIn(fixture, ['.js']);
  assert.equal(bugs.length, 2);
  const check = rootCauseFirst(result, bugs);
  assert.ok(check.ok, check.why);
});

test('an await continuation stays in its task; a .catch callback is a task of its own, so the caller is not ordered after the callee', async () => {
  // agenda's shape (test/fixtures/node/lateready): the constructor starts an async init and attaches
  // a .catch; the caller goes on and registers late. Before, the .catch reaction ran as the caller's
  // own continuation and received init's end: everything the caller did later looked ordered after it.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-then-'));
  try {
    const src = [
      'let state = 0;',
      'async function init() { await null; state = 1; }',
      'async function app() {',
      '  init().catch(() => {});',
      '  await new Promise((r) => setImmediate(r));',
      '  state = state + 10;',
      '  const v = await Promise.resolve(state).then((x) => x + state);',
      '  if (v !== 22) process.exitCode = 1;',
      '}',
      'app();',
    ].join('\n');
    writeFileSync(path.join(dir, 'then.js'), src);
    const summary = await recordIn(dir, [process.execPath, 'then.js']);
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    const lines = traceLines(summary.traces[0]);
    const threads = new Map(lines.filter((l) => l.def === 'thread').map((l) => [l.id, l.name]));
    const events = lines.filter(Array.isArray);
    const writer = events.find((e) => e[2] === 'W' && e[8] === 1)![1];
    const reader = events.find((e) => e[2] === 'R' && e[8] === 1)![1];
    assert.match(threads.get(writer), /^async init/);
    assert.match(threads.get(reader), /^async app/, 'the continuation after the await is still app\'s task');
    // no token from init's task reaches app's task: the two are concurrent (the .catch callback's task received it)
    const sent = new Set(events.filter((e) => e[2] === 'SND' && e[1] === writer).map((e) => e[3]));
    const received = events.filter((e) => e[2] === 'RCV' && e[1] === reader && sent.has(e[3]));
    assert.deepEqual(received, [], 'app is not ordered after init');
    // the then callback reads state in a task of its own, after app's write (app's token)
    const thenReads = events.filter((e) => e[2] === 'R' && threads.get(e[1])?.startsWith('then'));
    assert.equal(thenReads.length, 1, [...threads.values()].join(', '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('worker_threads are real threads: one trace per process, the worker\'s accesses of a SharedArrayBuffer on the same object, its workerData intact', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-worker-'));
  try {
    writeFileSync(
      path.join(dir, 'main.mjs'),
      [
        "import { Worker } from 'node:worker_threads';",
        'const sab = new SharedArrayBuffer(8);',
        'const cell = new Int32Array(sab);',
        'cell[2] = 7;',
        "const w = new Worker(new URL('./w.mjs', import.meta.url), { workerData: { sab, label: 'cells' } });",
        'cell[0] = 1;',
        "w.postMessage('go');",
        "const got = await new Promise((resolve) => w.on('message', resolve));",
        'cell[1] = got.label.length;',
        'await w.terminate();',
        "if (got.label !== 'cells') process.exit(3);",
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'w.mjs'),
      ["import { parentPort, workerData } from 'node:worker_threads';", 'const cell = new Int32Array(workerData.sab);', 'const seen = cell[0];', "parentPort.on('message', () => { cell[3] = cell[2]; parentPort.postMessage({ label: workerData.label, seen }); parentPort.close(); });"].join('\n'),
    );
    const summary = await recordIn(dir, [process.execPath, 'main.mjs']);
    assert.equal(summary.passed, 1, `the worker got its workerData: ${JSON.stringify(summary.runs)}`);
    assert.equal(summary.traces.length, 1, 'one trace for the process');
    assert.deepEqual(readdirSync(path.join(dir, 'out')).filter((n) => n.includes('@w')), [], 'no worker file left');
    const lines = traceLines(summary.traces[0]);
    const threads = new Map(lines.filter((l) => l.def === 'thread').map((l) => [l.id, l.name]));
    const locs = new Map(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const events = lines.filter(Array.isArray);
    const at = (file: string, line: number) => events.find((e) => (e[2] === 'R' || e[2] === 'W') && locs.get(e[4])?.file === file && locs.get(e[4])?.line === line)!;
    const write = at('main.mjs', 6);
    const read = at('w.mjs', 3);
    assert.ok(write && read, 'both threads recorded');
    assert.match(threads.get(read[1]), /^worker \d+$/);
    assert.notEqual(read[1], write[1]);
    assert.equal(read[6], write[6], 'cell[0] is one object in both threads');
    assert.equal(read[3], write[3], 'and one variable');
    // the worker's message: SND in the worker, RCV in the main thread's listener, one token
    const snd = events.find((e) => e[2] === 'SND' && e[1] === read[1] && e[3] >= 2 ** 40);
    assert.ok(snd, 'the worker sent its message');
    assert.ok(events.some((e) => e[2] === 'RCV' && e[3] === snd[3] && e[1] !== read[1]), 'the main thread received it');
    // the worker's start and the main thread's postMessage: the worker receives message 0 and 1 of its channel
    const received = events.filter((e) => e[2] === 'RCV' && e[1] === read[1] && e[3] >= 2 ** 40).map((e) => e[3] % 16777216);
    assert.deepEqual(received, [0, 1], 'the worker received its start and the message');
    const ix = events.map((e) => e[0]);
    assert.deepEqual(ix, [...ix].sort((a, b) => a - b), 'events in index order');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Atomics: a flag published by Atomics.store and seen by Atomics.load orders the plain data before it (no race pattern on the data); published by plain writes, the data pair is a race', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-atomics-'));
  try {
    // the main thread writes the data (line 6), then sets the flag (line 7); the worker waits for the
    // flag and reads the data (w.mjs line 4)
    const main = (publish: string) =>
      [
        "import { Worker } from 'node:worker_threads';",
        'const sab = new SharedArrayBuffer(16);',
        'const cell = new Int32Array(sab);',
        "const w = new Worker(new URL('./w.mjs', import.meta.url), { workerData: { sab } });",
        "await new Promise((resolve) => w.once('online', resolve));",
        'cell[1] = 42;',
        publish,
        "await new Promise((resolve) => w.once('exit', resolve));",
      ].join('\n');
    const worker = (see: string) => ["import { workerData } from 'node:worker_threads';", 'const cell = new Int32Array(workerData.sab);', `while (${see} !== 1) Atomics.wait(cell, 0, 0, 5);`, 'const data = cell[1];', 'if (data !== 42) process.exit(3);'].join('\n');
    const record = async (name: string, publish: string, see: string) => {
      writeFileSync(path.join(dir, 'main.mjs'), main(publish));
      writeFileSync(path.join(dir, 'w.mjs'), worker(see));
      const summary = await recordIn(dir, [process.execPath, 'main.mjs'], { runs: 2, out: name });
      assert.equal(summary.passed, 2, JSON.stringify(summary.runs));
      const lines = traceLines(summary.traces[0]);
      const result = await analyzeTraceFiles(summary.traces, { grouping: false });
      const dataPairs = result.patterns.filter((p) => p.accesses.some((x) => x.file === 'main.mjs' && x.line === 6) && p.accesses.some((x) => x.file === 'w.mjs' && x.line === 4));
      return { lines, dataPairs };
    };
    const atomic = await record('atomic', 'Atomics.store(cell, 0, 1); Atomics.notify(cell, 0);', 'Atomics.load(cell, 0)');
    const events = atomic.lines.filter(Array.isArray);
    const locs = new Map(atomic.lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const store = events.find((e) => e[2] === 'W' && locs.get(e[4])?.file === 'main.mjs' && locs.get(e[4])?.line === 7);
    assert.ok(store, 'Atomics.store is a write of the element');
    const tok = events.find((e) => e[2] === 'SND' && e[1] === store[1] && e[0] > store[0])?.[3];
    assert.ok(tok >= 2 ** 50, 'followed by a SND of the element\'s token');
    assert.ok(events.some((e) => e[2] === 'RCV' && e[3] === tok && e[1] !== store[1]), 'the worker\'s load receives it');
    assert.deepEqual(atomic.dataPairs.map((p) => p.key), [], 'the data is ordered by the flag: no pattern');
    const plain = await record('plain', 'cell[0] = 1;', 'cell[0]');
    assert.ok(plain.dataPairs.some((p) => p.kind === 'WR'), `plain writes: the data pair is a race (${plain.dataPairs.map((p) => p.key).join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a CommonJS entry registers the ES-module hooks only at its first import(): the imported module is instrumented', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-cjs-'));
  try {
    writeFileSync(path.join(dir, 'main.js'), "let n = 0;\nasync function go() { n++; const m = await import('./lib.mjs'); await m.bump(); }\ngo().then(() => console.log('ok', n));\n");
    writeFileSync(path.join(dir, 'lib.mjs'), 'export const state = { hits: 0 };\nexport async function bump() { await null; state.hits++; }\n');
    const summary = await recordIn(dir, [process.execPath, 'main.js']);
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    const lines = traceLines(summary.traces[0]);
    const files = new Set(lines.filter((l) => l.def === 'loc').map((l) => l.file));
    assert.ok(files.has('main.js') && files.has('lib.mjs'), [...files].join(', '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failing node:test run carries the assertion message and its line (outcome message, location)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-tap-'));
  try {
    writeFileSync(path.join(dir, 'sum.test.mjs'), "import test from 'node:test';\nimport assert from 'node:assert/strict';\nlet total = 0;\ntest('adds', async () => {\n  total += 1;\n  assert.equal(total, 2, 'the total is off');\n});\n");
    const summary = await recordIn(dir, [process.execPath, '--test', 'sum.test.mjs']);
    assert.equal(summary.failed, 1);
    const outcome = JSON.parse(readFileSync(summary.traces[0], 'utf8').trim().split('\n').pop()!);
    assert.match(outcome.message, /^AssertionError: the total is off/);
    assert.deepEqual(outcome.location, { file: 'sum.test.mjs', line: 6 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a library\'s worker (a script under node_modules) is not recorded: its workerData is untouched, and a main thread that blocks on it is not held up', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-libworker-'));
  try {
    const lib = path.join(dir, 'node_modules', 'svc');
    mkdirSync(lib, { recursive: true });
    writeFileSync(path.join(lib, 'w.js'), "const { workerData } = require('worker_threads');\nconst a = new Int32Array(workerData.sab);\nAtomics.store(a, 0, workerData.answer);\nAtomics.notify(a, 0);\n");
    writeFileSync(
      path.join(dir, 'main.js'),
      "const { Worker } = require('worker_threads');\nconst sab = new SharedArrayBuffer(4);\nconst a = new Int32Array(sab);\nnew Worker(require.resolve('svc/w.js'), { workerData: { sab, answer: 42 } }).unref();\nAtomics.wait(a, 0, 0, 10000);\nlet got = a[0];\nif (got !== 42) process.exit(2);\n",
    );
    const started = Date.now();
    const summary = await recordIn(dir, [process.execPath, 'main.js'], { extra: ['--timeout', '20'] });
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    assert.ok(Date.now() - started < 8000, 'the synchronous wait was answered at once');
    const threads = readFileSync(summary.traces[0], 'utf8').split('\n').filter((l) => l.includes('"def":"thread"'));
    assert.ok(!threads.some((l) => l.includes('worker')), threads.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a recorded Node.js program stops when braid itself is killed (the hook\'s watchdog)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-watchdog-'));
  try {
    const pidFile = path.join(dir, 'pid');
    writeFileSync(path.join(dir, 'sleeper.js'), `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nlet n = 0;\nsetTimeout(() => { n++; }, 60000);\n`);
    const { spawn } = await import('node:child_process');
    const braid = spawn(process.execPath, [path.join(root, 'bin', 'braid.js'), 'record', '--runs', '1', '--timeout', '90', '--out', path.join(dir, 'out'), '--', process.execPath, 'sleeper.js'], { cwd: dir, stdio: 'ignore' });
    const deadline = Date.now() + 30000;
    while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    braid.kill('SIGKILL');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const until = Date.now() + 8000;
    while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    assert.equal(alive(), false, `the program (pid ${pid}) outlived braid`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TypeScript through tsx: the program\'s own stack traces still name the .ts lines (the inline source map is composed with the transform\'s edits)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-tsmap-'));
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    writeFileSync(
      path.join(dir, 'sum.test.ts'),
      [
        "import test from 'node:test';",
        "import assert from 'node:assert/strict';",
        'interface Box { total: number }',
        'const box: Box = { total: 0 };',
        'async function add(n: number): Promise<void> {',
        '  const before: number = box.total;',
        '  await null;',
        '  box.total = before + n;',
        '}',
        "test('adds', async () => {",
        '  await Promise.all([add(1), add(2)]);',
        "  assert.equal(box.total, 3, 'the total is off');",
        '});',
      ].join('\n'),
    );
    const summary = await recordIn(dir, [process.execPath, '--import', 'tsx', '--test', 'sum.test.ts']);
    assert.equal(summary.failed, 1, JSON.stringify(summary.runs));
    const outcome = JSON.parse(readFileSync(summary.traces[0], 'utf8').trim().split('\n').pop()!);
    assert.deepEqual(outcome.location, { file: 'sum.test.ts', line: 12 }, JSON.stringify(outcome));
    const locs = readFileSync(summary.traces[0], 'utf8').split('\n').filter((l) => l.includes('"def":"loc"')).map((l) => JSON.parse(l));
    assert.ok(locs.some((l) => l.file === 'sum.test.ts' && l.line === 8), 'the write of box.total at its .ts line');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a private method keeps its `#` and a computed key its source in frame names (lru-cache: `LRUCache.#backgroundFetch`, not `LRUCache.<computed>`)', () => {
  const src = 'class Cache {\n  #fetch(k) { return this.m.get(k); }\n  [Symbol.iterator]() { return [][Symbol.iterator](); }\n  get(k) { return this.#fetch(k); }\n}\nmodule.exports = Cache;\n';
  const code = instrument(src, { file: 'cache.js', module: false }).code;
  const names = [...code.matchAll(/\d+,"([^"]+)"/g)].map((m) => m[1]);
  assert.ok(names.includes('Cache.#fetch'), names.join(', '));
  assert.ok(names.includes('Cache.[Symbol.iterator]'), names.join(', '));
  assert.ok(names.includes('Cache.get'), names.join(', '));
  assert.ok(!names.some((n) => n.includes('<computed>')), names.join(', '));
});

/** The accesses of one instrumented run of `js` (a CommonJS body that returns a promise): its value and `thread|type|variable|method` per access. */
async function accessesOf(js: string, file: string): Promise<{ value: unknown; accesses: string[]; methods: string[] }> {
  const code = instrument(js, { file, module: false }).code;
  assert.equal(code.split('\n').length, js.split('\n').length, 'no line added or removed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-'));
  try {
    const out = path.join(dir, 't.trace.jsonl.part');
    const rt = new BraidRuntime({ out, execution: 'compiled-0', noise: 0, seed: '1', include: [], exclude: [], root: dir });
    const value = await new Function('__braid', 'exports', code)(rt, {});
    rt.close();
    const threads = new Map<number, string>();
    const vars = new Map<number, string>();
    const locs = new Map<number, string>();
    const accesses: string[] = [];
    for (const l of readFileSync(out, 'utf8').trim().split('\n')) {
      if (l.startsWith('{')) {
        const d = JSON.parse(l);
        if (d.def === 'thread') threads.set(d.id, d.name.replace(/ #\d+$/, ''));
        if (d.def === 'var') vars.set(d.id, d.name);
        if (d.def === 'loc') locs.set(d.id, d.method);
      } else if (l.startsWith('[')) {
        const e = JSON.parse(l);
        if ((e[2] === 'R' || e[2] === 'W') && vars.get(e[3]) !== 'Object.__awaiter') accesses.push(`${threads.get(e[1])}|${e[2]}|${vars.get(e[3])}|${locs.get(e[4])}`);
      }
    }
    return { value, accesses: accesses.sort(), methods: [...new Set(locs.values())].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an async function compiled to a generator (TypeScript below ES2017: __awaiter) is recorded as the async function it was written as: the same accesses, tasks and names as the native one', async () => {
  const ts = await import('typescript');
  const src = `
const store = new Map<string, number>();
let loads = 0;
function caching(name: string) {
  return (async () => {
    const prefix = name + ':';
    return {
      wrap: async (key: string, fn: () => Promise<number>) => {
        const v = store.get(prefix + key);
        if (v !== undefined) return v;
        const r = await fn();
        store.set(prefix + key, r);
        return r;
      },
    };
  })();
}
async function main(...xs: number[]) {
  const c = await caching('c');
  const load = async () => { loads++; await null; return arguments.length + xs.length + (await Promise.resolve(1)); };
  const got = await Promise.all([c.wrap('k', load), c.wrap('k', load)]);
  return [got.join(','), loads, store.size];
}
return main(1, 2);
`;
  const compile = (target: number) => ts.transpileModule(src, { compilerOptions: { target, module: ts.ModuleKind.CommonJS } }).outputText;
  const down = compile(ts.ScriptTarget.ES2015);
  assert.match(down, /__awaiter\(this, void 0, void 0, function\* \(\)/, 'TypeScript emitted __awaiter');
  const native = await accessesOf(compile(ts.ScriptTarget.ES2022), 'prog.js');
  const compiled = await accessesOf(down, 'prog.js');
  assert.deepEqual(compiled.value, await new Function('exports', down)({}), 'the compiled program computes what it computes without Braid');
  assert.deepEqual(compiled.value, native.value);
  assert.deepEqual(compiled.accesses, native.accesses);
  assert.ok(compiled.methods.includes('wrap in caching/<anonymous>') && compiled.methods.includes('main'), compiled.methods.join(', '));
  assert.ok(!compiled.methods.some((m) => /step|fulfilled|adopt/.test(m) && m !== '<module>'), `no frame of the helper's: ${compiled.methods.join(', ')}`);
});

test('Babel\'s _asyncToGenerator(function* …) is recorded as the async function too; a custom promise constructor or a yield* keeps the generator', async () => {
  // the helper as Babel 7 emits it
  const helper = `function asyncGeneratorStep(n, t, e, r, o, a, c) { try { var i = n[a](c), u = i.value; } catch (n) { return void e(n); } i.done ? t(u) : Promise.resolve(u).then(r, o); }
function _asyncToGenerator(n) { return function () { var t = this, e = arguments; return new Promise(function (r, o) { var a = n.apply(t, e); function _next(n) { asyncGeneratorStep(a, r, o, _next, _throw, "next", n); } function _throw(n) { asyncGeneratorStep(a, r, o, _next, _throw, "throw", n); } _next(void 0); }); }; }
`;
  const program = `${helper}const box = { n: 0 };
function bump(_x) { return _bump.apply(this, arguments); }
function _bump() {
  _bump = _asyncToGenerator(function* (k) {
    const v = box.n;
    yield null;
    box.n = v + k;
    return box.n;
  });
  return _bump.apply(this, arguments);
}
return Promise.all([bump(1), bump(2)]).then((r) => [r, box.n]);
`;
  const got = await accessesOf(program, 'babel.js');
  assert.deepEqual(got.value, await new Function('exports', program)({}));
  assert.ok(got.methods.includes('bump'), `the generator is named after the function it is the body of: ${got.methods.join(', ')}`);
  const native = await accessesOf(`const box = { n: 0 };\nasync function bump(k) {\n  const v = box.n;\n  await null;\n  box.n = v + k;\n  return box.n;\n}\nreturn Promise.all([bump(1), bump(2)]).then((r) => [r, box.n]);\n`, 'babel.js');
  assert.deepEqual(got.value, native.value);
  assert.deepEqual(got.accesses, native.accesses, 'the same accesses in the same tasks as the async function it was written as');
  assert.ok(got.accesses.some((a) => a.startsWith('async bump|')), got.accesses.join('\n'));
  const keep = instrument('function f(P) { return __awaiter(this, void 0, P, function* () { yield 1; }); }\nfunction g() { return __awaiter(this, void 0, void 0, function* () { yield* [1]; }); }\n', { file: 'keep.js', module: false }).code;
  assert.equal((keep.match(/function\* \(\)/g) ?? []).length, 2, keep);
});

test('a call through a field the module assigns (a hook: `self.drain()` where `q.drain = fn` replaces it) is a read of the field; a prototype\'s method called by a name also assigned elsewhere is not', async () => {
  const program = `function noop() {}
function make() {
  const self = { drain: noop, running: 0, release };
  function release() { self.running--; if (self.running === 0) self.drain(self.running); }
  return self;
}
class Box { size() { return 1; } }
const q = make();
q.running = 1;
const seen = [];
function drained() { q.drain = function () { seen.push('drained'); }; }
const other = { size: 2 };
other.size = 3;
const b = new Box();
q.log = (...xs) => xs.length;
return Promise.resolve().then(() => { q.release(); drained(); q.running = 1; q.release(); return [seen.length, b.size(), other.size, q.log(1, 2, 3) + q.log(...[1]) + q.log(1, 2)]; });
`;
  const got = await accessesOf(program, 'hooks.js');
  assert.deepEqual(got.value, await new Function('exports', program)({}));
  assert.ok(got.accesses.some((a) => /\|R\|Object\.drain\|release in make$/.test(a)), got.accesses.join('\n'));
  assert.ok(got.accesses.some((a) => /\|W\|Object\.drain\|drained$/.test(a)), got.accesses.join('\n'));
  assert.equal(got.accesses.filter((a) => /\|R\|Object\.log\|/.test(a)).length, 3, 'a call with three arguments, with a spread and with two reads the field each time');
  assert.ok(!got.accesses.some((a) => a.includes('Box.size')), 'a class method is no field read');
  assert.ok(!got.accesses.some((a) => a.includes('Object.release')), 'release is never assigned as o.release = …');
});
