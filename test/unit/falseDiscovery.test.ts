/**
 * Evidence among many patterns (issue 38; docs/algorithms.md "Evidence among many patterns";
 * ranking/falseDiscovery.ts): a pattern's presence is evidence only when its Fisher p is a
 * Benjamini–Hochberg discovery over the patterns seen in a failing run, so a pattern in 2 failing and
 * 2 passing runs (p ≈ 0.04, chance among many patterns) is no longer listed before patterns with a
 * higher score. `discovery: false` keeps the order before the rule.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyzeTraceFiles, validateOptions } from '../../server/src/engine/analysis';
import { presenceDiscoveryCutoff } from '../../server/src/engine/ranking/falseDiscovery';
import { fisherOneSided } from '../../server/src/engine/ranking/fisherExact';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

test('presenceDiscoveryCutoff: Benjamini–Hochberg over the patterns seen in a failing run, tied tables sharing a rank', () => {
  // 20 failing, 200 passing runs; one pattern F10/P0 (p = 3e-12), one F2/P2 (p = 0.042), 20 in every run (p = 1)
  const failed = [10, 2, ...Array(20).fill(20), 0];
  const passed = [0, 2, ...Array(20).fill(200), 5];
  const cut = presenceDiscoveryCutoff(failed, passed, 20, 200);
  assert.equal(cut, fisherOneSided(10, 0, 20, 200), 'the strong pattern is the largest discovery');
  assert.ok(fisherOneSided(2, 2, 20, 200) < 0.05 && fisherOneSided(2, 2, 20, 200) > cut, 'p = 0.042 is below 0.05 but no discovery among 22 patterns');
  // alone (m = 1) the same table is a discovery
  assert.equal(presenceDiscoveryCutoff([2], [2], 20, 200), fisherOneSided(2, 2, 20, 200));
  // tied p-values share the larger rank: 3 patterns at p just above 0.05/3 · 1 but below 0.05/3 · 3
  const tie = presenceDiscoveryCutoff([2, 2, 2], [2, 2, 2], 20, 200);
  assert.equal(tie, fisherOneSided(2, 2, 20, 200));
  assert.equal(presenceDiscoveryCutoff([0, 0], [3, 4], 20, 200), -1, 'no pattern in a failing run: no discovery');
});

/**
 * 20 failing and 200 passing runs. Every failing run and 195 passing ones: thread 1 reads `x` (line 10)
 * and thread 2 writes it (11), and ten other racing pairs (lines 30–49) — no evidence (in 97 % of the
 * passing runs), score 20/215. Ten failing runs: thread 1 writes `z` (60) before thread 2 reads it
 * (61) — evidence. Two failing and two passing runs: a chance
 * pair on `y` (20/21), p = 0.042.
 */
function runs(): BuiltTrace[] {
  const out: BuiltTrace[] = [];
  const common = ['R1 x S10', 'W2 x S11', ...Array.from({ length: 10 }, (_, k) => [`R1 v${k} S${30 + 2 * k}`, `W2 v${k} S${31 + 2 * k}`]).flat()];
  for (let k = 0; k < 200; k++) out.push({ execution: `P${k}`, outcome: 'pass', events: [...(k < 195 ? common : ['R1 w S70']), ...(k < 2 ? ['W1 y S20', 'W2 y S21'] : [])] });
  for (let k = 0; k < 20; k++)
    out.push({ execution: `F${k}`, outcome: 'fail', events: [...common, ...(k < 2 ? ['W1 y S20', 'W2 y S21'] : []), ...(k >= 10 ? ['W1 z S60', 'R2 z S61'] : [])] });
  return out;
}

const on = (p: { accesses: { line: number }[] }, ...lines: number[]) => p.accesses.map((a) => a.line).join() === lines.join();

test('a pattern whose p < 0.05 is chance among many patterns ranks after patterns with a higher score; the strong one keeps its evidence', async () => {
  const dir = writeTraces(runs());
  const withRule = await analyzeTraceFiles([dir], { order: false });
  const before = await analyzeTraceFiles([dir], { order: false, discovery: false });
  for (const r of [withRule, before]) {
    assert.ok(on(r.patterns[0], 60, 61), `first: ${r.patterns[0].key}`);
    assert.deepEqual([r.patterns[0].failed, r.patterns[0].passed, r.patterns[0].evidence], [10, 0, true]);
  }
  const chance = (r: typeof before) => r.patterns.findIndex((p) => on(p, 20, 21));
  const x = (r: typeof before) => r.patterns.findIndex((p) => on(p, 10, 11));
  // without the rule: the chance pair has evidence (p = 0.042) and is listed second, before x (score 20/215 > 2/22)
  assert.equal(chance(before), 1);
  assert.equal(before.patterns[1].evidence, true);
  assert.ok(x(before) > 1);
  // with it: no evidence, listed after x and the other pairs of every run
  const c = withRule.patterns[chance(withRule)];
  assert.equal(c.evidence, false);
  assert.deepEqual([c.failed, c.passed], [2, 2]);
  assert.ok(chance(withRule) > x(withRule), `chance pair at ${chance(withRule) + 1}, x at ${x(withRule) + 1}`);
  assert.ok(withRule.patterns[x(withRule)].score > c.score);
  assert.equal(withRule.patterns[x(withRule)].evidence, false);
  assert.ok(c.pValue < 0.05, 'its p-value is reported unchanged');
});

test('discovery: validated, and on unless false (absent from the options when on)', () => {
  assert.equal('discovery' in validateOptions({}), false);
  assert.equal('discovery' in validateOptions({ discovery: true }), false);
  assert.equal(validateOptions({ discovery: false }).discovery, false);
  assert.throws(() => validateOptions({ discovery: 'no' as unknown as boolean }), /discovery must be true or false, got "no"/);
});
