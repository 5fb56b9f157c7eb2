/**
 * Confirm in the editor (issue 28) against the vscode mock: the verdict badge in Ranked Patterns and
 * Bugs, the command argument (a key, a pattern node, a bug node, nothing), the messages in words.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { useVscodeMock } from '../helpers/vscodeMock';
import type { ConfirmResultDto, PatternAccessDto, PatternDto } from '../../server/src/lsp/protocol';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const confirm = require('../../client/src/confirm') as typeof import('../../client/src/confirm');

const V = 'bank.Bank$Account.balance';
const acc = (thread: 1 | 2, type: 'R' | 'W', line: number): PatternAccessDto => ({ thread, type, variable: V, file: 'bank/Bank.java', line, method: 'bank.Bank$Account.deposit', stack: [] });
const confirmed: PatternDto = {
  rank: 1, score: 1, id: 'P7', kind: 'RWW', category: 'single-variable atomicity', failed: 57, passed: 0, key: 'k7',
  accesses: [acc(1, 'R', 11), acc(2, 'W', 13), acc(1, 'W', 13)],
  confirmation: { verdict: 'confirmed', reason: 'forcing it makes the failure happen: forced 20/20 failed (100 %), the opposite order 0/20, unforced 1/20', pValue: 1e-10, forced: { runs: 20, failed: 20, forcedOk: 20 }, opposite: { runs: 20, failed: 0, forcedOk: 20 }, control: { runs: 20, failed: 1 }, failingTrace: '/w/.braid/confirm/x/forced/a.trace.jsonl' },
};
const refuted: PatternDto = { ...confirmed, rank: 1, id: 'P1', kind: 'RW', key: 'k1', accesses: [acc(1, 'R', 11), acc(2, 'W', 13)], confirmation: { ...confirmed.confirmation!, verdict: 'refuted', reason: 'forcing it does not make the failure more likely' } };
const plain: PatternDto = { ...confirmed, key: 'k3', id: 'P3', kind: 'WW', confirmation: undefined };

type Item = { label: string; description?: string; iconPath?: { id: string }; tooltip?: { value?: string } };
const item = (n: unknown) => trees.treeItem(n as never) as unknown as Item;
const model = (patterns: PatternDto[], bugs: unknown[] = []) =>
  ({ patterns, patternTotal: patterns.length, runs: [], unreadable: [], bugs, onDidChange: () => ({ dispose() {} }), patternByKey: (k: string) => patterns.find((p) => p.key === k) }) as never;

test('Ranked Patterns: the verdict comes first in the row, with a verified icon, and in the tooltip', () => {
  const roots = new trees.PatternsTree(model([confirmed, refuted, plain])).getChildren();
  const rows = roots.map(item);
  assert.ok(rows[0].description!.startsWith('✔ confirmed · 57 ✗ 0 ✓'), rows[0].description);
  assert.equal(rows[0].iconPath?.id, 'verified-filled');
  assert.match(String(rows[0].tooltip?.value), /confirmed\*\* by forcing its interleaving: forcing it makes the failure happen/);
  const r = rows.find((x) => x.description?.startsWith('✗ refuted'));
  assert.ok(r, rows.map((x) => x.description).join('\n'));
  assert.ok(rows.some((x) => !/confirmed|refuted|not forced/.test(x.description ?? '')), 'an unforced pattern has no badge');
});

test('Bugs: the verdict of the bug’s lead pattern comes first', () => {
  const bug = { id: 1, cluster: 1, clusters: [1], failingRuns: ['r1'], kind: 'atomicity-violation', score: 1, patterns: [0], patternKeys: ['k7'], suspiciousMethods: [], evidence: { failingRuns: 57, totalFailing: 57, pValue: 1e-20, weak: false } };
  const t = new trees.BugsTree(model([confirmed], [bug]));
  const row = item(t.getChildren()[0]);
  // the counts are in the label (issue 30, point 4: never cut), the verdict first in the description
  assert.equal(row.label, 'Bug 1 · 57 of 57 failing runs');
  assert.ok(row.description!.startsWith('✔ confirmed'), row.description);
  assert.match(String(row.tooltip?.value), /by forcing its lead pattern/);
});

test('the command argument: a key, a pattern node, a bug node (its lead), or the first pattern', () => {
  const d = { first: () => confirmed };
  assert.equal(confirm.patternKeyOf('kx', d), 'kx');
  assert.equal(confirm.patternKeyOf({ kind: 'pattern', pattern: refuted }, d), 'k1');
  assert.equal(confirm.patternKeyOf({ kind: 'bug', bug: { patternKeys: ['k9'] } }, d), 'k9');
  assert.equal(confirm.patternKeyOf(undefined, d), 'k7');
});

test('messages say what happened in words', () => {
  const r = { key: 'k7', mode: 'confirm', confirmation: confirmed.confirmation!, command: ['java'], runs: 60, seconds: 30 } as ConfirmResultDto;
  assert.equal(confirm.confirmMessage(confirmed, r), 'Braid: confirmed — forcing P7 R1 → W2 → W1 made the failure happen in 20 of 20 runs; the opposite order 0 of 20, unforced 1 of 20. This is the root cause.');
  const nf = { ...r, confirmation: { ...r.confirmation!, verdict: 'not forced' as const, reason: 'the interleaving could be forced in 0 of 5 runs: thread t2 is blocked on bank.Account (monitor) held by t1' } };
  assert.match(confirm.confirmMessage(confirmed, nf), /^Braid: not forced — .*blocked on bank\.Account.*likely benign\.$/);
  const fix = { ...r, mode: 'checkFix', fix: { verdict: 'not fixed', reason: 'still fails 18 of 20 runs when the interleaving is forced', before: { runs: 100, failed: 57 }, after: { runs: 20, failed: 9 }, pValue: 0.02 } } as ConfirmResultDto;
  assert.equal(confirm.fixMessage(fix), 'Braid: not fixed — still fails 18 of 20 runs when the interleaving is forced.');
});

test('"No verdict without runs" (issue 39): could not check says why and what to do, for Confirm and Check the Fix, never a verdict', () => {
  const couldNotCheck = { why: 'the command failed: command not found (no forced run finished)', hint: 'check the program name and the PATH; for Check the Fix, build the fixed program first' };
  const r = { key: 'k7', mode: 'confirm', couldNotCheck, command: ['jav'], runs: 0, seconds: 0.2 } as ConfirmResultDto;
  const text = confirm.confirmMessage(confirmed, r);
  assert.equal(text, 'Braid could not confirm the pattern: the command failed: command not found (no forced run finished). What to do: check the program name and the PATH; for Check the Fix, build the fixed program first.');
  const fix = { ...r, mode: 'checkFix', fix: { verdict: 'could not check', reason: `could not check: ${couldNotCheck.why}`, before: { runs: 100, failed: 57 }, after: { runs: 0, failed: 0 }, pValue: 1 } } as ConfirmResultDto;
  assert.match(confirm.fixMessage(fix), /^Braid could not check the fix: the command failed: command not found .*What to do: check the program name/);
  assert.doesNotMatch(confirm.fixMessage(fix), /Braid: (not )?fixed/);
});

test('Debug with the failing interleaving: a java launch configuration with the agent and the forcing plan in vmArgs', async () => {
  const { debugConfiguration } = require('../../client/src/debugConfiguration') as typeof import('../../client/src/debugConfiguration');
  const base = { agentJar: '/ext/dist/braid-agent.jar', plan: '/ws/.braid/confirm/x/plans/pattern.json', trace: '/ws/.braid/confirm/debug.trace.jsonl', include: ['bank'], patternName: 'P7 R1 → W2 → W1' };
  const plain = debugConfiguration({ ...base, command: ['java', '-XX:+UseSerialGC', '-cp', 'out:lib/a.jar', 'bank.Bank', '--fast'] });
  assert.deepEqual(plain, {
    type: 'java',
    name: 'Debug with the failing interleaving (Braid: P7 R1 → W2 → W1)',
    request: 'launch',
    mainClass: 'bank.Bank',
    classPaths: ['out', 'lib/a.jar'],
    args: ['--fast'],
    vmArgs: '-javaagent:/ext/dist/braid-agent.jar=out=/ws/.braid/confirm/debug.trace.jsonl,include=bank,plan=/ws/.braid/confirm/x/plans/pattern.json -XX:+UseSerialGC',
  });
  // the test lens' JUnit console launcher
  const junit = debugConfiguration({ ...base, command: ['java', '-jar', '/usr/share/java/junit-platform-console-standalone.jar', '-cp', '.braid/build/classes', '--select-method', 'bank.AccountTest#t'] });
  assert.equal(typeof junit === 'object' && junit.mainClass, 'org.junit.platform.console.ConsoleLauncher');
  assert.deepEqual(typeof junit === 'object' && junit.args, ['-cp', '.braid/build/classes', '--select-method', 'bank.AccountTest#t']);
  assert.match(String(debugConfiguration({ ...base, command: ['mvn', 'test'] })), /not java/);
  assert.match(String(debugConfiguration({ ...base, command: ['java', '-cp', 'out'] })), /no main class/);
});
