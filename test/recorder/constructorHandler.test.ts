/**
 * A constructor's catch block after super() is instrumented (MethodInstrumenter.visitTryCatchBlock):
 * ASM's AdviceAdapter re-simulated the operand stack at every handler of a constructor, did not see
 * the hooks' temporaries (GeneratorAdapter.storeLocal/loadLocal) and underflowed
 * (IndexOutOfBoundsException in AdviceAdapter.peekValue/popValue), so the agent printed "cannot
 * instrument" and left the whole class unrecorded (JCS 3.2's IndexedDiskCache, docs/benchmarks.md).
 * Fixture: test/fixtures/java/ctorcatch/Settings.java, whose catch block writes an array element
 * and a long field.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { prepare, record } from './recorderHarness';

before(() => prepare());

test('a class whose constructor has a catch block after super() is instrumented, and the catch block\'s accesses are recorded', async () => {
  const summary = await record('ctorcatch', 'ctorcatch.Settings', { runs: 1, noise: 0, include: ['ctorcatch'] });
  assert.equal(summary.runs.length, 1);
  const log = readFileSync(summary.runs[0].logPath, 'utf8');
  assert.doesNotMatch(log, /cannot instrument/, log);
  assert.equal(summary.runs[0].exitCode, 0, log);
  assert.equal(summary.traces.length, 1);
  const vars = new Map<number, string>();
  const accesses: string[] = [];
  for (const l of readFileSync(summary.traces[0], 'utf8').trim().split('\n')) {
    if (l.startsWith('{"def":"var"')) {
      const d = JSON.parse(l);
      vars.set(d.id, d.name);
    } else if (l.startsWith('[')) {
      const e = JSON.parse(l);
      if (e[2] === 'R' || e[2] === 'W') accesses.push(`${e[2]} ${vars.get(e[3]) ?? '?'} ${JSON.stringify(e[8])}`);
    }
  }
  // the catch block's writes: the array element, the long field (read and written), the String field
  for (const expected of ['W ctorcatch.Settings.values[] "invalid: x"', 'R ctorcatch.Settings.failures 0',
    'W ctorcatch.Settings.failures 1', 'W ctorcatch.Settings.lastError "StringIndexOutOfBoundsException"']) {
    assert.ok(accesses.includes(expected), `${expected} missing in:\n${accesses.join('\n')}`);
  }
  // main's reads of the fields the constructor wrote
  assert.ok(accesses.includes('R ctorcatch.Settings.failures 1'), accesses.join('\n'));
});
