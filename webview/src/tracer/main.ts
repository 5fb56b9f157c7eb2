/**
 * Tracer: a run's full event list (after ConcurrencyExplorer), virtualized.
 * Only the rows on screen exist in the DOM; pages of events are fetched from
 * the host on demand ({type:'fetchEvents'} → {type:'events'}) and cached.
 * A custom scrollbar maps its (capped) pixel range onto any number of rows,
 * so 10 million events scroll like 10 thousand.
 */
import '../common/base.css';
import './tracer.css';
import type { PatternDto, PatternsResult, RunsResult, TraceEventDto, TraceEventsParams, TraceEventsResult, RunDto } from '../../../server/src/lsp/protocol';
import { h, clear, append as appendAll, chip, debounce, threadColorClass, kindTitle, locationButton } from '../common/dom';
import { FAILURE_REASON_WORDS, shortFailureMessage } from '../../../server/src/engine/runFailure';
import { post, loadState, saveState, onMessage, request, newRequestId } from '../common/vscode';
import { registerToolkit, valueOf, checkedOf } from '../common/toolkit';
import { Pager, PagerQuery } from './pager';
import { runLabel } from '../../../client/src/runLabel';
import { fileLine, roleNames, shortMethod, shortValue, shortVariable, threadLegend } from '../../../server/src/engine/displayNames';
import { findOccurrence, OccurrenceEvent } from './occurrence';
import { patternSentence } from '../../../server/src/engine/report/patternSentence';

registerToolkit();

/** events may carry the source statement text when the server can read it */
type EventRow = TraceEventDto & { statement?: string };

interface TracerState {
  run?: string;
  thread: number | null;
  variable: string;
  search: string;
  accessesOnly: boolean;
  top: number;
  selected: number | null;
  highlightPatternKey?: string;
  /** run picker: failing runs only, and failing runs first */
  failingOnly?: boolean;
  runSort?: 'run' | 'failing';
}

const ROW_H = 22;
/** pixel height of the scrollbar's content; rows beyond it are reached by proportional mapping */
const MAX_SCROLL_PX = 1_000_000;
const PAGE_SIZE = 200;

const state = loadState<TracerState>({ thread: null, variable: '', search: '', accessesOnly: false, top: 0, selected: null });

// ---------------------------------------------------------------- fetch via host
const pendingEvents = new Map<number, { resolve: (r: TraceEventsResult) => void; reject: (e: Error) => void }>();
function fetchEvents(params: TraceEventsParams): Promise<TraceEventsResult> {
  const requestId = newRequestId();
  return new Promise((resolve, reject) => {
    pendingEvents.set(requestId, { resolve, reject });
    post({ type: 'fetchEvents', requestId, params });
  });
}
const pager = new Pager(fetchEvents, { pageSize: PAGE_SIZE, maxPages: 600, maxInFlight: 4 });

// ---------------------------------------------------------------- DOM
const runSelect = h('vscode-dropdown', { id: 'run', 'aria-label': 'Run', title: 'Run' });
const threadSelect = h('vscode-dropdown', { id: 'thread', 'aria-label': 'Thread', title: 'Thread' });
const varField = h('vscode-text-field', { id: 'variable', placeholder: 'variable', 'aria-label': 'Variable filter' });
const searchField = h('vscode-text-field', { id: 'search', placeholder: 'search variable, file, method', 'aria-label': 'Search' });
const accessesBox = h('vscode-checkbox', { id: 'accessesOnly' }, 'R/W only');
const gotoField = h('vscode-text-field', { id: 'goto', placeholder: '#', size: 8, 'aria-label': 'Go to event index' });
const countLabel = h('span', { class: 'muted', id: 'count', 'aria-live': 'polite' });
const failingBox = h('vscode-checkbox', { id: 'failingOnly', title: 'List only the failing runs in the run picker' }, 'failing runs only');
const runSortSelect = h('vscode-dropdown', { id: 'runSort', 'aria-label': 'Sort runs', title: 'Order of the run picker' }, h('vscode-option', { value: 'run' }, 'by run'), h('vscode-option', { value: 'failing' }, 'failing first'));
// "Go to" and its field stay together (no wrap between them)
const gotoGroup = h('span', { class: 'goto-group', id: 'gotoGroup' }, h('span', { class: 'muted' }, 'Go to'), gotoField);
const toolbar = h(
  'div',
  { class: 'toolbar', role: 'toolbar' },
  h('span', { class: 'run-group' }, runSelect, failingBox, runSortSelect),
  threadSelect,
  varField,
  searchField,
  accessesBox,
  h('span', { class: 'spacer' }),
  gotoGroup,
  countLabel,
);
/** failing runs: why the run failed and which thread, at the top */
const failureBar = h('div', { class: 'failure-bar', id: 'failureBar', role: 'status', hidden: true });

