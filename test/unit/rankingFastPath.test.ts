/**
 * Analyzer.rank() orders, ranks and tie-groups patterns with typed arrays
 * (buckets by group/failed/passed/length placed in a cached static-key order,
 * ranking/staticKeyOrder.ts and compactOrder.ts). This compares it, on random
 * traces full of ties, with the straightforward reference: every pattern
 * described, sorted by rootCauseOrder.orderPatterns with its key string,
 * ranked by listRanks, grouped by tieGroups over methodsKey, groups and
 * counts recomputed from the runs. Traces are added in three rounds (new
 * patterns and new key tokens between rank() calls on one Analyzer).
 * Names include "|" (a file "Odd.java:3|A": the key strings are then sorted as strings), lines 1
 * and 12 (one access key a prefix of another), P1 next to P10–P17, and one
 * line in two methods (equal keys), and a line that becomes test code in the
 * second round.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Analyzer, AnalysisOptions, RankedPattern } from '../../server/src/engine/analysis';
import { listRanks, methodsKey, orderPatterns, OrderRow, PATTERN_GROUPS, tieGroups, TieOrder } from '../../server/src/engine/ranking/rootCauseOrder';
import { suspiciousness } from '../../server/src/engine/ranking/suspiciousness';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { CoverageMatrix } from '../../server/src/engine/griffin/coverageMatrix';
import { countsOfRuns } from '../../server/src/engine/griffin/suspiciousPatterns';
import { rng } from '../helpers/seededRandom';
import { writeTraces, BuiltTrace } from '../helpers/traceBuilder';

function randomRuns(seed: number, runs: number, pipe: boolean): BuiltTrace[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const vars = pipe ? ['x', 'y', 'a|b', 'z'] : ['x', 'y', 'z'];
  const lines = [1, 2, 12, 3, 21];
  const out: BuiltTrace[] = [];
  for (let k = 0; k < runs; k++) {
    const fail = rand() < 0.4;
    const events: string[] = [];
    const n = 10 + Math.floor(rand() * 25);
    for (let i = 0; i < n; i++) {
      const t = 1 + Math.floor(rand() * 3);
      const line = pick(lines);
      const opts: string[] = [];
      // line 2 is in two methods (two static accesses with one key)
      if (line === 2 && rand() < 0.5) opts.push('@method=Fixture.other');
      // line 21 is test code, marked so from the 8th run on (a known loc becomes test code between two rank() calls)
      if (line === 21 && k >= 7) opts.push('@harness');
      // with "|" in a name an access key's token can be a prefix of another's: R1:x@Odd.java:3| and R1:x@Odd.java:3|A:3|
      if (line === 3 && pipe) opts.push(`@file=${pick(['Odd.java', 'Odd.java:3|A'])}`);
      if (rand() < 0.2) opts.push(`@from=Caller.java:${pick([5, 6])}:Caller.${pick(['run', 'go'])}`);
      events.push(`${rand() < 0.5 ? 'R' : 'W'}${t} ${pick(vars)} S${line}${opts.length ? ' ' + opts.join(' ') : ''}`);
      if (fail && i === Math.floor(n * 0.7)) events.push(`FAIL${t}`);
    }
    out.push({ execution: `s${seed}r${k}`, outcome: fail ? 'fail' : 'pass', events });
  }
  return out;
}

interface Row extends OrderRow {
  p: number;
  index: number;
}

/** The reference: described patterns through rootCauseOrder's functions. */
function reference(patterns: RankedPattern[], runs: ReturnType<Analyzer['runResults']>, o: AnalysisOptions, tieOrder: TieOrder, line21IsTest: boolean) {
  const F = runs.filter((r) => r.outcome === 'fail').length;
  const P = runs.length - F;
  const rows: Row[] = patterns.map((d) => {
    const inRuns = runs.filter((r) => r.patterns.includes(d.index));
    const f = inRuns.filter((r) => r.outcome === 'fail').length;
    const p = inRuns.length - f;
    const failedRuns = inRuns.filter((r) => r.outcome === 'fail');
    const harness = line21IsTest && d.accesses.every((a) => a.line === 21);
    assert.equal(d.accesses.some((a) => a.harness === true), line21IsTest && d.accesses.some((a) => a.line === 21));
    const symptom = f > 0 && failedRuns.every((r) => r.afterFailure?.includes(d.index));
    const group = !o.grouping ? 'cause' : harness ? 'harness' : symptom ? 'symptom' : 'cause';
    return { score: F === 0 ? 0 : suspiciousness(o.formula, f, p, F, P), f, p, group, length: d.accesses.length, key: d.key, index: d.index };
  });
  const methods = new Map(patterns.map((d) => [d.index, methodsKey(d.accesses)]));
  orderPatterns(rows, o.grouping, tieOrder);
  const ranks = listRanks(rows, o.grouping);
  const t = tieGroups(
    rows,
    rows.map((r) => methods.get(r.index)!),
    o.grouping,
  );
  return t.order.map((k, j) => ({ index: rows[k].index, rank: ranks[k], group: rows[k].group, tie: t.tie[j], tieSize: t.size[j], failed: rows[k].f, passed: rows[k].p }));
}

