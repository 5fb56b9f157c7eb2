/**
 * The cause within a confirmed combination (engine/confirm/causeWithin.ts): which smaller pattern is
 * forced after a combination is confirmed, and how `braid analyze --confirm` lists the two — on the
 * committed recording of a real bug (micrometer-promcollect: a scrape streams over a collector's
 * children while another thread adds one), with the forcing replaced by a rule.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { analyzeTraceFiles, AnalysisResult, patternAt, patternCount, RankedPattern } from '../../server/src/engine/analysis';
import { findTraceFiles } from '../../server/src/engine/traceDiscovery';
import { causeWithinCandidates, isOrderedWithin, patternsWithin } from '../../server/src/engine/confirm/causeWithin';
import { confirmAndReorder } from '../../server/src/cli/analyzeConfirm';
import { confirmJson, confirmText } from '../../server/src/cli/confirmCommand';
import { forceCauseWithin } from '../../server/src/recorder/runs/confirmWithin';
import type { Confirmation } from '../../server/src/recorder/runs/confirmRuns';
import type { ConfirmedPattern } from '../../server/src/engine/confirm/confirmedRanking';

const root = path.resolve(__dirname, '../..');

type A = RankedPattern['accesses'][number];
const acc = (thread: number, type: 'R' | 'W', variable: string, line: number): A => ({ thread, type, variable, file: 'C.java', line, method: 'C.m' }) as A;
const pat = (key: string, ...accesses: A[]) => ({ key, accesses });

test('a pattern is within another when its accesses come in the other’s order, thread roles kept or swapped', () => {
  const p = pat('p', acc(1, 'R', 'list', 72), acc(2, 'W', 'count', 26), acc(2, 'W', 'list', 54), acc(1, 'R', 'count', 40));
  assert.ok(isOrderedWithin(p, pat('rw', acc(1, 'R', 'list', 72), acc(2, 'W', 'list', 54))));
  assert.ok(isOrderedWithin(p, pat('rw-swapped', acc(2, 'R', 'list', 72), acc(1, 'W', 'list', 54))), 'roles are numbered per pattern');
  assert.ok(!isOrderedWithin(p, pat('wr', acc(1, 'W', 'list', 54), acc(2, 'R', 'list', 72))), 'the opposite order has the same accesses but is not within');
  assert.ok(!isOrderedWithin(p, pat('one-thread', acc(1, 'R', 'list', 72), acc(1, 'W', 'list', 54))), 'both accesses by one role are not within');
  assert.ok(!isOrderedWithin(p, pat('other-line', acc(1, 'R', 'list', 73), acc(2, 'W', 'list', 54))));
});

test('patternsWithin: smallest first, then in list order, leaving a variable out; nothing within a pair or a one-variable window', () => {
  const p = pat('p', acc(1, 'R', 'x', 1), acc(2, 'W', 'y', 2), acc(2, 'W', 'x', 3), acc(1, 'R', 'y', 4));
  const rwx = pat('rwx', acc(1, 'R', 'x', 1), acc(2, 'W', 'x', 3));
  const rwwx = pat('rww', acc(1, 'R', 'x', 1), acc(2, 'W', 'y', 2), acc(2, 'W', 'x', 3));
  const wry = pat('wry', acc(1, 'W', 'y', 2), acc(2, 'R', 'y', 4));
  const unrelated = pat('u', acc(1, 'R', 'z', 9), acc(2, 'W', 'z', 9));
  assert.deepEqual(patternsWithin([rwwx, unrelated, wry, rwx, p], p).map((q) => q.key), ['wry', 'rwx'], 'rww keeps both variables: not within');
  assert.equal(causeWithinCandidates([rwwx, rwx], p)[0]?.key, 'rwx');
  assert.deepEqual(patternsWithin([p, rwwx], rwx), [], 'a pair has no smaller pattern within it');
  // a window on one variable: each access is the bug's (a lost update's R1 W2 W1 holds R1 W2, which is not its cause)
  const lost = pat('lost', acc(1, 'R', 'x', 1), acc(2, 'W', 'x', 2), acc(1, 'W', 'x', 3));
  assert.deepEqual(patternsWithin([pat('rw', acc(1, 'R', 'x', 1), acc(2, 'W', 'x', 2)), lost], lost), []);
});

/** The committed recording, with one combination that holds the root-cause pair moved first and given evidence (the live recordings ranked such a pattern first). */
async function promcollect(): Promise<{ result: AnalysisResult; combo: RankedPattern; pair: RankedPattern }> {
  const { files } = await findTraceFiles([path.join(root, 'test/fixtures/real/micrometer-promcollect')]);
  const r = await analyzeTraceFiles(files, {});
  const rows = Array.from({ length: patternCount(r) }, (_, k) => patternAt<RankedPattern>(r, k)!);
  const isPair = (p: RankedPattern) => p.accesses.length === 2 && p.accesses[0].type === 'R' && p.accesses[0].line === 72 && p.accesses[1].type === 'W' && p.accesses[1].line === 54;
  const pair = rows.find(isPair);
  assert.ok(pair, 'the premise: the root-cause pair R children :72 → W children.add :54 is listed');
  const combo = rows.find((p) => p.accesses.length === 4 && isOrderedWithin(p, pair));
  assert.ok(combo, `the premise: a combination of four accesses holds the pair (${rows.map((p) => p.kind).join(' ')})`);
  const first = { ...combo, evidence: true };
  const rest = rows.filter((p) => p !== combo).map((p) => ({ ...p, evidence: false }));
  const { ranking: _r, ...plain } = r;
  return { result: { ...plain, patterns: [first, ...rest] }, combo: first, pair };
}