const patternBar = h('div', { class: 'pattern-bar', id: 'patternBar', hidden: true });
const header = h(
  'div',
  { class: 'row header', role: 'row' },
  ...['#', 'Thread', 'Kind', 'Variable', 'Value', 'Location', 'Statement', 'Method'].map((t) => h('span', { role: 'columnheader' }, t)),
);
const rowsEl = h('div', { class: 'rows' });
const viewport = h('div', { class: 'viewport', id: 'viewport', tabindex: 0, role: 'grid', 'aria-label': 'Trace events' }, rowsEl);
const scrollInner = h('div', { class: 'scroll-inner' });
const scrollbar = h('div', { class: 'scrollbar', id: 'scrollbar', 'aria-hidden': 'true' }, scrollInner);
const body = h('div', { class: 'body' }, viewport, scrollbar);
const status = h('div', { class: 'status muted', id: 'status' });
const main = h('main', { class: 'tracer' }, toolbar, failureBar, patternBar, h('div', { class: 'grid' }, header, body), status);
document.body.append(main);

// ---------------------------------------------------------------- state
let runs: RunDto[] = [];
let pattern: PatternDto | undefined;
let visibleRows = 20;
let maxTopCache = 0;
let firstPaintDone = false;

function total(): number {
  return pager.total ?? 0;
}
function maxTop(): number {
  return Math.max(0, total() - Math.max(1, visibleRows - 1));
}
function persist(): void {
  saveState(state);
}
const persistSoon = debounce(persist, 150);

// ---------------------------------------------------------------- rows (pooled)
interface RowEls {
  el: HTMLElement;
  idx: HTMLElement;
  thread: HTMLElement;
  tdot: HTMLElement;
  tname: HTMLElement;
  kind: HTMLElement;
  variable: HTMLElement;
  value: HTMLElement;
  loc: HTMLElement;
  stmt: HTMLElement;
  method: HTMLElement;
  pos: number;
}
const pool: RowEls[] = [];
function makeRow(): RowEls {
  const tdot = h('span', { class: 'tdot' });
  const tname = h('span', { class: 'tname' });
  const r: RowEls = {
    el: h('div', { class: 'row', role: 'row' }),
    idx: h('span', { class: 'idx mono', role: 'gridcell' }),
    thread: h('span', { class: 'thread', role: 'gridcell' }, tdot, tname),
    tdot,
    tname,
    kind: h('span', { class: 'kind', role: 'gridcell' }),
    variable: h('span', { class: 'var mono', role: 'gridcell' }),
    value: h('span', { class: 'val mono', role: 'gridcell' }),
    loc: h('span', { class: 'loc-cell mono', role: 'gridcell' }),
    stmt: h('span', { class: 'stmt mono', role: 'gridcell' }),
    method: h('span', { class: 'method mono', role: 'gridcell' }),
    pos: -1,
  };
  r.el.append(r.idx, r.thread, r.kind, r.variable, r.value, r.loc, r.stmt, r.method);
  rowsEl.append(r.el);
  return r;
}

function fmtValue(e: EventRow): string {
  // an object as `HashMap@1b6d3586` (its package in the tooltip): whole in the column (issue 30, point 4)
  if (e.value !== undefined) return shortValue(e.value);
  if (e.target !== undefined) {
    if (e.kind === 'ACQ' || e.kind === 'REL') return `lock #${e.target}`;
    if (e.kind === 'START' || e.kind === 'JOIN') return `thread #${e.target}`;
    return `#${e.target}`;
  }
  return '';
}

/** event index → access number (1-based) of the highlighted pattern's occurrence in this run */
let occurrence = new Map<number, number>();
/** which access of the highlighted pattern (1-based) this event is, or 0: by event, not by source line */
function patternMatch(e: EventRow): number {
  if (!pattern) return 0;
  return occurrence.get(e.i) ?? 0;
}

