/**
 * Issue 38, "a consequence ranks first" (AnalysisOptions.clearedRead; `braid analyze --cleared-read`;
 * docs/algorithms.md "Cleared read first"). The lru-cache shape: a fetch counts its entry and stores
 * its promise in a slot (thread 1); an abort deletes the entry (thread 2: the count, then the slot
 * written undefined over the promise), publishes a config object and resets a task's context to null
 * (a null written where nobody had put a value), both read by thread 1; the fetch's callback then
 * reads the slot and finds it undefined (thread 1). Only failing runs abort, so the count's pair
 * (R1 count → W2 count), the config's, the context's and the slot's W2 → R1 are in every failing run
 * and no passing one: equal in every count and length; the clear itself (W1 slot → W2 slot) too, so it
 * has evidence (a routine clear in every run does not count: the tcprequest test below). Without the rule the static key decides (the
 * count's RW first, the config and context before the slot); with it the read of the cleared slot —
 * where the bug is — is first. A read of another thread's write alone is not enough (the config's
 * pair: a rule on the pattern's shape lost three design subjects of the real corpus), nor a read of a
 * null that overwrote no other thread's value (the context's: fastq-resume's Task.context).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { clearsOther, endsInReadOf, isEmptyValue, readsCleared } from '../../server/src/engine/ranking/rootCauseOrder';
import { PATTERNS, patternDefinition } from '../../server/src/engine/unicorn/patternCatalog';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';
import { isRootCause } from '../helpers/rootCause';

const SLOT_BUG = [20, 30].map((line) => ({ file: 'Fixture.java', line }));
const CONFIG = [40, 41].map((line) => ({ file: 'Fixture.java', line }));
const CONTEXT = [42, 43].map((line) => ({ file: 'Fixture.java', line }));

function recording(): string {
  const pass = ['R1 count S10 @value=0', 'W1 slot S11 @value="Promise@7"', 'R1 slot S30 @value="Promise@7"', 'W1 slot S31 @value="profile"'];
  const fail = [
    'R1 count S10 @value=0',
    'W1 slot S11 @value="Promise@7"',
    'W2 count S12 @value=1',
    'W2 slot S20 @value=undefined',
    'W2 cfg S40 @value="Config@3"',
    'R1 cfg S41 @value="Config@3"',
    'W2 context S42 @value=null',
    'R1 context S43 @value=null',
    'R1 slot S30 @value=undefined',
    'FAIL1',
  ];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 8; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  return writeTraces(out);
}

test('cleared read first (the default): among patterns equal in every count, the read of the value another thread cleared is first; off, the static key decides', async () => {
  const dir = recording();
  const off = await analyzeTraceFiles([dir], { clearedRead: false });
  const first = off.patterns[0];
  assert.equal(first.kind, 'RW', `off: the count's R1 → W2 is first by its key: ${JSON.stringify(first.accesses)}`);
  const slot = off.patterns.find((p) => isRootCause(p, SLOT_BUG) && p.accesses.length === 2)!;
  const config = off.patterns.find((p) => isRootCause(p, CONFIG))!;
  const context = off.patterns.find((p) => isRootCause(p, CONTEXT))!;
  assert.ok(slot && config && context, 'the slot, config and context pairs are listed');
  for (const p of [slot, config, context]) assert.deepEqual([p.failed, p.passed, p.accesses.length, p.evidence, p.rank], [first.failed, first.passed, 2, true, 1], 'equal in every count');
  assert.ok(off.patterns.indexOf(config) < off.patterns.indexOf(slot), 'off: the config pair before the slot pair (key)');
  assert.ok(off.patterns.indexOf(context) < off.patterns.indexOf(slot), 'off: the context pair before the slot pair (key)');

  const on = await analyzeTraceFiles([dir], { clearedRead: true });
  assert.deepEqual((await analyzeTraceFiles([dir])).patterns.map((p) => p.key), on.patterns.map((p) => p.key), 'on by default');
  assert.ok(isRootCause(on.patterns[0], SLOT_BUG), `on, the cleared slot's read is first: ${JSON.stringify(on.patterns[0].accesses)}`);
  assert.deepEqual(on.patterns[0].accesses.map((a) => [a.type, a.value]), [['W', 'undefined'], ['R', 'undefined']]);
  assert.ok(on.patterns.findIndex((p) => isRootCause(p, CONTEXT)) > 0, 'the null nobody had filled is not a cleared read');
  // the rule orders ties only: the same patterns with the same counts and ranks
  const rows = (r: typeof on) => r.patterns.map((p) => `${p.key} ${p.failed}/${p.passed} ${p.rank}`).sort();
  assert.deepEqual(rows(on), rows(off));
});

/**
 * The tcprequest shape (test/fixtures/node/tcprequest, node-red's TcpGet): a producer stores a message
 * (thread 1, line 18), a consumer takes it and clears it (thread 2: the read at 41, undefined written at
 * 42) in every run; in failing runs a third task then finds no message (thread 3, the check at 40). The
 * root cause's W1 18 → R3 40 and the consumer's W2 42 → R3 40 are equal in every count. The consumer's
 * clear is routine — its W1 → W2 (18 → 42) is in every passing run too, no evidence — so reading the slot
 * empty after it is no cleared read, and the static key decides (18 before 42). Without that condition
 * (the rule as first written, 2026-11-30) the consumer's pair was first.
 */
