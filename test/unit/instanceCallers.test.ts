/**
 * The callers of the instance the failing runs had (issue 40, gsoncyclic; engine/confirm/instanceCallers.ts):
 * a held access made again and again from nested calls, only one of which another thread ever meets.
 * The reader names the call sites of the failing runs' instance (the shortest run of nearest callers that
 * most instances share and that leaves other performances out); every plan matches the access only there.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InstanceCallersReader } from '../../server/src/engine/confirm/instanceCallers';
import { scanFailingTraces } from '../../server/src/engine/confirm/failingTraceScan';
import { withFailingRunFacts } from '../../server/src/engine/confirm/failingRunFacts';
import { forceSection, forcingPlan, type ForcedPattern } from '../../server/src/engine/confirm/forcingPlan';
import { NoisePlanError, validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { tempDir } from '../helpers/traceBuilder';
import { confirmJson, confirmText } from '../../server/src/cli/confirmCommand';
import type { Confirmation } from '../../server/src/recorder/runs/confirmRuns';
import type { PerCallResult } from '../../server/src/recorder/runs/confirmPerCall';
import type { RankedPattern } from '../../server/src/engine/analysis';

const F = 'lib/Registry.java';
const T = 'lib/RegistryTest.java';
const REG = 'lib.Registry';
const DELEGATE = `${REG}$Future.delegate`;
// locations: [id, file, line, method]
const LOCS: [number, string, number, string][] = [
  [1, F, 40, `${REG}.setDelegate`], // the held write
  [2, F, 50, `${REG}.delegate`], // the awaited read
  [3, F, 20, `${REG}.adapter`], // adapter() calls setDelegate here
  [4, F, 30, `${REG}.create`], // create() calls adapter() here (the nested calls)
  [5, T, 10, 'lib.RegistryTest.writer'], // the test's call of adapter()
  [6, T, 12, 'lib.RegistryTest.reader'], // the test's call of delegate()
];
const WRITER = 2;
const READER = 3;

/** stacks: [id, parent, frame loc] — the writer's outermost call, a nested one, the reader's */
const STACKS: [number, number, number][] = [
  [1, -1, 5], // writer → adapter (RegistryTest:10)
  [2, 1, 3], // → setDelegate (Registry:20): the outermost adapter's call
  [3, 2, 1], // the access at :40, outermost
  [4, 1, 4], // writer → adapter → create (Registry:30)
  [5, 4, 3], // → adapter → setDelegate (Registry:20)
  [6, 5, 1], // the access at :40, nested
  [7, -1, 6], // reader → delegate (RegistryTest:12)
  [8, 7, 2], // the read at :50
];

type Ev = [thread: number, kind: 'R' | 'W', loc: number, stack: number, obj: number];
const nested = (obj: number): Ev => [WRITER, 'W', 1, 6, obj];
const outer = (obj: number): Ev => [WRITER, 'W', 1, 3, obj];
const read = (obj: number): Ev => [READER, 'R', 2, 8, obj];

