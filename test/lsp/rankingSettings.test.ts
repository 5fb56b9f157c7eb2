/**
 * The ranking rules of `braid analyze --order/--discovery/--absence/--symptoms/--cleared-read/--silent-last/--order-ties` as editor
 * settings (braid.analysis.order, .discovery, .absence, .symptoms, .clearedRead, .silentLast, .orderTies, .pairFirst; docs/extension.md "Settings"): the client
 * passes the `braid` section as it is, the server's analysis applies them, and a change analyzes
 * again (workspace/didChangeConfiguration). Each over the real language server (stdio) on synthetic
 * traces whose ranking the rule changes — the tables of the engine's unit tests (orderEvidence,
 * falseDiscovery, absenceEvidence, symptomsLast .test.ts), built again here: the default first, then
 * the setting changed in the same session.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LspSession, ROOT, cleanup } from './lspHarness';
import { DEFAULT_SETTINGS, normalizeSettings } from '../../server/src/lsp/settings';
import type { PatternDto, PatternsResult } from '../../server/src/lsp/protocol';
import { BuiltTrace, writeTraces } from '../helpers/traceBuilder';

const key = (p: PatternDto) => p.accesses.map((a) => `${a.thread}${a.type}${a.line}`).join(' ');
const lines = (p: PatternDto) => p.accesses.map((a) => a.line).join();
const show = (ps: PatternDto[]) => ps.map((p) => `${key(p)} F${p.failed}/P${p.passed} ${p.evidence === false ? 'no evidence' : 'evidence'}`).join('; ');

/** A session on a workspace holding these traces, analyzed with `analysis` as braid.analysis; change() sets it again. */
async function session(traces: BuiltTrace[], analysis: Record<string, unknown>) {
  const ws = mkdtempSync(path.join(tmpdir(), 'braid-lsp-ranking-'));
  const dir = path.join(ws, '.braid/traces/rec');
  mkdirSync(dir, { recursive: true });
  writeTraces(traces, dir);
  const s = new LspSession(ws, { analysis, views: { minScore: 0, maxPatterns: 1000 } });
  await s.initialize();
  await s.analysisDone();
  const patterns = async () => ((await s.connection.sendRequest('braid/patterns', {})) as PatternsResult).patterns;
  return {
    patterns,
    /** braid.analysis becomes `next`; resolves with the patterns of the analysis it starts */
    async change(next: Record<string, unknown>): Promise<PatternDto[]> {
      const since = s.notes.length;
      s.settings = { analysis: next, views: { minScore: 0, maxPatterns: 1000 } };
      await s.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      await s.analysisDone(since);
      return patterns();
    },
    async done() {
      await s.close();
      cleanup(ws);
    },
  };
}

test('package.json declares the eight settings; their defaults, as VS Code sends them, leave the analysis options as without them', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const props: Record<string, any> = Object.assign({}, ...pkg.contributes.configuration.map((c: any) => c.properties));
  const defaults = { order: true, discovery: true, absence: false, symptoms: 'evidence', clearedRead: true, silentLast: true, orderTies: true, pairFirst: false };
  for (const [k, v] of Object.entries(defaults)) {
    const p = props[`braid.analysis.${k}`];
    assert.ok(p && (p.description || p.markdownDescription), `braid.analysis.${k} declared with a description`);
    assert.equal(p.default, v, `braid.analysis.${k} default`);
  }
  assert.deepEqual(props['braid.analysis.symptoms'].enum, ['evidence', 'last']);
  // the options (and so the analysis cache's key) of the defaults are those of no setting at all
  assert.deepEqual(normalizeSettings({ analysis: defaults }).analysis, DEFAULT_SETTINGS.analysis);
  assert.deepEqual(normalizeSettings({ analysis: { order: false, discovery: false, absence: true, symptoms: 'last', clearedRead: false, silentLast: false, orderTies: false, pairFirst: true } }).analysis, {
    ...DEFAULT_SETTINGS.analysis,
    order: false,
    discovery: false,
    absence: true,
    symptomsLast: true,
    clearedRead: false,
    silentLast: false,
    orderTies: false,
    pairFirst: true,
  });
  // bad values: the default
  assert.deepEqual(normalizeSettings({ analysis: { order: 'off', discovery: 0, absence: 'yes', symptoms: 'first', clearedRead: 'no', silentLast: 'no', orderTies: 'no', pairFirst: 'yes' } }).analysis, DEFAULT_SETTINGS.analysis);
});

