/**
 * Explanations view (mining, docs/mining.md): one card per explanation group
 * from braid/explanations — rank, relative support bar, causal/symptom badge,
 * each pattern's macros in one column per thread in execution order (R/W
 * chips), and the dependency edges (flow/anti/output). Every access and edge
 * opens its source line. All trace strings go through textContent.
 */
import '../common/base.css';
import './explanations.css';
import type { ExplanationsResult, ExplanationGroupDto, ExplanationPatternDto, ExplainedEventDto, ExplanationDependencyDto } from '../../../server/src/lsp/protocol';
import { shortMethod, shortVariable } from '../../../server/src/engine/displayNames';
import { distinctExplanations, type DistinctExplanation } from '../../../server/src/engine/mining/distinctExplanations';
import { h, clear, basename, chip, fmtScore, locationButton, threadColorClass } from '../common/dom';
import { post, loadState, saveState, onMessage, request } from '../common/vscode';
import { registerToolkit } from '../common/toolkit';

registerToolkit();

interface ExplanationsState {
  /** `order` of the collapsed groups */
  collapsed: number[];
  causalOnly: boolean;
}
const state = loadState<ExplanationsState>({ collapsed: [], causalOnly: false });
const collapsed = new Set(Array.isArray(state.collapsed) ? state.collapsed.filter((n) => typeof n === 'number') : []);

/** patterns shown per group before "+N more" */
const MAX_PATTERNS = 5;

const summary = h('span', { class: 'muted', id: 'summary', 'aria-live': 'polite' });
const causalOnly = h('input', { type: 'checkbox', id: 'causalOnly' });
causalOnly.checked = !!state.causalOnly;
const cards = h('div', { class: 'cards', id: 'cards', role: 'list', 'aria-label': 'Explanation groups' });
document.body.append(
  h(
    'div',
    { class: 'toolbar', role: 'toolbar' },
    h('strong', null, 'Explanations (mining)'),
    h('label', { class: 'inline', for: 'causalOnly' }, causalOnly, 'Causal only'),
    h('span', { class: 'spacer' }),
    summary,
  ),
  cards,
);
causalOnly.addEventListener('change', () => {
  state.causalOnly = causalOnly.checked;
  saveState(state);
  render();
});

let result: ExplanationsResult | undefined;
let message = '';
let loading = false;
/** groups whose "+N more" patterns were expanded (not persisted) */
const allPatterns = new Set<number>();

function str(x: unknown): string {
  return typeof x === 'string' ? x : x === undefined || x === null ? '' : String(x);
}
/** `421 ms`, `1.2 s`: a duration as people read it */
function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function num(x: unknown, d = 0): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : d;
}
function pct(x: number): string {
  return `${Math.round(Math.max(0, Math.min(1, x)) * 100)}%`;
}

function openEvent(e: ExplainedEventDto): void {
  const line = num(e.line);
  if (!e.file || !Number.isSafeInteger(line) || line < 1) return;
  post({ type: 'openLocation', file: str(e.file), line, ...(typeof e.uri === 'string' && e.uri ? { uri: e.uri } : {}) });
}

/** location button for an event (plain text when it has no file:line) */
function eventLoc(e: ExplainedEventDto, label?: string): HTMLElement {
  const line = num(e.line);
  if (!e.file || !Number.isSafeInteger(line) || line < 1) return h('span', { class: 'muted mono' }, label ?? '—');
  const b = locationButton(str(e.file), line, label);
  b.title = `${str(e.file)}:${line}${e.method ? ` — ${str(e.method)}` : ''}`;
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    openEvent(e);
  });
  return b;
}

/** threads of a pattern (or group) in order of first appearance → column index */
function threadOrder(g: ExplanationGroupDto): Map<string, number> {
  const m = new Map<string, number>();
  const add = (t: unknown) => {
    const s = str(t);
    if (!m.has(s)) m.set(s, m.size);
  };
  for (const p of g.patterns ?? []) for (const mac of p.macros ?? []) add(mac.thread);
  for (const d of g.dependencies ?? []) {
    add(d.from?.thread);
    add(d.to?.thread);
  }
  return m;
}

function eventChip(e: ExplainedEventDto, col: number): HTMLElement {
  const kind = str(e.kind);
  return chip(kind === 'ACTION' ? 'ACT' : kind, String(col + 1));
}

function accessRow(e: ExplainedEventDto, col: number, step: number): HTMLElement {
  const row = h(
    'li',
    { class: 'access' },
    h('span', { class: 'step muted' }, String(step)),
    eventChip(e, col),
    h('span', { class: 'var mono', title: str(e.target) }, shortVariable(str(e.target))),
    eventLoc(e),
    e.method ? h('span', { class: 'method muted mono', title: str(e.method) }, shortMethod(str(e.method))) : null,
  );
  return row;
}

