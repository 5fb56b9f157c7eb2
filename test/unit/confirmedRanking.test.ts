/**
 * `braid analyze --confirm K` without a JVM (issue 28): which patterns are forced, and how the list
 * is reordered by the verdicts — on real committed recordings, with the forcing replaced by a rule.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisResult, patternAt, patternCount, RankedPattern } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { explainBugs } from '../../server/src/engine/griffin/griffin';
import { confirmAndReorder, confirmCandidates } from '../../server/src/cli/analyzeConfirm';
import { holdsAll, reorderLines, supersetsOfConfirmed, withConfirmations, PatternConfirmation, ConfirmedPattern } from '../../server/src/engine/confirm/confirmedRanking';
import type { Confirmation } from '../../server/src/recorder/runs/confirmRuns';
import type { Verdict } from '../../server/src/engine/confirm/confirmVerdict';
import { bugLinesIn, isRootCause } from '../helpers/rootCause';

const root = path.resolve(__dirname, '../..');

async function ranking(set: string, pkg: string, thesis: boolean): Promise<AnalysisResult> {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures', set, pkg)]);
  return analyzeTraceFiles(files, thesis ? { happensBefore: false, grouping: false, windowWrites: 'latest' as const } : {});
}

const list = (r: AnalysisResult) => Array.from({ length: patternCount(r) }, (_, k) => patternAt<RankedPattern>(r, k)!);

function verdict(v: Verdict, runs = 10): PatternConfirmation {
  return { verdict: v, reason: v, pValue: v === 'confirmed' ? 1e-5 : 1, forced: { runs, failed: v === 'confirmed' ? runs : 0, forcedOk: runs } };
}

/** A forcing stand-in: root-cause patterns (all accesses on `// @bug` lines) fail when forced. */
function fakeConfirm(pkg: string, notForced = new Set<string>()) {
  const bugs = bugLinesIn(path.join(root, 'test/fixtures/java', pkg));
  const tried: RankedPattern[] = [];
  const one = async (p: RankedPattern): Promise<Confirmation> => {
    tried.push(p);
    const v: Verdict = notForced.has(p.key) ? 'not forced' : isRootCause(p, bugs) ? 'confirmed' : 'refuted';
    return { ...verdict(v), pattern: { rank: p.rank, key: p.key, id: p.id }, folder: '', plan: '', runsSpent: 30, seconds: 1 };
  };
  return { one, tried, bugs };
}

test('candidates: the top K with evidence, then each bug lead once; a pattern without evidence is never a candidate', async () => {
  const r = await ranking('bugset', 'datasource', false);
  const bugs = explainBugs(undefined, r, {});
  const c = confirmCandidates(r, bugs, 3);
  assert.ok(c.length >= 3);
  assert.deepEqual(c.slice(0, 3).map((p) => p.key), list(r).slice(0, 3).map((p) => p.key));
  assert.deepEqual(c.slice(0, 3).map((p) => p.rank), [1, 2, 3], "rank = the position in the list (#k in the output)");
  assert.equal(new Set(c.map((p) => p.key)).size, c.length, 'each pattern once');
  for (const p of c) assert.notEqual(p.evidence, false);
  for (const b of bugs) if (b.patternKeys[0]) assert.ok(c.some((p) => p.key === b.patternKeys[0]), `bug ${b.id}'s lead is tried`);
});

test('thesis mode (auditlog): rank 1 is not the root cause; the confirmed root cause is listed first, refuted ones last', async () => {
  const r = await ranking('recorded', 'auditlog', true);
  const f = fakeConfirm('auditlog');
  assert.ok(!isRootCause(list(r)[0], f.bugs), 'the thesis ranking puts a non-root pattern first (the premise)');
  const out = await confirmAndReorder(r, explainBugs(undefined, r, {}), { top: 3, runs: 10, budget: 400 }, f.one);
  const after = list(out.result);
  assert.ok(isRootCause(after[0], f.bugs), `first after confirmation: ${after[0].id} ${after[0].accesses.map((a) => `${a.file}:${a.line}`).join(' ')}`);
  assert.equal((after[0] as ConfirmedPattern).confirmation?.verdict, 'confirmed');
  const refuted = after.map((p, k) => ({ p: p as ConfirmedPattern, k })).filter((x) => x.p.confirmation?.verdict === 'refuted');
  assert.ok(refuted.length > 0);
  const untried = after.findIndex((p) => !(p as ConfirmedPattern).confirmation);
  for (const x of refuted) assert.ok(x.k > untried, 'refuted patterns come after the ones not tried');
  assert.equal(out.spent, 30 * f.tried.length);
  assert.match(out.lines.join('\n'), /✓ confirmed/);
  // the bugs follow their patterns into the new order
  for (const b of out.bugs ?? []) for (const [j, k] of b.patterns.entries()) assert.equal(out.result.patterns[k].key, b.patternKeys[j]);
});

