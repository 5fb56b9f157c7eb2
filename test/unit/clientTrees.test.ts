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
import { fitNames, wrapWords } from '../../client/src/treeText';
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
  // issue 30, point 4: the names get what the row leaves once the counts and the score show (31 characters at the
  // default sidebar width): without their class, then cut from the left; whole names in the tooltip
  assert.deepEqual(labels, ['#1 size, data', '#2 data', '2 weaker patterns']);
  const d = item(roots[0]).description!;
  assert.ok(d.startsWith('10 ✗ 0 ✓ · 1.000 · P14'), d);
  for (const n of roots.slice(0, 2)) assert.ok(`${item(n).label} ${item(n).description}`.indexOf('✓ · ') + 9 <= 31, 'counts and score within the visible width');
  assert.match(String((item(roots[0]).tooltip as { value: string }).value), /`vectorcopy\.VectorCopy\$MyVector\.size`/);
  assert.doesNotMatch(labels.join(' ') + d, /vectorcopy\.|\$|P14\|/, 'no package, no $, no internal key');
  // a heat dot, not ⚠/🔥 (they read as warnings, issue 43); a click opens the pattern's code
  assert.equal(item(roots[0]).iconPath?.id, 'circle-filled');
  assert.equal((item(roots[0]).iconPath as unknown as { color?: { id: string } }).color?.id, 'braid.heatHighRuler');
  const withUri = { ...top, key: 'k1u', accesses: top.accesses.map((x) => ({ ...x, uri: 'file:///ws/vectorcopy/VectorCopy.java' })) };
  const cmd = (trees.treeItem({ kind: 'pattern', pattern: withUri } as never) as unknown as { command?: { command: string; arguments?: unknown[] } }).command;
  assert.deepEqual([cmd?.command, cmd?.arguments], ['braid.openAccess', ['file:///ws/vectorcopy/VectorCopy.java', 33]]);
  assert.equal((item(roots[0]) as unknown as { command?: unknown }).command, undefined, 'no file in the workspace: nothing to open');
  const weak = roots[2];
  assert.deepEqual(t.getChildren(weak).map((n) => item(n).label), ['#4 size', '#4 data'], 'one level deeper: two characters less');
  for (const n of t.getChildren(weak)) assert.equal(item(n).iconPath, undefined, 'a weak pattern has no icon');
  assert.equal(t.getParent(t.getChildren(weak)[0]), weak, 'reveal finds a weak pattern under its fold');
  // the fold and a weak pattern's tooltip say the server's rule (weakPatterns.ts): not the score alone — a
  // pattern with evidence is never folded, whatever its score (d0b399fd)
  for (const tip of [String(item(weak).tooltip), String((item(t.getChildren(weak)[0]).tooltip as { value: string }).value)]) {
    assert.match(tip, /without evidence|no evidence/, tip);
    assert.match(tip, /braid\.views\.minScore/, tip);
    assert.match(tip, /every passing run/, tip);
    assert.match(tip, /with evidence (\(Fisher p < 0\.05 and missing from some passing runs\) )?is never/, tip);
  }
});

test('a pattern without evidence says so after its counts and score (they stay visible at the default width) and in its tooltip', () => {
  const t = new trees.PatternsTree(model({ patterns: [top, { ...second, evidence: false }, weak1, weak2] }));
  const row = item(t.getChildren()[1]);
  assert.match(row.description!, /^\d+ ✗ \d+ ✓ · \d\.\d{3} · no evidence · /, row.description);
  assert.match(String((row.tooltip as { value?: string }).value), /No evidence that it goes with failing/);
  assert.ok(!item(t.getChildren()[0]).description!.includes('no evidence'));
});

