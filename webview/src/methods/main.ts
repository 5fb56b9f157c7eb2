/**
 * Method Ranking comparison (docs/callgraph.md): GRIFFIN's suspicious method of each thread of
 * each bug next to its rank in the call-graph method ranking (seed 003), and the call-graph top
 * methods with their score bar, the edge that gave the score, the runs, and whether GRIFFIN names
 * them too. Every method and file opens its source line. All trace strings go through textContent.
 */
import '../common/base.css';
import './methods.css';
import type { MethodsResult, MethodDto, GriffinMethodComparisonDto } from '../../../server/src/lsp/protocol';
import { h, clear, fmtScore, locationButton } from '../common/dom';
import { post, onMessage, request } from '../common/vscode';
import { registerToolkit } from '../common/toolkit';
import { shortMethod } from '../../../server/src/engine/displayNames';

registerToolkit();

/** call-graph methods listed */
const TOP = 30;

const summary = h('span', { class: 'muted', id: 'summary', 'aria-live': 'polite' });
const body = h('div', { class: 'cards', id: 'body' });
document.body.append(h('div', { class: 'toolbar', role: 'toolbar' }, h('strong', null, 'Suspicious methods: call graph vs GRIFFIN'), h('span', { class: 'spacer' }), summary), body);

let result: MethodsResult | undefined;
let message = '';

function str(x: unknown): string {
  return typeof x === 'string' ? x : x === undefined || x === null ? '' : String(x);
}
function num(x: unknown, d = 0): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : d;
}
/** `MyVector.toArray`, `VectorCopy.lambda in main`: the names of the tree views (engine/displayNames.ts); the full one in the title */
function short(m: string): string {
  return shortMethod(m);
}

function openButton(file: string, line: number, method: string, uri?: string): HTMLElement {
  const label = short(method);
  if (!file || !line) return h('span', { class: 'mono', title: method }, label);
  const b = locationButton(file, line, label);
  b.title = `${method} — ${file}:${line}`;
  b.addEventListener('click', () => post({ type: 'openLocation', file, line, ...(uri ? { uri } : {}) }));
  return b;
}

function scoreBar(score: number): HTMLElement {
  const pct = Math.max(0, Math.min(100, Math.round(score * 100)));
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${pct}%`;
  return h('span', { class: 'bar', title: `InfoGain ${fmtScore(score)}` }, fill);
}

function griffinTable(rows: GriffinMethodComparisonDto[]): HTMLElement {
  if (!rows.length) return h('p', { class: 'muted empty-griffin' }, 'GRIFFIN found no bug (no failing runs, or no pattern explains them).');
  return h(
    'table',
    { class: 'grid griffin' },
    h('thead', null, h('tr', null, h('th', null, 'bug'), h('th', null, 'thread'), h('th', null, 'method'), h('th', null, 'call-graph rank'), h('th', null, 'score'))),
    h(
      'tbody',
      null,
      rows.map((g) =>
        h(
          'tr',
          { 'data-method': str(g.method) },
          h('td', { class: 'num' }, String(num(g.bug))),
          // the thread by its name, as in the Bugs tree (`copier`), else its role in the bug
          h('td', null, typeof g.threadName === 'string' && g.threadName ? h('span', { class: 'mono', title: `thread T${num(g.thread)} of bug ${num(g.bug)}` }, g.threadName) : `T${num(g.thread)}`),
          h('td', null, openButton(str(g.file), num(g.line), str(g.method), g.uri)),
          h('td', { class: 'num cg-rank' }, g.callGraphRank === undefined ? '—' : `#${num(g.callGraphRank)}`),
          h('td', { class: 'num' }, g.callGraphScore === undefined ? '—' : fmtScore(num(g.callGraphScore))),
        ),
      ),
    ),
  );
}

function methodsTable(methods: MethodDto[], griffinNames: Set<string>): HTMLElement {
  return h(
    'table',
    { class: 'grid methods' },
    h(
      'thead',
      null,
      h('tr', null, h('th', null, 'rank'), h('th', null, 'score'), h('th', null, 'method'), h('th', null, 'edge'), h('th', null, 'failed / passed runs'), h('th', null, 'GRIFFIN')),
    ),
    h(
      'tbody',
      null,
      methods.map((m) => {
        const e = m.edge;
        const edge = e
          ? h('span', { class: 'edge', title: `${str(e.text)}: ${num(e.meanFailed).toFixed(2)} per failed vs ${num(e.meanPassed).toFixed(2)} per passed run` }, h('span', { class: `kind kind-${str(e.kind)}` }, str(e.kind)), ` → ${short(str(e.target))}`)
          : h('span', { class: 'muted' }, 'calls nothing');
        return h(
          'tr',
          { 'data-rank': String(num(m.rank)), class: griffinNames.has(m.method) ? 'both' : null },
          h('td', { class: 'num rank' }, `#${num(m.rank)}`),
          h('td', { class: 'num' }, scoreBar(num(m.score)), ' ', fmtScore(num(m.score))),
          h('td', null, openButton(str(m.file), num(m.line), str(m.method), m.uri)),
          h('td', null, edge),
          h('td', { class: 'num' }, `${num(m.runs?.failed)} / ${num(m.runs?.passed)}`),
          h('td', null, griffinNames.has(m.method) ? h('span', { class: 'badge both-badge' }, 'yes') : ''),
        );
      }),
    ),
  );
}

function render(): void {
  clear(body);
  if (!result) {
    body.append(h('p', { class: 'empty muted' }, message || 'Loading…'));
    return;
  }
  const ex = result.executions;
  summary.textContent = `${num(ex.total)} runs (${num(ex.failed)} failed) · ${str(result.representation)} graph · ${num(result.total)} methods`;
  if (!result.methods.length) {
    body.append(h('p', { class: 'empty muted' }, str(result.message) || 'No methods.'));
    return;
  }
  const griffinNames = new Set(result.griffin.map((g) => str(g.method)));
  if (result.message) body.append(h('p', { class: 'muted note' }, str(result.message)));
  body.append(
    h('section', { class: 'card' }, h('h3', null, "GRIFFIN's suspicious methods and their call-graph rank"), griffinTable(result.griffin)),
    h('section', { class: 'card' }, h('h3', null, `Call-graph ranking (top ${Math.min(TOP, result.methods.length)} of ${num(result.total)})`), methodsTable(result.methods.slice(0, TOP), griffinNames)),
  );
}

async function load(): Promise<void> {
  try {
    result = await request<MethodsResult>('methods', {});
    message = '';
  } catch (e) {
    result = undefined;
    message = `Could not rank methods: ${(e as Error).message}`;
  }
  render();
}

onMessage((m) => {
  if (m.type === 'changed') void load();
});
render();
post({ type: 'ready' });
void load();
