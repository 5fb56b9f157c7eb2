/**
 * One test per pattern P1–P17 of Table 1, each from a minimal interleaving:
 * the analysis must find exactly that pattern with its accesses in
 * execution order and thread roles.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles } from '../../server/src/engine/analysis';
import { PATTERNS } from '../../server/src/engine/unicorn/patternCatalog';
import { writeTraces } from '../helpers/traceBuilder';

/**
 * Table 1 of the thesis (seed 001, "Problematic memory-access patterns"),
 * column "Memory-Access Pattern", typed by hand with the statements dropped:
 * the oracle for the catalog, never derived from it.
 */
const TABLE_1: Record<string, string> = {
  P1: 'R1(x) W2(x)',
  P2: 'W1(x) R2(x)',
  P3: 'W1(x) W2(x)',
  P4: 'R1(x) W2(x) R1(x)',
  P5: 'W1(x) W2(x) R1(x)',
  P6: 'W1(x) R2(x) W1(x)',
  P7: 'R1(x) W2(x) W1(x)',
  P8: 'W1(x) W2(x) W1(x)',
  P9: 'W1(x) W2(x) W2(y) W1(y)',
  P10: 'W1(x) W2(y) W2(x) W1(y)',
  P11: 'W1(x) W2(y) W1(y) W2(x)',
  P12: 'W1(x) R2(x) R2(y) W1(y)',
  P13: 'W1(x) R2(y) R2(x) W1(y)',
  P14: 'R1(x) W2(x) W2(y) R1(y)',
  P15: 'R1(x) W2(y) W2(x) R1(y)',
  P16: 'R1(x) W2(y) R1(y) W2(x)',
  P17: 'W1(x) R2(y) W1(y) R2(x)',
};
/** §2.1.4–2.1.6: P1–P3 order violations, P4–P8 single-variable, P9–P17 multi-variable atomicity violations. */
const CATEGORY = (n: number) => (n <= 3 ? 'order' : n <= 8 ? 'single-variable atomicity' : 'multi-variable atomicity');

test('the catalog is Table 1: 17 patterns with the thesis notation, in order', () => {
  assert.deepEqual(
    PATTERNS.map((d) => [d.id, d.notation, d.category]),
    Object.entries(TABLE_1).map(([id, notation]) => [id, notation, CATEGORY(Number(id.slice(1)))]),
  );
});

/** Thread role r is thread 10+r so ids differ from roles. */
function interleaving(notation: string): string[] {
  // "R1(x) W2(x) R1(x)" → events at lines 1..n
  return notation.split(' ').map((tok, k) => {
    const m = /^([RW])([12])\((\w)\)$/.exec(tok)!;
    return `${m[1]}${Number(m[2]) + 10} ${m[3]} S${k + 1}`;
  });
}

for (const [id, notation] of Object.entries(TABLE_1)) {
  const toks = notation.split(' ').map((t) => /^([RW])([12])\((\w)\)$/.exec(t)!);
  const def = { id, kind: toks.map((m) => m[1]).join(''), roles: toks.map((m) => Number(m[2])), vars: toks.map((m) => m[3]), category: CATEGORY(Number(id.slice(1))) };
  test(`${id} ${notation} (Table 1) is found from its minimal interleaving`, async () => {
    const dir = writeTraces([{ execution: 'run', outcome: 'fail', events: interleaving(notation) }]);
    const r = await analyzeTraceFiles([dir]);
    const full = r.patterns.filter((p) => p.accesses.length === def.kind.length && p.id === def.id);
    assert.equal(full.length, 1, `expected one ${def.id}; got ${r.patterns.map((p) => p.id + ':' + p.accesses.map((a) => a.line).join('')).join(', ')}`);
    const p = full[0];
    assert.equal(p.kind, def.kind);
    assert.equal(p.category, def.category);
    assert.deepEqual(
      p.accesses.map((a) => a.line),
      def.kind.split('').map((_, k) => k + 1),
      'accesses in execution order',
    );
    assert.deepEqual(p.accesses.map((a) => a.thread), def.roles);
    assert.deepEqual(p.accesses.map((a) => a.variable), def.vars);
    assert.equal(p.score, 1);
    // no pattern of the same length but another id: the interleaving is unambiguous
    const others = r.patterns.filter((q) => q.accesses.length === def.kind.length && q.id !== def.id);
    assert.deepEqual(others.map((q) => q.id), []);
  });
}

