/**
 * Issue 30, point 3: a run that never reached the program (main class not found, command missing,
 * no included class loaded) is not a failure: the recording stops after the first such run, says
 * why with the program's output, keeps no trace of it (nothing joins the analysis), and `braid
 * record` exits 1 instead of reporting "20 runs — 20 failed".
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { prepare, record, root } from './recorderHarness';
import { classifyNotReached } from '../../server/src/recorder/runs/notReached';

test('classifying why a run never reached the program', () => {
  assert.match(classifyNotReached('Error: Could not find or load main class com.acme.NoSuchMain\nCaused by: java.lang.ClassNotFoundException: com.acme.NoSuchMain\n', 1, ['com.acme']).reason, /main class com\.acme\.NoSuchMain not found/);
  assert.match(classifyNotReached('Error: Unable to access jarfile app.jar\n', 1, []).reason, /jar file app\.jar not found/);
  assert.equal(classifyNotReached('sh: 1: mvnw: not found\n', 127, []).reason, 'command not found');
  assert.match(classifyNotReached('', 0, ['bank']).reason, /no included class was instrumented \(--include bank\)/);
  assert.match(classifyNotReached('boom\n', 3, ['bank']).reason, /no included class was instrumented \(--include bank\): the command ran \(exit code 3\)/);
});

test('a missing main class: the recording stops after the first run, keeps no trace, says why with the output', async () => {
  prepare();
  const s = await record('no-such-main', 'com.acme.NoSuchMain', { runs: 20, include: ['lifecycle'], jobs: 1 });
  assert.equal(s.total, 0);
  assert.equal(s.failed, 0, 'not a failure of the program');
  assert.equal(s.notReached?.stopped, true);
  assert.equal(s.notReached?.runs, 1, 'stopped after the first run');
  assert.match(s.notReached!.reason, /main class com\.acme\.NoSuchMain not found/);
  assert.match(s.notReached!.output, /Could not find or load main class com\.acme\.NoSuchMain/);
  const files = readdirSync(s.outDir);
  assert.deepEqual(files.filter((f) => f.includes('.trace.jsonl')), [], 'no trace joins the analysis');
  assert.ok(files.some((f) => f.endsWith('.log')), 'the log is kept');
});

test('braid record: exit code 1 and the reason, not "20 runs — 20 failed"', () => {
  const cli = path.join(root, 'dist', 'braid.js');
  if (!existsSync(cli)) return;
  const out = path.join(root, 'test-output', 'not-reached-cli');
  const r = spawnSync(process.execPath, [cli, 'record', '--runs', '20', '--include', 'com.acme', '--out', out, '--', 'java', '-cp', 'nowhere', 'com.acme.NoSuchMain'], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /never reached the program: main class com\.acme\.NoSuchMain not found; recording stopped, nothing recorded/);
  assert.match(r.stderr, /\| Error: Could not find or load main class/);
  assert.doesNotMatch(r.stdout, /20 failed/);
});

test('Node.js runs that reached nothing: a missing module, or no file instrumented, in the words of files, not classes', () => {
  const missing = classifyNotReached("node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module '/app/mian.js'\n", 1, [], 'node');
  assert.match(missing.reason, /module \/app\/mian\.js not found/);
  const none = classifyNotReached('ok\n', 0, ['src/**/*.ts'], 'node');
  assert.match(none.reason, /no file of the program was instrumented \(--include src\/\*\*\/\*\.ts\)/);
  assert.doesNotMatch(`${none.reason} ${none.hint}`, /JVM|class/);
});
