/**
 * Locations per library call (AnalysisOptions.callLocations) and what `braid analyze --confirm` does
 * with them (engine/confirm/callRefinement.ts, docs/confirm.md "Lines with several library calls"):
 * on the committed datasource recording — a for-each over a HashMap (values(), iterator(), hasNext(),
 * next() at one line) against an unsynchronized remove — without a JVM (forcing replaced by a rule).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisResult, patternAt, patternCount, RankedPattern } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { PatternRegistry } from '../../server/src/engine/unicorn/patternRegistry';
import { collectionOptions, optionMismatch } from '../../server/src/engine/summary/summaryFile';
import { callRefinedCandidates, callsText, hasMixedCalls, lineKey, refinementsOf } from '../../server/src/engine/confirm/callRefinement';
import { forceSection, ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { ConfirmedPattern } from '../../server/src/engine/confirm/confirmedRanking';
import { hasEvidence } from '../../server/src/engine/ranking/rootCauseOrder';
import { validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { confirmAndReorder } from '../../server/src/cli/analyzeConfirm';
import { parseAnalyzeArgs } from '../../server/src/cli/braid';
import { textReport } from '../../server/src/engine/report/textReport';
import type { Confirmation } from '../../server/src/recorder/runs/confirmRuns';
import { confirmWithCalls, patternToForce } from '../../server/src/recorder/runs/confirmPerCall';
import type { Verdict } from '../../server/src/engine/confirm/confirmVerdict';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';

const root = path.resolve(__dirname, '../..');
const BUGS = bugLinesIn(path.join(root, 'test/fixtures/java/datasource'));

/**
 * datasource's committed runs. `latestWrites`: the thesis' access window (`--window-writes latest`,
 * implied by `thesis`), where the line-level root cause R1 W2 R1 at 55/46/55 has no evidence (28
 * failing / 69 passing runs) — the case ranking per call was built for; with adjacent writes (the
 * default) it has evidence (28/54) and ranks 3rd.
 */
async function datasource(o: { thesis?: boolean; perCall?: boolean; latestWrites?: boolean } = {}): Promise<AnalysisResult> {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures/bugset/datasource')]);
  return analyzeTraceFiles(files, {
    ...(o.thesis ? { happensBefore: false, grouping: false } : {}),
    ...(o.thesis || o.latestWrites ? { windowWrites: 'latest' as const } : {}),
    ...(o.perCall ? { callLocations: true } : {}),
  });
}

const list = (r: AnalysisResult) => Array.from({ length: patternCount(r) }, (_, k) => patternAt<RankedPattern>(r, k)!);
const rootPosition = (r: AnalysisResult) => list(r).findIndex((p) => isRootCause(p, BUGS)) + 1;

test('registry: a call is part of a location only with callLocations', () => {
  const lines = new PatternRegistry();
  const a = lines.internLoc('A.java', 55, 'A.scan', 'java.util.Iterator.hasNext');
  assert.equal(lines.internLoc('A.java', 55, 'A.scan', 'java.util.Iterator.next'), a);
  assert.equal(lines.locs[a].call, undefined, 'the call is noted by noteLocCall, not by interning');
  const calls = new PatternRegistry();
  calls.callLocations = true;
  const h = calls.internLoc('A.java', 55, 'A.scan', 'java.util.Iterator.hasNext');
  const n = calls.internLoc('A.java', 55, 'A.scan', 'java.util.Iterator.next');
  assert.notEqual(h, n);
  assert.equal(calls.internLoc('A.java', 55, 'A.scan', 'java.util.Iterator.next'), n);
  assert.equal(calls.locs[n].call, 'java.util.Iterator.next');
  assert.notEqual(calls.internLoc('A.java', 55, 'A.scan'), h, 'a field access at the line is a location of its own');
});

