/**
 * Noise plan files (server/src/engine/noise/noisePlanFile.ts, docs/noise.md "Plan format"): every
 * bad input is refused with the file and the field; a written plan reads back the same; and the
 * agent's point catalogue reader (server/src/recorder/runs/pointCatalogue.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NoisePlan } from '../../server/src/engine/noise/noisePlan';
import { isPointId, NoisePlanError, parseNoisePlan, readNoisePlan, validateNoisePlan, writeNoisePlan } from '../../server/src/engine/noise/noisePlanFile';
import { parsePointCatalogue } from '../../server/src/recorder/runs/pointCatalogue';
import { loadPlanOption, parseRecordArgs, UsageError } from '../../server/src/recorder/runs/recordOptions';
import { tempDir } from '../helpers/traceBuilder';

const GOOD: NoisePlan = {
  format: 'braid-noise-plan',
  version: 1,
  name: 'BankTest',
  command: ['java', '-cp', 'out', 'bank.Bank'],
  noise: { kind: 'sleep', ms: 5 },
  points: [
    { id: 'bank/Bank.transfer(II)V@12', probability: 0.9, file: 'bank/Bank.java', line: 21, method: 'bank.Bank.transfer' },
    { id: 'bank/Bank$Teller.run()V@3', probability: 1, noise: { kind: 'busy', micros: 200 } },
    { id: 'bank/Bank.<init>()V@0', probability: 0, noise: { kind: 'yield' } },
    { id: 'bank/Bank.deposit(I)V@7', probability: 1, threads: ['teller-1', 'teller 2'] },
  ],
  origin: { tool: 'braid pinpoint', created: '2026-11-23T18:00:00Z', runs: 120 },
};

function refused(value: unknown, field: string, problem: RegExp): void {
  assert.throws(
    () => validateNoisePlan(value, 'plans/p.json'),
    (e: unknown) => {
      assert.ok(e instanceof NoisePlanError, String(e));
      assert.equal(e.file, 'plans/p.json');
      assert.equal(e.field, field);
      assert.match(e.problem, problem);
      assert.equal(e.message, `plans/p.json: ${field ? `${field}: ` : ''}${e.problem}`);
      return true;
    },
  );
}

test('a valid plan is accepted as it is', () => {
  assert.deepEqual(validateNoisePlan(JSON.parse(JSON.stringify(GOOD)), 'p.json'), GOOD);
});

test('each bad field is refused with its name', () => {
  const with_ = (patch: Record<string, unknown>) => ({ ...GOOD, ...patch });
  const point = (k: number, patch: Record<string, unknown>) => with_({ points: GOOD.points.map((p, i) => (i === k ? { ...p, ...patch } : p)) });
  refused([], '', /must be a JSON object/);
  refused(with_({ format: 'braid-trace' }), 'format', /"braid-noise-plan"/);
  refused(with_({ version: 2 }), 'version', /must be 1/);
  refused(with_({ name: '' }), 'name', /non-empty string/);
  refused(with_({ command: 'java Main' }), 'command', /array of strings/);
  refused(with_({ noise: undefined }), 'noise', /must be an object/);
  refused(with_({ noise: { kind: 'nap' } }), 'noise.kind', /"yield", "sleep" or "busy"/);
  refused(with_({ noise: { kind: 'sleep' } }), 'noise.ms', /> 0/);
  refused(with_({ noise: { kind: 'sleep', ms: 0 } }), 'noise.ms', /> 0/);
  refused(with_({ noise: { kind: 'sleep', ms: 120_000 } }), 'noise.ms', /≤ 60000/);
  refused(with_({ noise: { kind: 'busy', micros: -1 } }), 'noise.micros', /> 0/);
  refused(with_({ points: {} }), 'points', /array/);
  refused(with_({ points: [7] }), 'points[0]', /must be an object/);
  refused(point(1, { id: 'Bank.java:21' }), 'points[1].id', /<class>\.<method><descriptor>@<offset>/);
  refused(point(1, { id: 'bank/Bank.transfer(II)V' }), 'points[1].id', /point id/);
  refused(point(1, { id: GOOD.points[0].id }), 'points[1].id', /planned twice/);
  refused(point(0, { probability: 1.5 }), 'points[0].probability', /between 0 and 1/);
  refused(point(0, { probability: '0.5' }), 'points[0].probability', /between 0 and 1/);
  refused(point(0, { probability: undefined }), 'points[0].probability', /between 0 and 1/);
  refused(point(2, { noise: { kind: 'busy' } }), 'points[2].noise.micros', /> 0/);
  refused(point(0, { line: -3 }), 'points[0].line', /whole number/);
  refused(point(0, { file: 12 }), 'points[0].file', /string/);
  refused(point(3, { threads: 'teller-1' }), 'points[3].threads', /non-empty array of thread names/);
  refused(point(3, { threads: [] }), 'points[3].threads', /non-empty array of thread names/);
  refused(point(3, { threads: ['teller-1', 7] }), 'points[3].threads[1]', /non-empty string \(a thread name\)/);
  refused(point(3, { threads: [''] }), 'points[3].threads[0]', /non-empty string/);
  refused(point(3, { threads: ['a', 'b', 'a'] }), 'points[3].threads[2]', /thread a is named twice/);
  refused(with_({ triggers: {} }), 'triggers', /array/);
  refused(with_({ origin: { created: 'x' } }), 'origin', /"tool"/);
});

test('point ids: <internal class>.<method><descriptor>@<offset>', () => {
  for (const id of ['bank/Bank.transfer(II)V@12', 'Main.main([Ljava/lang/String;)V@0', 'a/B$1.lambda$run$0()Ljava/lang/Object;@345', 'x/Y.<init>(I)V@4']) assert.ok(isPointId(id), id);
  for (const id of ['bank/Bank.transfer@12', 'bank/Bank.transfer(II)V@', 'bank/Bank.transfer(II)V@x', '.m()V@1', 'bank/Bank.transfer(II)V@1234567', 'bank/Bank.trans fer(II)V@1']) assert.ok(!isPointId(id), id);
});

test('JSON syntax errors name the file, line and column', () => {
  assert.throws(() => parseNoisePlan('{\n  "format": "braid-noise-plan",\n  "version": 1,,\n}', 'p.json'), /^Error: p\.json: not valid JSON \(line 3, column 16/);
  assert.throws(() => parseNoisePlan('  \n', 'p.json'), /^Error: p\.json: not valid JSON \(the file is empty\)/);
  // N9 (issue 31): a file named as a plan may be anything (a link to /etc/passwd): the error names the place, never the text
  for (const text of ['root:x:0:0:root:/root:/bin/bash\n', '{"a": 1, root:x:0:0}', '[1, 2] root:x']) {
    assert.throws(() => parseNoisePlan(text, 'p.json'), (e: Error) => /^p\.json: not valid JSON/.test(e.message) && !/root|bash/.test(e.message), text);
  }
  assert.throws(() => parseNoisePlan('{\n  "format": "braid-noise-plan",\n  "version": 1,\n  "points": [\n', 'p.json'), /^Error: p\.json: not valid JSON \(line 4, column 14: the file ends before the JSON is complete\)/);
});

test('written plans read back the same; a missing file is named', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'sub', 'BankTest.json');
  await writeNoisePlan(file, GOOD);
  assert.deepEqual(await readNoisePlan(file), GOOD);
  // one planned point per line, so a plan reads well and diffs well
  const text = readFileSync(file, 'utf8');
  assert.equal(text.split('\n').filter((l) => l.includes('"id":')).length, GOOD.points.length);
  await assert.rejects(readNoisePlan('nope.json', dir), /nope\.json: no such file/);
  await assert.rejects(writeNoisePlan(path.join(dir, 'x.json'), { ...GOOD, points: [{ id: 'bad', probability: 1 }] }), /x\.json: points\[0\]\.id/);
});

test('--plan is read relative to the working folder; --noise then becomes 0 with a note', () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'p.json'), JSON.stringify(GOOD));
  const o = parseRecordArgs(['--noise', '0.2', '--plan', 'p.json', '--', 'java', 'Main'], dir);
  assert.equal(o.plan?.file, path.join(dir, 'p.json'));
  assert.equal(o.plan?.plan.name, 'BankTest');
  assert.equal(o.noise, 0);
  assert.deepEqual(o.notes, ['--noise 0.2 is ignored: the plan p.json decides where noise goes']);
  assert.equal(parseRecordArgs(['--plan', 'p.json', '--', 'java', 'Main'], dir).notes, undefined);
  assert.equal(parseRecordArgs(['--', 'java', 'Main'], dir).plan, undefined);
  assert.throws(() => parseRecordArgs(['--plan', '--', 'java', 'Main'], dir), (e) => e instanceof UsageError && /--plan needs a noise plan file/.test(e.message));
  assert.throws(() => loadPlanOption('.', dir), (e) => e instanceof UsageError && /--plan \.: is a folder/.test(e.message));
  writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ ...GOOD, noise: { kind: 'sleep', ms: 'five' } }));
  assert.throws(() => parseRecordArgs(['--plan', 'bad.json', '--', 'java', 'Main'], dir), (e) => e instanceof UsageError && e.message === '--plan bad.json: noise.ms: must be a number > 0 and ≤ 60000');
});

test('the point catalogue reader drops repeated ids and counts broken lines', () => {
  const a = { id: 'bank/Bank.transfer(II)V@12', file: 'bank/Bank.java', line: 21, method: 'bank.Bank.transfer', kind: 'read' };
  const b = { id: 'bank/Bank.transfer(II)V@15', file: 'bank/Bank.java', line: 22, method: 'bank.Bank.transfer', kind: 'write' };
  const text = [a, b, a].map((p) => JSON.stringify(p)).join('\n') + '\n{"id":"x","fi\n' + JSON.stringify({ ...b, id: 'q', kind: 'jump' }) + '\n';
  assert.deepEqual(parsePointCatalogue(text), { points: [a, b], skipped: 2 });
});
