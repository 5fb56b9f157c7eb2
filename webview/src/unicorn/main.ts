/**
 * UNICORN view: ranked memory-access patterns with a score bar and coloured
 * R/W chips; expand a pattern to see its accesses in two thread columns in
 * execution order; filter by kind and file; click an access → source.
 */
import '../common/base.css';
import './unicorn.css';
import type { PatternDto, PatternsResult, PatternAccessDto } from '../../../server/src/lsp/protocol';
import { roleNames, shortMethod, shortValue, shortVariable, threadLegend } from '../../../server/src/engine/displayNames';
import { h, clear, basename, chip, fmtScore, locationButton } from '../common/dom';
import { post, loadState, saveState, onMessage, request } from '../common/vscode';
import { registerToolkit, valueOf } from '../common/toolkit';

registerToolkit();

interface UnicornState {
  kind: string;
  file: string;
  text: string;
  expanded: string[];
  focused?: string;
  /** keys of tie-group leaders whose tied patterns are shown */
  ties?: string[];
}
const state = loadState<UnicornState>({ kind: '', file: '', text: '', expanded: [] });
const expanded = new Set(state.expanded);
const openTies = new Set(state.ties ?? []);
function persist(): void {
  state.expanded = [...expanded];
  state.ties = [...openTies];
  saveState(state);
}

const SECTION_TITLES: Record<string, string> = {
  cause: 'Causes',
  harness: 'Harness — patterns made only of test code',
  symptom: 'Symptoms — seen in failing runs only after the failure point',
  none: 'Without evidence — p ≥ 0.05, or seen in nearly every passing run',
  weak: 'Weaker patterns — they do not separate failing from passing runs (score below braid.views.minScore, or in every passing run)',
};

function fmtP(p: number): string {
  return p === 0 ? '0' : p < 0.001 ? p.toExponential(1) : p < 0.01 ? p.toFixed(4) : p.toFixed(3);
}

const kindSelect = h('vscode-dropdown', { id: 'kind', 'aria-label': 'Pattern kind' });
const fileSelect = h('vscode-dropdown', { id: 'file', 'aria-label': 'File' });
const textField = h('vscode-text-field', { id: 'text', placeholder: 'variable or method', 'aria-label': 'Filter by variable or method' });
const summary = h('span', { class: 'muted', id: 'summary', 'aria-live': 'polite' });
const list = h('div', { class: 'list', id: 'list', role: 'tree', 'aria-label': 'Ranked patterns' });
document.body.append(
  h('div', { class: 'toolbar', role: 'toolbar' }, h('span', { class: 'muted' }, 'Kind'), kindSelect, h('span', { class: 'muted' }, 'File'), fileSelect, textField, h('span', { class: 'spacer' }), summary),
  h('div', { class: 'legend muted' }, chip('R'), ' read ', chip('W'), ' write  ·  subscript = thread (1 or 2)  ·  bar = suspiciousness'),
  list,
);

let patterns: PatternDto[] = [];
let analysisMessage = '';
let confidence = '';

function methodShort(m: string): string {
  // "com.x.Foo$Bar.baz(int)" → "Bar.baz", lambdas readable (displayNames.ts)
  return shortMethod(m);
}

function summaryOf(p: PatternDto): string {
  const by = new Map<number, string[]>();
  for (const a of p.accesses) {
    const ms = by.get(a.thread) ?? [];
    const m = methodShort(a.method);
    if (!ms.includes(m)) ms.push(m);
    by.set(a.thread, ms);
  }
  const names = roleNames(p.accesses);
  return [...by.entries()].sort((x, y) => x[0] - y[0]).map(([t, ms]) => `${names.get(t) ?? `T${t}`}: ${ms.join(', ')}`).join('  ⇄  ');
}

function matches(p: PatternDto): boolean {
  if (state.kind && p.kind !== state.kind && p.id !== state.kind) return false;
  if (state.file && !p.accesses.some((a) => a.file === state.file)) return false;
  if (state.text) {
    const t = state.text.toLowerCase();
    if (!p.accesses.some((a) => a.variable.toLowerCase().includes(t) || a.method.toLowerCase().includes(t))) return false;
  }
  return true;
}