test('callLocations off by default: same options, keys and mixedCalls as before; on: keys name the call, no access is mixedCalls', async () => {
  const lines = await datasource({ latestWrites: true });
  assert.equal('callLocations' in lines.options, false);
  assert.ok(list(lines).every((p) => !p.key.includes('#')));
  assert.ok(hasMixedCalls(lines), 'line 55 makes four calls: its accesses are mixedCalls');
  const calls = await datasource({ perCall: true, latestWrites: true });
  assert.equal(calls.options.callLocations, true);
  assert.deepEqual(calls.executions, lines.executions);
  const rows = list(calls);
  assert.ok(rows.every((p) => p.accesses.every((a) => !a.mixedCalls)));
  assert.ok(!hasMixedCalls(calls));
  const scan = rows.flatMap((p) => p.accesses).filter((a) => a.line === 55 && a.variable === 'java.util.HashMap');
  assert.deepEqual([...new Set(scan.map((a) => a.call))].sort(), ['java.util.Collection.iterator', 'java.util.HashMap.values', 'java.util.Iterator.hasNext', 'java.util.Iterator.next']);
  // a pattern's key names its calls; without them it is the key of a line-level pattern
  const p = rows.find((x) => x.key.includes('#java.util.Iterator.next'))!;
  assert.match(p.key, /PooledDataSource\.java:55#java\.util\.Iterator\.next/);
  assert.equal(lineKey(p.key).includes('#'), false);
  assert.equal(lineKey('P4|R1:java.util.HashMap@a/B.java:55#java.util.Iterator.hasNext|W2:java.util.HashMap@a/B.java:46#java.util.HashMap.remove|R1:x@a/B.java:7'), 'P4|R1:java.util.HashMap@a/B.java:55|W2:java.util.HashMap@a/B.java:46|R1:x@a/B.java:7');
  // per call, the interleaving of the bug has the evidence the line-level patterns lack
  const linePattern = list(lines).find((x) => x.kind === 'RWR' && isRootCause(x, BUGS))!;
  assert.equal(linePattern.evidence, false, 'line level: R1 W2 R1 at lines 55/46/55 is in nearly every passing run too');
  const refined = rows.filter((x) => lineKey(x.key) === linePattern.key && x.evidence !== false);
  assert.ok(refined.length > 0, 'per call it has refinements with evidence');
  assert.ok(refined.some((x) => x.passed < linePattern.passed / 2));
  // summaries and caches made with it are told apart
  assert.deepEqual(collectionOptions(lines.options), { strategy: 'unicorn', accessWindow: 5, pairWindow: 100, happensBefore: true, windowWrites: 'latest' });
  assert.deepEqual(collectionOptions((await datasource()).options), { strategy: 'unicorn', accessWindow: 5, pairWindow: 100, happensBefore: true });
  assert.equal(collectionOptions(calls.options).callLocations, true);
  assert.match(optionMismatch(collectionOptions(lines.options), collectionOptions(calls.options)) ?? '', /locations per call off \(this analysis: on\)/);
});

test('candidates per call: refinements with evidence of K listed patterns on lines of several calls, in the per-call order; exactCall on the accesses of such lines', async () => {
  for (const thesis of [false, true]) {
    const lines = await datasource({ thesis });
    const calls = await datasource({ thesis, perCall: true });
    const listed = new Map(list(lines).map((p, k) => [p.key, { p, rank: k + 1 }]));
    const c = callRefinedCandidates(lines, calls, 3);
    assert.ok(c.length >= 3);
    assert.ok(new Set(c.map((x) => x.lineKey)).size <= 3, 'at most K line-level patterns');
    let last = 0;
    for (const x of c) {
      const l = listed.get(x.lineKey);
      assert.ok(l, `${x.pattern.key} refines a listed pattern`);
      assert.equal(x.pattern.rank, l.rank, 'rank: the line-level position');
      assert.ok(l.p.accesses.some((a) => a.mixedCalls));
      assert.ok(hasEvidence(x.pattern.failed, x.pattern.passed, calls.executions.failed, calls.executions.passed));
      assert.ok(x.callRank > last, 'per-call order');
      last = x.callRank;
      x.pattern.accesses.forEach((a, j) => assert.equal(a.exactCall === true, l.p.accesses[j].mixedCalls === true && !!a.call, `${x.pattern.key} access ${j}`));
    }
    const root = c.find((x) => x.pattern.kind === 'RWR' && isRootCause(x.pattern, BUGS));
    assert.ok(root, `${thesis ? 'thesis' : 'default'}: a refinement of the root cause is a candidate`);
    assert.equal(callsText(root.pattern).split(' → ')[1], 'HashMap.remove');
    // skip: a line-level pattern already confirmed is not tried again
    assert.ok(!callRefinedCandidates(lines, calls, 3, (k) => k === root.lineKey).some((x) => x.lineKey === root.lineKey));
  }
});

test('forcing an exact call of a loop line: the calls are matched, the window opens fresh with the other thread ready, no guard', () => {
  const at = (line: number, call: string, thread: 1 | 2, type: 'R' | 'W', exact: boolean) => ({
    thread, type, variable: 'java.util.HashMap', file: 'datasource/PooledDataSource.java', line, method: 'm', call, ...(exact ? { exactCall: true, mixedCalls: true } : {}),
  });
  const p: ForcedPattern = { key: 'k', id: 'P4', kind: 'RWR', rank: 13, accesses: [at(55, 'java.util.Iterator.hasNext', 1, 'R', true), at(46, 'java.util.HashMap.remove', 2, 'W', false), at(55, 'java.util.Iterator.next', 1, 'R', true)] };
  const f = forceSection(p, 'pattern');
  assert.deepEqual(f.accesses.map((a) => a.call), ['java.util.Iterator.hasNext', 'java.util.HashMap.remove', 'java.util.Iterator.next']);
  assert.ok(!f.accesses.some((a) => a.anywhere), 'no guard access');
  assert.deepEqual(f.waits, [
    { at: 0, for: 1, sameObject: true, ready: true, optional: true },
    { at: 1, for: 0, sameObject: true, fresh: true },
    { at: 2, for: 1, sameObject: true, since: 0 },
  ]);
  // the plan is valid as braid record reads it
  validateNoisePlan({ format: 'braid-noise-plan', version: 1, name: 'x', noise: { kind: 'yield' }, points: [], force: f }, 'x.json');
  // the opposite order is unchanged: the window's first access waits for the other thread's
  assert.deepEqual(forceSection(p, 'opposite').waits, [{ at: 0, for: 1, sameObject: true }]);
  // the same line-level pattern (mixedCalls, no exact call): no call at line 55, a guard, no fresh/ready
  const line: ForcedPattern = { ...p, accesses: p.accesses.map(({ exactCall: _e, ...a }) => a) };
  const g = forceSection(line, 'pattern');
  assert.deepEqual(g.accesses.map((a) => a.call), [undefined, 'java.util.HashMap.remove', undefined, undefined]);
  assert.ok(g.accesses[3].anywhere);
  assert.ok(g.waits.every((w) => !w.fresh && !w.ready));
});

test('a force section: fresh cannot go with since, ready only on an optional wait without since or fresh', () => {
  const plan = (waits: unknown[]) => ({
    format: 'braid-noise-plan', version: 1, name: 'x', noise: { kind: 'yield' }, points: [],
    force: { order: 'pattern', waitMs: 300, times: 1, accesses: [{ role: 1, type: 'R', variable: 'v', file: 'A.java', line: 1, method: 'm' }, { role: 2, type: 'W', variable: 'v', file: 'A.java', line: 2, method: 'm' }, { role: 1, type: 'R', variable: 'v', file: 'A.java', line: 1, method: 'm' }], waits },
  });
  const ok = [{ at: 0, for: 1, sameObject: true, ready: true, optional: true }, { at: 1, for: 0, sameObject: true, fresh: true }, { at: 2, for: 1, since: 0, sameObject: true }];
  validateNoisePlan(plan(ok), 'x.json');
  assert.throws(() => validateNoisePlan(plan([{ at: 2, for: 1, since: 0, sameObject: true, fresh: true }]), 'x.json'), /force\.waits\[0\]\.fresh: cannot go with since/);
  assert.throws(() => validateNoisePlan(plan([{ at: 1, for: 0, sameObject: true, fresh: 1 }]), 'x.json'), /force\.waits\[0\]\.fresh: must be true or false/);
  assert.throws(() => validateNoisePlan(plan([{ at: 0, for: 1, sameObject: true, ready: true }, ok[2]]), 'x.json'), /force\.waits\[0\]\.ready: must be optional/);
  assert.throws(() => validateNoisePlan(plan([{ at: 0, for: 1, sameObject: true, ready: true, fresh: true, optional: true }, ok[2]]), 'x.json'), /force\.waits\[0\]\.ready: cannot go with since or fresh/);
});

/** Forcing replaced by a rule: a root-cause pattern is confirmed only when forced at its calls (as measured), any other refuted. */
function fakeConfirm() {
  const tried: RankedPattern[] = [];
  const one = async (p: RankedPattern): Promise<Confirmation> => {
    tried.push(p);
    const exact = p.accesses.some((a) => (a as { exactCall?: boolean }).exactCall);
    const v: Verdict = exact && isRootCause(p, BUGS) && p.kind === 'RWR' ? 'confirmed' : 'refuted';
    return { verdict: v, reason: v, pValue: v === 'confirmed' ? 1e-5 : 1, forced: { runs: 10, failed: v === 'confirmed' ? 10 : 0, forcedOk: 10 }, pattern: { rank: p.rank, key: p.key, id: p.id }, folder: '', plan: '', runsSpent: 30, seconds: 1 };
  };
  return { one, tried };
}

test('--confirm: when no candidate is confirmed, refinements per call are forced and a confirmed one puts its line-level pattern (the root cause) first', async () => {
  for (const thesis of [false, true]) {
    const lines = await datasource({ thesis, latestWrites: true });
    const before = rootPosition(lines);
    assert.ok(before > 1, 'the premise: rank 1 is not the root cause');
    const bugs = explainBugs(undefined, lines, {});
    let ranked = 0;
    const perCallRanking = () => {
      ranked++;
      return datasource({ thesis, perCall: true, latestWrites: true });
    };
    const f = fakeConfirm();
    const out = await confirmAndReorder(lines, bugs, { top: 3, runs: 10, budget: 400, perCallRanking }, f.one);
    assert.equal(ranked, 1);
    const first = list(out.result)[0] as ConfirmedPattern;
    assert.ok(isRootCause(first, BUGS), `${thesis ? 'thesis' : 'default'}: first after confirmation ${first.id} ${first.kind}`);
    assert.equal(first.confirmation?.verdict, 'confirmed');
    assert.match(first.key, /^P4\|/);
    assert.ok(!first.key.includes('#'), 'the line-level pattern is listed');
    assert.match(first.confirmation?.forcedKey ?? '', /#java\.util\.Iterator\.next/);
    assert.match(first.confirmation?.reason ?? '', /^forced at the calls .*HashMap\.remove.* \(#\d+ with locations per call, \d+ failing \/ \d+ passing runs\): confirmed/);
    assert.equal(f.tried.at(-1)!.key, first.confirmation?.forcedKey, 'stops at the first confirmed');
    const perCall = f.tried.map((p) => p.key.includes('#'));
    assert.ok(perCall.indexOf(true) > perCall.lastIndexOf(false), 'the line-level candidates first, then the per-call ones');
    assert.match(out.lines.join('\n'), /per library call/);
    assert.equal(out.spent, 30 * f.tried.length);
    // the text report lists it first among the causes (not under "Without evidence")
    const text = textReport(out.result, 3).split('\n');
    const firstRow = text[text.findIndex((l) => l.startsWith('Rank ')) + 1];
    assert.ok(text.findIndex((l) => l.startsWith('Rank ')) < text.findIndex((l) => l.startsWith('Without evidence')) || !text.some((l) => l.startsWith('Without evidence')));
    assert.match(firstRow, new RegExp(`^${first.rank}\\s+\\S+\\s+${first.id}\\s+${first.kind}\\s`), firstRow);
    // the bugs follow their patterns into the new order
    for (const b of out.bugs ?? []) for (const [j, k] of b.patterns.entries()) assert.equal(out.result.patterns[k].key, b.patternKeys[j]);
    // without it (--confirm-calls off), the root cause stays where it was
    const g = fakeConfirm();
    const off = await confirmAndReorder(lines, bugs, { top: 3, runs: 10, budget: 400 }, g.one);
    assert.ok(rootPosition(off.result) !== 1);
    assert.ok(g.tried.length < f.tried.length);
  }
});

test('--confirm: no ranking per call when a candidate is confirmed, or no listed line makes several calls', async () => {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures/recorded/auditlog')]);
  const r = await analyzeTraceFiles(files, { happensBefore: false, grouping: false, windowWrites: 'latest' });
  assert.equal(hasMixedCalls(r), false);
  let ranked = 0;
  const perCallRanking = async () => {
    ranked++;
    return undefined;
  };
  const refuteAll = async (p: RankedPattern): Promise<Confirmation> => ({ verdict: 'refuted', reason: 'r', pValue: 1, forced: { runs: 5, failed: 0, forcedOk: 5 }, pattern: { rank: p.rank, key: p.key, id: p.id }, folder: '', plan: '', runsSpent: 5, seconds: 1 });
  await confirmAndReorder(r, undefined, { top: 2, runs: 10, budget: 400, perCallRanking }, refuteAll);
  assert.equal(ranked, 0, 'auditlog has no line of several calls');
  const lines = await datasource();
  const confirmFirst = async (p: RankedPattern): Promise<Confirmation> => ({ ...(await refuteAll(p)), verdict: 'confirmed' });
  await confirmAndReorder(lines, undefined, { top: 2, runs: 10, budget: 400, perCallRanking }, confirmFirst);
  assert.equal(ranked, 0, 'a line-level candidate was confirmed');
});

test('braid analyze --confirm-calls on|off (default on), only with --confirm K', () => {
  assert.equal(parseAnalyzeArgs(['x', '--confirm', '2']).confirm?.perCall, undefined);
  assert.equal(parseAnalyzeArgs(['x', '--confirm', '2', '--confirm-calls', 'off']).confirm?.perCall, false);
  assert.equal(parseAnalyzeArgs(['x', '--confirm', '2', '--confirm-calls', 'on']).confirm?.perCall, true);
  assert.throws(() => parseAnalyzeArgs(['x', '--confirm', '2', '--confirm-calls', 'maybe']), /--confirm-calls must be on or off/);
  assert.throws(() => parseAnalyzeArgs(['x', '--confirm-calls', 'off']), /go with --confirm K/);
});

test('braid confirm --pattern / the editor\'s Confirm on a line-level pattern of a for-each line: refuted there, its refinements per call are forced and a confirmed one is the verdict', async () => {
  const lines = await datasource();
  const calls = await datasource({ perCall: true });
  const root = list(lines).find((p) => p.kind === 'RWR' && isRootCause(p, BUGS) && p.accesses.some((a) => a.mixedCalls))!;
  assert.ok(root, 'the line-level R1 W2 R1 at 55/46/55');
  const refinements = refinementsOf(root, calls, 3);
  assert.ok(refinements.length > 0 && refinements.every((r) => r.lineKey === root.key && r.pattern.rank === root.rank));
  assert.ok(refinements.every((r, k) => k === 0 || r.callRank > refinements[k - 1].callRank), 'in the per-call order');
  let ranked = 0;
  const perCallRanking = async () => {
    ranked++;
    return calls;
  };
  const f = fakeConfirm();
  const c = await confirmWithCalls(root, (p) => f.one(p as RankedPattern), perCallRanking);
  assert.equal(ranked, 1);
  assert.equal(c.verdict, 'confirmed');
  assert.equal(c.pattern.key, root.key, 'the verdict is the line-level pattern\'s');
  assert.match(c.perCall?.key ?? '', /#java\.util\.Iterator\.next/);
  assert.match(c.reason, /^forced at the calls .*HashMap\.remove.* \(#\d+ with locations per call, \d+ failing \/ \d+ passing runs\): confirmed$/);
  assert.equal(f.tried[0].key, root.key, 'the line-level forcing first');
  assert.equal(c.runsSpent, 30 * f.tried.length);
  assert.deepEqual(c.refinements?.map((r) => r.verdict).at(-1), 'confirmed');
  // none confirmed: the line-level verdict stands and says what the refinements gave
  const never = async (p: RankedPattern): Promise<Confirmation> => ({ ...(await f.one(p)), verdict: 'refuted', reason: 'refuted' });
  const r = await confirmWithCalls(root, (p) => never(p as RankedPattern), perCallRanking, { maxRefinements: 2 });
  assert.equal(r.verdict, 'refuted');
  assert.equal(r.perCall, undefined);
  assert.match(r.reason, /^refuted; forced per library call: .+: refuted; .+: refuted$/);
  assert.equal(r.refinements?.length, 2);
  // a pattern without an access on such a line, or a confirmed line-level one: no ranking per call
  const plain = list(lines).find((p) => !p.accesses.some((a) => a.mixedCalls))!;
  ranked = 0;
  await confirmWithCalls(plain, (p) => never(p as RankedPattern), perCallRanking);
  const yes = async (p: RankedPattern): Promise<Confirmation> => ({ ...(await f.one(p)), verdict: 'confirmed' });
  await confirmWithCalls(root, (p) => yes(p as RankedPattern), perCallRanking);
  await confirmWithCalls(root, (p) => never(p as RankedPattern), undefined);
  assert.equal(ranked, 0);
});

test('check the fix forces a pattern of a for-each line at its calls: the refinement that confirmed it, else the best one', async () => {
  const lines = await datasource();
  const calls = await datasource({ perCall: true });
  const root = list(lines).find((p) => p.kind === 'RWR' && isRootCause(p, BUGS) && p.accesses.some((a) => a.mixedCalls))!;
  const refinements = refinementsOf(root, calls, 20);
  assert.ok(refinements.length >= 2);
  const ranking = async () => calls;
  const best = await patternToForce(root, ranking);
  assert.equal(best.pattern.key, refinements[0].pattern.key);
  assert.match(best.calls ?? '', /HashMap\.remove/);
  assert.ok(best.pattern.accesses.some((a) => (a as { exactCall?: boolean }).exactCall), 'held at its calls');
  const chosen = await patternToForce(root, ranking, refinements[1].pattern.key);
  assert.equal(chosen.pattern.key, refinements[1].pattern.key, 'the one that confirmed it');
  const plain = list(lines).find((p) => !p.accesses.some((a) => a.mixedCalls))!;
  assert.equal((await patternToForce(plain, ranking)).pattern, plain);
  assert.equal((await patternToForce(root, undefined)).pattern, root);
});

test('a line-level pattern without evidence has its refinements without evidence (micrometer-promcollect: the scrape’s collect, then another thread’s add)', async () => {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures/real/micrometer-promcollect')]);
  const lines = await analyzeTraceFiles(files, {});
  const calls = await analyzeTraceFiles(files, { callLocations: true });
  const p = list(lines).find((q) => q.kind === 'RW' && q.accesses[0].line === 72 && q.accesses[1].line === 54 && q.accesses[0].mixedCalls)!;
  assert.ok(p && p.evidence === false, 'the premise: the root-cause pair at a line of several calls, without evidence');
  const refinements = refinementsOf(p, calls, 3);
  assert.ok(refinements.length > 0, 'refinements without evidence are taken');
  assert.ok(refinements.every((r) => r.pattern.evidence === false && r.lineKey === p.key));
  assert.ok(refinements.some((r) => r.pattern.accesses[0].call === 'java.util.stream.Stream.collect'), refinements.map((r) => callsText(r.pattern)).join('; '));
  // with evidence, a refinement needs evidence of its own (as before)
  assert.deepEqual(refinementsOf({ ...p, evidence: true }, calls, 3), []);
});