function fillRow(r: RowEls, pos: number): void {
  r.pos = pos;
  r.el.style.transform = `translateY(${(pos - state.top) * ROW_H}px)`;
  r.el.setAttribute('aria-rowindex', String(pos + 1));
  r.el.dataset.pos = String(pos);
  const e = pager.get(pos) as EventRow | undefined;
  r.el.classList.toggle('selected', state.selected === pos);
  r.el.setAttribute('aria-selected', state.selected === pos ? 'true' : 'false');
  if (!e) {
    r.el.className = 'row pending' + (state.selected === pos ? ' selected' : '');
    r.idx.textContent = '';
    r.tname.textContent = '';
    r.tdot.className = 'tdot';
    clear(r.kind);
    r.variable.textContent = '…';
    r.value.textContent = '';
    r.loc.textContent = '';
    r.stmt.textContent = '';
    r.method.textContent = '';
    delete r.el.dataset.i;
    return;
  }
  const m = patternMatch(e);
  r.el.className = `row ${threadColorClass(e.thread)}` + (state.selected === pos ? ' selected' : '') + (m ? ' hl' : '') + (e.kind === 'R' || e.kind === 'W' ? '' : ' other');
  r.el.dataset.i = String(e.i);
  r.idx.textContent = String(e.i);
  r.tdot.className = 'tdot';
  r.tname.textContent = e.threadName || `T${e.thread}`;
  r.thread.title = `${e.threadName || 'thread'} (#${e.thread})`;
  clear(r.kind);
  r.kind.append(chip(e.kind, m ? `#${m}` : undefined));
  r.kind.title = kindTitle(e.kind);
  r.variable.textContent = e.variable ? shortVariable(e.variable) : '';
  r.variable.title = e.variable ?? '';
  r.value.textContent = fmtValue(e);
  // the whole value in the tooltip: the object's full type name, the string as recorded
  r.value.title = e.value === undefined ? r.value.textContent : typeof e.value === 'string' ? e.value : shortValue(e.value, 2000);
  r.loc.textContent = e.file ? fileLine(e.file, e.line) : '';
  r.loc.title = e.file ? `${e.file}${e.line ? ':' + e.line : ''}` : '';
  r.loc.classList.toggle('link', !!e.file && !!e.line);
  r.stmt.textContent = e.statement ?? '';
  r.stmt.title = e.statement ?? '';
  if (e.statement) document.body.classList.add('has-statements');
  r.method.textContent = e.method ? shortMethod(e.method) : '';
  r.method.title = e.method ?? '';
}