function patternBlock(p: ExplanationPatternDto, index: number, threads: Map<string, number>): HTMLElement {
  // one column per thread of this pattern, in the group's thread order (T numbers and colours are the group's)
  const cols = [...new Set((p.macros ?? []).map((m) => threads.get(str(m.thread)) ?? 0))].sort((a, b) => a - b);
  if (!cols.length) cols.push(0);
  const names = new Map([...threads].map(([t, c]) => [c, t] as [number, string]));
  const ncol = cols.length;
  const grid = h('div', { class: 'columns', style: null, role: 'group', 'aria-label': `Pattern ${index + 1}: macros per thread in execution order` });
  grid.style.gridTemplateColumns = `repeat(${ncol}, minmax(0, 1fr))`;
  for (const c of cols) grid.append(h('div', { class: `col-head ${threadColorClass(c)}` }, h('span', { class: 'tdot' }), `T${c + 1}`, h('span', { class: 'muted' }, '·'), h('span', { class: 'mono' }, names.get(c) ?? '')));
  let step = 1;
  for (const mac of p.macros ?? []) {
    const col = threads.get(str(mac.thread)) ?? 0;
    for (const c of cols) {
      if (c !== col) {
        grid.append(h('div', { class: 'gap' }));
        continue;
      }
      const list = h('ol', { class: 'macro-events' });
      for (const e of mac.events ?? []) list.append(accessRow(e, col, step++));
      grid.append(h('div', { class: `macro ${threadColorClass(col)}${mac.context ? ' context' : ''}`, title: mac.context ? 'context macro: no dependency with another macro of the pattern' : null }, list));
    }
  }
  return h(
    'div',
    { class: 'pattern' },
    h(
      'div',
      { class: 'pattern-head' },
      h('span', { class: 'pname' }, `Pattern ${index + 1}`),
      h('span', { class: 'muted' }, `${num(p.failing)} failing / ${num(p.passing)} passing traces`),
      h('span', { class: 'muted mono' }, `rel. support ${fmtScore(num(p.relSupport))}`),
    ),
    grid,
  );
}

function depRow(d: ExplanationDependencyDto, threads: Map<string, number>): HTMLElement {
  const kind = ['flow', 'anti', 'output'].includes(str(d.kind)) ? str(d.kind) : 'other';
  const end = (e: ExplainedEventDto) => {
    const col = threads.get(str(e.thread)) ?? 0;
    return h('span', { class: `dep-end ${threadColorClass(col)}` }, eventChip(e, col), eventLoc(e, e.file && e.line ? `${basename(str(e.file))}:${num(e.line)}` : undefined));
  };
  const row = h(
    'li',
    { class: 'dep', tabindex: '-1' },
    h('span', { class: `dep-kind dep-${kind}`, title: kind === 'flow' ? 'flow (write → read)' : kind === 'anti' ? 'anti (read → write)' : kind === 'output' ? 'output (write → write)' : kind }, str(d.kind)),
    h('span', { class: 'mono var', title: str(d.variable) }, shortVariable(str(d.variable))),
    end(d.from ?? ({} as ExplainedEventDto)),
    h('span', { class: 'arrow', 'aria-label': 'to' }, '→'),
    end(d.to ?? ({} as ExplainedEventDto)),
  );
  // a click anywhere else on the edge opens its target line
  row.addEventListener('click', () => d.to && openEvent(d.to));
  return row;
}

