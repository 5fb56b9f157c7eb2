/**
 * `braid record` as a user runs it (dist/braid.js) and its documented options (docs/recorder.md):
 * the fail reasons exit-code and output-match, --exclude, --name (execution ids, trace and log
 * file names), --agent-option, the argument errors, and Ctrl-C (exit 130, finished traces kept,
 * the unfinished run's trace deleted).
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRecordArgs, UsageError } from '../../server/src/recorder/runs/recordOptions';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, prepare, root } from './recorderHarness';

const cli = path.join(root, 'dist/braid.js');
const java = (...args: string[]) => ['java', ...FAST_JVM, '-cp', classesDir, 'lifecycle.Outcome', ...args];

before(() => {
  prepare();
  assert.ok(existsSync(cli), 'dist/braid.js is missing: run `npm run build` first');
});

function braidRecord(args: string[]) {
  const r = spawnSync(process.execPath, [cli, 'record', ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('['))
    .map((l) => JSON.parse(l));
}

test('a non-zero exit code fails the run with reason exit-code; braid record still exits 0', () => {
  const out = tempDir();
  const r = braidRecord(['--runs', '2', '--seed', '1', '--include', 'lifecycle', '--out', out, '--', ...java('exit', '3')]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /recorded 2 run\(s\) in [\d.]+ s: 0 passed, 2 failed/);
  assert.match(r.out, /failures by reason: exit-code 2/);
  for (const f of readdirSync(out).filter((n) => n.endsWith('.trace.jsonl'))) {
    const outcome = lines(path.join(out, f)).filter((l) => 'outcome' in l).at(-1);
    assert.deepEqual([outcome?.outcome, outcome?.reason], ['fail', 'exit-code']);
  }
});

test('--fail-on-output: matching output fails the run with reason output-match; other output passes', () => {
  const out = tempDir();
  const bad = braidRecord(['--runs', '1', '--seed', '1', '--include', 'lifecycle', '--out', out, '--fail-on-output', 'BROKEN \\d+', '--', ...java('print', 'BROKEN 42')]);
  assert.equal(bad.code, 0, bad.err);
  assert.match(bad.out, /0 passed, 1 failed/);
  assert.match(bad.out, /failures by reason: output-match 1/);
  const ok = braidRecord(['--runs', '1', '--seed', '1', '--include', 'lifecycle', '--out', tempDir(), '--fail-on-output', 'BROKEN \\d+', '--', ...java('print', 'BROKEN x')]);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /1 passed, 0 failed/);
});

test('--name names executions, traces and per-run logs; --agent-option reaches the agent; --exclude drops a class', () => {
  const out = tempDir();
  const r = braidRecord([
    '--runs', '2', '--seed', '5', '--noise', '0', '--include', 'lifecycle', '--exclude', 'lifecycle.Tally',
    '--name', 'my run', '--agent-option', 'program=renamed.Program', '--out', out, '--', ...java('print', 'hello'),
  ]);
  assert.equal(r.code, 0, r.err);
  // <name>-NNNN per run (docs/recorder.md); the name is sanitized for file names: "my run" → "my_run"
  assert.deepEqual(readdirSync(out).sort(), ['my_run-0000.log', 'my_run-0000.trace.jsonl', 'my_run-0001.log', 'my_run-0001.trace.jsonl', 'recording.json']);
  // the recording manifest (recordingManifest.ts): how to run it again, never the environment
  const m = JSON.parse(readFileSync(path.join(out, 'recording.json'), 'utf8'));
  assert.equal(m.format, 'braid-recording');
  assert.deepEqual(m.command, java('print', 'hello'));
  assert.deepEqual([m.runs, m.noise, m.seed, m.name], [2, 0, 5, 'my_run']);
  assert.deepEqual([m.include, m.exclude], [['lifecycle'], ['lifecycle.Tally']]);
  assert.equal(m.env, undefined);
  assert.match(readFileSync(path.join(out, 'my_run-0001.log'), 'utf8'), /hello/);
  const head = lines(path.join(out, 'my_run-0000.trace.jsonl'));
  assert.equal(head[0].execution, 'my_run-0000');
  assert.equal(head[0].program, 'renamed.Program');
  const files = head.filter((l) => l.def === 'loc').map((l) => l.file);
  assert.ok(files.includes('lifecycle/Outcome.java'), String(files));
  assert.ok(!files.includes('lifecycle/Tally.java'), 'lifecycle.Tally is excluded');
  // without --exclude, Tally is recorded (so the check above can fail)
  const all = tempDir();
  assert.equal(braidRecord(['--runs', '1', '--seed', '5', '--noise', '0', '--include', 'lifecycle', '--out', all, '--', ...java('print', 'x')]).code, 0);
  const t = readdirSync(all).find((n) => n.endsWith('.trace.jsonl'))!;
  assert.ok(lines(path.join(all, t)).some((l) => l.def === 'loc' && l.file === 'lifecycle/Tally.java'));
});

test('a second JVM of a run (as Maven/Gradle fork) writes <name>-NNNN~<pid>.trace.jsonl with the outcome too', () => {
  const out = tempDir();
  const r = braidRecord(['--runs', '1', '--seed', '1', '--include', 'lifecycle', '--name', 'fork', '--out', out, '--', ...java('fork')]);
  assert.equal(r.code, 0, r.err);
  const traces = readdirSync(out).filter((n) => n.endsWith('.trace.jsonl')).sort();
  assert.equal(traces.length, 2, String(traces));
  assert.equal(traces[0], 'fork-0000.trace.jsonl');
  assert.match(traces[1], /^fork-0000~\d+\.trace\.jsonl$/);
  for (const t of traces) assert.equal(lines(path.join(out, t)).filter((l) => 'outcome' in l).at(-1)?.outcome, 'pass', t);
  assert.match(readFileSync(path.join(out, 'fork-0000.log'), 'utf8'), /child/);
});

test('record arguments: --exclude, --name, --agent-option, --timeout, --jobs auto, --fail-on-output and --seed checks', () => {
  const o = parseRecordArgs(
    ['--exclude', 'a.B', 'c', '--name', 'x/y z', '--agent-option', 'verbose=1', '--agent-option', 'noiseSleepMaxUs=5', '--timeout', '2.5', '--jobs', 'auto', '--fail-on-output', '^FAIL', '--seed', '0', '--', 'java', 'M'],
    '/tmp',
  );
  assert.deepEqual(o.exclude, ['a.B', 'c']);
  assert.equal(o.name, 'x_y_z');
  assert.deepEqual(o.agentOptions, ['verbose=1', 'noiseSleepMaxUs=5']);
  assert.equal(o.timeoutSeconds, 2.5);
  assert.equal(o.jobs, os.availableParallelism());
  assert.ok(o.failOnOutput!.test('ok\nFAIL here'), 'multi-line: ^ matches at a line start');
  assert.equal(o.seed, 0);
  const bad: [string[], RegExp][] = [
    [['--fail-on-output', '(', '--', 'java'], /--fail-on-output \(: not a regular expression Braid can match in linear time \(missing closing \)/],
    [['--seed', '-1', '--', 'java'], /--seed -1: expected a whole number ≥ 0/],
    [['--seed', '1.5', '--', 'java'], /--seed 1\.5: expected a whole number ≥ 0/],
    [['--seed', String(2 ** 53), '--', 'java'], /--seed \d+: expected a whole number ≥ 0/],
    [['--timeout', '0', '--', 'java'], /--timeout 0: expected a number of seconds above 0 and at most 86400/],
    [['--timeout', '1e7', '--', 'java'], /--timeout 1e7: expected a number of seconds above 0 and at most 86400/],
    [['--jobs', 'many', '--', 'java'], /--jobs many: expected a whole number ≥ 1 or "auto"/],
    [['--agent-option', 'verbose', '--', 'java'], /--agent-option needs key=value/],
    [['--exclude', '--', 'java'], /--exclude needs at least one package or class/],
    [['--name', '--', 'java'], /--name needs a value/],
  ];
  for (const [args, re] of bad) assert.throws(() => parseRecordArgs(args), (e: unknown) => e instanceof UsageError && re.test((e as Error).message), args.join(' '));
});

test('braid record exit codes: 2 on a usage error (with the usage), 0 with --help', () => {
  const u = braidRecord(['--runs', 'x', '--', 'java']);
  assert.equal(u.code, 2);
  assert.match(u.err, /braid record: --runs x: expected a whole number ≥ 1/);
  assert.match(u.err, /--agent-option K=V/);
  const h = braidRecord(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.out, /^braid record --runs N/);
});

test('Ctrl-C: exit code 130, finished traces kept, the unfinished run deleted', async () => {
  const out = tempDir();
  const child = spawn(process.execPath, [cli, 'record', '--runs', '40', '--jobs', '1', '--seed', '1', '--include', 'lifecycle', '--out', out, '--', ...java('sleep', '1500')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // a run in progress writes `<run>.trace.jsonl.part`, renamed when its outcome is appended (docs/recorder.md)
  const traces = () => readdirSync(out).filter((n) => n.endsWith('.trace.jsonl') || n.endsWith('.trace.jsonl.part'));
  const finished = (n: string) => n.endsWith('.trace.jsonl') && readFileSync(path.join(out, n), 'utf8').includes('"outcome"');
  // wait (hang guard: 120 s, generous for a busy machine) until one run finished and the next one
  // has started writing its trace
  let unfinished: string | undefined;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    const names = traces();
    unfinished = names.find((n) => !finished(n));
    if (names.some(finished) && unfinished) break;
  }
  assert.ok(unfinished, `no run in progress after a finished one: ${traces()}`);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130);
  assert.match(stdout, /^interrupted: recorded \d+ run\(s\)/m);
  const left = traces();
  assert.ok(left.length >= 1 && left.length < 40, String(left));
  for (const n of left) assert.ok(finished(n), `${n} is finished`);
  assert.ok(!left.includes(unfinished), `${unfinished} (unfinished at Ctrl-C) is deleted`);
});
