/**
 * `braid pinpoint` with real JVM runs (issue 17): on the bank sample, IGS over every instrumented
 * point finds the `@bug` line of the lost update among the top 3 trigger points within a small
 * budget, prints the documented JSON, and writes a reproduction plan that carries the triggers.
 * Plus the command line's argument errors and the catalogue reader.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parsePinpointArgs, PinpointUsageError, pinpointJsonReport, pinpointTextReport } from '../../server/src/cli/pinpointCommand';
import { candidatePoints, pathNeighbours } from '../../server/src/engine/noise/candidatePoints';
import type { InstrumentedPoint } from '../../server/src/engine/noise/noisePlan';
import { makePlan, perThreadCandidates, searchOutcome, withTies } from '../../server/src/recorder/runs/pinpoint';
import { tempDir } from '../helpers/traceBuilder';
import { bugTags, classesDir, FAST_JVM, prepare, root } from './recorderHarness';

const cli = path.join(root, 'dist/braid.js');

before(() => {
  prepare();
  assert.ok(existsSync(cli), 'dist/braid.js is missing: run `npm run build` first');
});

test('braid pinpoint finds the lost update of bank.Bank (real runs, budget 120)', () => {
  const dir = tempDir();
  const r = spawnSync(
    process.execPath,
    [cli, 'pinpoint', '--budget', '120', '--candidates', 'all', '--format', 'json', '--jobs', '2', '--seed', '17', '--include', 'bank', '--plan-dir', dir, '--timeout', '20',
      '--', 'java', ...FAST_JVM, '-cp', classesDir, 'bank.Bank'],
    { encoding: 'utf8', cwd: root },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(out.runs <= 120 && out.runs > 0, `runs ${out.runs}`);
  const bugLines = bugTags('bank').map((t) => t.line); // Bank.java lines 11 and 13
  assert.deepEqual(bugLines, [11, 13]);
  const top3 = out.points.slice(0, 3);
  assert.ok(top3.some((p: { file: string; line: number }) => p.file.endsWith('Bank.java') && bugLines.includes(p.line)), JSON.stringify(out.points));
  for (const [k, p] of out.points.entries()) {
    assert.equal(p.rank, k + 1);
    for (const key of ['file', 'line', 'method', 'failWith', 'failWithout', 'pValue']) assert.ok(key in p, `point lacks ${key}`);
  }
  assert.ok(out.points[0].failWith > out.points[0].failWithout);
  // the plan: noise at the trigger points, which it lists
  assert.equal(out.plan, path.join(dir, 'bank.Bank.json'));
  const plan = JSON.parse(readFileSync(out.plan, 'utf8'));
  assert.equal(plan.format, 'braid-noise-plan');
  assert.equal(plan.version, 1);
  assert.ok(plan.points.length >= 1 && plan.points.every((p: { id: string; probability: number }) => /^bank\/Bank.*@\d+$/.test(p.id) && p.probability > 0));
  assert.ok(plan.points.some((p: { line: number }) => bugLines.includes(p.line)), JSON.stringify(plan.points));
  assert.equal(plan.triggers.length, out.points.length);
  assert.equal(plan.origin.tool, 'braid pinpoint');
  // plan strength calibration (default auto): the plan's probability is the level chosen, which its own runs reproduced
  if (out.strength) {
    assert.ok(plan.points.every((p: { probability: number }) => p.probability === out.strength.probability), JSON.stringify(plan.points));
    assert.deepEqual(plan.origin.strength, out.strength);
    const chosen = out.strength.levels.find((l: { probability: number }) => l.probability === out.strength.probability);
    assert.ok(chosen.accepted && out.strength.runs <= 40, JSON.stringify(out.strength));
  } else assert.ok(out.runs >= 110, `no calibration although ${120 - out.runs} runs were left`);
});

test('braid pinpoint: argument errors say what is wrong', () => {
  assert.throws(() => parsePinpointArgs(['--budget', '10']), /no command/);
  assert.throws(() => parsePinpointArgs(['--budget', 'x', '--', 'java']), PinpointUsageError);
  assert.throws(() => parsePinpointArgs(['--candidates', 'some', '--', 'java']), /expected all or patterns/);
  assert.throws(() => parsePinpointArgs(['--noise', 'nap', '--', 'java']), /sleep:MS, yield or busy:US/);
  assert.throws(() => parsePinpointArgs(['--frobnicate', '--', 'java']), /unknown option --frobnicate/);
  const a = parsePinpointArgs(['--budget', '50', '--noise', 'sleep:5', '--format', 'json', '--', 'java', '-cp', 'out', 'bank.Bank'], '/w');
  assert.equal(a.options.budget, 50);
  assert.deepEqual(a.options.noise, { kind: 'sleep', ms: 5 });
  assert.equal(a.options.name, 'bank.Bank');
  assert.equal(a.options.candidates, 'patterns');
  assert.equal(a.format, 'json');
  assert.equal(a.options.planStrength, undefined, 'auto unless asked');
  assert.equal(parsePinpointArgs(['--plan-strength', 'full', '--', 'java']).options.planStrength, 'full');
  assert.throws(() => parsePinpointArgs(['--plan-strength', 'half', '--', 'java']), /--plan-strength half: expected auto or full/);
  const bad = spawnSync(process.execPath, [cli, 'pinpoint', '--budget', '1', '--', 'java'], { encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--budget 1: expected a whole number of runs ≥ 2/);
});

test('JSON report: a configuration\'s points carry `together`, a spent budget carries `suggestPerThread` (docs/cli.md)', () => {
  const point = (rank: number, line: number, thread: string) => ({
    rank,
    id: `t/T.u()V@${line}`,
    file: 't/T.java',
    line,
    method: 't.T.u',
    failWith: 0.91,
    failWithout: 0.55,
    pValue: 5.7e-8,
    score: 4,
    thread,
    together: 2,
  });
  const config = JSON.parse(
    JSON.stringify(
      pinpointJsonReport({ points: [point(1, 19, 'remover'), point(2, 21, 'inserter')], plan: '/w/p.json', runs: 145, candidates: 26, rounds: 9, stopped: 'significant', message: 'm' }),
    ),
  );
  assert.deepEqual(
    config.points.map((p: { line: number; thread: string; together: number }) => [p.line, p.thread, p.together]),
    [
      [19, 'remover', 2],
      [21, 'inserter', 2],
    ],
  );
  assert.equal(config.plan, '/w/p.json');
  assert.equal(config.strength, null);
  assert.equal('suggestPerThread' in config, false);
  const single = pinpointJsonReport({
    points: [{ rank: 1, id: 'a/B.f()V@3', file: 'a/B.java', line: 7, method: 'a.B.f', failWith: 0.61, failWithout: 0.02, pValue: 3e-8, score: 5 }],
    runs: 400,
    candidates: 13,
    rounds: 30,
    stopped: 'budget',
    suggestPerThread: true,
  });
  const p1 = (single.points as Record<string, unknown>[])[0];
  assert.deepEqual(Object.keys(p1), ['rank', 'file', 'line', 'method', 'failWith', 'failWithout', 'pValue', 'id', 'score']);
  assert.equal(single.plan, null);
  assert.equal(single.suggestPerThread, true);
});

test('text report: failure rates without → with noise at each trigger point', () => {
  const text = pinpointTextReport(
    {
      points: [{ rank: 1, id: 'a/B.f()V@3', file: 'a/B.java', line: 7, method: 'a.B.f', failWith: 0.61, failWithout: 0.02, pValue: 3e-8, score: 5 }],
      plan: '/w/.braid/plans/x.json',
      runs: 42,
      candidates: 9,
      rounds: 4,
      stopped: 'significant',
    },
    '/w',
  );
  assert.match(text, /a\/B\.java:7 {2}a\.B\.f {2}failure 2% → 61% with noise here {2}\(p = 3\.0e-8\)/);
  assert.match(text, /42 run\(s\), 4 round\(s\) over 9 candidate point\(s\); stopped: significant/);
  assert.match(text, /plan: \.braid\/plans\/x\.json/);
  const levels = [
    { probability: 1, failures: 8, runs: 8, accepted: true },
    { probability: 1 / 8, failures: 7, runs: 8, accepted: true },
  ];
  const calibrated = pinpointTextReport(
    {
      points: [],
      plan: '/w/.braid/plans/x.json',
      runs: 58,
      candidates: 9,
      rounds: 4,
      stopped: 'significant',
      strength: { probability: 1 / 8, runs: 16, reason: 'calibrated', full: { probability: 1, failures: 8, runs: 8 }, chosen: { failures: 7, runs: 8 }, levels },
    },
    '/w',
  );
  assert.match(calibrated, /plan strength: noise at 1\/8 of the visits \(failed 7 of 8 runs; full strength 8 of 8\) — 16 run\(s\)/);
  const weak = pinpointTextReport(
    {
      points: [],
      plan: '/w/.braid/plans/x.json',
      runs: 50,
      candidates: 9,
      rounds: 4,
      stopped: 'significant',
      strength: { probability: 1, runs: 8, reason: 'full-strength-weak', full: { probability: 1, failures: 4, runs: 8 }, chosen: { failures: 4, runs: 8 }, levels: [{ probability: 1, failures: 4, runs: 8, accepted: true }] },
    },
    '/w',
  );
  assert.match(weak, /noise at 1 of the visits \(full strength 4 of 8\) — kept at full strength: it reproduced the failure in only 4 of 8 runs — 8 run\(s\)/);
});

test('the search\'s message: budget spent on a program failing without noise suggests a search per thread; a configuration says the bug needs both', () => {
  const base = { runs: 400, budget: 400, perThread: false, notes: [], bestP: 0.3 };
  const spent = searchOutcome({ ...base, stopped: 'budget', control: { runs: 50, fails: 26 } });
  assert.equal(spent.suggestPerThread, true);
  assert.match(spent.message, /^the budget of 400 runs was spent .* provisional — the program failed in 26 of 50 runs without any noise, so noise at a point has little to add; when threads run the same code, noise in one thread at a time may still find points \(--per-thread, setting braid\.pinpoint\.perThread\)$/);
  // already per thread, too few control runs, or a program that rarely fails without noise: no suggestion
  assert.equal(searchOutcome({ ...base, stopped: 'budget', perThread: true, control: { runs: 50, fails: 26 } }).suggestPerThread, false);
  assert.equal(searchOutcome({ ...base, stopped: 'budget', control: { runs: 4, fails: 4 } }).suggestPerThread, false);
  const rare = searchOutcome({ ...base, stopped: 'budget', control: { runs: 50, fails: 5 } });
  assert.equal(rare.suggestPerThread, false);
  assert.doesNotMatch(rare.message, /without any noise|per-thread/);
  const pair = searchOutcome({ ...base, stopped: 'significant', runs: 197, control: { runs: 60, fails: 33 }, configuration: { size: 2, failWith: 0.91, failWithout: 0.55, pValue: 5.7e-8 } });
  assert.deepEqual(pair, {
    message: 'no single point is significant, but noise at both of trigger points #1–#2 together raises the failure rate from 55% to 91% (p = 5.7e-8, against the runs without noise): the bug needs both',
    suggestPerThread: false,
  });
  assert.equal(
    searchOutcome({ ...base, stopped: 'significant', control: { runs: 9, fails: 0 }, notes: [undefined, 'no thread names in the top patterns'], bestP: 3e-9 }).message,
    'no thread names in the top patterns. a trigger point is significant (p = 3.0e-9)',
  );
});

test('candidates: the pattern lines and their neighbours in the same method; all = every point', () => {
  const p = (id: string, line: number, method = 'a.B.f', file = 'a/B.java'): InstrumentedPoint => ({ id, file, line, method, kind: 'read' });
  const catalogue = [p('f@1', 10), p('f@5', 11), p('f@9', 13), p('f@20', 20), p('g@1', 12, 'a.B.g'), p('h@1', 11, 'a.C.h', 'a/C.java')];
  const s = candidatePoints(catalogue, 'patterns', [{ file: 'B.java', line: 11 }]);
  // line 11 of B.java and its method f's points within 2 lines (10, 13); g's point at 12 is near but in another method; C.java is another file
  assert.deepEqual(s.points.map((x) => x.id), ['f@1', 'f@5', 'f@9']);
  assert.equal(s.fallback, undefined);
  assert.equal(candidatePoints(catalogue, 'all', []).points.length, 6);
  assert.match(candidatePoints(catalogue, 'patterns', []).fallback!, /no UNICORN pattern/);
  const n = pathNeighbours(catalogue)(1);
  assert.deepEqual(n, { before: [0], after: [2, 3] });
  // a call into application code (invoke) only on a pattern's own line, never as a neighbour
  const calls = [...catalogue, { ...p('f@3', 10), kind: 'invoke' as const }, { ...p('f@7', 11), kind: 'invoke' as const }];
  assert.deepEqual(candidatePoints(calls, 'patterns', [{ file: 'B.java', line: 11 }]).points.map((x) => x.id), ['f@1', 'f@5', 'f@9', 'f@7']);
});

test('per thread: candidates per thread seen at the line (else in the method, else every thread), plans grouping a point\'s threads, --per-thread, the report', () => {
  const p = (id: string, line: number, method = 'a.B.f', file = 'a/B.java'): InstrumentedPoint => ({ id, file, line, method, kind: 'read' });
  const seen = [
    { file: 'a/B.java', line: 10, method: 'a.B.f', thread: 'reader' },
    { file: 'a/B.java', line: 10, method: 'a.B.f', thread: 'writer' },
    { file: 'B.java', line: 20, method: 'a.B.g', thread: 'writer' },
    { file: 'a/B.java', line: 10, method: 'a.B.f', thread: 'reader' },
  ];
  const c = perThreadCandidates([p('f@1', 10), p('f@5', 11), p('g@1', 21, 'a.B.g'), p('h@1', 5, 'a.C.h', 'a/C.java')], seen);
  assert.deepEqual(
    c.map((x) => `${x.id} ${x.thread}`),
    // line 10: its two threads; line 11: f's threads; g's point: g's thread; C.h: on no pattern line or method → every thread seen
    ['f@1 reader', 'f@1 writer', 'f@5 reader', 'f@5 writer', 'g@1 writer', 'h@1 reader', 'h@1 writer'],
  );
  // a configuration → a plan: one entry per point, its threads the union; a point also on for every thread has no list
  const plan = makePlan('x', [c[0], c[1], c[4], { ...c[5], thread: undefined }, c[6]], { kind: 'yield' }, 0.5);
  assert.deepEqual(
    plan.points.map((q) => [q.id, q.threads, q.probability]),
    [
      ['f@1', ['reader', 'writer'], 0.5],
      ['g@1', ['writer'], 0.5],
      ['h@1', undefined, 0.5],
    ],
  );
  assert.deepEqual(makePlan('x', [p('f@1', 10)], { kind: 'yield' }, 1).points, [{ id: 'f@1', probability: 1, file: 'a/B.java', line: 10, method: 'a.B.f' }], 'no threads field without per-thread candidates');
  assert.equal(parsePinpointArgs(['--per-thread', '--', 'java']).options.perThread, true);
  assert.equal(parsePinpointArgs(['--', 'java']).options.perThread, undefined);
  const text = pinpointTextReport({ points: [{ rank: 1, id: 'a/B.f()V@3', file: 'a/B.java', line: 7, method: 'a.B.f', failWith: 1, failWithout: 0.09, pValue: 5.9e-7, score: 9, thread: 'worker' }], runs: 23, candidates: 4, rounds: 3, stopped: 'significant' }, '/w');
  assert.match(text, /a\/B\.java:7 {2}a\.B\.f {2}failure 9% → 100% with noise here in thread worker {2}\(p = 5\.9e-7\)/);
  // a configuration of two per-thread points (IGS's configuration leader): each line names the other
  const pt = (rank: number, line: number, thread: string) => ({ rank, id: `a/B.f()V@${line}`, file: 'a/B.java', line, method: 'a.B.f', failWith: 1, failWithout: 0.5, pValue: 3e-8, score: 4, thread, together: 2 });
  const pair = pinpointTextReport({ points: [pt(1, 19, 'remover'), pt(2, 21, 'inserter')], runs: 120, candidates: 4, rounds: 8, stopped: 'significant' }, '/w');
  assert.match(pair, / 1\. a\/B\.java:19 {2}a\.B\.f {2}failure 50% → 100% with noise here in thread remover and at #2 together/);
  assert.match(pair, / 2\. a\/B\.java:21 {2}a\.B\.f {2}failure 50% → 100% with noise here in thread inserter and at #1 together/);
});

test('braid pinpoint --per-thread finds the worker\'s read of the shared connection in orderviolation (real runs, budget 150)', () => {
  const dir = tempDir();
  const r = spawnSync(
    process.execPath,
    [cli, 'pinpoint', '--per-thread', '--budget', '150', '--format', 'json', '--jobs', '2', '--seed', '3', '--include', 'orderviolation', '--plan-dir', dir, '--timeout', '20',
      '--no-derivative', '--plan-strength', 'full', '--traces', path.join(root, 'test/fixtures/recorded/orderviolation'),
      '--', 'java', ...FAST_JVM, '-cp', classesDir, 'orderviolation.OrderViolation'],
    { encoding: 'utf8', cwd: root },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  // the `@bug` lines: 37 (the worker reads `shared`) and 43 (main clears it); measured: line 37 in thread worker, #1, 19–23 runs
  const bugLines = bugTags('orderviolation').map((t) => t.line);
  const hit = out.points.slice(0, 3).find((q: { line: number; thread?: string }) => bugLines.includes(q.line));
  assert.ok(hit, JSON.stringify(out.points));
  assert.ok(typeof hit.thread === 'string' && hit.thread.length > 0, 'a per-thread point names its thread');
  assert.ok(out.points.every((q: { thread?: string }) => typeof q.thread === 'string'));
  const plan = JSON.parse(readFileSync(out.plan, 'utf8'));
  assert.ok(plan.points.every((q: { threads?: string[] }) => Array.isArray(q.threads) && q.threads.length > 0), JSON.stringify(plan.points));
  assert.ok(plan.triggers.every((t: { thread?: string }) => typeof t.thread === 'string'));
});

test('the top patterns that seed the candidates keep a tie whole (ties share a rank), up to 4 × top', () => {
  const ranks = (rs: number[]) => rs.map((rank, k) => ({ rank, k }));
  assert.deepEqual(withTies(ranks([1, 1, 1, 1, 1, 1, 1, 8, 9]), 5).map((p) => p.k), [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(withTies(ranks([1, 2, 3, 4, 5, 6, 6]), 5).map((p) => p.k), [0, 1, 2, 3, 4], 'no tie at the cut');
  assert.deepEqual(withTies(ranks([1, 2, 3, 4, 5, 5, 7]), 5).map((p) => p.k), [0, 1, 2, 3, 4, 5]);
  assert.equal(withTies(ranks(new Array(100).fill(1)), 5).length, 20, 'a tie of 100 is cut at 4 × top');
  assert.deepEqual(withTies(ranks([1, 1]), 5).map((p) => p.k), [0, 1]);
  assert.deepEqual(withTies([], 5), []);
});
