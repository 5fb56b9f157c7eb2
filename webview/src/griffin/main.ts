/**
 * GRIFFIN view: one card per bug (a cluster of failing runs), led by its
 * headline (what each thread did, in plain words; fixAdvice.ts) and its shape,
 * then its evidence (failing runs explained; the p-value and score in the
 * tooltip), the suspicious
 * method per thread (short names), what goes wrong with the fix advice folded
 * under a heading, the interleaving in a collapsible block, its best
 * patterns (the rest folded), the calling contexts and the failing runs.
 * Bugs with weak evidence come last under their own heading, collapsed.
 */
import '../common/base.css';
import './griffin.css';
import type { PatternDto, PatternsResult, BugsResult } from '../../../server/src/lsp/protocol';
import { shortMethod, shortVariable } from '../../../server/src/engine/displayNames';
import { SHAPE_LABELS, type AdviceShape } from '../../../server/src/engine/griffin/fixAdvice';
import { h, clear, basename, chip, fmtScore, locationButton, threadColorClass } from '../common/dom';
import { post, loadState, saveState, onMessage, request } from '../common/vscode';
import { registerToolkit } from '../common/toolkit';
import { normalizeBugs, BugView, FrameView } from '../common/model';
import { FAILURE_REASON_WORDS, shortFailureMessage } from '../../../server/src/engine/runFailure';

registerToolkit();

interface GriffinState {
  collapsed: number[];
  /** weak-evidence bugs the user opened (they start collapsed) */
  expanded?: number[];
}
const state = loadState<GriffinState>({ collapsed: [] });
const collapsed = new Set(state.collapsed);
const expanded = new Set(state.expanded ?? []);
/** patterns listed before the rest is folded */
const PATTERNS_SHOWN = 5;

const isCollapsedBug = (b: BugView): boolean => (b.evidence?.weak ? !expanded.has(b.id) : collapsed.has(b.id));

/** "app.Account.withdraw(int)" → "Account.withdraw()", "x.Vector.<init>" → "Vector constructor" */
function shortName(method: string): string {
  const s = shortMethod(method);
  return s.endsWith('.<init>') ? `${s.slice(0, -'.<init>'.length)} constructor` : s;
}

function fmtP(p: number): string {
  return p >= 0.001 ? String(Number(p.toPrecision(2))) : p.toExponential(1);
}

const summary = h('span', { class: 'muted', id: 'summary', 'aria-live': 'polite' });
const cards = h('div', { class: 'cards', id: 'cards' });
document.body.append(h('div', { class: 'toolbar', role: 'toolbar' }, h('strong', null, 'Bugs (GRIFFIN)'), h('span', { class: 'spacer' }), summary), cards);

let bugs: BugView[] = [];
let message = '';

function frameButton(f: FrameView, label?: string): HTMLElement {
  if (!f.file || !f.line) return h('span', { class: 'mono' }, label ?? f.method);
  const b = locationButton(f.file, f.line, label ?? f.method);
  b.title = f.method ? `${f.method} — ${f.file}:${f.line}` : `${f.file}:${f.line}`;
  b.addEventListener('click', () => post({ type: 'openLocation', file: f.file!, line: f.line!, ...(f.uri ? { uri: f.uri } : {}) }));
  return b;
}

/**
 * A headline's text with its `code spans` as <code> elements (text nodes only: a trace string
 * stays text). An unpaired backtick is kept as text.
 */
function richText(s: string): (Node | string)[] {
  const parts = s.split('`');
  if (parts.length % 2 === 0) return [s];
  return parts.map((p, k) => (k % 2 === 1 ? h('code', null, p) : p)).filter((p) => p !== '');
}

function shapeLabel(shape: string | undefined): string | undefined {
  if (!shape) return undefined;
  return Object.prototype.hasOwnProperty.call(SHAPE_LABELS, shape) ? SHAPE_LABELS[shape as AdviceShape] : shape.replace(/-/g, ' ');
}