// ---------------------------------------------------------------- render
let renderQueued = false;
function scheduleRender(): void {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

/** the scrollTop we last set ourselves: its scroll event is not a user scroll */
let syncedScrollTop = -1;
function syncScrollbar(): void {
  const t = total();
  const contentPx = Math.min(t * ROW_H, MAX_SCROLL_PX) + (viewport.clientHeight % ROW_H);
  scrollInner.style.height = `${Math.max(contentPx, scrollbar.clientHeight)}px`;
  const range = scrollInner.offsetHeight - scrollbar.clientHeight;
  const mt = maxTop();
  const want = mt > 0 ? Math.round((state.top / mt) * range) : 0;
  if (Math.abs(scrollbar.scrollTop - want) > 1) {
    scrollbar.scrollTop = want;
    syncedScrollTop = scrollbar.scrollTop;
  }
}

function render(): void {
  visibleRows = Math.max(1, Math.ceil(viewport.clientHeight / ROW_H));
  const t = total();
  maxTopCache = maxTop();
  // keep a restored position until the total is known
  if (pager.total !== undefined) state.top = Math.max(0, Math.min(state.top, maxTopCache));
  const first = state.top;
  const last = Math.min(t - 1, first + visibleRows);
  const n = t === 0 ? 0 : last - first + 1;
  while (pool.length < n) pool.push(makeRow());
  for (let k = 0; k < pool.length; k++) {
    const r = pool[k];
    if (k < n) {
      r.el.hidden = false;
      fillRow(r, first + k);
    } else {
      r.el.hidden = true;
      r.pos = -1;
    }
  }
  viewport.setAttribute('aria-rowcount', String(t));
  // the # column is as wide as the largest index shown (not a fixed 90 px)
  document.body.style.setProperty('--idx-w', `${Math.max(3, String(Math.max(0, t - 1)).length) + 1}ch`);
  fitDataColumns(pool.slice(0, n));
  if (pager.currentQuery) pager.want(first, Math.max(first, last));
  syncScrollbar();
  updateCount();
  if (!firstPaintDone && n > 0 && pool.slice(0, n).every((r) => r.el.dataset.i !== undefined)) {
    firstPaintDone = true;
    performance.mark('braid-tracer-first-rows');
  }
  document.body.dataset.rendered = `${first}:${n}:${pool.slice(0, n).filter((r) => r.el.dataset.i !== undefined).length}`;
}

/** the longest variable and value texts shown since the run or the filters changed (columns only grow meanwhile: no jitter) */
const widest = { variable: 0, value: 0, query: '' };
let monoCharPx = 0;
/**
 * The variable and value columns as wide as their longest text on screen (issue 30, point 4: names and
 * values whole, not `lang.Object[]…`), within a share of the panel so that location and method keep room.
 */
function fitDataColumns(rows: readonly RowEls[]): void {
  const query = JSON.stringify(pager.currentQuery ?? null);
  if (query !== widest.query) Object.assign(widest, { variable: 0, value: 0, query });
  for (const r of rows) {
    if (r.el.dataset.i === undefined) continue;
    widest.variable = Math.max(widest.variable, r.variable.textContent?.length ?? 0);
    widest.value = Math.max(widest.value, r.value.textContent?.length ?? 0);
  }
  if (!monoCharPx) {
    // CSSOM, not a style attribute (the CSP allows no inline style)
    const probe = h('span', { class: 'mono' }, '0'.repeat(20));
    Object.assign(probe.style, { position: 'absolute', visibility: 'hidden', whiteSpace: 'pre' });
    document.body.append(probe);
    monoCharPx = probe.getBoundingClientRect().width / 20;
    probe.remove();
    if (!monoCharPx) return;
  }
  // the row's width less what the other columns need at least (tracer.css: thread 120, kind 56, location 170,
  // statement 60 when shown (it gives way first), method 150, 7 gaps of 8, padding 22 and the scrollbar 14)
  const width = document.body.clientWidth;
  const idx = document.querySelector('.row.header > span')?.getBoundingClientRect().width ?? 50;
  const others = idx + 120 + 56 + 170 + (document.body.classList.contains('has-statements') ? 60 : 0) + 150 + 7 * 8 + 22 + 14;
  const fit = (chars: number, min: number, max: number) => Math.round(Math.max(min, Math.min(max, chars * monoCharPx + 4)));
  const variable = fit(widest.variable, 130, Math.max(130, Math.min(width * 0.3, width - others - 60)));
  const value = fit(widest.value, 60, Math.max(60, width - others - variable));
  document.body.style.setProperty('--var-w', `${variable}px`);
  document.body.style.setProperty('--val-w', `${value}px`);
}

function updateCount(): void {
  if (!pager.currentQuery) {
    countLabel.textContent = runs.length ? '' : 'no runs';
    return;
  }
  if (pager.total === undefined) {
    countLabel.textContent = pager.error ? '' : 'loading…';
  } else {
    const shown = pager.total === 0 ? 0 : state.top + 1;
    countLabel.textContent = `${shown.toLocaleString('en-US')}–${Math.min(pager.total, state.top + visibleRows).toLocaleString('en-US')} of ${pager.total.toLocaleString('en-US')} events`;
  }
  status.textContent = pager.error ? `Could not load events: ${pager.error}` : '';
  status.classList.toggle('error', !!pager.error);
}

pager.onUpdate = scheduleRender;

// ---------------------------------------------------------------- scrolling & keys
function scrollToTop(top: number): void {
  const clamped = Math.max(0, Math.min(Math.round(top), maxTop()));
  if (clamped !== state.top) {
    state.top = clamped;
    persistSoon();
  }
  scheduleRender();
}

/** scrolls so that row `pos` is visible (centred if far away) */
function reveal(pos: number, center = false): void {
  const vis = Math.max(1, visibleRows - 1);
  if (center || pos < state.top || pos >= state.top + vis) {
    scrollToTop(center ? pos - Math.floor(vis / 2) : pos < state.top ? pos : pos - vis + 1);
  }
}

function select(pos: number | null, doReveal = true): void {
  if (pos !== null) pos = Math.max(0, Math.min(pos, total() - 1));
  state.selected = pos;
  if (pos !== null && doReveal) reveal(pos);
  persistSoon();
  scheduleRender();
}

let wheelAcc = 0;
viewport.addEventListener(
  'wheel',
  (ev) => {
    ev.preventDefault();
    const px = ev.deltaMode === 1 ? ev.deltaY * ROW_H : ev.deltaMode === 2 ? ev.deltaY * viewport.clientHeight : ev.deltaY;
    wheelAcc += px / ROW_H;
    const rows = wheelAcc < 0 ? Math.ceil(wheelAcc) : Math.floor(wheelAcc);
    if (rows !== 0) {
      wheelAcc -= rows;
      scrollToTop(state.top + rows);
    }
  },
  { passive: false },
);

scrollbar.addEventListener('scroll', () => {
  if (Math.abs(scrollbar.scrollTop - syncedScrollTop) <= 1) return;
  syncedScrollTop = -1;
  const range = scrollInner.offsetHeight - scrollbar.clientHeight;
  if (range <= 0) return;
  const top = Math.round((scrollbar.scrollTop / range) * maxTop());
  if (top !== state.top) {
    state.top = top;
    persistSoon();
    scheduleRender();
  }
});

viewport.addEventListener('keydown', (ev) => {
  const t = total();
  if (!t) return;
  const cur = state.selected ?? state.top;
  const page = Math.max(1, visibleRows - 2);
  let next: number | undefined;
  switch (ev.key) {
    case 'ArrowDown': next = state.selected === null ? state.top : cur + 1; break;
    case 'ArrowUp': next = cur - 1; break;
    case 'PageDown': next = cur + page; break;
    case 'PageUp': next = cur - page; break;
    case 'Home': next = 0; break;
    case 'End': next = t - 1; break;
    case 'Enter':
    case ' ':
      if (state.selected !== null) openEvent(state.selected);
      ev.preventDefault();
      return;
    default:
      return;
  }
  ev.preventDefault();
  select(next);
});

viewport.addEventListener('click', (ev) => {
  const rowEl = (ev.target as Element).closest('.row') as HTMLElement | null;
  if (!rowEl || rowEl.dataset.pos === undefined) return;
  const pos = Number(rowEl.dataset.pos);
  select(pos, false);
  viewport.focus();
  if ((ev.target as Element).closest('.loc-cell') || ev.detail >= 2) openEvent(pos);
});

function openEvent(pos: number): void {
  const e = pager.get(pos);
  if (!e || !e.file || !e.line) return;
  post({ type: 'openLocation', file: e.file, line: e.line, ...(e.uri ? { uri: e.uri } : {}) });
}

new ResizeObserver(() => scheduleRender()).observe(viewport);

// ---------------------------------------------------------------- filters
function filtersActive(): boolean {
  return state.thread !== null || !!state.variable || !!state.search || state.accessesOnly;
}

function applyQuery(resetPosition: boolean): void {
  if (!state.run) {
    pager.setQuery({ run: '' });
    scheduleRender();
    return;
  }
  const q: PagerQuery = { run: state.run };
  if (state.thread !== null) q.threads = [state.thread];
  if (state.variable) q.variable = state.variable;
  if (state.search) q.search = state.search;
  if (state.accessesOnly) q.accessesOnly = true;
  if (pager.setQuery(q) && resetPosition) {
    state.top = 0;
    state.selected = null;
  }
  persist();
  scheduleRender();
}

const onFilterInput = debounce(() => {
  state.variable = valueOf(varField).trim();
  state.search = valueOf(searchField).trim();
  applyQuery(true);
}, 200);
varField.addEventListener('input', onFilterInput);
searchField.addEventListener('input', onFilterInput);
accessesBox.addEventListener('change', () => {
  state.accessesOnly = checkedOf(accessesBox);
  applyQuery(true);
});
threadSelect.addEventListener('change', () => {
  const v = valueOf(threadSelect);
  state.thread = v === '' || v === 'all' ? null : Number(v);
  applyQuery(true);
});
runSelect.addEventListener('change', () => {
  const v = valueOf(runSelect);
  if (v && v !== state.run) {
    state.run = v;
    state.thread = null;
    refreshThreadOptions();
    applyQuery(true);
    updateFailureBar();
    if (pattern) void locateOccurrence(false);
  }
});
failingBox.addEventListener('change', () => {
  state.failingOnly = checkedOf(failingBox);
  persist();
  refreshRunOptions();
});
runSortSelect.addEventListener('change', () => {
  state.runSort = valueOf(runSortSelect) === 'failing' ? 'failing' : 'run';
  persist();
  refreshRunOptions();
});

/** The failing thread's name: the trace's name for the failing thread id (same name as in every other view). */
function failingThreadName(r: RunDto): string | undefined {
  if (r.failingThread) return pager.threads.find((t) => t.id === r.failingThread!.id)?.name || r.failingThread.name;
  const m = /in thread (\d+)$/.exec(r.detail ?? '');
  return m ? pager.threads.find((t) => t.id === Number(m[1]))?.name : undefined;
}

let failureKey = '';
/** Failing run: "✗ exception — java.lang.… in thread copier" with buttons to show that thread and to go to the failure point. */
function updateFailureBar(): void {
  const r = runs.find((x) => x.execution === state.run);
  const name = r && r.outcome === 'fail' ? failingThreadName(r) : undefined;
  const key = JSON.stringify([r?.execution, r?.outcome, r?.detail, name, r?.failPoint, r?.failure]);
  if (key === failureKey) return;
  failureKey = key;
  clear(failureBar);
  failureBar.hidden = !r || r.outcome !== 'fail';
  if (!r || r.outcome !== 'fail') return;
  const tid = r.failingThread?.id ?? Number(/in thread (\d+)$/.exec(r.detail ?? '')?.[1] ?? NaN);
  // the failure as the program reported it (the assertion or exception message and its line), else the runner's detail
  const f = r.failure;
  const reason = FAILURE_REASON_WORDS[f?.reason ?? r.reason ?? ''] ?? f?.reason ?? r.reason ?? 'failure';
  const message = f?.message ? shortFailureMessage(f.message) : r.detail ? (name ? r.detail.replace(/in thread \d+$/, `in thread ${name}`) : r.detail) : undefined;
  const loc = f?.location;
  let where: HTMLElement | null = null;
  if (loc) {
    where = h('span', { class: 'fail-location' }, 'at ', locationButton(loc.file, loc.line));
    where.title = `${loc.file}:${loc.line}${loc.method ? ` in ${loc.method}` : ''}`;
    where.querySelector('button')!.addEventListener('click', () => post({ type: 'openLocation', file: loc.file, line: loc.line, ...(loc.uri ? { uri: loc.uri } : {}) }));
  }
  appendAll(failureBar, [
    h('span', { class: 'fail-mark', 'aria-hidden': 'true' }, '✗'),
    h('strong', null, `Failed: ${reason}`),
    message ? h('span', { class: 'mono fail-detail', title: f?.message ?? r.detail ?? '' }, message) : null,
    where,
    name ? h('span', { class: 'fail-thread' }, 'failing thread: ', h('strong', { class: 'mono' }, name)) : null,
  ]);
  if (Number.isInteger(tid)) {
    const b = h('vscode-button', { appearance: 'secondary', id: 'showFailingThread', title: 'Show only the failing thread' }, `Only ${name ?? '#' + tid}`);
    b.addEventListener('click', () => {
      state.thread = tid;
      threadsKey = '';
      refreshThreadOptions();
      applyQuery(true);
    });
    failureBar.append(b);
  }
  if (r.failPoint !== undefined) {
    const fp = r.failPoint;
    const b = h('vscode-button', { appearance: 'secondary', id: 'gotoFailure', title: `Go to event #${fp}` }, 'Go to failure point');
    b.addEventListener('click', () => void jumpToEvent(fp));
    failureBar.append(b);
  }
}
gotoField.addEventListener('keydown', (ev) => {
  if ((ev as KeyboardEvent).key !== 'Enter') return;
  const n = Number(valueOf(gotoField).trim());
  if (Number.isInteger(n) && n >= 0) void jumpToEvent(n);
});

/** Unfiltered, position == event index; with filters active they are cleared first. */
async function jumpToEvent(i: number): Promise<void> {
  if (filtersActive()) {
    state.thread = null;
    state.variable = '';
    state.search = '';
    state.accessesOnly = false;
    syncControls();
    applyQuery(false);
    status.textContent = `Filters cleared to show event #${i}.`;
  }
  await waitForTotal();
  if (i >= total()) return;
  select(i, false);
  reveal(i, true);
  viewport.focus();
}

function waitForTotal(): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (pager.total !== undefined || pager.error) resolve();
      else setTimeout(check, 16);
    };
    pager.want(0, 0);
    check();
  });
}

