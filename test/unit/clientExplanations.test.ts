/**
 * The Explanations tree (issue 30, point 5) against the vscode mock: one row per distinct explanation
 * (groups showing the same events and dependencies are one row, "+n alike"), the rank and relative
 * support first, ties said, and each explanation's events as steps wrapped over rows, never cut.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { useVscodeMock } from '../helpers/vscodeMock';
import type { ExplainedEventDto, ExplanationGroupDto } from '../../server/src/lsp/protocol';
import { distinctExplanations, explanationSteps } from '../../server/src/engine/mining/distinctExplanations';
import { explanationSummary } from '../../server/src/lsp/explanationState';

useVscodeMock([]);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const trees = require('../../client/src/trees') as typeof import('../../client/src/trees');

const V = 'vectorcopy.VectorCopy$MyVector';
const ev = (thread: string, kind: 'R' | 'W', field: string, line: number): ExplainedEventDto => ({ thread, kind, target: `${V}.${field}`, file: 'VectorCopy.java', line, label: `${kind} ${field}` });
const r33 = ev('copier', 'R', 'size', 33);
const w46 = ev('adder', 'W', 'size', 46);
const w47 = ev('adder', 'W', 'data', 47);
const r37 = ev('copier', 'R', 'data', 37);
function group(order: number, rank: number, events: ExplainedEventDto[][], deps: [ExplainedEventDto, ExplainedEventDto][]): ExplanationGroupDto {
  return {
    rank,
    order,
    relSupport: 1,
    failingSupport: 1,
    passingSupport: 0,
    causal: deps.length > 0,
    dependencies: deps.map(([from, to]) => ({ kind: from.kind === 'W' ? 'flow' : 'anti', from, to, variable: from.target })),
    patterns: [{ macros: events.map((es) => ({ thread: es[0].thread, events: es })), failing: 12, passing: 0, relSupport: 1, dependencies: [] }],
    lines: [],
    dependencyLines: [],
  };
}
const a = group(0, 1, [[r33], [w46, w47], [r37]], [[w47, r37], [r33, w46]]);
const sameAsA = { ...group(1, 1, [[r33], [w46, w47], [r37]], [[r33, w46], [w47, r37]]), relSupport: 0.9 };
const b = group(2, 1, [[r33], [w46]], [[r33, w46]]);
const c = group(3, 4, [[r37], [w47]], []);

test('distinct explanations: same events and dependencies are one (dependency order aside), ties said', () => {
  const d = distinctExplanations([a, sameAsA, b, c]);
  assert.deepEqual(d.map((x) => [x.group.order, x.alike.map((y) => y.order), x.tied]), [[0, [1], true], [2, [], true], [3, [], false]]);
  assert.deepEqual(explanationSteps(a), ['copier R MyVector.size :33', 'adder W MyVector.size :46', 'adder W MyVector.data :47', 'copier R MyVector.data :37']);
});

test('Explanations tree: rank and support first, steps wrapped (not cut), one row per distinct explanation', async () => {
  const model = { request: async () => ({ state: 'done', groups: [a, sameAsA, b, c], total: 4, stats: { failing: 12, passing: 18, minSupport: 0.5, truncated: false, ms: 3 } }), onDidChange: () => ({ dispose() {} }) };
  const t = new trees.ExplanationsTree(model as never);
  const roots = await t.getChildren();
  const item = (n: unknown) => t.getTreeItem(n as never) as unknown as { label: string; description?: string; tooltip?: unknown; collapsibleState: number; iconPath?: { id: string } };
  assert.deepEqual(roots.map((n) => item(n).label), ['#1 · 1.00 · tied', '#1 · 1.00 · tied', '#4 · 1.00']);
  assert.equal(item(roots[0]).description, '100% failing · 0% passing · flow/anti · +1 alike');
  assert.equal(item(roots[2]).description, 'symptom · 100% failing · 0% passing');
  assert.match(String((item(roots[0]).tooltip as { value: string }).value), /1 more group \(rank 1\) shows the same events and dependencies/);
  const kids = await t.getChildren(roots[0]);
  const steps = kids.filter((n) => (n as { id?: string }).id?.includes(':steps:'));
  const whole = 'copier R MyVector.size :33 → adder W MyVector.size :46 → adder W MyVector.data :47 → copier R MyVector.data :37';
  assert.equal(steps.map((n) => item(n).label).join(' '), whole, 'every step, in order');
  for (const n of steps) assert.ok(item(n).label.length <= 29, `a row fits the sidebar: ${item(n).label}`);
  assert.equal(item(steps[0]).tooltip, whole);
  assert.equal(item(roots[0]).collapsibleState, 2, 'the best rows are open (Expanded)');
});

test('Explanations tree: dependency and event rows use the short names of the steps (the full ones in the tooltip); the hover summary too', async () => {
  const model = { request: async () => ({ state: 'done', groups: [a], total: 1, stats: { failing: 12, passing: 18, minSupport: 0.5, truncated: false, ms: 3 } }), onDidChange: () => ({ dispose() {} }) };
  const t = new trees.ExplanationsTree(model as never);
  const [root] = await t.getChildren();
  const item = (n: unknown) => t.getTreeItem(n as never) as unknown as { label: string; tooltip?: unknown };
  const deps = (await t.getChildren(root)).filter((n) => (n as { kind: string }).kind === 'xdependency');
  assert.deepEqual(
    deps.map((n) => item(n).label),
    ['flow W adder MyVector.data :47 → R copier MyVector.data :37', 'anti R copier MyVector.size :33 → W adder MyVector.size :46'],
  );
  assert.match(String(item(deps[0]).tooltip), new RegExp(`flow dependency on ${V.replace(/\$/g, '\\$')}\\.data`), 'the full name in the tooltip');
  const xpattern = (await t.getChildren(root)).find((n) => (n as { kind: string }).kind === 'xpattern')!;
  const macro = (await t.getChildren(xpattern))[0];
  const event = (await t.getChildren(macro))[0];
  assert.equal(item(event).label, 'R MyVector.size');
  assert.equal(explanationSummary(a), 'copier R MyVector.size :33 → adder W MyVector.size :46 → adder W MyVector.data :47 → copier R MyVector.data :37');
});
