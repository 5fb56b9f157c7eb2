/**
 * What the agent records (docs/recorder.md "What is recorded"), on test/fixtures/java/lifecycle/
 * Locks.java: Lock.tryLock()/lock()/unlock() as ACQ/REL at their lines, no event from the static
 * initializer, and no access of the synthetic this$0 field an inner class uses.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir, prepare, record } from './recorderHarness';

before(() => prepare());

/** 1-based line of the first source line containing `marker`. */
function lineOf(marker: string): number {
  const k = readFileSync(path.join(fixturesDir, 'lifecycle/Locks.java'), 'utf8').split('\n').findIndex((l) => l.includes(marker));
  assert.ok(k >= 0, marker);
  return k + 1;
}

test('locks are ACQ/REL at their lines; static initializers and synthetic fields are not recorded', async () => {
  const s = await record('locks', 'lifecycle.Locks', { runs: 1, include: ['lifecycle'], noise: 0 });
  assert.equal(s.runs[0].outcome, 'pass');
  const lines = readFileSync(s.traces[0], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const locs = new Map<number, { line: number; method: string }>(lines.filter((l) => l.def === 'loc').map((l) => [l.id, l]));
  const vars = new Map<number, string>(lines.filter((l) => l.def === 'var').map((l) => [l.id, l.name]));
  const events = lines.filter((l) => Array.isArray(l)) as unknown[][];
  const at = (kind: string) => events.filter((e) => e[2] === kind).map((e) => locs.get(e[4] as number)!.line).sort((a, b) => a - b);
  assert.deepEqual(at('ACQ'), [lineOf('// tryLock'), lineOf('// lock')].sort((a, b) => a - b));
  assert.deepEqual(at('REL'), [lineOf('// unlock after tryLock'), lineOf('// unlock after lock')].sort((a, b) => a - b));
  const accessLines = [...at('R'), ...at('W')];
  assert.ok(!accessLines.includes(lineOf('// static initializer')), 'no event from the static initializer');
  const names = [...vars.values()];
  assert.ok(!names.some((n) => n.includes('this$0')), `no synthetic field: ${names}`);
  // the inner class's own access is recorded (so the check above is not vacuous)
  assert.ok(at('R').includes(lineOf('value++;')) && at('W').includes(lineOf('value++;')));
  assert.ok(names.some((n) => n.endsWith('value')), String(names));
});