/** What the bug's failing runs reported (issue 30): "Fails with AssertionFailedError: expected … at AccountTest.java:29 (12 runs)". */
function failsWith(b: BugView): HTMLElement | null {
  const fs = b.failures ?? [];
  if (!fs.length) return null;
  const item = (f: NonNullable<BugView['failures']>[number]) =>
    h(
      'li',
      null,
      f.message ? h('span', { class: 'mono fail-message', title: f.message }, shortFailureMessage(f.message)) : h('span', null, FAILURE_REASON_WORDS[f.reason] ?? f.reason),
      f.location ? h('span', { class: 'muted' }, ' at ') : null,
      f.location ? frameButton({ method: f.location.method ?? '', file: f.location.file, line: f.location.line, uri: f.location.uri }, `${basename(f.location.file)}:${f.location.line}`) : null,
      h('span', { class: 'muted' }, ` · ${f.runs} run${f.runs === 1 ? '' : 's'}`),
    );
  return h('div', { class: 'fails-with' }, h('span', { class: 'fails-label' }, 'Fails with'), h('ul', { class: 'failures' }, ...fs.map(item)));
}

function section(title: string, ...content: (Node | string)[]): HTMLElement {
  return h('section', { 'data-section': title.replace(/ \(.*$/, '').toLowerCase() }, h('h3', null, title), ...content);
}

function patternRow(p: PatternDto, bug: BugView): HTMLElement {
  const first = p.accesses[0];
  const row = h(
    'li',
    { class: 'pattern' },
    h('span', { class: 'rank', title: `rank ${p.rank}, score ${fmtScore(p.score)}` }, `#${p.rank}`),
    h('span', { class: 'chips' }, ...p.accesses.map((a) => chip(a.type, String(a.thread)))),
    h('span', { class: 'muted pid' }, p.id),
    h('span', { class: 'mono vars', title: [...new Set(p.accesses.map((a) => a.variable))].join(', ') }, [...new Set(p.accesses.map((a) => shortVariable(a.variable)))].join(', ')),
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

const VERDICT_TEXT = { confirmed: '✔ confirmed', 'confirms the window': '◐ confirms the window', refuted: '✗ refuted', 'not forced': '– not forced' } as const;

/**
 * The verdict of forcing the bug's lead pattern (braid/confirm, issue 28) as a tag with its reason,
 * and a button: Confirm when it was not forced yet, Reproduce when it is confirmed.
 */
function verdictTag(lead: PatternDto | undefined): HTMLElement | null {
  if (!lead) return null;
  const c = lead.confirmation;
  const wrap = h('span', { class: 'verdict' });
  if (c) wrap.append(h('span', { class: `tag verdict-${c.verdict.replace(/ /g, '-')}`, title: `by forcing its lead pattern: ${c.reason}` }, VERDICT_TEXT[c.verdict] ?? c.verdict));
  const reproduce = c?.verdict === 'confirmed' && !!c.failingTrace;
  const b = h('button', { class: 'loc small', type: 'button', title: reproduce ? 'Open the forced failing run in the Tracer' : 'Force the lead pattern’s interleaving: forced, opposite order and unforced runs (asks first)' }, reproduce ? 'Reproduce' : c ? 'Confirm again' : 'Confirm');
  b.addEventListener('click', () => post({ type: 'confirmPattern', patternKey: lead.key, reproduce }));
  wrap.append(b);
  return wrap;
}

function card(b: BugView): HTMLElement {
  const isCollapsed = isCollapsedBug(b);
  const toggle = h('button', { class: 'plain twisty', type: 'button', 'aria-expanded': isCollapsed ? 'false' : 'true', 'aria-label': `Bug ${b.id} details` }, isCollapsed ? '▸' : '▾');
  toggle.addEventListener('click', () => {
    const set = b.evidence?.weak ? expanded : collapsed;
    if (set.has(b.id)) set.delete(b.id);
    else set.add(b.id);
    state.collapsed = [...collapsed];
    if (expanded.size) state.expanded = [...expanded];
    else delete state.expanded;
    saveState(state);
    render();
    cards.querySelector<HTMLElement>(`.card[data-bug="${b.id}"] .twisty`)?.focus();
  });
  const graph = h('vscode-button', { appearance: 'primary', class: 'open-graph' }, 'Bug graph');
  graph.addEventListener('click', () => post({ type: 'openBugGraph', bug: b.id }));
  const top = b.methods.map((m) => shortName(m.method)).join(' ⇄ ');
  const ev = b.evidence;
  // the statistics (p-value, score) are details: in the evidence's tooltip, not in the card's first line
  const stats = `${ev ? `one-sided Fisher exact p-value of its best pattern: ${fmtP(ev.pValue)}` : ''}${b.score !== undefined ? `${ev ? '; ' : ''}score of its best pattern: ${fmtScore(b.score)}` : ''}`;
  const evidence = ev
    ? h(
        'span',
        { class: 'evidence muted', title: `explains ${ev.failingRuns} of ${ev.totalFailing} failing runs; ${stats}` },
        `${ev.failingRuns} of ${ev.totalFailing} failing runs (${Math.round(ev.fraction * 100)}%)`,
      )
    : h('span', { class: 'evidence muted', ...(stats ? { title: stats } : {}) }, `${b.failingRuns.length} failing run${b.failingRuns.length === 1 ? '' : 's'}`);
  const shape = shapeLabel(b.advice.shape);
  const kind = b.category?.replace(/-/g, ' ');
  const head = h(
    'header',
    null,
    toggle,
    h('h2', null, `Bug ${b.id}`),
    shape ?? kind ? h('span', { class: 'tag', ...(shape && kind ? { title: kind } : {}) }, shape ?? kind) : null,
    ev?.weak ? h('span', { class: 'tag weak', title: 'rests on one or two failing runs: record more runs to confirm' }, 'weak evidence') : null,
    verdictTag(b.patterns[0]),
    h('span', { class: 'mono methods-line', title: b.methods.map((m) => m.method).join(' ⇄ ') }, top),
    h('span', { class: 'spacer' }),
    evidence,
    graph,
  );
  // the headline: what each thread did, in plain words (the engine's advice; older results: the title or summary)
  const headline = b.advice.headline ?? b.title;
  const el = h('article', { class: 'card', 'data-bug': b.id, 'aria-label': `Bug ${b.id}` }, head, headline ? h('p', { class: 'headline' }, ...richText(headline)) : null, failsWith(b));
  if (isCollapsed) return el;

  const methods = h('ul', { class: 'methods' });
  for (const m of b.methods) {
    methods.append(h('li', { class: threadColorClass(m.thread - 1) }, h('span', { class: 'tdot' }), h('span', { class: 'role' }, m.role), frameButton(m, shortName(m.method))));
  }
  const body = h('div', { class: 'card-body' });
  body.append(section('Suspicious methods', b.methods.length ? methods : h('p', { class: 'muted' }, 'none reported')));
  const adv = b.advice;
  const adviceNodes: Node[] = [];
  if (adv.summary) adviceNodes.push(h('p', { class: 'advice' }, adv.summary));
  if (adv.steps.length)
    adviceNodes.push(h('details', { class: 'fold fix' }, h('summary', null, `How to fix it (${adv.steps.length} suggestion${adv.steps.length === 1 ? '' : 's'}, advice only)`), h('ol', { class: 'steps' }, ...adv.steps.map((st) => h('li', null, st)))));
  if (adv.interleaving) adviceNodes.push(h('details', { class: 'fold' }, h('summary', null, 'Interleaving'), h('p', { class: 'interleaving mono', title: 'the most suspicious interleaving' }, adv.interleaving)));
  body.append(section('What goes wrong', ...(adviceNodes.length ? adviceNodes : [h('p', { class: 'muted' }, 'no advice')])));

  const all = [...b.patterns.map((p) => patternRow(p, b)), ...b.patternKeys.map((k) => h('li', { class: 'pattern muted mono' }, k))];
  const pats = h('ol', { class: 'patterns' }, ...all.slice(0, PATTERNS_SHOWN));
  const patSection = section(`Patterns (${all.length})`, pats);
  if (all.length > PATTERNS_SHOWN) patSection.append(h('details', { class: 'fold' }, h('summary', null, `${all.length - PATTERNS_SHOWN} more`), h('ol', { class: 'patterns' }, ...all.slice(PATTERNS_SHOWN))));
  patSection.classList.add('wide');
  body.append(patSection);

  const ctx = h('div', { class: 'contexts' });
  for (const c of b.contexts) {
    const stack = h('ol', { class: 'stack' });
    // the bold frame is GRIFFIN's suspicious method of the thread (as in the tree, lens, hover and graph); without one, the top
    const sm = b.methods.find((m) => m.thread === c.thread)?.method.replace(/\(.*\)$/, '');
    const named = sm !== undefined && c.frames.some((f) => f.method.replace(/\(.*\)$/, '') === sm);
    const isSuspicious = (f: { method: string }, k: number) => (named ? f.method.replace(/\(.*\)$/, '') === sm : k === c.frames.length - 1);
    c.frames.forEach((f, k) => stack.append(h('li', { style: null, class: isSuspicious(f, k) ? 'top' : '' }, frameButton(f, `${shortMethod(f.method)}${f.file ? '  ' + basename(f.file) + (f.line ? ':' + f.line : '') : ''}`))));
    ctx.append(h('div', { class: `context ${threadColorClass(c.thread - 1)}` }, h('div', { class: 'ctx-head' }, h('span', { class: 'tdot' }), c.role), stack));
  }
  body.append(section('Calling contexts', b.contexts.length ? ctx : h('p', { class: 'muted' }, 'none')));

  const chip = (r: string) => {
    const rb = h('button', { class: 'run-chip', type: 'button', title: `Open run ${r} in the Tracer` }, r);
    rb.addEventListener('click', () => post({ type: 'openTracer', run: r }));
    return rb;
  };
  const RUNS_SHOWN = 12;
  const RUNS_MAX = 200;
  const runs = h('div', { class: 'runs' }, ...b.failingRuns.slice(0, RUNS_SHOWN).map(chip));
  if (b.failingRuns.length > RUNS_SHOWN) {
    const rest = b.failingRuns.slice(RUNS_SHOWN, RUNS_MAX);
    const more = h('div', { class: 'runs' }, ...rest.map(chip));
    if (b.failingRuns.length > RUNS_MAX) more.append(h('span', { class: 'muted' }, `+${b.failingRuns.length - RUNS_MAX} more`));
    runs.append(h('details', { class: 'fold runs-more' }, h('summary', null, `${b.failingRuns.length - RUNS_SHOWN} more`), more));
  }
  body.append(section('Failing runs', runs));
  el.append(body);
  return el;
}

function render(): void {
  clear(cards);
  const weak = bugs.filter((b) => b.evidence?.weak);
  const strong = bugs.length - weak.length;
  const count = (n: number) => `${n} bug${n === 1 ? '' : 's'}`;
  summary.textContent = !bugs.length ? '' : strong === 0 ? `${count(weak.length)} with weak evidence` : `${count(strong)}${weak.length ? ` + ${weak.length} with weak evidence` : ''}`;
  if (!bugs.length) {
    cards.append(h('div', { class: 'empty' }, message || 'No bugs yet: GRIFFIN needs failing runs.'));
    return;
  }
  let weakShown = false;
  for (const b of bugs) {
    if (b.evidence?.weak && !weakShown) {
      weakShown = true;
      cards.append(h('h2', { class: 'group-head' }, 'Weak evidence', h('span', { class: 'muted' }, ' — each rests on one or two failing runs; record more runs to confirm')));
    }
    cards.append(card(b));
  }
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