function openAccess(a: { file: string; line: number; uri?: string }): void {
  post({ type: 'openLocation', file: a.file, line: a.line, ...(a.uri ? { uri: a.uri } : {}) });
}

function accessCell(a: PatternAccessDto, step: number): HTMLElement {
  const loc = locationButton(a.file, a.line);
  const lib = a.library
    ? h('span', { class: 'library mono muted', title: `${a.library.method} (${a.library.file}:${a.library.line}), called from ${a.file}:${a.line}` }, `${basename(a.library.file)}:${a.library.line}, called from`)
    : a.call
      ? h('span', { class: 'library mono muted', title: a.call }, `${methodShort(a.call)} at`)
      : null;
  loc.addEventListener('click', (ev) => {
    ev.stopPropagation();
    openAccess(a);
  });
  const stack = a.stack && a.stack.length ? a.stack.map((f) => `${f.method} (${basename(f.file)}:${f.line})`).join('\n') : a.method;
  return h(
    'div',
    { class: `access t${a.thread}`, title: stack },
    h('span', { class: 'step muted' }, String(step)),
    chip(a.type),
    h('span', { class: 'var mono', title: a.variable }, shortVariable(a.variable)),
    ...(a.value !== undefined ? [h('span', { class: 'val mono', title: 'value at the first occurrence' }, `= ${valueText(a.value)}`)] : []),
    ...(lib ? [lib] : []),
    loc,
    h('span', { class: 'method mono muted' }, methodShort(a.method)),
  );
}

/** A recorded value as short text (an object as `HashMap@1b6d3586`, else JSON; at most 40 characters; displayNames.ts). */
function valueText(v: unknown): string {
  return shortValue(v, 40);
}

function detail(p: PatternDto): HTMLElement {
  const grid = h('div', { class: 'columns', role: 'group', 'aria-label': `Accesses of pattern ${p.rank}` });
  const names = roleNames(p.accesses);
  const head = (t: number) => (names.get(t) ? `${names.get(t)} (T${t})` : `Thread ${t}`);
  grid.append(h('div', { class: 'colhead' }, h('span', { class: 'tdot thread-0' }), head(1)), h('div', { class: 'colhead' }, h('span', { class: 'tdot thread-1' }), head(2)));
  p.accesses.forEach((a, k) => {
    const cell = accessCell(a, k + 1);
    const empty = h('div', { class: 'gap' }, k < p.accesses.length - 1 ? '' : '');
    if (a.thread === 1) grid.append(cell, empty);
    else grid.append(empty, cell);
  });
  const actions = h('div', { class: 'actions' });
  const tracer = h('vscode-button', { appearance: 'secondary', class: 'open-tracer' }, 'Show in Tracer');
  tracer.addEventListener('click', (ev) => {
    ev.stopPropagation();
    post({ type: 'openTracer', patternKey: p.key });
  });
  actions.append(tracer, h('span', { class: 'muted' }, `${p.category} · failed ${p.failed} · passed ${p.passed}${threadLegend(p.accesses) ? ` · ${threadLegend(p.accesses)}` : ''}`));
  return h('div', { class: 'detail' }, grid, actions);
}