function fast(a: Analyzer) {
  const r = a.rank();
  const list = r.ranking!;
  const out = [];
  for (let k = 0; k < list.length; k++)
    out.push({ index: list.ids[k], rank: list.ranks[k], group: PATTERN_GROUPS[list.groupCodes[k]], tie: list.ties[k], tieSize: list.tieSizes[k], failed: list.failed[k], passed: list.passed[k] });
  return { out, patterns: r.patterns, runs: r.runs, groupCounts: { ...list.groupCounts } };
}

const cases: { options: Partial<AnalysisOptions>; tieOrder: TieOrder }[] = [
  { options: {}, tieOrder: 'shorter' },
  { options: {}, tieOrder: 'longer' },
  { options: { grouping: false }, tieOrder: 'shorter' },
  { options: { formula: 'ochiai' }, tieOrder: 'shorter' },
  { options: { formula: 'tarantula', grouping: false }, tieOrder: 'shorter' },
];

test('rank(): the typed-array order, ranks and tie groups equal the reference on random traces (three rounds per analyzer)', async () => {
  let compared = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const pipe = seed % 3 === 0;
    const runs = randomRuns(seed, 12, pipe);
    const dir = writeTraces(runs);
    const c = cases[seed % cases.length];
    const a = new Analyzer(c.options);
    a.tieOrder = c.tieOrder;
    // three rounds: 7 runs, 4 more (new patterns sorted in full), 1 more (new patterns merged in)
    for (const round of [0, 1, 2]) {
      const part = round === 0 ? runs.slice(0, 7) : round === 1 ? runs.slice(7, 11) : runs.slice(11);
      for (const t of part) await a.addTrace(path.join(dir, `${t.execution}.trace.jsonl`));
      const got = fast(a);
      const want = reference(got.patterns, got.runs, a.options, c.tieOrder, round > 0);
      assert.ok(want.length > 20, `seed ${seed}: enough patterns (${want.length})`);
      assert.deepEqual(got.out, want, `seed ${seed} round ${round} (${JSON.stringify(c)})`);
      const counts = { cause: 0, harness: 0, symptom: 0 };
      for (const w of want) counts[w.group as keyof typeof counts]++;
      assert.deepEqual(got.groupCounts, counts);
      compared++;
    }
  }
  assert.equal(compared, 72);
});

test('GRIFFIN: the coverage matrix read from the ranking (first t rows per run) gives the bugs of the full matrix', async () => {
  let bugs = 0;
  for (let seed = 101; seed <= 112; seed++) {
    const runs = randomRuns(seed, 30, seed % 2 === 0);
    const dir = writeTraces(runs);
    const a = new Analyzer();
    for (const t of runs) await a.addTrace(path.join(dir, `${t.execution}.trace.jsonl`));
    const result = a.rank();
    // the same result without its compact ranking (not enumerable): M built in full from the described patterns
    const plain = { ...result, patterns: result.patterns };
    assert.equal(plain.ranking, undefined);
    // M read from the ranking and M built in full: same cells; a cluster's first t rows and counts are exact
    const lazy = CoverageMatrix.fromAnalysis(result);
    const eager = CoverageMatrix.fromAnalysis(plain);
    assert.equal(lazy.rowCount, eager.rowCount);
    assert.deepEqual([...lazy.failed], [...eager.failed]);
    assert.deepEqual([...lazy.passed], [...eager.passed]);
    for (let row = 0; row < lazy.rowCount; row++) assert.deepEqual(lazy.runsOf(row), eager.runsOf(row));
    const rand = rng(seed);
    for (let k = 0; k < 20; k++) {
      const cluster = lazy.failingRuns.filter(() => rand() < 0.3);
      for (const t of [1, 2, 3, 5, 30]) {
        const whole = countsOfRuns(eager, cluster);
        const first = countsOfRuns(lazy, cluster, t);
        assert.deepEqual([...first.rows], [...whole.rows.slice(0, t)], `seed ${seed} t ${t}`);
        assert.deepEqual([...first.counts], [...whole.counts.slice(0, t)], `seed ${seed} t ${t}`);
      }
    }
    for (const o of [{}, { t: 3, patternTop: 2 }, { scoring: 'cluster' as const }, { merge: false, t: 5 }]) {
      const fast = explainBugs(a, result, o);
      const full = explainBugs(a, plain, o);
      assert.deepEqual(fast, full, `seed ${seed} ${JSON.stringify(o)}`);
      bugs += full.length;
    }
  }
  assert.ok(bugs > 20, `bugs compared: ${bugs}`);
});