// ---------------------------------------------------------------- toolbar contents
function option(value: string, label: string, selected: boolean): HTMLElement {
  return h('vscode-option', { value, selected: selected || null }, label);
}

/** The run picker's runs: failing only and failing first when asked (the shown run always stays listed). */
function pickerRuns(all: RunDto[], failingOnly: boolean, sort: 'run' | 'failing', current?: string): RunDto[] {
  const shown = all.filter((r) => !failingOnly || r.outcome === 'fail' || r.execution === current);
  return sort === 'failing' ? [...shown.filter((r) => r.outcome === 'fail'), ...shown.filter((r) => r.outcome !== 'fail')] : shown;
}

function refreshRunOptions(): void {
  clear(runSelect);
  if (!runs.length) {
    runSelect.append(option('', 'no runs', true));
    return;
  }
  for (const r of pickerRuns(runs, !!state.failingOnly, state.runSort ?? 'run', state.run)) {
    const o = option(r.execution, `${runLabel(r, runs)} · ${r.events.toLocaleString('en-US')} events`, r.execution === state.run);
    o.title = `${r.execution}${r.detail ? ` — ${r.detail}` : ''}`;
    runSelect.append(o);
  }
  updateFailureBar();
  const want = state.run ?? '';
  (runSelect as unknown as { value: string }).value = want;
  // the toolkit dropdown processes new options asynchronously and may fall back to the first
  // one; select the current run again once it has (otherwise the selector can show the wrong run)
  requestAnimationFrame(() => {
    const sel = runSelect as unknown as { value: string };
    if (state.run === want && sel.value !== want) sel.value = want;
  });
}

