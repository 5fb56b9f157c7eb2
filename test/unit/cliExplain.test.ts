/**
 * `braid explain` options as documented in docs/mining.md "CLI", run through the built CLI:
 * --minsup auto, --max-length, --min-rel-supp, --good-minsup, --break-at, --output, and
 * --spin with --simulations and --seed. Expected values are derived by hand in the comments.
 */
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, writeTraces } from '../helpers/traceBuilder';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/braid.js');
before(() => assert.ok(existsSync(cli), 'dist/braid.js is missing: run `npm run build` first'));

function explain(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, 'explain', ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Lost update, as in miningAbstraction.test.ts: T1/T2 read line 11, write line 13; T3 reads 17 (twice when it failed). */
const pass1 = ['R1 bal S11', 'W1 bal S13', 'R2 bal S11', 'W2 bal S13', 'R3 bal S17'];
const pass2 = ['R2 bal S11', 'W2 bal S13', 'R1 bal S11', 'W1 bal S13', 'R3 bal S17'];
const fail1 = ['R1 bal S11', 'R2 bal S11', 'W1 bal S13', 'W2 bal S13', 'R3 bal S17', 'R3 bal S17'];
const fail2 = ['R1 bal S11', 'R2 bal S11', 'W2 bal S13', 'W1 bal S13', 'R3 bal S17', 'R3 bal S17'];
let dir = '';
before(() => {
  const traces = [];
  for (let k = 0; k < 6; k++) traces.push({ execution: `p${k}`, outcome: 'pass' as const, events: k % 2 ? pass1 : pass2 });
  for (let k = 0; k < 4; k++) traces.push({ execution: `f${k}`, outcome: 'fail' as const, events: k % 2 ? fail1 : fail2 });
  dir = writeTraces(traces);
});

type Ev = { kind: string; thread: string; line: number };
const seq = (events: Ev[]) => events.map((e) => `${e.kind}${e.thread.slice(1)}:${e.line}`).join(' ');

test('abstraction: --minsup auto, --max-length, --min-rel-supp and their errors', () => {
  const auto = explain(dir, '--format', 'json', '--minsup', 'auto');
  assert.equal(auto.code, 0, auto.err);
  const a = auto.json();
  assert.ok(a.stats.minSupport > 0 && a.stats.minSupport <= 1, String(a.stats.minSupport));
  assert.ok(a.groups.length > 0);
  const macros = (j: { groups: { patterns: { macros: unknown[] }[] }[] }) => j.groups.flatMap((g) => g.patterns.map((p) => p.macros.length));
  assert.ok(Math.max(...macros(a)) > 2, 'without --max-length, patterns of more than 2 macros exist');
  const short = explain(dir, '--format', 'json', '--max-length', '2');
  assert.equal(short.code, 0, short.err);
  assert.ok(macros(short.json()).every((n) => n <= 2));
  const strict = explain(dir, '--format', 'json', '--minsup', '0.5', '--min-rel-supp', '0.9');
  assert.equal(strict.code, 0, strict.err);
  for (const g of strict.json().groups as { relSupport: number; patterns: { relSupport: number }[] }[]) {
    assert.ok(g.relSupport >= 0.9);
    for (const p of g.patterns) assert.ok(p.relSupport >= 0.9);
  }
  assert.equal(explain(dir, '--min-rel-supp', '1').code, 2);
  assert.equal(explain(dir, '--max-length', '0').code, 2);
  assert.equal(explain(dir, '--minsup', 'sometimes').code, 2);
});

test('contrast: --max-length, --good-minsup and --break-at', () => {
  const full = explain(dir, '--method', 'contrast', '--minsup', '0.5', '--format', 'json').json();
  assert.deepEqual(full.groups.map((g: { longest: { events: Ev[] } }) => g.longest.events.length), [6, 6]);
  const three = explain(dir, '--method', 'contrast', '--minsup', '0.5', '--max-length', '3', '--format', 'json').json();
  const longest3 = three.groups.map((g: { longest: { events: Ev[] } }) => seq(g.longest.events));
  assert.ok(longest3.length > 0 && longest3.every((s: string) => s.split(' ').length <= 3), String(longest3));
  // R1 R2 R3 occurs in the 3 passing runs where T1 goes first: with --good-minsup 0.9 (6 of 6 good
  // traces) it is not frequent in good traces, so it is an anomaly; with 0.1 (1 of 6) it is frequent
  const anomalies = (g: string) =>
    explain(dir, '--method', 'contrast', '--minsup', '0.5', '--max-length', '3', '--good-minsup', g, '--format', 'json', '--top', '0')
      .json()
      .groups.flatMap((x: { patterns: { events: Ev[] }[] }) => x.patterns.map((p) => seq(p.events)));
  assert.ok(anomalies('0.9').includes('R1:11 R2:11 R3:17'));
  assert.ok(!anomalies('0.1').includes('R1:11 R2:11 R3:17'));
  // --break-at: every trace is cut at T2's read of line 11: the failing subtraces are
  // R2 W1 W2 R3 R3 and R2 W2 W1 R3 R3, each in 2 of 4, in no passing subtrace (those read 17 once)
  const cut = explain(dir, '--method', 'contrast', '--minsup', '0.5', '--break-at', 'R T2 bal Fixture.java:11', '--format', 'json');
  assert.equal(cut.code, 0, cut.err);
  assert.deepEqual(cut.json().groups.map((g: { longest: { events: Ev[] } }) => seq(g.longest.events)).sort(), [
    'R2:11 W1:13 W2:13 R3:17 R3:17',
    'R2:11 W2:13 W1:13 R3:17 R3:17',
  ]);
});

test('--output writes the report to a file and nothing to stdout', () => {
  const out = path.join(tempDir(), 'explain.json');
  const r = explain(dir, '--format', 'json', '--output', out);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, '');
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).stats.failing, 4);
});

const hasSpin = spawnSync('spin', ['-V']).status === 0 && spawnSync('gcc', ['--version']).status === 0;
test('--spin MODEL with --simulations and --seed', { skip: hasSpin || process.env.CI ? false : 'spin or gcc not installed (Debian packages spin, gcc)' }, () => {
  const model = path.join(root, 'test/fixtures/promela/railway.pml');
  const run = () => explain('--spin', model, '--simulations', '20', '--seed', '3', '--format', 'json');
  const r = run();
  assert.equal(r.code, 0, r.err);
  const j = r.json();
  assert.equal(j.stats.good, 20, 'one good trace per simulation that did not violate the assertion');
  assert.ok(j.stats.bad >= 1, 'the verifier finds counterexample trails');
  assert.ok(j.groups.length >= 1);
  // the same seed gives the same simulations, hence the same explanation
  assert.deepEqual(run().json().groups, j.groups);
  assert.equal(explain('--spin', model, '--simulations', '-1').code, 2);
  assert.equal(explain('--spin', model, '--method', 'abstraction').code, 2);
});
