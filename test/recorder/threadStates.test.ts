/**
 * The hooks find the current thread's recorder state in a table by thread id (issue 45;
 * server/java-agent/.../runtime/ThreadStates.java) only for threads of class `Thread` itself: a
 * subclass may override `getId` in application code, which is instrumented, and a hook that called
 * it would record the override's accesses, whose hooks would call it again until the stack
 * overflows. test/fixtures/java/threadstates/Subclassed.java: a `Thread` subclass whose `getId`
 * reads and writes a field, and a plain `Thread`, both incrementing a shared field.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir, prepare, record } from './recorderHarness';

before(() => prepare());

const SOURCE = readFileSync(path.join(fixturesDir, 'threadstates/Subclassed.java'), 'utf8').split('\n');
/** 1-based line of the line of threadstates/Subclassed.java ending with `// marker`. */
function lineOf(marker: string): number {
  const k = SOURCE.findIndex((l) => l.trimEnd().endsWith(`// ${marker}`));
  assert.ok(k >= 0, marker);
  return k + 1;
}

test('a Thread subclass overriding getId in recorded code is recorded like a plain thread (the state lookup does not call the override)', async () => {
  const s = await record('threadstates', 'threadstates.Subclassed', { runs: 1, include: ['threadstates'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass', `outcome ${s.runs[0].outcome}`);
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = lines.filter((l) => Array.isArray(l)) as unknown[][];
  const writers = new Set(events.filter((e) => e[2] === 'W' && vars.get(e[3] as number) === 'threadstates.Subclassed.shared').map((e) => e[1]));
  assert.equal(writers.size, 2, `shared written by both workers: ${[...writers]}`);
  const writes = events.filter((e) => e[2] === 'W' && vars.get(e[3] as number) === 'threadstates.Subclassed.shared');
  assert.equal(writes.length, 200, 'every increment of shared recorded');
  // the override is instrumented: main's own call to it is recorded
  const idCalls = events.filter((e) => vars.get(e[3] as number) === 'threadstates.Subclassed$Worker.idCalls');
  assert.ok(idCalls.length > 0, 'accesses of idCalls recorded');
  assert.ok(idCalls.every((e) => locs.get(e[4] as number)!.line === lineOf('idCalls in getId')), 'at the override');
});