test('pairs of two reads, or of one thread, are not patterns', async () => {
  const dir = writeTraces([{ execution: 'r', outcome: 'fail', events: ['R1 x S1', 'R2 x S2', 'W3 y S3', 'W3 y S4'] }]);
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(r.patterns, []);
});

test('different objects of one field are different locations; the same static pattern matches across runs', async () => {
  const dir = writeTraces([
    // object 1: R W R (P4); object 2: only one thread
    { execution: 'f1', outcome: 'fail', events: ['R1 x S1 @obj=1', 'W2 x S2 @obj=1', 'R1 x S3 @obj=1', 'W2 x S2 @obj=2'] },
    { execution: 'f2', outcome: 'fail', events: ['R1 x S1 @obj=7', 'W2 x S2 @obj=7', 'R1 x S3 @obj=7'] },
    { execution: 'p1', outcome: 'pass', events: ['R1 x S1 @obj=3', 'W2 x S2 @obj=4', 'R1 x S3 @obj=3'] },
  ]);
  const r = await analyzeTraceFiles([dir]);
  const p4 = r.patterns.find((p) => p.id === 'P4');
  assert.ok(p4);
  assert.deepEqual([p4.failed, p4.passed, p4.rank, p4.score], [2, 0, 1, 1]);
});

test('array elements are separate locations', async () => {
  const dir = writeTraces([{ execution: 'a', outcome: 'fail', events: ['W1 items S1 @obj=9 @elem=0', 'W2 items S2 @obj=9 @elem=1'] }]);
  const r = await analyzeTraceFiles([dir]);
  assert.deepEqual(r.patterns, []);
});

test('FALCON finds P1–P8 online and no multi-variable pattern', async () => {
  const dir = writeTraces([
    { execution: 'f', outcome: 'fail', events: interleaving('W1(x) R2(x) W1(x)') },
    { execution: 'g', outcome: 'fail', events: interleaving('W1(x) W2(x) W2(y) W1(y)') },
  ]);
  const r = await analyzeTraceFiles([dir], { strategy: 'falcon' });
  // f: W1 R2 W1 → P6 (S1 S2 S3) and the R2-W1 pair (P1, S2 S3) of the remaining window;
  // g: W1 W2 on x → P3, W2 W1 on y → P3; FALCON never combines x with y (no P9)
  const sig = (p: (typeof r.patterns)[number]) => `${p.id}:${p.accesses.map((a) => a.line).join('')}`;
  assert.deepEqual(r.patterns.map(sig).sort(), ['P1:23', 'P3:12', 'P3:34', 'P6:123']);
  // the W-R pair inside the P6 triplet is not counted again as an order pattern
  const f = r.runs.find((x) => x.execution === 'f')!;
  assert.equal(f.patterns.length, 2, 'P6 from the oldest access, then the R2-W1 pair of the remaining window');
  assert.equal(r.runs.find((x) => x.execution === 'g')!.patterns.length, 2);
});

test('formulas: ochiai and tarantula are selectable', async () => {
  const dir = writeTraces([
    { execution: 'f1', outcome: 'fail', events: interleaving('W1(x) R2(x)') },
    { execution: 'f2', outcome: 'fail', events: ['W1 y S9', 'W2 y S8'] },
    { execution: 'p1', outcome: 'pass', events: interleaving('W1(x) R2(x)') },
  ]);
  const o = await analyzeTraceFiles([dir], { formula: 'ochiai' });
  const t = await analyzeTraceFiles([dir], { formula: 'tarantula' });
  const wr = (r: typeof o) => r.patterns.find((p) => p.kind === 'WR')!.score;
  assert.equal(wr(o), 1 / Math.sqrt(2 * 2)); // failed 1, passed 1, totalFailed 2
  assert.equal(wr(t), 0.5 / (0.5 + 1)); // %failed 0.5, %passed 1
});