test('cleared read first: a consumer\'s routine clear (its W1 → W2 in passing runs too) is no cleared read', async () => {
  const pass = ['W1 msg S18 @value="Object@5"', 'R2 msg S41 @value="Object@5"', 'W2 msg S42 @value=undefined'];
  const fail = [...pass, 'R3 msg S40 @value=undefined', 'FAIL3'];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 8; k++) out.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  const dir = writeTraces(out);
  const line = (p: { accesses: { line: number }[] }) => p.accesses.map((a) => a.line).join(' ');
  for (const clearedRead of [true, false]) {
    const r = await analyzeTraceFiles([dir], { clearedRead });
    const consumer = r.patterns.find((p) => line(p) === '42 40')!;
    assert.ok(consumer, 'the consumer\'s pair is listed');
    assert.equal(line(r.patterns[0]), '18 40', `clearedRead ${clearedRead}: the producer's write → the empty read first: ${r.patterns.slice(0, 3).map(line).join(', ')}`);
    assert.deepEqual([consumer.failed, consumer.passed, consumer.rank], [r.patterns[0].failed, r.patterns[0].passed, 1], 'a tie');
  }
});

test('cleared read first: which patterns end in a read of the other thread\'s write, and which values are empty', () => {
  assert.deepEqual(
    PATTERNS.filter((d) => endsInReadOf(d) >= 0).map((d) => d.id),
    ['P2', 'P4', 'P5', 'P14', 'P15', 'P17'],
  );
  assert.equal(endsInReadOf(patternDefinition(5)), 1, 'W1 W2 R1: the read takes W2');
  assert.deepEqual([null, 'undefined', 0, '', 'null', false].map(isEmptyValue), [true, true, false, false, false, false]);
  assert.deepEqual([['Promise@7', 'undefined'], [3, null], [null, null], [undefined, null], ['x', 0]].map(([a, b]) => clearsOther(a, b)), [true, true, false, false, false]);
  const values = (vs: unknown[]) => (k: number) => vs[k];
  const yes = () => true;
  assert.equal(readsCleared(patternDefinition(2), values([null, null]), yes), true);
  assert.equal(readsCleared(patternDefinition(2), values([null, null]), () => false), false, 'the write cleared no other thread\'s value');
  assert.equal(readsCleared(patternDefinition(2), values([null, 3]), yes), false, 'the read found a value');
  assert.equal(readsCleared(patternDefinition(2), values([undefined, null]), yes), false, 'no recorded write value');
  assert.equal(readsCleared(patternDefinition(1), values([null, null]), yes), false, 'R1 → W2 ends in a write');
  assert.equal(readsCleared(patternDefinition(4), values(['x', null, null]), (k) => k === 1), true, 'R1 W2 R1: the second read finds what W2 cleared');
});

test('cleared read first: the option and its command-line form are checked', () => {
  assert.throws(() => validateOptions({ clearedRead: 'yes' as unknown as boolean }), /clearedRead must be true or false/);
  assert.equal('clearedRead' in validateOptions({ clearedRead: true }), false, 'on (the default) leaves the options as before the option existed');
  assert.equal(validateOptions({ clearedRead: false }).clearedRead, false);
  assert.equal(parseAnalyzeArgs(['x', '--cleared-read', 'off']).options.clearedRead, false);
  assert.equal(parseAnalyzeArgs(['x', '--cleared-read', 'on']).options.clearedRead, true);
  assert.throws(() => parseAnalyzeArgs(['x', '--cleared-read', 'first']), /--cleared-read must be on or off, got "first"/);
});