test('a pattern shows its thread roles as a legend and each access with its thread name', () => {
  const t = new trees.PatternsTree(model());
  const kids = t.getChildren(t.getChildren()[0]);
  // first, what the threads did in words, wrapped at the sidebar width (issue 30, points 4 and 6)
  const sentence = 'Thread copier read size, then thread adder wrote it and wrote data, then copier read it.';
  const words = kids.filter((n) => item(n).tooltip === sentence);
  assert.deepEqual(words.map((n) => item(n).label).join(' '), sentence);
  for (const n of words) assert.ok(item(n).label.length <= 29, item(n).label);
  assert.deepEqual(words.map((n) => item(n).iconPath?.id), ['comment', ...words.slice(1).map(() => 'blank')]);
  assert.deepEqual(
    kids.slice(words.length).map((n) => item(n).label),
    ['T1 = copier · T2 = adder', '1. copier R MyVector.size', '2. adder W MyVector.size', '3. adder W MyVector.data', '4. copier R MyVector.data'],
  );
  assert.equal(item(kids[words.length + 1]).description, 'VectorCopy.java:33 · MyVector.size');
  assert.match(String(item(kids[words.length + 1]).tooltip), /copier \(T1\) reads vectorcopy\.VectorCopy\$MyVector\.size/, 'full name in the tooltip');
  // the tooltip of the pattern opens with the sentence; the thesis' names come last
  const md = String((item(t.getChildren()[0]).tooltip as { value: string }).value);
  assert.ok(md.replace(/\\/g, '').startsWith('Thread `copier` read `size`, then thread `adder` wrote it and wrote `data`, then `copier` read it.\n\nin **10** failing'), md);
  assert.match(md.split('\n\n').pop()!, /^_details:_ P14 `RWWR` \(multi-variable atomicity pattern\) · score = suspiciousness$/);
  // without thread names (older traces): the roles
  assert.deepEqual(
    t.getChildren(t.node('k4')!).map((n) => item(n).label),
    ['Thread T1 wrote size, then', 'thread T2 read it.', '1. T1 W MyVector.size', '2. T2 R MyVector.size'],
  );
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
  // issue 30, point 4: the row is the bug and its failing runs (never cut at the sidebar width), the shape beside it;
  // the headline wrapped over its first rows
  assert.equal(row.label, 'Bug 2 · 2 of 4 failing runs');
  assert.equal(row.description, 'lazy initialisation', 'no p-value or score in the row');
  const headline = 'Both threads read <img src=x> = null at [A](http://x).java:11, then each wrote a new HashMap at line 12: one HashMap, and whatever was stored in it, is lost.';
  const rows = t.getChildren(t.getChildren()[0]).filter((n) => item(n).tooltip === headline);
  assert.equal(rows.map((n) => item(n).label).join(' '), headline);
  for (const n of rows) assert.ok(item(n).label.length <= 29, item(n).label);
  const md = (row.tooltip as { value: string }).value;
  // first the headline, in words: its code spans stay code spans; everything else of it, and the summary, is escaped (no link, no markup)
  assert.ok(md.startsWith(String.raw`Both threads read ` + '`<img src=x>`' + String.raw` \= null at \[A\]\(http\:\/\/x\)\.java\:11`), md);
  assert.ok(md.includes('\n\n' + String.raw`**Bug 2** · lazy initialisation · atomicity violation`), md);
  assert.ok(md.includes(String.raw`\*A\.counts\*`), 'the summary escaped');
  assert.ok(md.includes(String.raw`p = 0\.012 (one-sided Fisher exact test of its best pattern) · score 0\.910`), md);
  assert.equal(trees.markdownHeadline('odd ` backtick'), 'odd \\` backtick', 'an unpaired backtick: all plain');
});

test('How to fix it: each step wrapped over rows at the default width, never cut, the whole step in the tooltip', () => {
  const steps = ['Make MyVector constructor (VectorCopy.java:23) and MyVector.addAll atomic with respect to each other: hold one lock around both.', 'Or read once: copy size and data under one lock.'];
  const bug = { id: 3, failingRuns: ['r1'], patterns: [0], patternKeys: ['k1'], suspiciousMethods: [], advice: { kind: 'atomicity-violation', steps } };
  const t = new trees.BugsTree(model({ bugs: [bug] }));
  const advice = t.getChildren(t.getChildren()[0]).find((g) => item(g).label === 'How to fix it')!;
  const rows = t.getChildren(advice).map((n) => item(n));
  for (const [k, s] of steps.entries()) {
    const mine = rows.filter((r) => r.tooltip === `${k + 1}. ${s}`);
    assert.equal(mine.map((r) => r.label).join(' '), `${k + 1}. ${s}`, 'every word, in order');
    assert.equal(mine[0].iconPath?.id, 'lightbulb');
    for (const r of mine) assert.ok(r.label.length <= 27, `a row fits at depth 2: ${r.label}`);
  }
  assert.ok(rows.length > steps.length, 'the long step takes several rows');
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

test('fitNames shortens from the left only as far as needed; wrapWords never cuts a word', () => {
  assert.equal(fitNames('MyVector.size, data', 19), 'MyVector.size, data', 'fits: whole');
  assert.equal(fitNames('MyVector.size, data', 18), 'size, data', 'the class names go first');
  assert.equal(fitNames('Account.balance, Account.history', 12), '…ce, history', 'then cut from the left');
  assert.equal(fitNames('Account.balance', 2), 'balance', 'never shorter than 8');
  assert.deepEqual(wrapWords('T1 → T2 → T1 → T2', 9), ['T1 → T2 →', 'T1 → T2']);
  assert.deepEqual(wrapWords('a verylongword b', 5), ['a', 'verylongword', 'b']);
});

test('Method Ranking tree: the short names of the other views, giving way to the score at the default width; zero scores counted in words', async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { MethodsTree } = require('../../client/src/methodsTree') as typeof import('../../client/src/methodsTree');
  const method = (rank: number, name: string, score: number) => ({ rank, score, method: name, file: F, line: 10, loc: 4, locSource: 'source', runs: { failed: 10, passed: 20 }, edge: { kind: 'inter', target: `${V}.size`, text: 'e', meanFailed: 1, meanPassed: 0, failedRuns: 10, passedRuns: 0 } });
  const result = { state: 'done', total: 3, methods: [method(1, 'vectorcopy.VectorCopy.lambda$main$1', 1), method(2, `${V}.toArray`, 0.108), method(3, 'vectorcopy.VectorCopy.main', 0)], griffin: [], executions: { total: 30, failed: 10, passed: 20 }, representation: 'inter', stats: { calls: 1, edges: 1, ms: 1 } };
  const t = new MethodsTree({ request: async () => result, onDidChange: () => ({ dispose() {} }) } as never);
  const rows = (await t.getChildren()).map((n) => t.getTreeItem(n) as unknown as { label: string; description?: string });
  assert.deepEqual(
    rows.map((r) => r.label),
    ['#1 lambda in main', '#2 MyVector.toArray', '1 method with score 0 not shown'],
  );
  assert.equal(rows[1].description, '0.108 · inter → MyVector.size · 10 failed / 20 passed runs');
  for (const r of rows.slice(0, 2)) assert.ok(r.label.length + 1 + 5 <= 31, `label and score fit the default width: ${r.label}`);
  t.dispose();
});