test('zero failing runs: every score is 0 and a message says why', async () => {
  const dir = writeTraces([{ execution: 'p', outcome: 'pass', events: interleaving('W1(x) R2(x)') }]);
  const r = await analyzeTraceFiles([dir]);
  assert.equal(r.executions.failed, 0);
  assert.ok(r.patterns.length > 0);
  assert.ok(r.patterns.every((p) => p.score === 0 && p.rank === 1));
  assert.match(r.message ?? '', /None of the 1 runs failed/);
});

test('issue 30: runs with no pattern say why — nothing instrumented (no event), or no variable shared by two threads', async () => {
  const empty = await analyzeTraceFiles([writeTraces([{ execution: 'f', outcome: 'fail', events: [] }, { execution: 'p', outcome: 'pass', events: [] }])]);
  assert.equal(empty.patterns.length, 0);
  assert.equal(empty.message, 'The 2 runs recorded no event: no class of the program was instrumented. Record again with your packages in braid.record.include (braid record --include).');
  const unshared = await analyzeTraceFiles([writeTraces([{ execution: 'f', outcome: 'fail', events: interleaving('W1(x) R1(x)') }, { execution: 'p', outcome: 'pass', events: interleaving('W2(y) R2(y)') }])]);
  assert.equal(unshared.patterns.length, 0);
  assert.match(unshared.message ?? '', /^No access pattern in the 2 runs: no shared variable .* Check that braid\.record\.include/);
});

test('issue 38: the no-pattern hints of Node.js recordings speak of files, tasks and packages (node_modules), not of classes', async () => {
  const node = { recorder: 'braid-node-recorder' };
  const empty = await analyzeTraceFiles([writeTraces([{ execution: 'f', outcome: 'fail', events: [], ...node }, { execution: 'p', outcome: 'pass', events: [], ...node }])]);
  assert.match(empty.message ?? '', /no JavaScript or TypeScript file of the program was instrumented/);
  assert.match(empty.message ?? '', /--include node_modules\/<package>/);
  assert.doesNotMatch(empty.message ?? '', /class/);
  const unshared = await analyzeTraceFiles([writeTraces([{ execution: 'f', outcome: 'fail', events: interleaving('W1(x) R1(x)'), ...node }, { execution: 'p', outcome: 'pass', events: interleaving('W2(y) R2(y)'), ...node }])]);
  assert.match(unshared.message ?? '', /^No access pattern in the 2 runs: .* accessed by two tasks\. .*node_modules\/<package>/);
  assert.doesNotMatch(unshared.message ?? '', /class/);
});

import { placement } from '../../server/src/engine/unicorn/patternCombination';
import { PairRelation } from '../../server/src/engine/unicorn/patternCatalog';

test('placement of two pairs (Table 1 decompositions, by global index)', () => {
  // P4: R1(x)@1 W2(x)@2 R1(x)@3: pairs (1,2) and (2,3) on one location share the middle access
  assert.equal(placement(true, 1, 2, 2, 3), PairRelation.SharedMiddle);
  assert.equal(placement(true, 1, 2, 3, 4), PairRelation.Pair, 'one location, no shared access: no pattern');
  // P9: W1(x)@1 W2(x)@2 W2(y)@3 W1(y)@4: x-pair (1,2), y-pair (3,4)
  assert.equal(placement(false, 1, 2, 3, 4), PairRelation.Sequential);
  // P10: W1(x)@1 W2(y)@2 W2(x)@3 W1(y)@4: x-pair (1,3), y-pair (2,4)
  assert.equal(placement(false, 1, 3, 2, 4), PairRelation.Interleaved);
  // P11: W1(x)@1 W2(y)@2 W1(y)@3 W2(x)@4: x-pair (1,4), y-pair (2,3)
  assert.equal(placement(false, 1, 4, 2, 3), PairRelation.Nested);
  assert.equal(placement(false, 2, 3, 1, 4), PairRelation.Pair, 'p2 may not start before p1');
});
