/**
 * GRIFFIN view: one card per bug (a cluster of failing runs): its failing
 * runs, the suspicious method per thread, the fix advice, its patterns and
 * the calling contexts (common call stacks) per thread.
 */
import '../common/base.css';
import './griffin.css';
import type { PatternDto, PatternsResult, BugsResult } from '../../../server/src/lsp/protocol';
import { h, clear, basename, chip, fmtScore, locationButton, threadColorClass } from '../common/dom';
import { post, loadState, saveState, onMessage, request } from '../common/vscode';
import { registerToolkit } from '../common/toolkit';
import { normalizeBugs, BugView, FrameView } from '../common/model';

registerToolkit();

interface GriffinState {
  collapsed: number[];
}
const state = loadState<GriffinState>({ collapsed: [] });
const collapsed = new Set(state.collapsed);

const summary = h('span', { class: 'muted', id: 'summary', 'aria-live': 'polite' });
const cards = h('div', { class: 'cards', id: 'cards' });
document.body.append(h('div', { class: 'toolbar', role: 'toolbar' }, h('strong', null, 'Bugs (GRIFFIN)'), h('span', { class: 'spacer' }), summary), cards);

let bugs: BugView[] = [];
let message = '';

function frameButton(f: FrameView, label?: string): HTMLElement {
  if (!f.file || !f.line) return h('span', { class: 'mono' }, label ?? f.method);
  const b = locationButton(f.file, f.line, label ?? f.method);
  b.title = `${f.method} — ${f.file}:${f.line}`;
  b.addEventListener('click', () => post({ type: 'openLocation', file: f.file!, line: f.line!, ...(f.uri ? { uri: f.uri } : {}) }));
  return b;
}

function section(title: string, ...content: (Node | string)[]): HTMLElement {
  return h('section', null, h('h3', null, title), ...content);
}

function patternRow(p: PatternDto, bug: BugView): HTMLElement {
  const first = p.accesses[0];
  const row = h(
    'li',
    { class: 'pattern' },
    h('span', { class: 'rank', title: `rank ${p.rank}, score ${fmtScore(p.score)}` }, `#${p.rank}`),
    h('span', { class: 'chips' }, ...p.accesses.map((a) => chip(a.type, String(a.thread)))),
    h('span', { class: 'muted pid' }, p.id),
    h('span', { class: 'mono vars', title: [...new Set(p.accesses.map((a) => a.variable))].join(', ') }, [...new Set(p.accesses.map((a) => a.variable))].join(', ')),
  );
  if (first) {
    const loc = locationButton(first.file, first.line);
    loc.addEventListener('click', () => post({ type: 'openLocation', file: first.file, line: first.line, ...(first.uri ? { uri: first.uri } : {}) }));
    row.append(loc);
  }
  const tr = h('button', { class: 'loc small', type: 'button', title: 'Show this pattern in the Tracer (first failing run of the bug)' }, 'Tracer');
  tr.addEventListener('click', () => post({ type: 'openTracer', patternKey: p.key, ...(bug.failingRuns[0] ? { run: bug.failingRuns[0] } : {}) }));
  row.append(tr);
  return row;
}

