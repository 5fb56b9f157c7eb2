/**
 * Issue 39, "a recording's manifest is data, not instructions": every field of a recording.json is
 * validated when it is read (server/src/recorder/runs/recordingManifest.ts), and its fail-on-output
 * pattern matches in linear time (outputPattern.ts).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readRecordingManifest } from '../../server/src/recorder/runs/recordingManifest';
import * as manifestModule from '../../server/src/recorder/runs/recordingManifest';
import { tempDir } from '../helpers/traceBuilder';

const valid = (over: Record<string, unknown> = {}) => ({
  format: 'braid-recording',
  version: 1,
  command: ['java', '-cp', 'out', 'bank.Bank'],
  cwd: '/work/bank',
  name: 'bank.Bank',
  runs: 100,
  noise: 0.1,
  seed: 7,
  include: ['bank'],
  exclude: [],
  timeoutSeconds: 60,
  startedAt: '2026-11-27T10:15:00.000Z',
  ...over,
});

async function read(json: unknown) {
  const dir = path.join(tempDir(), 'traces');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'recording.json'), JSON.stringify(json));
  return readRecordingManifest(dir);
}

test('recording.json: a manifest Braid writes is read back as it was', async () => {
  const r = await read(valid({ failOnOutput: 'Exception', plan: { name: 'p', file: '/work/bank/plan.json' }, prepare: [{ command: ['javac', 'A.java'], cwd: '/work/bank' }] }));
  assert.equal(r.problem, undefined);
  assert.deepEqual(r.manifest?.command, ['java', '-cp', 'out', 'bank.Bank']);
  assert.equal(r.manifest?.timeoutSeconds, 60);
  assert.equal(r.manifest?.failOnOutput, 'Exception');
  assert.deepEqual(r.manifest?.prepare, [{ command: ['javac', 'A.java'], cwd: '/work/bank' }]);
});

test('recording.json: "timeoutSeconds: 1e7 overflows to 1 ms" — a time limit over a day (or ≤ 0) is refused, naming the field', async () => {
  for (const t of [1e7, 86_401, 0, -5, '60']) {
    const r = await read(valid({ timeoutSeconds: t }));
    assert.equal(r.manifest, undefined, `timeoutSeconds ${t}`);
    assert.match(r.problem ?? '', /recording\.json: timeoutSeconds: must be a number of seconds above 0 and at most 86400/);
  }
  assert.equal((await read(valid({ timeoutSeconds: 86_400 }))).manifest?.timeoutSeconds, 86_400);
});

test('recording.json: include/exclude patterns with path-list separators or other junk are refused (`out=` injected into the agent options)', async () => {
  const bad: [string, unknown[]][] = [
    ['include', ['bank,out=/tmp/stolen.trace.jsonl']],
    ['include', ['bank;java']],
    ['include', ['bank:java']],
    ['exclude', ['a\nout=/x']],
    ['include', ['bank\u202e']],
    ['include', ['']],
    ['include', [42]],
    ['exclude', ['a b']],
  ];
  for (const [field, list] of bad) {
    const r = await read(valid({ [field]: list }));
    assert.equal(r.manifest, undefined, JSON.stringify(list));
    assert.match(r.problem ?? '', new RegExp(`recording\\.json: ${field}\\[0\\]: `), JSON.stringify(list));
  }
  // a package, a class pattern and a Node.js file glob stay
  assert.deepEqual((await read(valid({ include: ['com.example.bank', 'bank.*', 'src/**/*.js'] }))).manifest?.include, ['com.example.bank', 'bank.*', 'src/**/*.js']);
});

test('recording.json: "failOnOutput: \\"(\\" loses the whole report" — an invalid regex is a problem naming the field, not a throw later', async () => {
  const r = await read(valid({ failOnOutput: '(' }));
  assert.equal(r.manifest, undefined);
  assert.match(r.problem ?? '', /recording\.json: failOnOutput: .*missing closing \)/);
  // a backreference or lookahead cannot be matched in linear time: refused, with the reason
  assert.match((await read(valid({ failOnOutput: '(a)\\1' }))).problem ?? '', /failOnOutput: not a regular expression Braid can match in linear time/);
  assert.match((await read(valid({ failOnOutput: 7 }))).problem ?? '', /failOnOutput: must be a regular expression/);
});

