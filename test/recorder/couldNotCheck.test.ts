/**
 * Issue 39, item 1, "No verdict without runs": "Check the Fix says FIXED, exit 0, when no run
 * finished. `braid confirm --baseline traces -- sh -c 'exit 3'` → FIXED … (no forced run finished) …
 * 7 of 30 before, 0 of 0 now. The same for a broken build after the edit, a wrong command, an include
 * list that no longer matches (the fix moved the class), any Node.js program, and a repository
 * `recording.json` whose include matches nothing. Zero forced runs become 'not forced', which Check
 * the Fix reads as 'can no longer happen'; zero noise runs are accepted."
 * Each reproduction must give the verdict `could not check` (with why and what to do) and exit code 4,
 * for Check the Fix (--baseline) and for Confirm; and no verdict is ever drawn from zero runs.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { decideVerdict } from '../../server/src/engine/confirm/confirmVerdict';
import { reachedNoAccess } from '../../server/src/engine/confirm/couldNotCheck';
import { tempDir } from '../helpers/traceBuilder';
import { classesDir, FAST_JVM, prepare, root } from './recorderHarness';

before(() => prepare());

const bank = path.join(root, 'test/fixtures/recorded/bank');
const cli = path.join(root, 'server/src/cli/braid.ts');
/** tsx by path: the CLI runs in a temporary folder, where `--import tsx` would not resolve */
const tsx = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;

/** braid confirm from the sources (no bundle needed), in a folder of its own. */
function confirm(args: string[], cwd = tempDir()): { code: number | null; json: Record<string, unknown>; err: string } {
  const r = spawnSync(process.execPath, ['--import', tsx, cli, 'confirm', '--runs', '4', '--seed', '3', '--format', 'json', ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(r.stdout);
  } catch {
    assert.fail(`no JSON on stdout (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.status, json, err: r.stderr };
}

function couldNotCheck(r: ReturnType<typeof confirm>, why: RegExp, field: 'fix' | 'verdict' = 'fix'): void {
  const msg = JSON.stringify(r.json) + '\n' + r.err;
  assert.equal(r.json[field], 'could not check', msg);
  assert.match(String(r.json.why), why, msg);
  assert.ok(typeof r.json.hint === 'string' && r.json.hint.length > 10, msg);
  assert.equal(r.code, 4, msg);
}

test('"Check the Fix says FIXED, exit 0, when no run finished": --baseline traces -- sh -c "exit 3" → could not check, exit 4', () => {
  const r = confirm(['--baseline', bank, '--', 'sh', '-c', 'exit 3']);
  couldNotCheck(r, /the command failed.*exit code 3/);
  assert.deepEqual(r.json.after, null, 'no noise run was recorded after the fix: none is claimed');
});

test('Confirm (no --baseline) on a command that fails before the program: could not check, never "not forced"', () => {
  couldNotCheck(confirm([bank, '--', 'sh', '-c', 'exit 3']), /the command failed.*exit code 3/, 'verdict');
});

test('"a broken build after the edit" (the classes are gone): could not check, exit 4', () => {
  const empty = tempDir();
  couldNotCheck(confirm(['--baseline', bank, '--include', 'bank', '--', 'java', ...FAST_JVM, '-cp', empty, 'bank.Bank']), /main class bank\.Bank not found/);
});

test('"a wrong command": could not check, exit 4', () => {
  couldNotCheck(confirm(['--baseline', bank, '--', 'braid-no-such-program-39']), /command not found/);
});

test('"an include list that no longer matches (the fix moved the class)": could not check, exit 4', () => {
  couldNotCheck(confirm(['--baseline', bank, '--include', 'moved.elsewhere', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'bank.Bank']), /no included class was instrumented/);
});

test('"any Node.js program": could not check (passing or failing), exit 4', () => {
  couldNotCheck(confirm(['--baseline', bank, '--', process.execPath, '-e', 'setTimeout(() => {}, 10)']), /the command failed|no included class/);
  couldNotCheck(confirm([bank, '--', process.execPath, '-e', 'process.exit(1)']), /the command failed|no included class/, 'verdict');
});

test('"a repository recording.json whose include matches nothing": could not check, exit 4', () => {
  const dir = tempDir();
  const traces = path.join(dir, 'traces');
  mkdirSync(traces);
  cpSync(bank, traces, { recursive: true });
  writeFileSync(
    path.join(traces, 'recording.json'),
    JSON.stringify({ format: 'braid-recording', version: 1, command: ['java', ...FAST_JVM, '-cp', classesDir, 'bank.Bank'], cwd: dir, name: 'Bank', runs: 100, noise: 0.3, seed: 1, include: ['nothing.matches'], exclude: [], timeoutSeconds: 30, startedAt: '2026-11-28T00:00:00.000Z' }),
  );
  couldNotCheck(confirm(['--baseline', traces], dir), /no included class was instrumented/);
});

test('"no run reached the pattern\'s lines" (the command runs other included code): could not check, not "not forced"', () => {
  const r = confirm([bank, '--include', 'bank', 'forcing', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'forcing.LostUpdate']);
  couldNotCheck(r, /no forced run reached the pattern's accesses/, 'verdict');
  const fix = confirm(['--baseline', bank, '--include', 'bank', 'forcing', '--', 'java', ...FAST_JVM, '-cp', classesDir, 'forcing.LostUpdate']);
  couldNotCheck(fix, /no forced run reached the pattern's accesses/);
});

test('"Zero forced runs become not forced": a verdict needs finished forced runs', () => {
  const v = decideVerdict({ runs: 0, failed: 0, forcedOk: 0 }, undefined, { runs: 10, failed: 2 });
  assert.equal(v.verdict, 'could not check');
  // a compared group without runs: no verdict either
  assert.equal(decideVerdict({ runs: 10, failed: 10, forcedOk: 10 }, { runs: 0, failed: 0, forcedOk: 0 }, { runs: 10, failed: 0 }).verdict, 'could not check');
  assert.equal(decideVerdict({ runs: 10, failed: 10, forcedOk: 10 }, { runs: 10, failed: 0, forcedOk: 10 }, { runs: 0, failed: 0 }).verdict, 'could not check');
  // not forced needs forced runs that ran and could not be ordered
  assert.equal(decideVerdict({ runs: 10, failed: 0, forcedOk: 1 }, undefined, undefined).verdict, 'not forced');
});

test('a forcing report whose every wait was never reached is "reached no access"; a met or timed-out wait is not', () => {
  const wait = { at: 0, for: 1, met: 0, timedOut: 0, lock: 0, skipped: 0 };
  assert.equal(reachedNoAccess(undefined), true, 'no forcing report: the agent never reached a point of the plan');
  assert.equal(reachedNoAccess({ ok: false, reason: 'wait 0: no thread reached Bank.java:11 (R balance); wait 1: no thread reached Bank.java:13 (W balance)', waits: [wait, { ...wait, at: 1 }] }), true);
  assert.equal(reachedNoAccess({ ok: false, reason: 'wait 0: timed out twice (300 ms each) at Bank.java:11 (R balance) waiting for …', waits: [{ ...wait, timedOut: 2 }] }), false);
  assert.equal(reachedNoAccess({ ok: false, reason: 'wait 0: no thread reached Bank.java:11 (R balance); wait 1: Bank.java:13 (W balance) was reached twice but forcing had stopped', waits: [wait, { ...wait, at: 1 }] }), false);
  assert.equal(reachedNoAccess({ ok: true, waits: [{ ...wait, met: 1 }] }), false);
});