let threadsKey = '';
function refreshThreadOptions(): void {
  const threads = pager.threads;
  const key = JSON.stringify([state.run, threads, state.thread]);
  if (key === threadsKey) return;
  threadsKey = key;
  clear(threadSelect);
  threadSelect.append(option('all', 'All threads', state.thread === null));
  for (const t of threads) threadSelect.append(option(String(t.id), `${t.name || 'T' + t.id} (#${t.id})`, state.thread === t.id));
  updateFailureBar();
  if (state.thread !== null && !threads.some((t) => t.id === state.thread)) {
    threadSelect.append(option(String(state.thread), `#${state.thread}`, true));
  }
  const want = state.thread === null ? 'all' : String(state.thread);
  (threadSelect as unknown as { value: string }).value = want;
  // as for the run selector: the toolkit may fall back to the first option after processing new ones
  requestAnimationFrame(() => {
    const sel = threadSelect as unknown as { value: string };
    if ((state.thread === null ? 'all' : String(state.thread)) === want && sel.value !== want) sel.value = want;
  });
}

function syncControls(): void {
  (failingBox as unknown as { checked: boolean }).checked = !!state.failingOnly;
  (runSortSelect as unknown as { value: string }).value = state.runSort ?? 'run';
  (varField as unknown as { value: string }).value = state.variable;
  (searchField as unknown as { value: string }).value = state.search;
  (accessesBox as unknown as { checked: boolean }).checked = state.accessesOnly;
  threadsKey = '';
  refreshThreadOptions();
}