function trace(dir: string, name: string, events: Ev[], outcome: 'pass' | 'fail'): string {
  const lines = [JSON.stringify({ braid: 'trace', version: 1, execution: name, program: 'lib.RegistryTest', recorder: { name: 'braid-java-agent', version: '0.1.0', options: {} } })];
  lines.push(JSON.stringify({ def: 'thread', id: 1, name: 'main' }), JSON.stringify({ def: 'thread', id: WRITER, name: 'writer' }), JSON.stringify({ def: 'thread', id: READER, name: 'reader' }));
  lines.push(JSON.stringify({ def: 'var', id: 1, name: DELEGATE }));
  for (const [id, file, line, method] of LOCS) lines.push(JSON.stringify({ def: 'loc', id, file, line, method }));
  for (const [id, parent, frame] of STACKS) lines.push(JSON.stringify(parent < 0 ? { def: 'stack', id, frame } : { def: 'stack', id, parent, frame }));
  let i = 0;
  for (const [t, kind, loc, stack, obj] of events) lines.push(JSON.stringify([++i, t, kind, 1, loc, stack, obj, -1]));
  lines.push(JSON.stringify(outcome === 'fail' ? { outcome: 'fail', reason: 'exception', detail: 'delegate not set' } : { outcome: 'pass' }));
  const file = path.join(dir, `${name}.trace.jsonl`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const pattern: ForcedPattern = {
  key: 'P1',
  id: 'P1',
  kind: 'RW',
  rank: 1,
  accesses: [
    { thread: 1, type: 'R', variable: DELEGATE, file: F, line: 50, method: `${REG}.delegate` },
    { thread: 2, type: 'W', variable: DELEGATE, file: F, line: 40, method: `${REG}.setDelegate` },
  ],
};

test('instanceCallers: the held write at its outermost call, not at the nested ones (two callers: the nearest is the same)', async () => {
  const dir = tempDir('callers-');
  // the nested futures are wired at once; the outermost one (object 9) is read by the reader before it is wired
  const failing = (n: string) => trace(dir, n, [nested(1), nested(2), nested(3), read(9), outer(9)], 'fail');
  const files = [failing('f1'), failing('f2'), failing('f3'), trace(dir, 'p1', [nested(1), nested(2), outer(9), read(9)], 'pass')];
  const reader = new InstanceCallersReader(pattern);
  await scanFailingTraces(files, [reader]);
  const a = reader.answer();
  assert.ok(a, 'callers');
  assert.equal(a.withInstance, 3);
  // the held write (access 1): adapter's call of setDelegate, then the test's call of adapter — not create's
  // (by method, any line: `line` 0)
  assert.deepEqual(a.callers.get(1), [
    { file: F, line: 0, method: `${REG}.adapter` },
    { file: T, line: 0, method: 'lib.RegistryTest.writer' },
  ]);
  assert.deepEqual(a.performances.get(1), { all: 12, leftOut: 9 });
  // the read is made from one place only: nothing to leave out
  assert.equal(a.callers.has(0), false);
  // the plans match the held write only there, in every group; byCaller false: as before
  const q = await withFailingRunFacts(pattern, files);
  assert.deepEqual(q.callers, [{ at: 1, sites: a.callers.get(1) }]);
  // the order pattern's guard (the first thread's next access of the variable, at any line) has no callers:
  // another line has other call sites (expiringmap-iterate's guards never matched with them)
  const guarded = forceSection({ ...q, callers: [{ at: 0, sites: [{ file: F, line: 12, method: 'lib.RegistryTest.reader' }] }, ...q.callers!] }, 'pattern');
  for (const g of guarded.accesses.filter((x) => x.anywhere)) assert.equal(g.callers, undefined);
  assert.ok(guarded.accesses.some((x) => x.anywhere), 'an order pattern has its guard');
  for (const order of ['pattern', 'opposite'] as const) {
    const s = forceSection(q, order);
    assert.deepEqual(s.accesses[1].callers, a.callers.get(1));
    assert.equal(s.accesses[0].callers, undefined);
    validateNoisePlan(forcingPlan('callers', q, order), 'callers.json');
    assert.equal(forceSection(q, order, { byCaller: false }).accesses[1].callers, undefined);
  }
});

test('instanceCallers: none when every performance shares the instance\'s callers, or when fewer than half the instances do', async () => {
  const dir = tempDir('callers-none-');
  const same = [trace(dir, 'f1', [outer(1), read(9), outer(9)], 'fail'), trace(dir, 'f2', [outer(2), read(9), outer(9)], 'fail')];
  const r1 = new InstanceCallersReader(pattern);
  await scanFailingTraces(same, [r1]);
  assert.equal(r1.answer(), undefined);
  // two failing runs at the outermost call, two at a nested one: no call site has more than half
  const split = [
    trace(dir, 'g1', [nested(1), read(9), outer(9)], 'fail'),
    trace(dir, 'g2', [nested(1), read(9), outer(9)], 'fail'),
    trace(dir, 'g3', [read(1), nested(1), outer(9)], 'fail'),
    trace(dir, 'g4', [read(1), nested(1), outer(9)], 'fail'),
  ];
  const r2 = new InstanceCallersReader(pattern);
  await scanFailingTraces(split, [r2]);
  assert.equal(r2.answer(), undefined);
});

test('the plan format checks callers (TypeScript side; NoisePlanLoader.java the same)', () => {
  const q: ForcedPattern = { ...pattern, callers: [{ at: 1, sites: [{ file: F, line: 20, method: `${REG}.adapter` }] }] };
  const plan = forcingPlan('callers', q, 'pattern');
  validateNoisePlan(plan, 'ok.json');
  const bad = (callers: unknown, field: RegExp) => {
    const p = structuredClone(plan) as unknown as { force: { accesses: Record<string, unknown>[] } };
    p.force.accesses[1].callers = callers;
    assert.throws(() => validateNoisePlan(p, 'bad.json'), (e: unknown) => e instanceof NoisePlanError && field.test(e.message));
  };
  bad([], /force\.accesses\[1\]\.callers/);
  bad([{ file: F, line: -1, method: 'm' }], /force\.accesses\[1\]\.callers\[0\]\.line/);
  bad([{ file: '', line: 3, method: 'm' }], /callers\[0\]\.file/);
  bad(['Registry.java:20'], /callers\[0\]/);
  bad(Array.from({ length: 9 }, () => ({ file: F, line: 3, method: 'm' })), /at most 8/);
});

test('instanceCallers on gsoncyclic\'s committed recording: setDelegate at the outermost getAdapter, not the nested ones', async () => {
  const dir = path.join(__dirname, '../fixtures/real/gsoncyclic');
  const files = readdirSync(dir).filter((f) => f.endsWith('.trace.jsonl.gz')).map((f) => path.join(dir, f));
  const G = 'com/google/gson/Gson.java';
  const rank1: ForcedPattern = {
    key: 'P1',
    id: 'P1',
    kind: 'RW',
    rank: 1,
    accesses: [
      { thread: 1, type: 'R', variable: 'com.google.gson.Gson$FutureTypeAdapter.delegate', file: G, line: 1333, method: 'com.google.gson.Gson$FutureTypeAdapter.delegate' },
      { thread: 2, type: 'W', variable: 'com.google.gson.Gson$FutureTypeAdapter.delegate', file: G, line: 1329, method: 'com.google.gson.Gson$FutureTypeAdapter.setDelegate' },
    ],
  };
  const reader = new InstanceCallersReader(rank1);
  await scanFailingTraces(files, [reader]);
  const a = reader.answer();
  assert.ok(a, 'callers');
  const held = a.callers.get(1);
  assert.deepEqual(
    held?.map((s) => `${s.method}:${s.line}`),
    ['com.google.gson.Gson.getAdapter:0', 'com.google.gson.Gson.getAdapter:0'],
  );
  const n = a.performances.get(1)!;
  assert.ok(n.leftOut * 2 > n.all, `most setDelegate calls are nested ones (${n.leftOut} of ${n.all})`);
});

test('braid confirm says where it matched the access from (text escaped for the terminal, JSON as given)', () => {
  const sites = [{ file: F, line: 20, method: `${REG}.adapter\u001b[31m` }];
  const c = {
    verdict: 'confirmed',
    pattern: { rank: 1, key: 'R1 W2', id: 'P1' },
    forced: { runs: 20, failed: 19, forcedOk: 19 },
    callers: [{ at: 1, sites }],
    pValue: 0.001,
    reason: 'forcing it makes the failure happen',
    folder: '/tmp/x',
    plan: '/tmp/x/plans/pattern.json',
    runsSpent: 20,
    seconds: 1,
  } as unknown as Confirmation;
  const p = { id: 'P1', kind: 'RW', accesses: pattern.accesses.map((a) => ({ ...a, stack: [] })) } as unknown as RankedPattern;
  const text = confirmText(c, p, ['java', 'lib.RegistryTest']);
  assert.match(text, /T2 W @ Registry\.java:40 only when called from adapter\\x1b\[31m \(Registry\.java:20\), as in the failing runs/);
  assert.ok(!text.includes('\u001b'), 'no raw escape reaches the terminal');
  assert.deepEqual(confirmJson(c as PerCallResult).callers, [{ at: 1, sites }]);
  assert.equal(confirmJson({ ...c, callers: undefined } as PerCallResult).callers, undefined);
});
