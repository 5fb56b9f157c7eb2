/**
 * What the Node.js recorder sees and how it names it (issue 42 item 6, issue 38's Node misses;
 * docs/recorder-node.md "What is recorded", "Tasks"): one real `node` run of a small program with
 *   - symbol-keyed fields (`this[STATE]`, opossum's circuit state) as fields named by the symbol, and a
 *     symbol value as its description;
 *   - private fields (`this.#items[i] = v`, `this.#count++`, a static `Store.#made`) and a private async method;
 *   - an array-like (`Queue.prototype = []`): its push recorded as an array call, its fields named Queue;
 *   - a TypedArray's fill recorded as a call of a collection;
 *   - anonymous callbacks named in JS terms (`'open' listener of Breaker`, `then callback of fetchUser`,
 *     `setTimeout callback in Breaker.trip`) and their tasks after them;
 *   - a MessageChannel message: postMessage's SND received by the other port's 'message' task.
 * Needs dist/braid-node-hook.mjs (node scripts/build.mjs).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs } from '../../server/src/recorder/runs/recordOptions';
import { recordRuns } from '../../server/src/recorder/runs/recordRuns';

const PROGRAM = `
const { EventEmitter } = require('node:events');
const STATE = Symbol('state'), KIND = Symbol('fast');
class Breaker extends EventEmitter {
  constructor() {
    super();
    this[STATE] = 'closed'; this.kind = KIND;
    this.on('open', () => { this.opened = this[STATE]; });
  }
  trip() {
    this[STATE] = 'open';
    this.emit('open');
    setTimeout(() => { this[STATE] = 'half'; }, 1);
  }
}
function Queue() {}
Queue.prototype = [];
class Store {
  #items = [];
  #count = 0;
  static #made = 0;
  constructor() { Store.#made = Store.#made + 1; }
  add(v) { this.#items[this.#count] = v; this.#count++; }
  get size() { return this.#count; }
  async #refill() { await null; this.#items[0] = 'refilled'; }
  refill() { return this.#refill(); }
}
async function fetchUser() { await null; return { id: 1 }; }
const shared = { x: 0 };
async function main() {
  const b = new Breaker();
  b.trip();
  const q = new Queue();
  q.push(1);
  q.label = 'jobs';
  const s = new Store();
  s.add('a');
  await s.refill();
  fetchUser().then((u) => { shared.user = u.id; });
  const { port1, port2 } = new MessageChannel();
  port2.on('message', (m) => { shared.seen = shared.x + m; port2.close(); });
  shared.x = 41;
  port1.postMessage(1);
  const u8 = new Uint8Array(4);
  u8.fill(7);
  await new Promise((r) => setTimeout(r, 20));
  if (b[STATE] !== 'half' || s.size !== 1 || q.length !== 1 || shared.seen !== 42 || shared.user !== 1) { console.error('wrong', b[STATE], s.size, q.length, shared); process.exitCode = 1; }
}
main();
`;

test('symbol-keyed and private fields, array-likes and typed arrays are recorded, callbacks and their tasks named in JS terms, MessageChannel messages ordered', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-names-'));
  try {
    writeFileSync(path.join(dir, 'app.js'), PROGRAM);
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, `the program computes what it computes without the recorder: ${JSON.stringify(summary.runs)}`);
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
    const locs = new Map<number, { line: number; method: string; call?: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const threads = new Map<number, string>(lines.filter((l) => l.def === 'thread').map((l) => [l.id, l.name]));
    const events = lines.filter(Array.isArray);
    const accesses = events.filter((e) => e[2] === 'R' || e[2] === 'W');
    const named = (name: string) => accesses.filter((e) => vars.get(e[3]) === name);
    const seen = `vars: ${[...vars.values()].join(', ')}\nmethods: ${[...new Set([...locs.values()].map((l) => l.method))].join(', ')}\nthreads: ${[...threads.values()].join(', ')}`;

    // symbol-keyed fields: the state's writes in the constructor, trip and the timer, its read in the listener
    const state = named('Breaker[Symbol(state)]');
    assert.deepEqual(state.filter((e) => e[2] === 'W').map((e) => e[8]), ['closed', 'open', 'half'], seen);
    assert.ok(state.some((e) => e[2] === 'R' && e[8] === 'open'), seen);
    // a symbol value is its description (null before: the ranking reads null as empty)
    assert.deepEqual(named('Breaker.kind').map((e) => `${e[2]} ${e[8]}`), ['W Symbol(fast)'], seen);
    // private fields: the holder's field and the array element through it; a static private field by its class
    assert.ok(named('Store.#items').length >= 2, seen);
    assert.deepEqual(named('Store.#count').map((e) => `${e[2]}${e[8]}`).slice(0, 3), ['R0', 'R0', 'W1'], seen);
    assert.deepEqual(named('Store.#made').map((e) => `${e[2]}${e[8]}`), ['R0', 'W1'], seen);
    const elems = named('Array[]').filter((e) => e[2] === 'W');
    assert.deepEqual(elems.map((e) => [locs.get(e[4])!.method, e[8]]), [['Store.add', 'a'], ['Store.#refill', 'refilled']], seen);
    // the array-like: push is a call on a collection, its own field is Queue's (not Array's)
    assert.ok(accesses.some((e) => locs.get(e[4])!.call === 'Array.push' && locs.get(e[4])!.line === 34), seen);
    assert.equal(named('Queue.label').length, 1, seen);
    assert.ok(![...vars.values()].includes('Array.label'), seen);
    assert.ok(accesses.some((e) => locs.get(e[4])!.call === 'TypedArray.fill' && e[2] === 'W'), seen);
    // callbacks' names, and their tasks'
    const methods = new Set([...locs.values()].map((l) => l.method));
    for (const m of ["'open' listener of Breaker", 'then callback of fetchUser in main', 'setTimeout callback in Breaker.trip', "'message' listener of port2 in main"]) assert.ok(methods.has(m), `${m}\n${seen}`);
    const taskNames = [...threads.values()].map((t) => t.replace(/ #\d+$/, ''));
    for (const t of ['then callback of fetchUser in main', 'setTimeout callback in Breaker.trip', "'message' listener of port2 in main"]) assert.ok(taskNames.includes(t), `${t}\n${seen}`);
    assert.ok(!taskNames.some((t) => /^(Object|then|setTimeout|MessagePort)$/.test(t)), seen);
    // the message: main's SND at postMessage is received by the listener's task before its read of x
    const listener = [...threads].find(([, n]) => n.startsWith("'message' listener"))![0];
    const read = accesses.find((e) => e[1] === listener && vars.get(e[3]) === 'Object.x')!;
    assert.equal(read[8], 41, seen);
    const mainTask = accesses.find((e) => e[2] === 'W' && vars.get(e[3]) === 'Object.x')![1];
    const sentByMain = new Set(events.filter((e) => e[2] === 'SND' && e[1] === mainTask && e[0] > accesses.find((a) => a[2] === 'W' && vars.get(a[3]) === 'Object.x')![0]).map((e) => e[3]));
    assert.ok(events.some((e) => e[2] === 'RCV' && e[1] === listener && sentByMain.has(e[3]) && e[3] >= 2 ** 40 && e[0] < read[0]), `the listener receives main's token sent after its write of x\n${seen}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a computed key that the code also writes as `o.key` is that field (genpool-clear\'s iterator: `this._list[this._startPosition]` reads DoublyLinkedList.head); other string keys stay entries of a dictionary', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-computed-'));
  try {
    writeFileSync(
      path.join(dir, 'app.js'),
      [
        'class List { constructor() { this.head = null; } add(n) { this.head = n; } }',
        'const list = new List();',
        'list.add({ next: null, data: 1 });',
        'list.head.next = { next: null, data: 2 };',
        "const start = 'head', dir = 'next';",
        'const first = list[start];',
        'const second = first[dir];',
        'const dict = {};',
        "dict['alice'] = second.data;",
        "if (dict['alice'] !== 2) process.exitCode = 1;",
      ].join('\n'),
    );
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, JSON.stringify(summary.runs));
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
    const locs = new Map<number, { line: number }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const accesses = lines.filter((l) => Array.isArray(l) && (l[2] === 'R' || l[2] === 'W'));
    const at = (line: number) => accesses.filter((e) => locs.get(e[4])!.line === line).map((e) => `${e[2]} ${vars.get(e[3])} ${e[7]}`);
    const seen = accesses.map((e) => `${e[2]} ${vars.get(e[3])} :${locs.get(e[4])!.line} ${e[7]}`).join('\n');
    // the head written in add (line 1) and read through list[start] (line 6): one field, the same location
    assert.ok(at(1).includes('W List.head -1'), seen);
    assert.deepEqual(at(6), ['R List.head -1'], seen);
    const headObj = (line: number) => accesses.find((e) => locs.get(e[4])!.line === line && vars.get(e[3]) === 'List.head')![6];
    assert.equal(headObj(6), headObj(1), seen);
    // first[dir] reads the node's next field, written as `.next` on line 4
    assert.ok(at(4).includes('W Object.next -1'), seen);
    assert.deepEqual(at(7), ['R Object.next -1'], seen);
    // a key no code names as a field: an entry of the dictionary
    assert.ok(at(9).some((a) => /^W Object\[\] \d{10}$/.test(a)), seen);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('compound assignments of a private field (`this.#n += e`) and logical assignments of a field (`o.x ??= e`, `||=`, `&&=`) are a read and, when it happens, a write; the program computes the same', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-logical-'));
  try {
    writeFileSync(
      path.join(dir, 'app.js'),
      [
        'class C { #n = 1; add(e) { this.#n += e; this.#n *= 2; return this.#n; } }',
        'const o = { x: null, y: 0, z: 5 };',
        "o.x ??= 'a';",
        "o.x ??= 'b';",
        'o.y ||= 3;',
        'o.z &&= o.z + 1;',
        "const k = 'w';",
        'o[k] ??= 1;',
        'const n = new C().add(2);',
        "if (n !== 6 || o.x !== 'a' || o.y !== 3 || o.z !== 6 || o.w !== 1) { console.error('wrong', n, o); process.exitCode = 1; }",
      ].join('\n'),
    );
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, `the program computes what it computes without the recorder: ${JSON.stringify(summary.runs)}`);
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
    const locs = new Map<number, { line: number }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const accesses = lines.filter((l) => Array.isArray(l) && (l[2] === 'R' || l[2] === 'W'));
    const at = (line: number) => accesses.filter((e) => locs.get(e[4])!.line === line).map((e) => `${e[2]} ${vars.get(e[3])} ${JSON.stringify(e[8])}`);
    const seen = accesses.map((e) => `${e[2]} ${vars.get(e[3])} :${locs.get(e[4])!.line} ${JSON.stringify(e[8])}`).join('\n');
    assert.deepEqual(at(1).filter((a) => a.includes('#n')), ['R C.#n 1', 'W C.#n 3', 'R C.#n 3', 'W C.#n 6', 'R C.#n 6'], seen);
    assert.deepEqual(at(3), ['R Object.x null', 'W Object.x "a"'], seen);
    assert.deepEqual(at(4), ['R Object.x "a"'], seen);
    assert.deepEqual(at(5), ['R Object.y 0', 'W Object.y 3'], seen);
    assert.deepEqual(at(6), ['R Object.z 5', 'R Object.z 5', 'W Object.z 6'], seen);
    // o[k] with k = 'w', which line 10 names as o.w: the field
    assert.deepEqual(at(8), ['R Object.w "undefined"', 'W Object.w 1'], seen);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a named nested function is named with the function it was made in (`savedCallback in Db.save`, lokijs\' saveDatabasecallback), a prototype method with its constructor (`Db.clearFlags`); its variables keep its own name', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-node-nested-'));
  try {
    writeFileSync(
      path.join(dir, 'app.js'),
      [
        '(function () {', // a module wrapper (UMD): anonymous, so not named in the functions it holds
        '  function Db() { this.dirty = false; }',
        '  Db.prototype.clearFlags = function () { this.dirty = false; };',
        '  Db.prototype.save = function (cb) {',
        '    const self = this;',
        '    setTimeout(function savedCallback() { self.clearFlags(); cb(); }, 1);',
        '  };',
        '  function makeHandler(db) {',
        '    return function handle() {',
        '      let count = 0;',
        '      const bump = () => { count++; };',
        '      bump();',
        '      db.dirty = count === 1;',
        '    };',
        '  }',
        '  function makeCounter(db) {',
        '    return { tick() { let step = 1; db.ticks = (db.ticks || 0) + step; }, [Symbol.iterator]: function* () { yield db.ticks; } };',
        '  }',
        '  const top = { reset() { db.ticks = 0; } };',
        '  const db = new Db();',
        '  db.save(function done() { if (db.dirty !== false) process.exitCode = 1; });',
        '  makeHandler(db)();',
        '  const counter = makeCounter(db);',
        '  counter.tick();',
        '  for (const t of counter) if (t !== 1) process.exitCode = 1;',
        '  top.reset();',
        '})();',
      ].join('\n'),
    );
    const summary = await recordRuns(parseRecordArgs(['--runs', '1', '--noise', '0', '--seed', '1', '--out', path.join(dir, 'out'), '--', process.execPath, 'app.js'], dir));
    assert.equal(summary.passed, 1, `the program computes what it computes without the recorder: ${JSON.stringify(summary.runs)}`);
    const lines = readFileSync(summary.traces[0], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
    const locs = new Map<number, { line: number; method: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
    const accesses = lines.filter((l) => Array.isArray(l) && (l[2] === 'R' || l[2] === 'W'));
    const methods = new Set([...locs.values()].map((l) => l.method));
    const seen = `methods: ${[...methods].join(', ')}\naccesses: ${accesses.map((e) => `${e[2]} ${vars.get(e[3])} :${locs.get(e[4])!.line} ${locs.get(e[4])!.method}`).join('; ')}`;
    // the write of dirty in the timer's callback: clearFlags, called by the named callback made in save
    const clear = accesses.find((e) => e[2] === 'W' && vars.get(e[3]) === 'Db.dirty' && locs.get(e[4])!.line === 3);
    assert.equal(clear && locs.get(clear[4])!.method, 'Db.clearFlags', seen);
    for (const m of ['Db', 'savedCallback in Db.save', 'handle in makeHandler', 'bump in handle in makeHandler']) assert.ok(methods.has(m), `${m}\n${seen}`);
    // an object literal's method made in a function is named with it (p-map's `[Symbol.asyncIterator] in pMapIterable`);
    // one made at the wrapper's top level keeps its key; its variables keep the method's own name
    for (const m of ['tick in makeCounter', '[Symbol.iterator] in makeCounter', 'reset']) assert.ok(methods.has(m), `${m}\n${seen}`);
    assert.ok(!methods.has('tick') && !methods.has('reset in <anonymous>'), seen);
    // the stack of that write goes through the callback, named where it was made
    const stacks = new Map<number, { frames?: number[]; parent?: number; frame?: number }>(lines.filter((l) => l.def === 'stack').map((l) => [l.id, l]));
    const frames = (id: number): number[] => {
      const s = stacks.get(id);
      if (!s) return [];
      return s.frames ?? [...frames(s.parent!), s.frame!];
    };
    assert.ok(frames(clear![5]).some((f) => locs.get(f)?.method === 'savedCallback in Db.save'), seen);
    // a function at the wrapper's top level keeps its name; the test's own callback at the wrapper's level too
    assert.ok(!methods.has('Db in <anonymous>') && methods.has('done'), seen);
    // a variable of a nested function is named by the function's own name, not where it was made
    assert.ok([...vars.values()].includes('app.js:handle.count'), `${[...vars.values()].join(', ')}\n${seen}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