const prevUpdate = pager.onUpdate;
pager.onUpdate = () => {
  refreshThreadOptions();
  prevUpdate();
};

// ---------------------------------------------------------------- pattern highlight
/** one per loadPattern call: a reply for an older pattern (a second pattern sent while the first loads) is dropped */
let patternGeneration = 0;
async function loadPattern(key: string | undefined, jump = true): Promise<void> {
  const generation = ++patternGeneration;
  pattern = undefined;
  occurrence = new Map();
  occurrenceEvents = undefined;
  clear(patternBar);
  patternBar.hidden = true;
  state.highlightPatternKey = key;
  persist();
  if (!key) {
    scheduleRender();
    return;
  }
  let res: PatternsResult;
  try {
    res = await request<PatternsResult>('patterns', {});
  } catch {
    return;
  }
  // a newer pattern (or none) was asked for meanwhile: its call owns the bar, so one banner only (issue 30, point 4)
  if (generation !== patternGeneration) return;
  clear(patternBar);
  pattern = res.patterns.find((p) => p.key === key);
  if (!pattern) {
    patternBar.hidden = false;
    patternBar.append(h('span', { class: 'muted' }, 'The highlighted pattern is no longer in the results.'));
    return;
  }
  const p = pattern;
  patternBar.hidden = false;
  const legend = threadLegend(p.accesses);
  const names = roleNames(p.accesses);
  const accessButtons = p.accesses.map((a, k) => {
    const b = h(
      'button',
      { class: 'pb-access', type: 'button', title: `${names.get(a.thread) ?? 'T' + a.thread} ${a.type === 'W' ? 'writes' : 'reads'} ${a.variable} at ${a.file}:${a.line} — go to this access of the occurrence` },
      chip(a.type, `#${k + 1}`),
      h('span', { class: 'mono' }, ` ${names.get(a.thread) ?? 'T' + a.thread} ${shortVariable(a.variable)} `),
      h('span', { class: 'muted mono' }, fileLine(a.file, a.line)),
    );
    b.addEventListener('click', () => void goToAccess(k));
    return b;
  });
  occurrenceInfo.textContent = '';
  const next = h('vscode-button', { appearance: 'secondary', id: 'nextOccurrence', title: 'The next occurrence of the pattern in this run' }, 'Next occurrence');
  next.addEventListener('click', () => void locateOccurrence(true, true));
  appendAll(patternBar, [
    // what the threads did, in words (issue 30, point 6); the thesis' names after it, as details
    h('span', { class: 'pb-title', title: `rank ${p.rank} · ${p.id} ${p.kind}${p.category ? ` (${p.category} pattern)` : ''}` }, `#${p.rank} `, ...sentenceParts(patternSentence(p.accesses))),
    h('span', { class: 'muted mono pb-id' }, `${p.id} ${p.kind}`),
    legend ? h('span', { class: 'muted' }, legend) : null,
    ...accessButtons,
    next,
    occurrenceInfo,
    (() => {
      const c = h('vscode-button', { appearance: 'icon', 'aria-label': 'Clear highlight', title: 'Clear highlight' }, '✕');
      c.addEventListener('click', () => void loadPattern(undefined));
      return c;
    })(),
  ]);
  scheduleRender();
  await locateOccurrence(jump);
}

