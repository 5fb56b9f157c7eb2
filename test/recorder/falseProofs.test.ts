/**
 * A verdict means what it says (issue 40, item 1; docs/confirm.md "Verdicts"), on real JVM runs of
 * test/fixtures/java/falseproof: the three shapes of false proof measured on programs nobody on the
 * team wrote, each "confirmed" by the earlier rule —
 *   - a symmetric symptom pattern (W1 W2 on a counter incremented inside synchronized, the act of a
 *     check-then-act): forced 10/10, unforced 0/10, no opposite order to compare with;
 *   - an order whose opposite can never be imposed (W1 → R2 on a flag ordered by a latch): the
 *     opposite group, met in 0 runs, was compared anyway;
 *   - delay only (W1 W2 W1 on a counter incremented in a loop, forcing/LostUpdate): the opposite
 *     order fails as often as the forced one.
 * Each is now "confirms the window" (the hold makes the failure, not this order) — never
 * "confirmed" — and gives the same verdict with another seed.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { confirmPattern } from '../../server/src/recorder/runs/confirmRuns';
import type { ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, fixturesDir, prepare, root } from './recorderHarness';

before(() => prepare());

function tagLine(file: string, name: string): number {
  const k = readFileSync(path.join(fixturesDir, 'falseproof', file), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(`// @force ${name}`));
  assert.ok(k >= 0, `${file} has // @force ${name}`);
  return k + 1;
}

type Access = ForcedPattern['accesses'][number];
const access = (thread: 1 | 2, type: 'R' | 'W', cls: string, field: string, tag: string, method: string): Access => ({
  thread,
  type,
  variable: `falseproof.${cls}.${field}`,
  file: `falseproof/${cls}.java`,
  line: tagLine(`${cls}.java`, tag),
  method: `falseproof.${method}`,
});

const options = (main: string, seed: number) => ({
  command: ['java', ...FAST_JVM, '-cp', classesDir, `falseproof.${main}`],
  cwd: root,
  include: ['falseproof'],
  exclude: [],
  runs: 10,
  noise: 0,
  timeoutSeconds: 30,
  jobs: 2,
  seed,
  name: main,
  outRoot: tempDir(),
});

const groups = (c: Awaited<ReturnType<typeof confirmPattern>>) => `${c.verdict}: ${c.reason}`;

test('a symmetric symptom pattern (W1 W2 on a counter inside synchronized, the act of a check-then-act) confirms the window, not the order — with two seeds', async () => {
  const w = (t: 1 | 2) => access(t, 'W', 'SymptomCount', 'count', 'count', 'SymptomCount.once');
  const p: ForcedPattern = { key: 'symptom', id: 'P3', kind: 'WW', rank: 1, evidence: true, accesses: [w(1), w(2)] };
  for (const seed of [11, 12]) {
    const c = await confirmPattern(p, options('SymptomCount', seed));
    assert.ok(c.forced.failed >= 8 && c.forced.forcedOk >= 8, groups(c));
    assert.ok((c.control?.failed ?? 99) <= 2, groups(c));
    // one access per thread: the counterfactual is the threads' regions serialised (the second thread's write
    // after the first thread's next access of count, which never comes): never imposed, so not compared
    assert.equal(c.counterfactual, 'serialised', groups(c));
    assert.ok(c.opposite && c.opposite.forcedOk * 2 <= c.opposite.runs, groups(c));
    assert.equal(c.verdict, 'confirms the window', groups(c));
    assert.match(c.reason, /could not be imposed/);
  }
});

test('an order whose opposite was never imposed (W1 → R2 on a flag ordered by a latch) is not compared: it confirms the window, not the order — with two seeds', async () => {
  const p: ForcedPattern = {
    key: 'handoff',
    id: 'P1',
    kind: 'WR',
    rank: 1,
    evidence: true,
    accesses: [access(1, 'W', 'HandOff', 'open', 'write', 'HandOff.main'), access(2, 'R', 'HandOff', 'open', 'read', 'HandOff$Worker.run')],
  };
  for (const seed of [21, 22]) {
    const c = await confirmPattern(p, options('HandOff', seed));
    assert.ok(c.forced.failed >= 8 && c.forced.forcedOk >= 8, groups(c));
    assert.ok(c.opposite && c.opposite.forcedOk === 0, `the opposite order cannot be imposed: ${groups(c)}`);
    assert.equal(c.verdict, 'confirms the window', groups(c));
    assert.match(c.reason, /imposed in 0 of \d+ runs: not compared/);
    assert.ok(c.opposite!.runs < 10, 'the opposite group stops once its order was never imposed in its first runs');
  }
});

test('delay only (W1 W2 W1 on a counter incremented in a loop): holding either thread between its read and its write loses an update, so the opposite order fails as often — it confirms the window, with two seeds', async () => {
  // forcing.LostUpdate: count = count + 1, three times per thread, pauses apart; W1 W2 W1 at the one line
  const line = readFileSync(path.join(fixturesDir, 'forcing', 'LostUpdate.java'), 'utf8').split('\n').findIndex((l) => l.includes('// @force update')) + 1;
  const w = (thread: 1 | 2): Access => ({ thread, type: 'W', variable: 'forcing.LostUpdate$Counter.count', file: 'forcing/LostUpdate.java', line, method: 'forcing.LostUpdate$Counter.increment' });
  const p: ForcedPattern = { key: 'delay', id: 'P5', kind: 'WWW', rank: 1, evidence: true, accesses: [w(1), w(2), w(1)] };
  for (const seed of [31, 32]) {
    const c = await confirmPattern(p, { ...options('LostUpdate', seed), command: ['java', ...FAST_JVM, '-cp', classesDir, 'forcing.LostUpdate'], include: ['forcing'] });
    assert.ok(c.forced.failed >= 8 && c.forced.forcedOk >= 8, groups(c));
    assert.ok(c.opposite && c.opposite.forcedOk >= 6 && c.opposite.failed >= 6, `the opposite order is imposed and fails too: ${groups(c)}`);
    assert.equal(c.verdict, 'confirms the window', groups(c));
    assert.match(c.reason, /fails about as often: the hold’s delay in the window, not the order/);
  }
});
