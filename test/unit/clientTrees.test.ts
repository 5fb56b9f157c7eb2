/**
 * The tree views (client/src/trees.ts) against the vscode mock (issue 16): short distinguishing
 * names with thread names and a role legend, weak patterns folded under "n weaker patterns"
 * without an icon, GRIFFIN's suspicious method with the accessing methods as its contents, and
 * the Runs view's "failing runs only" filter and failing-first sort. Expected labels are written
 * by hand from the vectorcopy sample (test/fixtures/java/vectorcopy).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { useVscodeMock } from '../helpers/vscodeMock';
import type { PatternAccessDto, PatternDto, RunDto } from '../../server/src/lsp/protocol';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');

const V = 'vectorcopy.VectorCopy$MyVector';
const F = 'vectorcopy/VectorCopy.java';
function acc(thread: 1 | 2, type: 'R' | 'W', field: string, line: number, method: string, threadName?: string): PatternAccessDto {
  return { thread, type, variable: `${V}.${field}`, file: F, line, method: `${V}.${method}`, stack: [], ...(threadName ? { threadName } : {}) };
}
function pattern(rank: number, score: number, failed: number, passed: number, key: string, accesses: PatternAccessDto[], weak = false): PatternDto {
  return { rank, score, id: 'P14', kind: accesses.map((a) => a.type).join(''), category: 'multi-variable atomicity', failed, passed, key, accesses, ...(weak ? { weak: true } : {}) };
}
const top = pattern(1, 1, 10, 0, 'k1', [acc(1, 'R', 'size', 33, 'size', 'copier'), acc(2, 'W', 'size', 46, 'addAll', 'adder'), acc(2, 'W', 'data', 47, 'addAll', 'adder'), acc(1, 'R', 'data', 37, 'toArray', 'copier')]);
const second = pattern(2, 0.714, 10, 4, 'k2', [acc(1, 'W', 'data', 47, 'addAll', 'adder'), acc(2, 'R', 'data', 37, 'toArray', 'copier')]);
const weak1 = pattern(4, 0, 0, 4, 'k4', [acc(1, 'W', 'size', 46, 'addAll'), acc(2, 'R', 'size', 33, 'size')], true);
const weak2 = pattern(4, 0, 0, 10, 'k5', [acc(1, 'R', 'data', 37, 'toArray'), acc(2, 'W', 'data', 47, 'addAll')], true);

function model(extra: Record<string, unknown> = {}): never {
  return { patterns: [top, second, weak1, weak2], patternTotal: 4, runs: [], unreadable: [], bugs: [], onDidChange: () => ({ dispose() {} }), patternByKey: () => undefined, ...extra } as never;
}

type Item = { label: string; description?: string; iconPath?: { id: string }; tooltip?: unknown; collapsibleState: number };
const item = (n: unknown) => trees.treeItem(n as never) as unknown as Item;

test('ranked patterns: short distinguishing names, counts first in the description, weak patterns folded without an icon', () => {
  const t = new trees.PatternsTree(model());
  const roots = t.getChildren();
  const labels = roots.map((n) => item(n).label);
  assert.deepEqual(labels, ['#1 MyVector.size, data', '#2 MyVector.data', '2 weaker patterns']);
  const d = item(roots[0]).description!;
  assert.ok(d.startsWith('10 ✗ 0 ✓ · 1.000 · P14'), d);
  assert.doesNotMatch(labels.join(' ') + d, /vectorcopy\.|\$|P14\|/, 'no package, no $, no internal key');
  assert.equal(item(roots[0]).iconPath?.id, 'flame');
  const weak = roots[2];
  assert.deepEqual(t.getChildren(weak).map((n) => item(n).label), ['#4 MyVector.size', '#4 MyVector.data']);
  for (const n of t.getChildren(weak)) assert.equal(item(n).iconPath, undefined, 'a weak pattern has no icon');
  assert.equal(t.getParent(t.getChildren(weak)[0]), weak, 'reveal finds a weak pattern under its fold');
});

test('a pattern without evidence says so first in its row and in its tooltip', () => {
  const t = new trees.PatternsTree(model({ patterns: [top, { ...second, evidence: false }, weak1, weak2] }));
  const row = item(t.getChildren()[1]);
  assert.ok(row.description!.startsWith('no evidence · '), row.description);
  assert.match(String((row.tooltip as { value?: string }).value), /No evidence that it goes with failing/);
  assert.ok(!item(t.getChildren()[0]).description!.includes('no evidence'));
});

test('a pattern shows its thread roles as a legend and each access with its thread name', () => {
  const t = new trees.PatternsTree(model());
  const kids = t.getChildren(t.getChildren()[0]);
  assert.deepEqual(
    kids.map((n) => item(n).label),
    ['T1 = copier · T2 = adder', '1. copier R MyVector.size', '2. adder W MyVector.size', '3. adder W MyVector.data', '4. copier R MyVector.data'],
  );
  assert.equal(item(kids[1]).description, 'VectorCopy.java:33 · MyVector.size');
  assert.match(String(item(kids[1]).tooltip), /copier \(T1\) reads vectorcopy\.VectorCopy\$MyVector\.size/, 'full name in the tooltip');
  // without thread names (older traces): the roles
  assert.deepEqual(t.getChildren(t.node('k4')!).map((n) => item(n).label), ['1. T1 W MyVector.size', '2. T2 R MyVector.size']);
});

test('a bug lists GRIFFIN\'s suspicious method per thread with the accessing methods inside it', () => {
  const bug = {
    id: 1,
    failingRuns: ['vectorcopy.VectorCopy-0000'],
    patterns: [0],
    patternKeys: ['k1'],
    suspiciousMethods: [{ thread: 1, threadName: 'copier', method: `${V}.<init>`, file: F, line: 23, accessing: [`${V}.size`, `${V}.toArray`] }],
  };
  const runs: RunDto[] = [{ execution: 'vectorcopy.VectorCopy-0000', file: 'x', outcome: 'fail', reason: 'exception', events: 70, patterns: 3 }];
  const t = new trees.BugsTree(model({ bugs: [bug], runs }));
  const groups = t.getChildren(t.getChildren()[0]);
  const methods = t.getChildren(groups[0]);
  assert.equal(item(methods[0]).label, 'copier: MyVector.<init>');
  assert.deepEqual(t.getChildren(methods[0]).map((n) => item(n).label), ['MyVector.size', 'MyVector.toArray']);
  const failing = t.getChildren(groups.find((g) => item(g).label === 'Failing runs')!);
  assert.deepEqual(failing.map((n) => item(n).label), ['VectorCopy #0 ✗ exception']);
});

test('a bug row leads with its headline (plain text); the shape, summary, p-value and score go to the Markdown tooltip, escaped', () => {
  const bug = {
    id: 2,
    kind: 'atomicity-violation',
    score: 0.91,
    failingRuns: ['r1', 'r2'],
    patterns: [0],
    patternKeys: ['k1'],
    suspiciousMethods: [],
    evidence: { failingRuns: 2, totalFailing: 4, fraction: 0.5, pValue: 0.0123, weak: false },
    advice: {
      kind: 'atomicity-violation',
      shape: 'lazy-initialisation',
      headline: 'Both threads read `<img src=x>` = null at [A](http://x).java:11, then each wrote a new `HashMap` at line 12: one `HashMap`, and whatever was stored in it, is lost.',
      summary: 'Atomicity violation on *A.counts*: …',
    },
  };
  const t = new trees.BugsTree(model({ bugs: [bug] }));
  const row = item(t.getChildren()[0]);
  assert.equal(row.label, 'Bug 2: Both threads read <img src=x> = null at [A](http://x).java:11, then each wrote a new HashMap at line 12: one HashMap, and whatever was stored in it, is lost.');
  assert.equal(row.description, '2 of 4 failing runs', 'no p-value or score in the row');
  const md = (row.tooltip as { value: string }).value;
  // the headline's code spans stay code spans; everything else of it, and the summary, is escaped (no link, no markup)
  assert.ok(md.startsWith(String.raw`**Bug 2** · lazy initialisation · atomicity violation` + '\n\n' + String.raw`Both threads read ` + '`<img src=x>`' + String.raw` \= null at \[A\]\(http\:\/\/x\)\.java\:11`), md);
  assert.ok(md.includes(String.raw`\*A\.counts\*`), 'the summary escaped');
  assert.ok(md.includes(String.raw`p = 0\.012 (one-sided Fisher exact test of its best pattern) · score 0\.910`), md);
  assert.equal(trees.markdownHeadline('odd ` backtick'), 'odd \\` backtick', 'an unpaired backtick: all plain');
});

test('Runs view: failing runs only, and failing runs first', () => {
  const run = (execution: string, outcome: 'pass' | 'fail'): RunDto => ({ execution, file: execution, outcome, reason: outcome === 'fail' ? 'exception' : 'ok', events: 10, patterns: 1 });
  const runs = [run('Bank-0002', 'pass'), run('Bank-0010', 'fail'), run('Bank-0001', 'fail'), run('Bank-0003', 'pass')];
  const t = new trees.RunsTree(model({ runs }));
  const labels = () => t.getChildren().map((n) => item(n).label);
  assert.deepEqual(labels(), ['Bank #1 ✗ exception', 'Bank #2 ✓', 'Bank #3 ✓', 'Bank #10 ✗ exception'], 'by run number (10 after 3)');
  t.setFilter(false, 'failing');
  assert.deepEqual(labels(), ['Bank #1 ✗ exception', 'Bank #10 ✗ exception', 'Bank #2 ✓', 'Bank #3 ✓']);
  t.setFilter(true, 'run');
  assert.deepEqual(labels(), ['Bank #1 ✗ exception', 'Bank #10 ✗ exception']);
  const none = new trees.RunsTree(model({ runs: [run('Bank-0002', 'pass')] }));
  none.setFilter(true);
  assert.deepEqual(none.getChildren().map((n) => item(n).label), ['No failing run among 1.']);
});