/** A patternSentence as text and `code` spans (its only markup): names in the monospace font, nothing parsed as HTML. */
function sentenceParts(sentence: string): (string | HTMLElement)[] {
  const parts = sentence.split('`');
  if (parts.length % 2 === 0) return [sentence.replace(/`/g, '')];
  return parts.map((t, k) => (k % 2 === 1 ? h('span', { class: 'mono' }, t) : t)).filter((x) => x !== '');
}

/** which events the highlighted occurrence is (the status line is the pager's) */
const occurrenceInfo = h('span', { class: 'muted mono', id: 'occurrence', 'aria-live': 'polite' });
/** the current occurrence: event index of each access */
let occurrenceEvents: number[] | undefined;
/** the pattern's variables' accesses in the current run (fetched once per run and pattern) */
let occurrenceSource: { key: string; events: OccurrenceEvent[] } | undefined;

async function patternEvents(p: PatternDto, run: string): Promise<OccurrenceEvent[] | undefined> {
  const key = JSON.stringify([run, p.key]);
  if (occurrenceSource?.key === key) return occurrenceSource.events;
  const out = new Map<number, OccurrenceEvent>();
  const limit = 2000;
  for (const v of new Set(p.accesses.map((a) => a.variable))) {
    for (let offset = 0, pages = 0; pages < 100; pages++) {
      let r: TraceEventsResult;
      try {
        r = await fetchEvents({ run, offset, limit, variable: v, accessesOnly: true });
      } catch (e) {
        status.textContent = `Search failed: ${e instanceof Error ? e.message : String(e)}`;
        return undefined;
      }
      for (const e of r.events) if (e.variable === v) out.set(e.i, e);
      offset += r.events.length;
      if (r.events.length < limit || offset >= r.total) break;
    }
  }
  const events = [...out.values()].sort((x, y) => x.i - y.i);
  occurrenceSource = { key, events };
  return events;
}

/** Finds the pattern's (next) occurrence in this run and highlights its events; `jump` reveals its interleaving access. */
async function locateOccurrence(jump: boolean, next = false): Promise<void> {
  const p = pattern;
  const run = state.run;
  if (!p || !run) return;
  occurrenceInfo.textContent = 'looking for it in this run…';
  const events = await patternEvents(p, run);
  if (pattern !== p || state.run !== run || !events) return;
  const after = next && occurrenceEvents ? occurrenceEvents[0] : -1;
  const found = findOccurrence(events, p.accesses, after);
  if (!found) {
    occurrenceInfo.textContent = next ? 'no later occurrence in this run' : 'the pattern does not occur in this run';
    if (!next) {
      occurrence = new Map();
      occurrenceEvents = undefined;
      scheduleRender();
    }
    return;
  }
  occurrenceEvents = found;
  occurrence = new Map(found.map((i, k) => [i, k + 1]));
  occurrenceInfo.textContent = `occurrence: events ${found.map((i) => '#' + i).join(', ')}`;
  scheduleRender();
  // reveal the interleaving access (the middle one, from the other thread) first
  if (jump || next) await jumpToEvent(found[Math.min(1, found.length - 1)]);
}

async function goToAccess(k: number): Promise<void> {
  if (!occurrenceEvents) await locateOccurrence(false);
  const i = occurrenceEvents?.[k];
  if (i !== undefined) await jumpToEvent(i);
}

// ---------------------------------------------------------------- host messages & startup
onMessage((m) => {
  switch (m.type) {
    case 'events': {
      const p = pendingEvents.get(m.requestId);
      if (!p) return;
      pendingEvents.delete(m.requestId);
      if (m.error !== undefined || !m.result) p.reject(new Error(m.error ?? 'no result'));
      else p.resolve(m.result);
      return;
    }
    case 'showRun':
      if (typeof m.run === 'string' && m.run && m.run !== state.run) {
        // a trace file (Reproduce): the run with that file, when the list has it (else the server opens the file)
        state.run = runs.find((r) => r.file === m.run || r.uri === m.run)?.execution ?? m.run;
        state.thread = null;
        state.variable = '';
        state.search = '';
        state.accessesOnly = false;
        syncControls();
        refreshRunOptions();
        applyQuery(true);
      }
      if (m.highlightPatternKey !== undefined || m.run) void loadPattern(typeof m.highlightPatternKey === 'string' ? m.highlightPatternKey : undefined);
      return;
    case 'changed':
      void loadRuns(true);
      return;
  }
});

async function loadRuns(changed: boolean): Promise<void> {
  try {
    const r = await request<RunsResult>('runs');
    // the analyzed runs, then the forced failing runs of Confirm by Forcing (Reproduce opens one)
    runs = [...(Array.isArray(r.runs) ? r.runs : []), ...(Array.isArray(r.forced) ? r.forced : [])];
  } catch (e) {
    status.textContent = `Could not load runs: ${e instanceof Error ? e.message : String(e)}`;
    status.classList.add('error');
    runs = [];
  }
  // a run asked for by its trace file (Reproduce sends the forced run's file): its execution id
  const byFile = state.run ? runs.find((r) => r.file === state.run || r.uri === state.run) : undefined;
  if (byFile) state.run = byFile.execution;
  if (!state.run || !runs.some((r) => r.execution === state.run)) {
    state.run = (runs.find((r) => r.outcome === 'fail') ?? runs[0])?.execution;
    state.top = 0;
    state.selected = null;
  }
  refreshRunOptions();
  if (changed) pager.setQuery({ run: '' });
  applyQuery(false);
}

syncControls();
void loadRuns(false).then(() => {
  if (state.highlightPatternKey) void loadPattern(state.highlightPatternKey, false);
});
post({ type: 'ready' });
