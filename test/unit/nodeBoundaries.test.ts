/**
 * Suspension points outside the include list (issue 40; server/src/recorder/node/boundaries.ts,
 * docs/recorder-node.md "Forcing"): in a forcing run every JavaScript file that the include list
 * leaves out gets its awaits as suspension points of forcing and nothing else. The transform on its
 * own (the code it writes, the program's results without a runtime), and the learning across an
 * await whose continuation runs in another task (NodeForcing.resume), by hand.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { instrumentBoundaries, MAX_BOUNDARY_SOURCE } from '../../server/src/recorder/node/boundaries';
import { ForcedTask, NodeForcing } from '../../server/src/recorder/node/forcing';

test('each await becomes __bC(await __bA(e, S), S), nested ones inside out; lines are kept; no await: the file as it is', () => {
  const code = ['async function request(s) {', '  await s.ready();', '  return [await (await s.a()), await s.b()];', '}', 'const f = async () => await 1;'].join('\n');
  const r = instrumentBoundaries(code, { file: 'app.mjs', module: true })!;
  assert.equal(r.sites, 5);
  assert.equal(r.code.split('\n').length, 5, 'no line added or removed');
  assert.match(r.code, /__bC\(await __bA\(s\.ready\(\),__bl\+0\),__bl\+0\);/);
  assert.match(r.code, /__bC\(await \(__bA\(__bC\(await __bA\(s\.a\(\),__bl\+1\),__bl\+1\),__bl\+2\)\),__bl\+2\)/);
  assert.match(r.code, /__bB\.mod\("app\.mjs", \[2,"request",3,"request",3,"request",3,"request",5,"f"\], \[\], null\)/);
  assert.equal(instrumentBoundaries('const x = 1;\n', { file: 'a.js', module: false }), undefined);
  assert.equal(instrumentBoundaries(`// await\n${' '.repeat(MAX_BOUNDARY_SOURCE)}`, { file: 'big.js', module: false }), undefined, 'a bundle that big is left as it is');
});

test('a directive prologue and a hashbang stay first', () => {
  const r = instrumentBoundaries("#!/usr/bin/env node\n'use strict'\nasync function m() { await 0; }\n", { file: 'bin.js', module: false })!;
  assert.match(r.code, /^#!\/usr\/bin\/env node\n'use strict'; const __bB = globalThis\.__braid/);
});

test('without a runtime (or outside a forcing run) the program computes what it did', async () => {
  const code = [
    'async function twice(x) { return 2 * (await x); }',
    'async function main() { const a = await twice(Promise.resolve(3)); const b = await twice(await 4); return [a, b, await (async () => { try { await Promise.reject(new Error("no")); } catch (e) { return e.message; } })()]; }',
    'result = main();',
  ].join('\n');
  const r = instrumentBoundaries(code, { file: 'p.js', module: false })!;
  const ran = (src: string, braid?: object) => {
    const ctx: Record<string, unknown> = { Promise, Error };
    ctx.globalThis = braid ? { __braid: braid } : {};
    vm.runInNewContext(src, ctx);
    return ctx.result as Promise<unknown>;
  };
  // (arrays of the context's realm: compared as JSON)
  assert.equal(JSON.stringify(await ran(r.code)), JSON.stringify(await ran(code)));
  // a runtime whose ab/ac give back the value (a recording run's, or forcing stopped)
  const seen: number[] = [];
  const rt = { mod: () => [100, 0], ab: (v: unknown, s: number) => (seen.push(s), v), ac: (v: unknown) => v };
  assert.equal(JSON.stringify(await ran(r.code, rt)), '[6,8,"no"]');
  assert.ok(seen.length === 7 && seen.every((s) => s >= 100 && s <= 105), `each await passed (twice's twice), a site of the module: ${seen}`);
});

test('an await whose continuation runs in another task: the access after it followed the await, and a hold there counts once that task performs it', async () => {
  const spec = {
    order: 'pattern' as const,
    waitMs: 5000,
    times: 1,
    accesses: [
      { role: 1, type: 'W' as const, variable: 'Settings.values', file: 'lib/settings.mjs', line: 17, method: 'Settings.reload/<anonymous>' },
      { role: 2, type: 'R' as const, variable: 'Settings.values', file: 'lib/settings.mjs', line: 26, method: 'Settings.current' },
    ],
    waits: [{ at: 1, for: 0, sameObject: false }],
  };
  const task = (): ForcedTask => ({ forceLast: null, forceObj: null, forceSite: -1, forceAfter: 0, forcePending: -1 });
  const awaitAt = () => ({ file: 'app.mjs', line: 12, method: 'request' });
  const other = () => ({ file: 'app.mjs', line: 22, method: '<module>' });
  // a first run: main passes the request's await, then (the request suspended) its own await; the
  // continuation of the request's await runs in a task of its own and reads the settings
  const first = new NodeForcing(spec);
  const main = task();
  assert.equal(first.suspend(main, 0, 5, awaitAt), null);
  assert.equal(first.suspend(main, 0, 6, other), null);
  const cont = task();
  first.resume(cont, 5);
  first.performed(cont, 0b10, 1);
  const learned = first.boundaryLines((site) => (site === 5 ? awaitAt() : other()));
  assert.match(learned, /"at":"app\.mjs\\t12\\trequest","passes":1,"followed":\{"R Settings\.values lib\/settings\.mjs:26 Settings\.current":1\}/);
  assert.doesNotMatch(learned, /<module>/, 'nothing followed the other await');
  // the next run holds main at the request's await until the reload's write; the continuation, in
  // main again after main passed its other await, performs the read: the wait is met
  const next = new NodeForcing(spec);
  next.loadBoundaries(learned);
  const m2 = task();
  const held = next.suspend(m2, 0, 5, awaitAt);
  assert.ok(held, 'held at the learned await');
  assert.equal(next.suspend(m2, 0, 6, other), null);
  next.performed(task(), 0b01, 1);
  await held;
  next.resume(m2, 5);
  assert.match(next.reportLine(), /"met":0/, 'not met before the held task reads');
  next.performed(m2, 0b10, 1);
  assert.match(next.reportLine(), /"ok":true/);
});

test('a flow split off a task at a learned await: the task\'s performances before the split are its own, later ones are another flow\'s', () => {
  const spec = {
    order: 'pattern' as const,
    waitMs: 5000,
    times: 1,
    accesses: [
      { role: 1, type: 'W' as const, variable: 'Collection.dirty', file: 'lib.js', line: 10, method: 'update' },
      { role: 2, type: 'R' as const, variable: 'Collection.dirty', file: 'lib.js', line: 20, method: 'close' },
    ],
    waits: [{ at: 1, for: 0, sameObject: false }],
  };
  const task = (): ForcedTask => ({ forceLast: null, forceObj: null, forceSite: -1, forceAfter: 0, forcePending: -1 });
  const place = () => ({ file: 'test.mjs', line: 36, method: '<anonymous>' });
  const f = new NodeForcing(spec);
  f.loadBoundaries(JSON.stringify({ at: 'test.mjs\t36\t<anonymous>', passes: 1, followed: { 'R Collection.dirty lib.js:20 close': 1 } }) + '\n');
  assert.equal(f.learnedAt(9, place), 0b10);
  const t = task();
  f.performed(t, 0b01, 1);
  const c = task();
  f.split(t, c);
  assert.ok(f.suspend(c, 0, 9, place), 'the write before the split is the flow\'s own: held');
  f.performed(t, 0b01, 1);
  f.performed(c, 0b10, 1);
  assert.match(f.reportLine(), /"ok":true/, 'the parent\'s write after the split met it, and the flow made its read');
});
