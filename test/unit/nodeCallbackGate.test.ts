/**
 * The runtime's callback gate (runtime.ts `gate`, docs/recorder-node.md "Forcing"), in one process: an
 * instrumented EventEmitter listener whose write a forcing plan makes wait for another task's read is
 * deferred out of `emit` and runs after that read; a listener removed by its function is removed; a
 * callback that is not an instrumented function (a bound function) is passed on as it is; a `then`
 * callback held before it starts still gives its promise its result. async_hooks are installed for
 * this test file's process (tasks are followed as in a recorded run).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { BraidRuntime } from '../../server/src/recorder/node/runtime';
import { NodeForceSpec } from '../../server/src/recorder/node/forcing';
import { instrument } from '../../server/src/recorder/node/transform';

const src = [
  "const { EventEmitter } = require('events');", // 1
  'class Box { constructor() { this.v = 0; } }', // 2
  'const box = new Box();', // 3
  'const e = new EventEmitter();', // 4
  'const log = [];', // 5
  'function onPing() {', // 6
  '  box.v = 1;', // 7: the listener's write (held until the reader's read)
  "  log.push('write');", // 8
  '}', // 9
  "e.on('ping', onPing);", // 10
  "e.emit('ping');", // 11
  "log.push('after emit');", // 12
  "setTimeout(function reader() { log.push('read ' + box.v); }, 0);", // 13: the read
  'const gone = () => {};', // 14
  "e.on('gone', gone);", // 15
  "e.off('gone', gone);", // 16
  'const later = Promise.resolve(2).then(function twice(x) { return x * box.v; });', // 17
  'return new Promise((res) => setTimeout(() => later.then((t) => res({ log, gone: e.listenerCount("gone"), twice: t })), 0));', // 18
].join('\n');

function spec(): NodeForceSpec {
  return {
    order: 'pattern',
    waitMs: 60_000,
    times: 1_000_000,
    accesses: [
      { role: 1, type: 'R', variable: 'Box.v', file: 'gate.js', line: 13, method: 'reader' },
      { role: 2, type: 'W', variable: 'Box.v', file: 'gate.js', line: 7, method: 'onPing' },
      { role: 1, type: 'R', variable: 'Box.v', file: 'gate.js', line: 17, method: 'twice' },
    ],
    // the listener's write waits for the reader's read; the then callback's read waits for the listener's write
    waits: [
      { at: 1, for: 0, sameObject: true },
      { at: 2, for: 1, sameObject: true },
    ],
  };
}

test('a gated listener is deferred out of emit until the other task has read; removal by its function, bound callbacks and then callbacks keep their meaning', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'braid-gate-'));
  try {
    const out = path.join(dir, 't.trace.jsonl.part');
    const rt = new BraidRuntime({ out, execution: 'gate-0', noise: 0, seed: '1', include: [], exclude: [], root: dir, force: spec() });
    rt.installHooks();
    const bound = function plain(this: unknown) {
      return this;
    }.bind(null);
    assert.equal(rt.gate(bound), bound, 'a bound function is not an instrumented one: passed on as it is');
    const code = instrument(src, { file: 'gate.js', module: false }).code;
    const got = await new Function('__braid', 'require', code)(rt, createRequire(__filename));
    rt.close();
    // without the gate: write, after emit, read 1
    assert.deepEqual(got.log, ['after emit', 'read 0', 'write'], 'the listener ran after the reader read');
    assert.equal(got.gone, 0, 'off(fn) removed the listener on(fn) added');
    assert.equal(got.twice, 2, "the then callback, held until the listener's write, gave its promise its result");
    const report = readFileSync(out, 'utf8').split('\n').find((l) => l.startsWith('{"forcing"'));
    assert.ok(report, 'the forcing report');
    const forcing = JSON.parse(report!).forcing;
    assert.equal(forcing.waits[0].met, 1, report);
    assert.equal(forcing.waits[1].met, 1, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