test('the budget bounds the runs: candidates that do not fit are left out and said', async () => {
  const r = await ranking('recorded', 'auditlog', true);
  const f = fakeConfirm('auditlog');
  const out = await confirmAndReorder(r, undefined, { top: 3, runs: 10, budget: 60 }, f.one);
  assert.equal(f.tried.length, 2, 'two confirmations of 30 runs fit in 60');
  assert.match(out.lines.join('\n'), /1 left out \(budget of 60 runs/);
});

test('a confirmed pattern whose accesses hold another confirmed pattern\'s comes after it (twoaccounts, thesis: WRRW ⊃ RW on savings)', async () => {
  const r = await ranking('bugset', 'twoaccounts', true);
  const rows = list(r);
  const bugs = bugLinesIn(path.join(root, 'test/fixtures/java/twoaccounts'));
  const rw = rows.findIndex((p) => isRootCause(p, bugs));
  assert.ok(rw > 0, 'the root-cause RW is not listed first in the thesis order (the premise)');
  // every pattern listed before it, and it, confirmed (forcing a superset forces the RW too)
  const verdicts = new Map(rows.slice(0, rw + 1).map((p) => [p.key, verdict('confirmed')]));
  const after = list(withConfirmations(r, verdicts));
  assert.equal(after[0].key, rows[rw].key, `the smallest confirmed interleaving first, got ${after[0].id} ${after[0].kind}`);
  const supersets = supersetsOfConfirmed(after as ConfirmedPattern[]);
  for (const p of supersets.keys()) assert.ok(p.accesses.length > after[0].accesses.length);
});

test('a confirmed pattern without evidence in the recorded runs goes before the unconfirmed ones with evidence', async () => {
  const r = await ranking('bugset', 'datasource', false);
  const rows = list(r);
  const noEvidence = rows.find((p) => p.evidence === false)!;
  const after = list(withConfirmations(r, new Map([[noEvidence.key, verdict('confirmed')], [rows[0].key, verdict('refuted')]])));
  assert.equal(after[0].key, noEvidence.key);
  const refutedAt = after.findIndex((p) => p.key === rows[0].key);
  const lastWithEvidence = after.map((p) => p.evidence !== false).lastIndexOf(true);
  assert.ok(refutedAt > lastWithEvidence - 1, 'the refuted rank 1 follows every untried pattern with evidence');
  // no verdict: nothing moves
  assert.equal(withConfirmations(r, new Map()), r);
});

test('"No verdict without runs" (issue 39) in analyze --confirm: could not check keeps no verdict, and a command that never ran stops the loop', async () => {
  const r = await ranking('recorded', 'auditlog', true);
  const tried: RankedPattern[] = [];
  const never = async (p: RankedPattern): Promise<Confirmation> => {
    tried.push(p);
    return {
      verdict: 'could not check',
      couldNotCheck: { why: 'the command failed: command not found (no forced run finished)', hint: 'check the program name and the PATH' },
      reason: 'could not check: the command failed: command not found (no forced run finished)',
      pValue: 1,
      forced: { runs: 0, failed: 0, forcedOk: 0 },
      pattern: { rank: p.rank, key: p.key, id: p.id },
      folder: '',
      plan: '',
      runsSpent: 0,
      seconds: 0.1,
    };
  };
  const out = await confirmAndReorder(r, undefined, { top: 3, runs: 10, budget: 400 }, never);
  assert.equal(tried.length, 1, 'the next candidates would fail the same way');
  assert.equal(out.verdicts.size, 0, 'no verdict from zero runs');
  assert.ok(list(out.result).every((p) => !(p as ConfirmedPattern).confirmation));
  assert.match(out.lines.join('\n'), /\? could not check .*\n.*command not found.*what to do: check the program name/);
});

// ---- issue 40, item 2: ordering after confirmation ----

type Acc = RankedPattern['accesses'][number];
const acc = (thread: 1 | 2, type: 'R' | 'W', line: number, variable = 'demo.Box.value'): Acc => ({ thread, type, variable, file: 'demo/Box.java', line, method: 'demo.Box.bump' }) as Acc;
const pat = (key: string, accesses: Acc[], evidence = true): ConfirmedPattern => ({ key, id: key, kind: accesses.map((a) => a.type).join(''), accesses, evidence }) as unknown as ConfirmedPattern;

test('the superset rule compares thread roles: W1 W2 on value@13 is not within R1 W2 R1 over value@10/@13 (one writer at 13), but is within R1 W2 W1', () => {
  const ww = pat('ww', [acc(1, 'W', 13), acc(2, 'W', 13)]);
  const rwr = pat('rwr', [acc(1, 'R', 10), acc(2, 'W', 13), acc(1, 'R', 10)]);
  const rww = pat('rww', [acc(1, 'R', 10), acc(2, 'W', 13), acc(1, 'W', 13)]);
  assert.equal(holdsAll(rwr, ww), false, 'R1 W2 R1 has thread 2’s write at 13 only');
  assert.equal(holdsAll(rww, ww), true);
  // roles are numbered per pattern: W2 W1 is W1 W2 swapped
  assert.equal(holdsAll(rww, pat('w21', [acc(2, 'W', 13), acc(1, 'W', 13)])), true);
  const confirmed = (p: ConfirmedPattern) => ({ ...p, confirmation: verdict('confirmed') });
  const rows = [confirmed(ww), confirmed(rwr)];
  assert.equal(supersetsOfConfirmed(rows).size, 0, 'the root cause R1 W2 R1 is not demoted behind the symmetric W1 W2');
  const sup = supersetsOfConfirmed([confirmed(ww), confirmed(rww)]);
  assert.deepEqual([...sup].map(([a, b]) => [a.key, b.key]), [['rww', 'ww']]);
});

test('refuted and not-forced patterns never stay first because the others lack evidence; every move is said in one line', async () => {
  const r = await ranking('bugset', 'datasource', false);
  const rows = list(r);
  const firstWeak = rows.findIndex((p) => p.evidence === false);
  assert.ok(firstWeak > 0, 'the premise: datasource lists patterns without evidence');
  // every pattern with evidence refuted or not forced: an untried one without evidence goes first
  const verdicts = new Map(rows.slice(0, firstWeak).map((p, k) => [p.key, verdict(k % 2 ? 'not forced' : 'refuted')]));
  const after = list(withConfirmations(r, verdicts)) as ConfirmedPattern[];
  assert.equal(after[0].confirmation, undefined, `first: ${after[0].id} ${after[0].confirmation?.verdict}`);
  assert.equal(after[0].key, rows[firstWeak].key);
  // not tried, then not forced, then refuted
  const places = after.map((p) => p.confirmation?.verdict ?? 'untried');
  const firstNotForced = places.indexOf('not forced');
  const firstRefuted = places.indexOf('refuted');
  assert.ok(places.lastIndexOf('untried') < firstNotForced && places.lastIndexOf('not forced') < firstRefuted, places.join(','));
  const lines = reorderLines(rows, after);
  for (const p of after) {
    if (!p.confirmation) continue;
    assert.ok(lines.some((l) => l.startsWith(`#${rows.findIndex((q) => q.key === p.key) + 1} ${p.id} `) && l.includes(p.confirmation!.verdict)), `a line for ${p.id}: ${lines.join('\n')}`);
  }
  assert.ok(lines.some((l) => /patterns not tried move up/.test(l)), lines.join('\n'));
});

test('a pattern that only confirms the window is listed after the confirmed ones and before the patterns not tried, and --confirm forces its window’s cause next', async () => {
  const r = await ranking('recorded', 'auditlog', true);
  const rows = list(r);
  const bugs = bugLinesIn(path.join(root, 'test/fixtures/java/auditlog'));
  const tried: string[] = [];
  // a stand-in: rank 1 only confirms the window; the root cause is confirmed
  const one = async (p: RankedPattern): Promise<Confirmation> => {
    tried.push(p.key);
    const v = p.key === rows[0].key ? 'confirms the window' : isRootCause(p, bugs) ? 'confirmed' : 'refuted';
    return { ...verdict(v as Verdict), pattern: { rank: p.rank, key: p.key, id: p.id }, folder: '', plan: '', runsSpent: 30, seconds: 1 };
  };
  const out = await confirmAndReorder(r, undefined, { top: 1, runs: 10, budget: 400 }, one);
  const after = list(out.result) as ConfirmedPattern[];
  const w = after.findIndex((p) => p.key === rows[0].key);
  assert.equal(after[w].confirmation?.verdict, 'confirms the window');
  assert.ok(after.slice(0, w).every((p) => p.confirmation?.verdict === 'confirmed'), 'after the confirmed patterns only');
  assert.ok(after.slice(w + 1).every((p) => p.confirmation?.verdict !== 'confirmed'), 'before the patterns not tried');
  const cause = after[w].confirmation?.windowOf;
  assert.ok(cause && tried.includes(cause), `its window's cause was forced next: ${tried.length} tried`);
  assert.match(out.lines.join('\n'), /the window's cause: #\d+ /);
  // the window's cause, refuted here, loses its place, and says so in one line
  assert.match(out.lines.join('\n'), /#2 \S+ \S+ → \d+(st|nd|rd|th): refuted — after the patterns not tried/);
});