function forcing(confirms: (p: RankedPattern) => boolean) {
  const tried: string[] = [];
  const one = async (p: RankedPattern): Promise<Confirmation> => {
    tried.push(p.key);
    const ok = confirms(p);
    return {
      verdict: ok ? 'confirmed' : 'refuted',
      reason: ok ? 'confirmed' : 'refuted',
      pValue: ok ? 1e-5 : 1,
      forced: { runs: 10, failed: ok ? 10 : 0, forcedOk: 10 },
      opposite: { runs: 10, failed: 0, forcedOk: 10 },
      pattern: { rank: p.rank, key: p.key, id: p.id },
      folder: '',
      plan: '',
      runsSpent: 30,
      seconds: 1,
    };
  };
  return { one, tried };
}

test('analyze --confirm: a confirmed combination has the pair within it forced next; confirmed too, the pair is listed first and the move is said', async () => {
  const { result, combo, pair } = await promcollect();
  const f = forcing((p) => isOrderedWithin(p, pair));
  const out = await confirmAndReorder(result, undefined, { top: 1, runs: 10, budget: 400 }, f.one);
  assert.deepEqual(f.tried, [combo.key, pair.key], 'the combination, then the pair within it');
  const after = out.result.patterns as ConfirmedPattern[];
  assert.equal(after[0].key, pair.key, `first: ${after[0].id} ${after[0].kind}`);
  assert.equal(after[1].key, combo.key);
  const text = out.lines.join('\n');
  assert.match(text, new RegExp(`within it: #\\d+ ${pair.id} RW — tried next`));
  assert.match(text, /confirmed, but its accesses hold all of #\d+ P\d+ RW's \(confirmed too\): listed after it/);
});

/** The combination's part on its other variable (the counter's W1 :26 → R2 :40), listed too. */
function otherPart(result: AnalysisResult, combo: RankedPattern, pair: RankedPattern): RankedPattern {
  const rows = result.patterns as RankedPattern[];
  const other = causeWithinCandidates(rows, combo).find((q) => q.key !== pair.key);
  assert.ok(other, 'the premise: a part of the combination on the counter is listed');
  assert.ok(other.accesses.every((a) => !pair.accesses.some((b) => b.variable === a.variable)), 'on the other variable');
  return other;
}

test('analyze --confirm: when no part is confirmed alone (each variable’s part forced in turn), the combination stays first (its whole order is the cause)', async () => {
  const { result, combo, pair } = await promcollect();
  const other = otherPart(result, combo, pair);
  const f = forcing((p) => p.key === combo.key);
  const out = await confirmAndReorder(result, undefined, { top: 1, runs: 10, budget: 400 }, f.one);
  assert.deepEqual(f.tried, [combo.key, pair.key, other.key], 'the combination, its part on the list, then its part on the counter');
  assert.equal(out.result.patterns[0].key, combo.key);
  assert.match(out.lines.join('\n'), new RegExp(`the next part of #\\d+ ${combo.id} \\w+: #\\d+ ${other.id} \\w+ — tried next`));
});

test('analyze --confirm: the first part refuted alone, the part on the other variable confirmed: that part is named and listed first', async () => {
  const { result, combo, pair } = await promcollect();
  const other = otherPart(result, combo, pair);
  const f = forcing((p) => p.key === combo.key || p.key === other.key);
  const out = await confirmAndReorder(result, undefined, { top: 1, runs: 10, budget: 400 }, f.one);
  assert.deepEqual(f.tried, [combo.key, pair.key, other.key]);
  assert.equal(out.result.patterns[0].key, other.key, 'the confirmed part first');
  assert.equal(out.result.patterns[1].key, combo.key);
});

test('analyze --confirm: a part confirmed alone ends the search: the part on the other variable is not forced', async () => {
  const { result, combo, pair } = await promcollect();
  const f = forcing((p) => p.key === combo.key || p.key === pair.key);
  await confirmAndReorder(result, undefined, { top: 1, runs: 10, budget: 400 }, f.one);
  assert.deepEqual(f.tried, [combo.key, pair.key]);
});

test('analyze --confirm-whole: the paper’s behaviour, no pattern within is forced', async () => {
  const { result, combo } = await promcollect();
  const f = forcing(() => true);
  await confirmAndReorder(result, undefined, { top: 1, runs: 10, budget: 400, whole: true }, f.one);
  assert.deepEqual(f.tried, [combo.key]);
});

test('braid confirm’s output: the pattern within, forced alone — named as the cause when confirmed, escaped for the terminal; JSON keeps its keys first', async () => {
  const { combo, pair } = await promcollect();
  const group = (failed: number) => ({ runs: 10, failed, forcedOk: 10 });
  const base = { reason: 'r', pValue: 1e-4, folder: '/tmp/c', plan: '/tmp/c/plan.json', runsSpent: 30, seconds: 3 };
  const c = { ...base, verdict: 'confirmed' as const, pattern: { rank: 1, key: combo.key, id: combo.id }, forced: group(10), opposite: group(0), control: { runs: 10, failed: 2 } };
  const w = { ...base, verdict: 'confirmed' as const, pattern: { rank: 3, key: pair.key, id: pair.id }, forced: group(10), opposite: group(0), control: { runs: 10, failed: 1 } };
  const hostile = { ...pair, accesses: pair.accesses.map((a) => ({ ...a, variable: 'x.\u001b[31mred' })) };
  const text = confirmText(c, combo, ['java', 'T'], '/', { pattern: hostile, confirmation: w });
  assert.match(text, /within it: #3 P1 RW .* — forced alone: confirmed \(forced 10 of 10 failed, opposite order 0 of 10\)/);
  assert.match(text, /the cause is #3 P1 RW: its order alone makes the failure/);
  assert.match(text, /60 runs in/);
  assert.ok(!text.includes('\u001b'), 'no raw escape reaches the terminal');
  const j = confirmJson(c, { pattern: pair, confirmation: w });
  assert.deepEqual(Object.keys(j).slice(0, 3), ['verdict', 'pattern', 'forced']);
  assert.deepEqual(j.cause, { rank: 3, key: pair.key, id: pair.id, kind: 'RW' });
  assert.equal((j.within as { verdict: string }).verdict, 'confirmed');
  assert.equal(j.runs, 60);
  // refuted alone: no cause named, the whole pattern's order is what was confirmed
  const refuted = { ...w, verdict: 'refuted' as const, forced: group(1) };
  assert.equal(confirmJson(c, { pattern: pair, confirmation: refuted }).cause, undefined);
  assert.match(confirmText(c, combo, ['java', 'T'], '/', { pattern: pair, confirmation: refuted }), /the order of the whole pattern is what was confirmed: its pair alone was refuted/);
  // two parts forced: the second confirmed is the cause, the first is listed before it; the runs count both
  const both = { pattern: hostile, confirmation: w, tried: [{ pattern: pair, confirmation: { ...refuted, pattern: { rank: 2, key: pair.key, id: 'P9' } } }, { pattern: hostile, confirmation: w }], runsSpent: 60, seconds: 6 };
  const t2 = confirmText(c, combo, ['java', 'T'], '/', both);
  assert.match(t2, /within it: #2 P1 RW .* refuted[^]*within it: #3 P1 RW .* confirmed[^]*the cause is #3/);
  assert.match(t2, /90 runs in 9\.0 s/);
  const j2 = confirmJson(c, both);
  assert.equal(j2.runs, 90);
  assert.equal((j2.withinOthers as { verdict: string }[])[0].verdict, 'refuted');
  assert.deepEqual(j2.cause, { rank: 3, key: pair.key, id: pair.id, kind: 'RW' });
  // neither confirmed: the whole pattern's order, and what each part was
  const none = { pattern: pair, confirmation: refuted, tried: [{ pattern: pair, confirmation: refuted }, { pattern: pair, confirmation: { ...refuted } }], runsSpent: 60, seconds: 6 };
  assert.match(confirmText(c, combo, ['java', 'T'], '/', none), /none of its parts alone was \(#3 P1 refuted, #3 P1 refuted\)/);
  assert.equal(confirmJson(c, none).cause, undefined);
});

test('forceCauseWithin (braid confirm and the editor): each part in turn on seeds after those spent, until one is confirmed; the confirmed one named, every part forced kept in order', async () => {
  const { result, combo, pair } = await promcollect();
  const other = otherPart(result, combo, pair);
  const listed = result.patterns as RankedPattern[];
  const offsets: number[] = [];
  const f = forcing((p) => p.key === other.key);
  const c = { ...(await f.one(combo)), verdict: 'confirmed' as const, runsSpent: 30 };
  f.tried.length = 0;
  const w = await forceCauseWithin(listed, combo, c, {
    traceFiles: () => [],
    forceOne: (p, offset) => {
      offsets.push(offset);
      return f.one(p as RankedPattern);
    },
  });
  assert.deepEqual(f.tried, [pair.key, other.key]);
  assert.deepEqual(offsets, [30, 60], 'each part on seeds after those spent before');
  assert.equal(w?.pattern.key, other.key, 'the confirmed part is named');
  assert.equal(w?.confirmation.verdict, 'confirmed');
  assert.deepEqual(w?.tried.map((t) => t.pattern.key), [pair.key, other.key]);
  assert.equal(w?.runsSpent, 60);
  // none confirmed: the first part is named, with its verdict
  const g = forcing(() => false);
  const n = await forceCauseWithin(listed, combo, c, { traceFiles: () => [], forceOne: (p) => g.one(p as RankedPattern) });
  assert.equal(n?.pattern.key, pair.key);
  assert.equal(n?.confirmation.verdict, 'refuted');
  assert.equal(n?.tried.length, 2);
  // not confirmed itself: nothing forced within
  assert.equal(await forceCauseWithin(listed, combo, { ...c, verdict: 'refuted' }, { traceFiles: () => [], forceOne: (p) => g.one(p as RankedPattern) }), undefined);
});