function item(p: PatternDto, maxScore: number): HTMLElement {
  const open = expanded.has(p.key);
  const bar = h('span', { class: 'bar' }, h('span', { class: 'fill' }));
  (bar.firstChild as HTMLElement).style.width = `${Math.max(2, Math.round((maxScore > 0 ? p.score / Math.max(1, maxScore) : 0) * 100))}%`;
  const chips = h('span', { class: 'chips', 'aria-label': `kind ${p.kind}` }, ...p.accesses.map((a) => chip(a.type, String(a.thread))));
  const head = h(
    'div',
    {
      class: 'head',
      role: 'treeitem',
      tabindex: state.focused === p.key ? 0 : -1,
      'aria-expanded': open ? 'true' : 'false',
      'data-key': p.key,
      'aria-label': `Rank ${p.rank}, score ${fmtScore(p.score)}, ${p.id} ${p.kind}`,
    },
    h('span', { class: 'twisty', 'aria-hidden': 'true' }, open ? '▾' : '▸'),
    h('span', { class: 'rank' }, `#${p.rank}`),
    h('span', { class: 'score' }, bar, h('span', { class: 'num mono' }, fmtScore(p.score))),
    chips,
    h('span', { class: 'pid muted' }, `${p.id}`),
    h('span', { class: 'summary-text mono' }, summaryOf(p)),
    h('span', { class: 'counts muted', title: 'failing / passing runs containing the pattern' }, `✗${p.failed} ✓${p.passed}`),
    ...(p.pValue !== undefined ? [h('span', { class: 'pvalue muted mono', title: "one-sided Fisher's exact p-value" }, `p ${fmtP(p.pValue)}`)] : []),
  );
  head.addEventListener('click', () => {
    state.focused = p.key;
    toggle(p.key);
  });
  const el = h('div', { class: 'item' + (open ? ' open' : ''), 'data-key': p.key }, head);
  if (open) el.append(detail(p));
  return el;
}

function toggle(key: string, force?: boolean): void {
  const open = force ?? !expanded.has(key);
  if (open) expanded.add(key);
  else expanded.delete(key);
  persist();
  render();
  focusKey(key);
}

function focusKey(key: string | undefined): void {
  if (!key) return;
  const el = list.querySelector<HTMLElement>(`.head[data-key="${CSS.escape(key)}"]`);
  if (el) {
    for (const o of Array.from(list.querySelectorAll<HTMLElement>('.head[tabindex="0"]'))) o.tabIndex = -1;
    el.tabIndex = 0;
    el.focus();
    state.focused = key;
  }
}

function render(): void {
  const scroll = document.scrollingElement?.scrollTop ?? 0;
  clear(list);
  // weaker patterns (the server's weak flag: score below braid.views.minScore or in every passing run) are not
  // causes: listed last under their own heading, as the tree folds them (issue 43: the tree and the panel agree)
  const matching = patterns.filter(matches);
  const shown = [...matching.filter((q) => !q.weak), ...matching.filter((q) => q.weak)];
  const maxScore = Math.max(1, ...patterns.map((p) => p.score));
  summary.textContent = patterns.length ? `${shown.length} of ${patterns.length} patterns` : '';
  if (confidence) list.append(h('div', { class: 'confidence', role: 'note' }, confidence));
  if (!patterns.length) {
    list.append(h('div', { class: 'empty' }, analysisMessage || 'No ranked patterns yet. Record or import runs with at least one failing run.'));
    return;
  }
  if (!shown.length) {
    list.append(h('div', { class: 'empty' }, 'No pattern matches the filters.'));
    return;
  }
  // sections: the groups of the patterns with evidence, then every pattern without evidence (the listed order)
  const sectionOf = (q: PatternDto) => (q.weak ? 'weak' : q.evidence === false ? 'none' : (q.group ?? 'cause'));
  const sections = new Set(shown.map(sectionOf));
  let section: string | undefined;
  for (let k = 0; k < shown.length; ) {
    const p = shown[k];
    const g = sectionOf(p);
    if (g !== section && (sections.size > 1 || g !== 'cause')) {
      list.append(h('div', { class: `section section-${g}`, role: 'heading', 'aria-level': '2' }, `${SECTION_TITLES[g] ?? g} (${shown.filter((q) => sectionOf(q) === g).length})`));
    }
    section = g;
    let end = k + 1;
    while (end < shown.length && p.tie !== undefined && shown[end].tie === p.tie) end++;
    list.append(item(p, maxScore));
    if (end - k > 1) {
      // a tie group: the first pattern, then "N more tied" that shows the others
      const open = openTies.has(p.key);
      const n = end - k - 1;
      const tieRow = h(
        'div',
        { class: 'tie-row muted', role: 'button', tabindex: '0', 'aria-expanded': open ? 'true' : 'false', 'data-tie': p.key },
        `${open ? '▾' : '▸'} ${n} more tied pattern${n === 1 ? '' : 's'} (score ${fmtScore(p.score)}, ${summaryOf(p)})`,
      );
      const flip = () => {
        if (openTies.has(p.key)) openTies.delete(p.key);
        else openTies.add(p.key);
        persist();
        render();
      };
      tieRow.addEventListener('click', flip);
      tieRow.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          ev.stopPropagation();
          flip();
        }
      });
      list.append(tieRow);
      if (open) {
        for (const q of shown.slice(k + 1, end)) {
          const el = item(q, maxScore);
          el.classList.add('tied');
          list.append(el);
        }
      }
    }
    k = end;
  }
  if (!list.querySelector('.head[tabindex="0"]')) list.querySelector<HTMLElement>('.head')?.setAttribute('tabindex', '0');
  if (document.scrollingElement) document.scrollingElement.scrollTop = scroll;
}