function card(b: BugView): HTMLElement {
  const isCollapsed = collapsed.has(b.id);
  const toggle = h('button', { class: 'plain twisty', type: 'button', 'aria-expanded': isCollapsed ? 'false' : 'true', 'aria-label': `Bug ${b.id} details` }, isCollapsed ? '▸' : '▾');
  toggle.addEventListener('click', () => {
    if (collapsed.has(b.id)) collapsed.delete(b.id);
    else collapsed.add(b.id);
    state.collapsed = [...collapsed];
    saveState(state);
    render();
    cards.querySelector<HTMLElement>(`.card[data-bug="${b.id}"] .twisty`)?.focus();
  });
  const graph = h('vscode-button', { appearance: 'primary', class: 'open-graph' }, 'Bug graph');
  graph.addEventListener('click', () => post({ type: 'openBugGraph', bug: b.id }));
  const top = b.methods.map((m) => m.method.replace(/\(.*\)$/, '()').split('.').slice(-2).join('.')).join(' ⇄ ');
  const head = h(
    'header',
    null,
    toggle,
    h('h2', null, `Bug ${b.id}`),
    b.category ? h('span', { class: 'tag' }, b.category.replace(/-/g, ' ')) : null,
    h('span', { class: 'mono headline' }, b.title ?? top),
    h('span', { class: 'spacer' }),
    h('span', { class: 'muted' }, `${b.failingRuns.length} failing run${b.failingRuns.length === 1 ? '' : 's'}`),
    b.score !== undefined ? h('span', { class: 'muted mono' }, `score ${fmtScore(b.score)}`) : null,
    graph,
  );
  const el = h('article', { class: 'card', 'data-bug': b.id, 'aria-label': `Bug ${b.id}` }, head);
  if (isCollapsed) return el;

  const methods = h('ul', { class: 'methods' });
  for (const m of b.methods) {
    methods.append(h('li', { class: threadColorClass(m.thread - 1) }, h('span', { class: 'tdot' }), h('span', { class: 'role' }, m.role), frameButton(m)));
  }
  const body = h('div', { class: 'card-body' });
  body.append(section('Suspicious methods', b.methods.length ? methods : h('p', { class: 'muted' }, 'none reported')));
  const adv = b.advice;
  const adviceNodes: Node[] = [];
  if (adv.summary) adviceNodes.push(h('p', { class: 'advice' }, adv.summary));
  if (adv.interleaving) adviceNodes.push(h('p', { class: 'interleaving mono', title: 'the most suspicious interleaving' }, adv.interleaving));
  if (adv.steps.length) adviceNodes.push(h('ol', { class: 'steps' }, ...adv.steps.map((st) => h('li', null, st))));
  body.append(section('Fix advice', ...(adviceNodes.length ? adviceNodes : [h('p', { class: 'muted' }, 'no advice')])));

  const pats = h('ol', { class: 'patterns' }, ...b.patterns.map((p) => patternRow(p, b)), ...b.patternKeys.map((k) => h('li', { class: 'pattern muted mono' }, k)));
  body.append(section(`Patterns (${b.patterns.length + b.patternKeys.length})`, pats));

  const ctx = h('div', { class: 'contexts' });
  for (const c of b.contexts) {
    const stack = h('ol', { class: 'stack' });
    c.frames.forEach((f, k) => stack.append(h('li', { style: null, class: k === c.frames.length - 1 ? 'top' : '' }, frameButton(f, `${f.method}${f.file ? '  ' + basename(f.file) + (f.line ? ':' + f.line : '') : ''}`))));
    ctx.append(h('div', { class: `context ${threadColorClass(c.thread - 1)}` }, h('div', { class: 'ctx-head' }, h('span', { class: 'tdot' }), c.role), stack));
  }
  body.append(section('Calling contexts', b.contexts.length ? ctx : h('p', { class: 'muted' }, 'none')));

  const runs = h('div', { class: 'runs' });
  for (const r of b.failingRuns.slice(0, 50)) {
    const rb = h('button', { class: 'run-chip', type: 'button', title: `Open run ${r} in the Tracer` }, r);
    rb.addEventListener('click', () => post({ type: 'openTracer', run: r }));
    runs.append(rb);
  }
  if (b.failingRuns.length > 50) runs.append(h('span', { class: 'muted' }, `+${b.failingRuns.length - 50} more`));
  body.append(section('Failing runs', runs));
  el.append(body);
  return el;
}

function render(): void {
  clear(cards);
  summary.textContent = bugs.length ? `${bugs.length} bug${bugs.length === 1 ? '' : 's'}` : '';
  if (!bugs.length) {
    cards.append(h('div', { class: 'empty' }, message || 'No bugs yet: GRIFFIN needs failing runs.'));
    return;
  }
  for (const b of bugs) cards.append(card(b));
}

async function load(): Promise<void> {
  try {
    const [br, pr] = await Promise.all([request<BugsResult>('bugs'), request<PatternsResult>('patterns', { offset: 0, limit: 1000 }).catch(() => undefined)]);
    bugs = normalizeBugs(br?.bugs, pr?.patterns ?? []);
    message = '';
  } catch (e) {
    bugs = [];
    message = `Could not load bugs: ${e instanceof Error ? e.message : String(e)}`;
  }
  render();
}

onMessage((m) => {
  if (m.type === 'changed') void load();
});
void load();
post({ type: 'ready' });
