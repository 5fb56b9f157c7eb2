/**
 * Fuzz-style robustness: 10,000+ mutated trace files (byte flips,
 * truncation, deleted/duplicated/swapped lines, junk JSON, gzip damage)
 * go through the reader and the UNICORN collector. Nothing may throw, and
 * every error names the file and a line.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { PatternRegistry } from '../../server/src/engine/unicorn/patternRegistry';
import { UnicornCollector } from '../../server/src/engine/unicorn/unicornCollector';
import { buildTraceText } from '../helpers/traceBuilder';
import { rng } from '../helpers/seededRandom';

const base = buildTraceText({
  execution: 'fuzz',
  outcome: 'fail',
  events: Array.from({ length: 60 }, (_, k) => `${k % 3 ? 'W' : 'R'}${(k % 4) + 1} v${k % 5} S${(k % 9) + 1}${k % 7 === 0 ? ' @obj=3 @elem=2' : ''}`),
});
const junk = ['{}', '[]', 'null', '[1]', '{"def":"var"}', '{"def":"loc","id":1}', '[1e400,1,"W",0,0]', '"str"', '[-1,1,"R",0,0]', '{"outcome":1}', '[9007199254740993,1,"W",0,0]', '\u0000\u0001', '[1,1,"W",0,0,{"x":1}]', '{"def":"stack","id":1,"parent":99,"frame":0}', '[1,1,"ENTER",123456]', '{"braid":"trace","version":1}'];

function mutate(r: () => number): { name: string; data: Buffer } {
  let lines = base.split('\n');
  const ops = 1 + Math.floor(r() * 3);
  for (let k = 0; k < ops; k++) {
    const op = Math.floor(r() * 7);
    const at = Math.floor(r() * lines.length);
    if (op === 0) lines.splice(at, 1);
    else if (op === 1) lines.splice(at, 0, lines[Math.floor(r() * lines.length)]);
    else if (op === 2) lines.splice(at, 0, junk[Math.floor(r() * junk.length)]);
    else if (op === 3) {
      const b = Math.floor(r() * lines.length);
      [lines[at], lines[b]] = [lines[b], lines[at]];
    } else if (op === 4) {
      const l = lines[at] ?? '';
      const p = Math.floor(r() * (l.length + 1));
      lines[at] = l.slice(0, p) + String.fromCharCode(32 + Math.floor(r() * 95)) + l.slice(p + 1);
    } else if (op === 5) lines = lines.slice(0, Math.max(1, at));
    else lines[at] = (lines[at] ?? '').slice(0, Math.floor(r() * (lines[at]?.length ?? 0)));
  }
  let data = Buffer.from(lines.join('\n'));
  if (r() < 0.1) {
    // raw byte damage
    data = Buffer.from(data);
    for (let k = 0; k < 3; k++) data[Math.floor(r() * data.length)] = Math.floor(r() * 256);
  }
  if (r() < 0.15) {
    let gz = gzipSync(data);
    if (r() < 0.6) gz = gz.subarray(0, Math.floor(r() * gz.length));
    else if (r() < 0.5) {
      gz = Buffer.from(gz);
      gz[10 + Math.floor(r() * (gz.length - 10))] ^= 0xff;
    }
    return { name: 'f.trace.jsonl.gz', data: gz };
  }
  return { name: 'f.trace.jsonl', data };
}

test('10,000 mutated traces: no uncaught exception, every error names file and line', async () => {
  const r = rng(20261123);
  let errors = 0;
  let ok = 0;
  const reg = new PatternRegistry();
  for (let n = 0; n < 10000; n++) {
    const { name, data } = mutate(r);
    const file = `${name.replace('f.', `case${n}.`)}`;
    const collector = new UnicornCollector(reg, 5, 100);
    const res = await readTraceBuffer(file, data, collector);
    if (res.ok) {
      collector.finish();
      ok++;
    }
    for (const d of res.diagnostics) {
      assert.equal(d.file, file);
      assert.ok(typeof d.line === 'number' && d.line >= 1, `no line in: ${d.message} (case ${n})`);
      assert.doesNotMatch(d.message, /unexpected error/, `case ${n}: ${d.message}`);
      if (d.severity === 'error') errors++;
    }
    if (!res.ok) assert.ok(res.diagnostics.some((d) => d.severity === 'error'), `case ${n}: skipped without an error`);
  }
  assert.ok(errors > 1000 && ok > 1000, `both outcomes exercised (errors ${errors}, ok ${ok})`);
});