function card(g: ExplanationGroupDto, d?: DistinctExplanation): HTMLElement {
  const order = num(g.order);
  const isCollapsed = collapsed.has(order);
  const rel = num(g.relSupport);
  const toggle = h('button', { class: 'plain twisty', type: 'button', 'aria-expanded': isCollapsed ? 'false' : 'true', 'aria-label': `Explanation ${num(g.rank)} details` }, isCollapsed ? '▸' : '▾');
  toggle.addEventListener('click', () => {
    if (collapsed.has(order)) collapsed.delete(order);
    else collapsed.add(order);
    state.collapsed = [...collapsed];
    saveState(state);
    render();
    cards.querySelector<HTMLElement>(`.card[data-order="${order}"] .twisty`)?.focus();
  });
  const threads = threadOrder(g);
  const kinds = [...new Set((g.dependencies ?? []).map((d) => str(d.kind)))].join('/');
  const head = h(
    'header',
    null,
    toggle,
    h('h2', { class: 'rank' }, `#${num(g.rank)}`),
    d?.tied ? h('span', { class: 'muted tied', title: 'another explanation has the same rank' }, 'tied') : null,
    h(
      'span',
      { class: 'bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': 1, 'aria-valuenow': rel, 'aria-label': 'relative support', title: `relative support ${fmtScore(rel)}` },
      h('span', { class: 'fill', style: null }),
    ),
    h('span', { class: 'mono rel' }, fmtScore(rel)),
    h('span', { class: `badge ${g.causal ? 'causal' : 'symptom'}`, title: g.causal ? 'causal: linked by data dependencies across threads' : 'symptom: no dependency edge across threads' }, g.causal ? 'causal' : 'symptom'),
    h('span', { class: 'mono headline', title: [...threads.keys()].join(' → ') }, (g.patterns?.[0]?.macros ?? []).map((m) => `T${(threads.get(str(m.thread)) ?? 0) + 1}`).join(' → ')),
    h('span', { class: 'spacer' }),
    h('span', { class: 'muted' }, `failing ${pct(num(g.failingSupport))} · passing ${pct(num(g.passingSupport))}`),
    kinds ? h('span', { class: 'muted' }, kinds) : null,
    h('span', { class: 'muted' }, `${(g.patterns ?? []).length} pattern${(g.patterns ?? []).length === 1 ? '' : 's'}`),
    d?.alike.length
      ? h('span', { class: 'muted alike', title: `groups of rank ${d.alike.map((x) => num(x.rank)).join(', ')} show the same events and dependencies` }, `+${d.alike.length} alike`)
      : null,
  );
  (head.querySelector('.fill') as HTMLElement).style.width = `${(Math.max(0, Math.min(1, rel)) * 100).toFixed(1)}%`;
  const el = h('article', { class: `card${g.causal ? '' : ' is-symptom'}`, role: 'listitem', 'data-order': order, 'data-rank': num(g.rank), 'aria-label': `Explanation ${num(g.rank)}` }, head);
  if (isCollapsed) return el;

  const body = h('div', { class: 'card-body' });
  const pats = g.patterns ?? [];
  const shown = allPatterns.has(order) ? pats : pats.slice(0, MAX_PATTERNS);
  const patSection = h('section', { class: 'patterns' }, h('h3', null, `Patterns (${pats.length})`), ...shown.map((p, i) => patternBlock(p, i, threads)));
  if (pats.length > shown.length) {
    const more = h('button', { class: 'loc small more', type: 'button' }, `+${pats.length - shown.length} more`);
    more.addEventListener('click', () => {
      allPatterns.add(order);
      render();
    });
    patSection.append(more);
  }
  body.append(patSection);
  const deps = g.dependencies ?? [];
  body.append(
    h(
      'section',
      { class: 'deps' },
      h('h3', null, `Dependencies (${deps.length})`),
      deps.length ? h('ul', { class: 'dep-list' }, ...deps.map((d) => depRow(d, threads))) : h('p', { class: 'muted' }, 'none'),
    ),
  );
  el.append(body);
  return el;
}

function render(): void {
  clear(cards);
  const groups = (result?.groups ?? []).filter((g) => !state.causalOnly || g.causal);
  const st = result?.stats;
  const total = result?.groups?.length ?? 0;
  summary.textContent = loading
    ? 'computing…'
    : result
      ? `${groups.length}${groups.length !== total ? ` of ${total}` : ''} group${total === 1 ? '' : 's'}${st ? ` · ${num(st.failing)} failing / ${num(st.passing)} passing traces · ${formatMs(num(st.ms))}${st.truncated ? ' · truncated' : ''}` : ''}`
      : '';
  if (loading && !result) {
    cards.append(h('div', { class: 'empty' }, h('vscode-progress-ring', null), 'Computing explanations…'));
    return;
  }
  if (!groups.length) {
    cards.append(h('div', { class: 'empty' }, message || result?.message || (total ? 'No causal group (untick "Causal only").' : 'No explanation yet: mining needs failing and passing traces.')));
    return;
  }
  // one card per distinct explanation (issue 30, point 5): groups showing the same events and dependencies are one
  for (const d of distinctExplanations(groups)) cards.append(card(d.group, d));
}

let generation = 0;
async function load(): Promise<void> {
  const gen = ++generation;
  loading = true;
  render();
  try {
    const r = await request<ExplanationsResult>('explanations', {});
    if (gen !== generation) return;
    result = r && typeof r === 'object' ? { ...r, groups: Array.isArray(r.groups) ? r.groups : [] } : undefined;
    message = '';
  } catch (e) {
    if (gen !== generation) return;
    result = undefined;
    message = `Could not compute explanations: ${e instanceof Error ? e.message : String(e)}`;
  }
  loading = false;
  render();
}

/** keyboard: ↑/↓ (and Home/End) move between the cards' headers */
cards.addEventListener('keydown', (ev) => {
  const t = ev.target as HTMLElement;
  if (!t.classList.contains('twisty')) return;
  const heads = Array.from(cards.querySelectorAll<HTMLElement>('.card .twisty'));
  const i = heads.indexOf(t);
  let j = -1;
  if (ev.key === 'ArrowDown') j = Math.min(heads.length - 1, i + 1);
  else if (ev.key === 'ArrowUp') j = Math.max(0, i - 1);
  else if (ev.key === 'Home') j = 0;
  else if (ev.key === 'End') j = heads.length - 1;
  else if (ev.key === 'ArrowRight' && t.getAttribute('aria-expanded') === 'false') return t.click();
  else if (ev.key === 'ArrowLeft' && t.getAttribute('aria-expanded') === 'true') return t.click();
  if (j < 0) return;
  ev.preventDefault();
  heads[j]?.focus();
  heads[j]?.scrollIntoView({ block: 'nearest' });
});

onMessage((m) => {
  if (m.type === 'changed') void load();
});
void load();
post({ type: 'ready' });