list.addEventListener('keydown', (ev) => {
  const head = (ev.target as Element).closest('.head') as HTMLElement | null;
  if (!head) return;
  const key = head.dataset.key!;
  const heads = Array.from(list.querySelectorAll<HTMLElement>('.head'));
  const i = heads.indexOf(head);
  switch (ev.key) {
    case 'ArrowDown': focusKey(heads[Math.min(heads.length - 1, i + 1)]?.dataset.key); break;
    case 'ArrowUp': focusKey(heads[Math.max(0, i - 1)]?.dataset.key); break;
    case 'Home': focusKey(heads[0]?.dataset.key); break;
    case 'End': focusKey(heads[heads.length - 1]?.dataset.key); break;
    case 'ArrowRight': toggle(key, true); break;
    case 'ArrowLeft': toggle(key, false); break;
    case 'Enter':
    case ' ': toggle(key); break;
    case 't': post({ type: 'openTracer', patternKey: key }); break;
    case 'o': {
      const p = patterns.find((x) => x.key === key);
      if (p?.accesses[0]) openAccess(p.accesses[0]);
      break;
    }
    default: return;
  }
  ev.preventDefault();
  persist();
});

function option(value: string, label: string, selected: boolean, title?: string): HTMLElement {
  return h('vscode-option', { value, selected: selected || null, title }, label);
}

function refreshFilters(): void {
  const kinds = [...new Set(patterns.map((p) => p.kind))].sort();
  clear(kindSelect);
  kindSelect.append(option('', 'All kinds', !state.kind));
  for (const k of kinds) kindSelect.append(option(k, k, state.kind === k));
  const files = [...new Set(patterns.flatMap((p) => p.accesses.map((a) => a.file)))].sort((a, b) => basename(a).localeCompare(basename(b)));
  clear(fileSelect);
  fileSelect.append(option('', 'All files', !state.file));
  for (const f of files) fileSelect.append(option(f, basename(f), state.file === f, f));
  (kindSelect as unknown as { value: string }).value = state.kind;
  (fileSelect as unknown as { value: string }).value = state.file;
  (textField as unknown as { value: string }).value = state.text;
}

kindSelect.addEventListener('change', () => {
  state.kind = valueOf(kindSelect);
  persist();
  render();
});
fileSelect.addEventListener('change', () => {
  state.file = valueOf(fileSelect);
  persist();
  render();
});
textField.addEventListener('input', () => {
  state.text = valueOf(textField).trim();
  persist();
  render();
});
document.addEventListener('keydown', (ev) => {
  if (ev.key === '/' && !(ev.target as Element).closest('vscode-text-field')) {
    ev.preventDefault();
    (textField as HTMLElement).focus();
  }
});

async function load(): Promise<void> {
  try {
    const r = await request<PatternsResult>('patterns', { offset: 0, limit: 1000 });
    patterns = Array.isArray(r.patterns) ? r.patterns : [];
    analysisMessage = r.summary?.message ?? (r.summary?.state === 'analyzing' ? 'Analyzing…' : '');
    confidence = r.summary?.confidence ?? '';
  } catch (e) {
    patterns = [];
    analysisMessage = `Could not load patterns: ${e instanceof Error ? e.message : String(e)}`;
  }
  refreshFilters();
  render();
}

onMessage((m) => {
  if (m.type === 'changed') void load();
});
void load();
post({ type: 'ready' });