test('braid.analysis.order: on by default, a check-then-put in every run has evidence by its order and is first; off: no evidence', async () => {
  // 20 failing, 20 passing runs, each with thread 1's check (10) and thread 2's put (11) in both orders:
  // check first three times of five in failing runs, twice in passing ones; a counter (20/21) in every run
  // main starts the checker (1) before the putter (2) in every run: what differs is the order of the accesses, not which thread started first (evidence by start order)
  const started = ['START0 1', 'START0 2'];
  const counter = ['W1 count S20', 'W2 count S21'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 20; k++) {
    traces.push({ execution: `F${k}`, outcome: 'fail', events: [...started, 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', ...counter] });
    traces.push({ execution: `P${k}`, outcome: 'pass', events: [...started, 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', 'W2 cache S11', 'R1 cache S10', ...counter] });
  }
  const x = await session(traces, {});
  try {
    const on = await x.patterns();
    assert.equal(key(on[0]), '1R10 2W11', show(on));
    assert.deepEqual([on[0].failed, on[0].passed, on[0].evidence !== false], [20, 20, true]);
    const off = await x.change({ order: false });
    const rw = off.find((p) => key(p) === '1R10 2W11')!;
    assert.equal(rw.evidence, false, show(off));
    assert.equal(rw.score, 0.5, 'the score of its runs (20 failing, 20 passing)');
    assert.ok(off.every((p) => p.evidence === false), show(off));
    // and back: the default again
    const again = await x.change({ order: true });
    assert.deepEqual([key(again[0]), again[0].evidence !== false], ['1R10 2W11', true], show(again));
  } finally {
    await x.done();
  }
});

test('braid.analysis.discovery: on by default, a chance pair (p = 0.042 among many) has no evidence; off: it has and is listed second', async () => {
  // 20 failing, 200 passing runs: x (10/11) and ten other racing pairs in every failing run and 195 passing
  // ones; z (60/61) in ten failing runs only; a chance pair on y (20/21) in two failing and two passing runs
  const common = ['R1 x S10', 'W2 x S11', ...Array.from({ length: 10 }, (_, k) => [`R1 v${k} S${30 + 2 * k}`, `W2 v${k} S${31 + 2 * k}`]).flat()];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 200; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: [...(k < 195 ? common : ['R1 w S70']), ...(k < 2 ? ['W1 y S20', 'W2 y S21'] : [])] });
  for (let k = 0; k < 20; k++)
    traces.push({ execution: `F${k}`, outcome: 'fail', events: [...common, ...(k < 2 ? ['W1 y S20', 'W2 y S21'] : []), ...(k >= 10 ? ['W1 z S60', 'R2 z S61'] : [])] });
  const x = await session(traces, { order: false });
  try {
    const on = await x.patterns();
    assert.equal(lines(on[0]), '60,61', show(on));
    const chance = (ps: PatternDto[]) => ps.findIndex((p) => lines(p) === '20,21');
    const xi = (ps: PatternDto[]) => ps.findIndex((p) => lines(p) === '10,11');
    assert.equal(on[chance(on)].evidence, false, show(on));
    assert.ok(chance(on) > xi(on), show(on));
    const off = await x.change({ order: false, discovery: false });
    assert.equal(lines(off[0]), '60,61', show(off));
    assert.equal(chance(off), 1, show(off));
    assert.notEqual(off[1].evidence, false);
    assert.ok(xi(off) > 1);
  } finally {
    await x.done();
  }
});

test('braid.analysis.absence: off by default; on, the protective order of the passing runs has evidence by its absence and is first', async () => {
  // 15 failing, 5 passing runs: passing runs check `paused` (10) before the other thread writes it (11);
  // failing runs the other way round, then two workers update `running` (20/21), also in 2 passing runs
  const consequence = ['W1 running S20', 'W2 running S21'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 5; k++)
    traces.push({ execution: `P${k}`, outcome: 'pass', events: ['R1 paused S10', 'W2 paused S11', 'R1 paused S10', ...(k < 2 ? consequence : ['W1 running S20'])] });
  for (let k = 0; k < 15; k++) traces.push({ execution: `F${k}`, outcome: 'fail', events: ['W2 paused S11', 'R1 paused S10', ...consequence] });
  const x = await session(traces, { order: false });
  try {
    const off = await x.patterns();
    assert.ok(off[0].accesses.every((a) => a.variable === 'running'), show(off));
    const protective = off.find((p) => p.failed === 0 && p.passed === 5)!;
    assert.equal(protective.evidence, false);
    const on = await x.change({ order: false, absence: true });
    assert.equal(key(on[0]), '1R10 2W11', show(on));
    assert.deepEqual([on[0].failed, on[0].passed, on[0].evidence !== false, on[0].score], [0, 5, true, 1]);
  } finally {
    await x.done();
  }
});

test('braid.analysis.symptoms: evidence by default, a consequence after the failure point is first; last: after every cause', async () => {
  // a lost update (10/11) in every run; failing runs then write an error counter after their failure point (50/51)
  const race = ['R1 count S10', 'R2 count S10', 'W2 count S11', 'W1 count S11'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 14; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: [...race, 'R0 count S12'] });
  for (let k = 0; k < 6; k++)
    traces.push({ execution: `F${k}`, outcome: 'fail', events: [...race, 'FAIL1 java.lang.IllegalStateException', 'W1 errors S50', 'R2 errors S51', 'R0 count S12'] });
  const x = await session(traces, {});
  try {
    const before = await x.patterns();
    assert.equal(before[0].group, 'symptom', show(before));
    assert.notEqual(before[0].evidence, false, 'evidence (the DTO leaves out evidence: true)');
    const last = await x.change({ symptoms: 'last' });
    assert.ok(last[0].accesses.every((a) => a.line === 10 || a.line === 11), show(last));
    const lastCause = Math.max(...last.map((p, k) => ((p.group ?? 'cause') === 'cause' ? k : -1)));
    const firstSymptom = last.findIndex((p) => p.group === 'symptom');
    assert.ok(firstSymptom > lastCause, `every cause (last at ${lastCause}) before the first symptom (${firstSymptom}): ${show(last)}`);
    assert.ok(last.filter((p) => p.group === 'symptom').every((p) => p.evidence === false));
  } finally {
    await x.done();
  }
});

test('braid.analysis.clearedRead: on by default, the read of a value another thread cleared is first among equal patterns; off: the static key decides', async () => {
  // the lru shape of test/unit/clearedRead.test.ts: failing runs clear a slot (20) that the first
  // thread then reads (30), with a count's read-then-write (10/12) equal in every count
  const pass = ['R1 count S10 @value=0', 'W1 slot S11 @value="Promise@7"', 'R1 slot S30 @value="Promise@7"', 'W1 slot S31 @value="profile"'];
  const fail = ['R1 count S10 @value=0', 'W1 slot S11 @value="Promise@7"', 'W2 count S12 @value=1', 'W2 slot S20 @value=undefined', 'R1 slot S30 @value=undefined', 'FAIL1'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 8; k++) traces.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  const x = await session(traces, {});
  try {
    const on = await x.patterns();
    assert.equal(key(on[0]), '1W20 2R30', show(on));
    const off = await x.change({ clearedRead: false });
    assert.equal(key(off[0]), '1R10 2W12', show(off));
    assert.deepEqual([off[0].failed, off[0].passed], [on[0].failed, on[0].passed], 'a tie: only the order moved');
  } finally {
    await x.done();
  }
});

test('braid.analysis.silentLast: on by default, a pattern whose write stores the value already there goes after its tie; off: the static key decides', async () => {
  // the shape of test/unit/silentWrites.test.ts: a flag set to true over true (42, read at 36) and a
  // list's add (49, read at 65), equal in every count
  const pass = ['R2 aflag S36 @value=true', 'R2 list S65', 'W1 aflag S42 @value=true', 'W1 list S49'];
  const fail = ['R2 aflag S36 @value=true', 'W1 aflag S42 @value=true', 'W1 list S49', 'R2 aflag S36 @value=true', 'R2 list S65', 'FAIL2'];
  const traces: BuiltTrace[] = [];
  for (let k = 0; k < 10; k++) traces.push({ execution: `P${k}`, outcome: 'pass', events: pass });
  for (let k = 0; k < 8; k++) traces.push({ execution: `F${k}`, outcome: 'fail', events: fail });
  const x = await session(traces, {});
  try {
    const on = await x.patterns();
    assert.equal(key(on[0]), '1W49 2R65', show(on));
    const off = await x.change({ silentLast: false });
    assert.equal(key(off[0]), '1W42 2R36', show(off));
    assert.deepEqual([off[0].failed, off[0].passed], [on[0].failed, on[0].passed], 'a tie: only the order moved');
  } finally {
    await x.done();
  }
});
