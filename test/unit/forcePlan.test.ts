/**
 * Forcing plans, TypeScript side (issue 28, point 1; docs/noise.md "Forcing plans"): the `force`
 * section of a noise plan is checked field by field (the agent's NoisePlanLoader.java uses the same
 * messages, test/recorder/forcing.test.ts), and the agent's `{"forcing":…}` trace line is read by the
 * trace reader (RunResult.forcing of the analysis; a malformed line is a warning naming file and
 * line) and by the runner (readAgentLines, several JVMs' lines merged).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ForceSpec, NoisePlan } from '../../server/src/engine/noise/noisePlan';
import { formatNoisePlan, NoisePlanError, parseNoisePlan, validateNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { readTraceBuffer } from '../../server/src/engine/trace/traceReader';
import { ForcingReport, mergeForcingReports, parseForcingReport } from '../../server/src/engine/trace/traceFormat';
import { Analyzer } from '../../server/src/engine/analysis';
import { readAgentLines, readUncaught } from '../../server/src/recorder/runs/traceFinalizer';
import { tempDir } from '../helpers/traceBuilder';

const ACCESS = { variable: 'bank.Account.balance', file: 'bank/Account.java', method: 'bank.Account.deposit' };

function force(): ForceSpec {
  return {
    order: 'pattern',
    waitMs: 300,
    times: 1,
    maxTimeouts: 5,
    pattern: { key: 'k', id: 'P4', rank: 1 },
    accesses: [
      { role: 1, type: 'R', ...ACCESS, line: 12, points: ['bank/Account.deposit(I)V@7'] },
      { role: 2, type: 'W', ...ACCESS, line: 13 },
      { role: 1, type: 'W', ...ACCESS, line: 13 },
    ],
    waits: [
      { at: 1, for: 0, sameObject: true },
      { at: 2, for: 1, since: 0, sameObject: true },
    ],
  };
}

function plan(f: unknown = force()): NoisePlan {
  return { format: 'braid-noise-plan', version: 1, name: 'forced', noise: { kind: 'yield' }, points: [], force: f as ForceSpec };
}

function refused(f: unknown, field: string, problem: RegExp): void {
  assert.throws(
    () => validateNoisePlan(plan(f), 'plans/p.json'),
    (e: unknown) => {
      assert.ok(e instanceof NoisePlanError, String(e));
      assert.equal(e.field, field);
      assert.match(e.problem, problem);
      return true;
    },
    `${field} should be refused`,
  );
}

const edit = (change: (f: Record<string, any>) => void): unknown => {
  const f = JSON.parse(JSON.stringify(force()));
  change(f);
  return f;
};

test('a forcing-only plan (no points, a force section) is accepted, typed, written and read back the same', () => {
  const p = validateNoisePlan(plan(), 'p.json');
  assert.deepEqual(p.force, force());
  assert.deepEqual(p.points, []);
  const text = formatNoisePlan(p);
  assert.deepEqual(parseNoisePlan(text, 'p.json'), p);
  // optional parts: maxTimeouts, pattern, points, since; line 0 = any line of the method; unknown fields kept
  const minimal = edit((f) => {
    delete f.maxTimeouts;
    delete f.pattern;
    delete f.accesses[0].points;
    f.accesses[0].line = 0;
    f.later = 'kept';
  });
  assert.equal((validateNoisePlan(plan(minimal), 'p.json').force as unknown as Record<string, unknown>).later, 'kept');
  // the opposite order of the example
  validateNoisePlan(plan(edit((f) => ((f.order = 'opposite'), (f.waits = [{ at: 0, for: 1, sameObject: true }])))), 'p.json');
});

test('a bad force section is refused with the field named', () => {
  refused('yes', 'force', /must be an object/);
  refused(edit((f) => (f.order = 'reverse')), 'force.order', /must be "pattern" or "opposite"/);
  refused(edit((f) => delete f.order), 'force.order', /must be "pattern" or "opposite"/);
  for (const w of [0, -1, 60_001, '300', null]) refused(edit((f) => (f.waitMs = w)), 'force.waitMs', /must be a number > 0 and ≤ 60000/);
  for (const t of [0, 1.5, '1', undefined]) refused(edit((f) => (f.times = t)), 'force.times', /must be a whole number ≥ 1/);
  refused(edit((f) => (f.maxTimeouts = 0)), 'force.maxTimeouts', /must be a whole number ≥ 1/);
  refused(edit((f) => (f.pattern = 'P4')), 'force.pattern', /must be an object/);
  refused(edit((f) => (f.accesses = [])), 'force.accesses', /non-empty array of at most 16/);
  refused(edit((f) => (f.accesses = Array.from({ length: 17 }, () => f.accesses[0]))), 'force.accesses', /at most 16/);
  refused(edit((f) => (f.accesses[1] = 3)), 'force.accesses[1]', /must be an object/);
  refused(edit((f) => (f.accesses[1].role = 0)), 'force.accesses[1].role', /whole number ≥ 1/);
  refused(edit((f) => (f.accesses[1].type = 'X')), 'force.accesses[1].type', /must be "R", "W" or "RW"/);
  refused(edit((f) => (f.accesses[2].variable = '')), 'force.accesses[2].variable', /non-empty string/);
  refused(edit((f) => (f.accesses[2].anywhere = 'yes')), 'force.accesses[2].anywhere', /must be true or false/);
  for (const c of ['', 7]) refused(edit((f) => (f.accesses[1].call = c)), 'force.accesses[1].call', /non-empty string \(a library call/);
  refused(edit((f) => (f.waits[1].optional = 1)), 'force.waits[1].optional', /must be true or false/);
  refused(edit((f) => (f.waits[0].needs = [0])), 'force.waits[0].needs', /needs since/);
  refused(edit((f) => (f.waits[1].needs = [2])), 'force.waits[1].needs[0]', /another role than at/);
  refused(edit((f) => (f.waits[1].needs = 'x')), 'force.waits[1].needs', /array of indices/);
  refused(edit((f) => f.waits.forEach((w: { optional?: boolean }) => (w.optional = true))), 'force.waits', /at least one wait that is not optional/);
  refused(edit((f) => delete f.accesses[0].file), 'force.accesses[0].file', /non-empty string/);
  refused(edit((f) => (f.accesses[0].line = -1)), 'force.accesses[0].line', /whole number ≥ 0/);
  refused(edit((f) => (f.accesses[0].line = 12.5)), 'force.accesses[0].line', /whole number ≥ 0/);
  refused(edit((f) => delete f.accesses[0].method), 'force.accesses[0].method', /non-empty string/);
  refused(edit((f) => (f.accesses[0].points = 'x')), 'force.accesses[0].points', /array of point ids/);
  refused(edit((f) => (f.accesses[0].points = ['bank.Account.deposit:12'])), 'force.accesses[0].points[0]', /must be a point id/);
  refused(edit((f) => (f.waits = [])), 'force.waits', /non-empty array of at most 16/);
  refused(edit((f) => (f.waits[0] = [1, 0])), 'force.waits[0]', /must be an object/);
  refused(edit((f) => (f.waits[1].for = 3)), 'force.waits[1].for', /^must be an index into force\.accesses \(0\.\.2\)$/);
  refused(edit((f) => (f.waits[1].at = -1)), 'force.waits[1].at', /index into force\.accesses \(0\.\.2\)/);
  refused(edit((f) => (f.waits[1].for = 0)), 'force.waits[1].for', /must be an access of another role than at \(force\.accesses\[2\] has role 1\)/);
  refused(edit((f) => (f.waits[1].since = 2)), 'force.waits[1].since', /must differ from at/);
  refused(edit((f) => (f.waits[1].since = 1)), 'force.waits[1].since', /must be an access of the same role as at \(force\.accesses\[2\] has role 1\)/);
  refused(edit((f) => (f.waits[1].since = 5)), 'force.waits[1].since', /index into force\.accesses/);
  refused(edit((f) => delete f.waits[0].sameObject), 'force.waits[0].sameObject', /must be true or false/);
  refused(edit((f) => (f.waits[0].sameKey = 'yes')), 'force.waits[0].sameKey', /must be true or false/);
  refused(edit((f) => Object.assign(f.waits[0], { sameObject: false, sameKey: true })), 'force.waits[0].sameKey', /needs sameObject/);
  // the message names the file and the field, as for the other fields of a plan
  assert.throws(() => validateNoisePlan(plan(edit((f) => (f.waits[1].for = 3))), 'plans/p.json'), /^Error: plans\/p\.json: force\.waits\[1\]\.for: must be an index into force\.accesses \(0\.\.2\)$/);
});

const REPORT = {
  ok: false,
  order: 'pattern',
  pattern: { key: 'k', id: 'P4', rank: 1 },
  waits: [
    { at: 1, for: 0, met: 3, timedOut: 0, lock: 0, skipped: 0 },
    { at: 2, for: 1, met: 0, timedOut: 0, lock: 5, skipped: 1 },
  ],
  reason: 'wait 1: thread worker-2 is blocked on bank.Account (monitor) held by worker-1 while it waits at Account.java:13 (5 times)',
};

function traceText(...extra: string[]): string {
  return [
    '{"braid":"trace","version":1,"execution":"f1"}',
    '{"def":"var","id":0,"name":"bank.Account.balance"}',
    '{"def":"loc","id":0,"file":"bank/Account.java","line":12,"method":"bank.Account.deposit"}',
    '[1,1,"R",0,0]',
    '[2,2,"W",0,0]',
    ...extra,
    '{"outcome":"fail","reason":"exception"}',
    '',
  ].join('\n');
}

test('the trace reader keeps the forcing line as the run\'s forcing; a malformed one is a warning naming file and line, and the run still loads', async () => {
  const r = await readTraceBuffer('f1.trace.jsonl', Buffer.from(traceText(JSON.stringify({ forcing: REPORT }))), { event: () => {} });
  assert.ok(r.ok);
  assert.deepEqual(r.forcing, REPORT);
  assert.deepEqual(r.diagnostics, []);
  for (const bad of [{ ok: 'yes', waits: [] }, { ok: true }, { ok: true, waits: [{ at: 1, for: 0, met: -1, timedOut: 0, lock: 0, skipped: 0 }] }, { ok: true, order: 'sideways', waits: [] }, 7]) {
    const b = await readTraceBuffer('f1.trace.jsonl', Buffer.from(traceText(JSON.stringify({ forcing: bad }))), { event: () => {} });
    assert.ok(b.ok, JSON.stringify(bad));
    assert.equal(b.forcing, undefined);
    assert.equal(b.diagnostics.length, 1, JSON.stringify(b.diagnostics));
    assert.deepEqual({ ...b.diagnostics[0], message: '' }, { severity: 'warning', file: 'f1.trace.jsonl', line: 6, message: '' });
    assert.match(b.diagnostics[0].message, /a "forcing" line must be .*; ignored/);
  }
  // one kind per object line
  const mixed = await readTraceBuffer('f1.trace.jsonl', Buffer.from(traceText('{"forcing":{"ok":true,"waits":[]},"outcome":"pass"}')), { event: () => {} });
  assert.equal(mixed.ok, false);
  // the analysis: RunResult.forcing
  const dir = tempDir();
  writeFileSync(path.join(dir, 'f1.trace.jsonl'), traceText(JSON.stringify({ forcing: REPORT })));
  writeFileSync(path.join(dir, 'f2.trace.jsonl'), traceText().replace('"f1"', '"f2"'));
  const analyzer = new Analyzer();
  assert.deepEqual((await analyzer.addTrace(path.join(dir, 'f1.trace.jsonl')))?.forcing, REPORT);
  assert.equal((await analyzer.addTrace(path.join(dir, 'f2.trace.jsonl')))?.forcing, undefined);
});

test('the runner reads the agent\'s uncaught and forcing lines in one pass; several JVMs\' reports are added up', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'r.trace.jsonl.part');
  const uncaught = { thread: 1, exception: 'java.lang.IllegalStateException', message: 'lost update', frames: ['Main.main(Main.java:9)'] };
  writeFileSync(file, traceText(JSON.stringify({ uncaught }), JSON.stringify({ forcing: REPORT }), '{"forcing":{"ok":"broken"}}', '{"forcing":{"ok":tru'));
  const lines = await readAgentLines(file);
  assert.deepEqual(lines.uncaught, [uncaught]);
  assert.deepEqual(lines.forcing, [REPORT]);
  assert.deepEqual(await readUncaught(file), [uncaught]);

  const other: ForcingReport = { ok: false, order: 'pattern', waits: [{ at: 1, for: 0, met: 0, timedOut: 2, lock: 0, skipped: 0 }, { at: 2, for: 1, met: 1, timedOut: 0, lock: 0, skipped: 0 }], reason: 'wait 0: timed out twice' };
  const merged = mergeForcingReports([parseForcingReport(REPORT)!, other]);
  assert.deepEqual(merged, {
    ok: true,
    order: 'pattern',
    pattern: REPORT.pattern,
    waits: [
      { at: 1, for: 0, met: 3, timedOut: 2, lock: 0, skipped: 0 },
      { at: 2, for: 1, met: 1, timedOut: 0, lock: 5, skipped: 1 },
    ],
  });
  assert.equal(mergeForcingReports([]), undefined);
  assert.deepEqual(mergeForcingReports([other]), other);
  const bothBad = mergeForcingReports([other, { ...other, reason: 'wait 0: no thread reached Account.java:13 (W balance)' }]);
  assert.equal(bothBad?.ok, false);
  assert.equal(bothBad?.reason, 'wait 0: timed out twice; wait 0: no thread reached Account.java:13 (W balance)');
});