test('recording.json: "a backtracking regex hangs the CLI" — the manifest\'s failOnOutput matches in linear time', async () => {
  const r = await read(valid({ failOnOutput: '^(a+)+$' }));
  assert.ok(r.manifest, r.problem);
  const compile = (manifestModule as Record<string, unknown>).manifestFailOnOutput as ((m: unknown) => RegExp) | undefined;
  // before the fix, callers compiled it with `new RegExp(source, 'm')`
  const re = compile ? compile(r.manifest) : new RegExp(r.manifest!.failOnOutput!, 'm');
  const started = Date.now();
  assert.equal(re.test('a'.repeat(24) + 'b'), false);
  assert.equal(re.test('x\n' + 'a'.repeat(100_000) + '\n'), true);
  const m = re.exec('before\naaa\n');
  assert.equal(m?.[0], 'aaa');
  assert.equal(m?.index, 7);
  assert.ok(Date.now() - started < 2000, `matching took ${Date.now() - started} ms`);
});

test('recording.json: the name is sanitised, other fields are type-checked', async () => {
  const r = await read(valid({ name: '../../etc/\u001b]8;;http://x\u0007evil\u202e' }));
  assert.ok(r.manifest, r.problem);
  assert.match(r.manifest!.name, /^[A-Za-z0-9._-]+$/);
  assert.ok(!r.manifest!.name.includes('/'));
  for (const [field, value, says] of [
    ['cwd', 'relative/dir', /cwd: must be an absolute path/],
    ['cwd', '/work/\u001b[2Jbank', /cwd: holds control characters/],
    ['command', [], /command: must be a non-empty array/],
    ['noise', 3, /noise: must be a probability/],
    ['runs', -1, /runs: must be a whole number/],
    ['noiseAt', 'everywhere', /noiseAt: must be/],
    ['plan', { name: 'p', file: 'rel.json' }, /plan\.file: must be an absolute path/],
    ['prepare', [{ command: ['make'], cwd: 'x' }], /prepare\[0\]: cwd: must be an absolute path/],
    ['startedAt', '9999999999999', /startedAt: must be a time/],
  ] as const) {
    const q = await read(valid({ [field]: value }));
    assert.equal(q.manifest, undefined, field);
    assert.match(q.problem ?? '', says, field);
  }
});

test('recording.json: --fresh-jvm and --shared-libraries are kept (a confirmation runs the recording the same way); another value than a boolean is refused', async () => {
  const o = { command: ['java', '-jar', 'c.jar'], cwd: '/work/bank', outDir: '/tmp/x', name: 'n', runs: 10, noise: 0.1, seed: 1, include: ['bank'], exclude: [], timeoutSeconds: 60 } as unknown as Parameters<typeof manifestModule.manifestOf>[0];
  const plain = manifestModule.manifestOf(o);
  assert.equal('freshJvm' in plain || 'sharedLibraries' in plain, false, 'the defaults write nothing');
  const both = manifestModule.manifestOf({ ...o, freshJvm: true, sharedLibraries: true });
  assert.equal(both.freshJvm, true);
  assert.equal(both.sharedLibraries, true);
  const r = await read(JSON.parse(JSON.stringify(both)));
  assert.equal(r.problem, undefined);
  assert.deepEqual(manifestModule.launchOf(r.manifest), { freshJvm: true, sharedLibraries: true });
  assert.deepEqual(manifestModule.launchOf((await read(valid({ freshJvm: false }))).manifest), {});
  const bad = await read(valid({ sharedLibraries: 'yes' }));
  assert.equal(bad.manifest, undefined);
  assert.match(bad.problem ?? '', /recording\.json: sharedLibraries: must be true or false, got "yes"/);
});
