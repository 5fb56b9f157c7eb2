/**
 * Bug graph (d3): lanes per thread role, call-stack boxes with dashed access
 * boxes, edges across lanes labelled with the patterns they realise; zoom and
 * pan; click (or Enter on) a method → jump to the method, an access → its
 * line; export the picture as a standalone SVG.
 */
import '../common/base.css';
import './bugGraph.css';
import * as d3 from 'd3';
import type { BugsResult, PatternsResult } from '../../../server/src/lsp/protocol';
import { h, clear, basename } from '../common/dom';
import { post, loadState, saveState, onMessage, request } from '../common/vscode';
import { registerToolkit, valueOf } from '../common/toolkit';
import { normalizeBugGraph, normalizeBugs, BugGraphView, BugView, FrameView, GraphAccessView } from '../common/model';
import { layoutGraph, GraphLayout, shortMethod, shortVariable, truncate } from './layout';

registerToolkit();

interface GraphState {
  bug?: number;
  transform?: { x: number; y: number; k: number };
  /** the view is as fit() left it (no zoom or pan since): re-fitted on resize */
  fitted?: boolean;
}
const state = loadState<GraphState>({});

const bugSelect = h('vscode-dropdown', { id: 'bug', 'aria-label': 'Bug' });
const btn = (id: string, label: string, title: string, appearance = 'secondary'): HTMLElement => h('vscode-button', { id, appearance, title, 'aria-label': title }, label);
const fitBtn = btn('fit', 'Fit', 'Fit to view (0)');
const zoomIn = btn('zoomIn', '+', 'Zoom in (+)');
const zoomOut = btn('zoomOut', '−', 'Zoom out (−)');
const exportBtn = btn('export', 'Export SVG', 'Export the graph as SVG', 'primary');
const info = h('span', { class: 'muted', id: 'info', 'aria-live': 'polite' });
const legend = h('span', { class: 'legend muted' }, 'solid box = method on the call stack · dashed box = memory access · arrows = orderings, labelled with patterns');
const container = h('div', { class: 'graph', id: 'graph' });
document.body.append(h('div', { class: 'toolbar', role: 'toolbar' }, h('span', { class: 'muted' }, 'Bug'), bugSelect, fitBtn, zoomIn, zoomOut, exportBtn, h('span', { class: 'spacer' }), info), h('div', { class: 'legend-row' }, legend), container);

const svg = d3
  .select(container)
  .append('svg')
  .attr('id', 'bug-graph-svg')
  .attr('role', 'group')
  .attr('aria-label', 'Bug graph')
  .attr('tabindex', 0)
  .attr('xmlns', 'http://www.w3.org/2000/svg');
const defs = svg.append('defs');
defs
  .append('marker')
  .attr('id', 'arrow')
  .attr('viewBox', '0 0 10 10')
  .attr('refX', 9)
  .attr('refY', 5)
  .attr('markerWidth', 8)
  .attr('markerHeight', 8)
  .attr('orient', 'auto-start-reverse')
  .append('path')
  .attr('class', 'arrowhead')
  .attr('d', 'M0,0 L10,5 L0,10 z');
const root = svg.append('g').attr('class', 'root');

let current: BugGraphView | undefined;
let layout: GraphLayout | undefined;
let bugs: BugView[] = [];

const zoom = d3
  .zoom<SVGSVGElement, unknown>()
  .scaleExtent([0.1, 4])
  .on('zoom', (ev: d3.D3ZoomEvent<SVGSVGElement, unknown>) => {
    root.attr('transform', ev.transform.toString());
    state.transform = { x: ev.transform.x, y: ev.transform.y, k: ev.transform.k };
    // a wheel or drag by the user: keep the user's view when the panel is resized
    if (ev.sourceEvent) state.fitted = false;
    saveStateSoon();
  });
svg.call(zoom).on('dblclick.zoom', null);

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveStateSoon(): void {
  if (saveTimer) clearTimeout(saveTimer);
  saveTimer = setTimeout(() => saveState(state), 150);
}

function openFrame(f: FrameView): void {
  if (f.file && f.line) post({ type: 'openLocation', file: f.file, line: f.line, ...(f.uri ? { uri: f.uri } : {}) });
}
function openAccess(a: GraphAccessView): void {
  if (a.file && a.line) post({ type: 'openLocation', file: a.file, line: a.line, ...(a.uri ? { uri: a.uri } : {}) });
}

/** makes an SVG group behave like a button: focusable, Enter/Space activate */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function activatable<D>(sel: d3.Selection<any, D, any, any>, label: (d: D) => string, act: (d: D) => void): void {
  sel
    .attr('tabindex', 0)
    .attr('role', 'button')
    .attr('aria-label', label)
    .on('click', (ev: Event, d: D) => {
      ev.stopPropagation();
      act(d);
    })
    .on('keydown', (ev: Event, d: D) => {
      const k = (ev as KeyboardEvent).key;
      if (k === 'Enter' || k === ' ') {
        ev.preventDefault();
        ev.stopPropagation();
        act(d);
      }
    });
}

/**
 * Sets an SVG text to `full`, shortened with … only if it is wider than `maxPx` (measured, not guessed),
 * so distinguishing names stay whole whenever they fit. The full text is in the box's tooltip.
 */
function fitText(el: SVGTextElement, full: string, maxPx: number): void {
  el.textContent = full;
  if (maxPx <= 0 || el.getComputedTextLength() <= maxPx) return;
  let lo = 1;
  let hi = full.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    el.textContent = full.slice(0, mid) + '…';
    if (el.getComputedTextLength() <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  el.textContent = full.slice(0, lo) + '…';
}

/** Shortens the location on the right (file:line → :line) before the name on the left is cut. */
function fitPair(name: SVGTextElement, fullName: string, loc: SVGTextElement, fullLoc: string, width: number): void {
  loc.textContent = fullLoc;
  name.textContent = fullName;
  const room = () => width - loc.getComputedTextLength() - 12;
  if (fullLoc && name.getComputedTextLength() > room()) loc.textContent = fullLoc.replace(/^.*(:\d+)$/, '$1');
  fitText(name, fullName, room());
}

function draw(g: BugGraphView): void {
  current = g;
  const hc = document.body.classList.contains('vscode-high-contrast');
  layout = layoutGraph(g, hc ? { labelCharW: 8, labelH: 22 } : {});
  root.selectAll('*').remove();
  const L = layout;
  const laneG = root.append('g').attr('class', 'lanes');
  const lane = laneG.selectAll('g.lane').data(L.lanes).join('g').attr('class', (_d, i) => `lane lane-${i % 10}`);
  lane
    .append('line')
    .attr('class', 'lane-line')
    .attr('x1', (d) => d.x + d.w / 2)
    .attr('x2', (d) => d.x + d.w / 2)
    .attr('y1', 40)
    .attr('y2', L.height);
  lane
    .append('rect')
    .attr('class', 'lane-head')
    .attr('x', (d) => d.x)
    .attr('y', 8)
    .attr('width', (d) => d.w)
    .attr('height', 28)
    .attr('rx', 4);
  lane
    .append('text')
    .attr('class', 'lane-label')
    .attr('x', (d) => d.x + d.w / 2)
    .attr('y', 27)
    .attr('text-anchor', 'middle')
    .text((d) => truncate(d.label, 48));
  lane.append('title').text((d) => d.label);

  const nodeG = root.append('g').attr('class', 'nodes');
  const node = nodeG
    .selectAll('g.node')
    .data(L.nodes)
    .join('g')
    .attr('class', (d) => `node lane-${d.laneIndex % 10}`)
    .attr('data-id', (d) => d.node.id);

  const frame = node
    .selectAll('g.frame')
    .data((d) => d.frames)
    .join('g')
    .attr('class', (d) => `frame${d.top ? ' suspicious' : ''}`)
    .attr('data-method', (d) => d.frame.method);
  frame
    .append('rect')
    .attr('x', (d) => d.x)
    .attr('y', (d) => d.y)
    .attr('width', (d) => d.w)
    .attr('height', (d) => d.h)
    .attr('rx', 3);
  frame
    .append('text')
    .attr('class', 'frame-label')
    .attr('x', (d) => d.x + 8)
    .attr('y', (d) => d.y + 15);
  frame
    .append('text')
    .attr('class', 'frame-loc')
    .attr('x', (d) => d.x + d.w - 8)
    .attr('y', (d) => d.y + 15)
    .attr('text-anchor', 'end');
  frame.each(function (d) {
    const g = d3.select(this);
    fitPair(g.select<SVGTextElement>('.frame-label').node()!, shortMethod(d.frame.method), g.select<SVGTextElement>('.frame-loc').node()!, d.frame.file ? `${basename(d.frame.file)}${d.frame.line ? ':' + d.frame.line : ''}` : '', d.w - 16);
  });
  frame.append('title').text((d) => `${d.frame.method}${d.frame.file ? `\n${d.frame.file}${d.frame.line ? ':' + d.frame.line : ''}` : ''}${d.top ? `\nsuspicious method of ${layout?.lanes[d.laneIndex]?.label ?? 'this thread'} (GRIFFIN); the boxes inside hold the accesses` : ''}`);
  activatable(frame, (d) => `method ${d.frame.method}${d.top ? ', suspicious' : ''}`, (d) => openFrame(d.frame));

  const acc = node
    .selectAll('g.access')
    .data((d) => d.accesses)
    .join('g')
    .attr('class', (d) => `access access-${/^[RW]$/.test(d.access.type) ? d.access.type : 'X'}`)
    .attr('data-access', (d) => d.access.id);
  acc
    .append('rect')
    .attr('class', 'access-box')
    .attr('x', (d) => d.x)
    .attr('y', (d) => d.y)
    .attr('width', (d) => d.w)
    .attr('height', (d) => d.h)
    .attr('rx', 3);
  acc
    .append('rect')
    .attr('class', 'access-chip')
    .attr('x', (d) => d.x + 4)
    .attr('y', (d) => d.y + 4)
    .attr('width', 20)
    .attr('height', (d) => d.h - 8)
    .attr('rx', 2);
  acc
    .append('text')
    .attr('class', 'access-kind')
    .attr('x', (d) => d.x + 14)
    .attr('y', (d) => d.y + d.h / 2 + 4.5)
    .attr('text-anchor', 'middle')
    .text((d) => truncate(d.access.type, 2));
  acc
    .append('text')
    .attr('class', 'access-var')
    .attr('x', (d) => d.x + 32)
    .attr('y', (d) => d.y + d.h / 2 + 4.5);
  acc
    .append('text')
    .attr('class', 'access-loc')
    .attr('x', (d) => d.x + d.w - 8)
    .attr('y', (d) => d.y + d.h / 2 + 4.5)
    .attr('text-anchor', 'end');
  acc.each(function (d) {
    const g = d3.select(this);
    fitPair(g.select<SVGTextElement>('.access-var').node()!, shortVariable(d.access.variable), g.select<SVGTextElement>('.access-loc').node()!, `${basename(d.access.file)}:${d.access.line}`, d.w - 40);
  });
  acc.append('title').text((d) => `${d.access.type === 'W' ? 'write' : d.access.type === 'R' ? 'read' : d.access.type} ${d.access.variable}\n${d.access.file}:${d.access.line}${d.access.method ? `\nin ${shortMethod(d.access.method)} (${d.access.method})` : ''}${d.access.frames && d.access.frames.length ? '\nvia ' + d.access.frames.map((f) => shortMethod(f.method)).join(' → ') : ''}`);
  activatable(acc, (d) => `${d.access.type === 'W' ? 'write' : 'read'} ${d.access.variable} at ${basename(d.access.file)} line ${d.access.line}`, (d) => openAccess(d.access));

  const edgeG = root.append('g').attr('class', 'edges');
  const edge = edgeG.selectAll('g.edge').data(L.edges).join('g').attr('class', 'edge').attr('data-edge', (d) => d.id);
  edge.append('path').attr('class', 'edge-path').attr('d', (d) => d.path).attr('marker-end', 'url(#arrow)');
  const lbl = edge.append('g').attr('class', 'edge-label');
  lbl
    .append('text')
    .attr('x', (d) => d.labelX)
    .attr('y', (d) => d.labelY + 4)
    .attr('text-anchor', 'middle')
    .text((d) => truncate(d.label, 40));
  // background behind each label, sized to its text
  lbl.each(function () {
    const g = d3.select(this);
    const t = g.select<SVGTextElement>('text').node();
    if (!t) return;
    let bb: DOMRect;
    try {
      bb = t.getBBox();
    } catch {
      return;
    }
    g.insert('rect', 'text')
      .attr('class', 'edge-label-bg')
      .attr('x', bb.x - 5)
      .attr('y', bb.y - 2)
      .attr('width', bb.width + 10)
      .attr('height', bb.height + 4)
      .attr('rx', 8);
  });
  edge.append('title').text((d) => `ordering, patterns: ${d.patterns.join(', ') || d.label}`);

  info.textContent = `${g.lanes.length} thread roles · ${g.nodes.length} nodes · ${g.edges.length} orderings`;
  if (!g.nodes.length) {
    root
      .append('text')
      .attr('class', 'empty-text')
      .attr('x', 24)
      .attr('y', 80)
      .text('This bug has no graph.');
  }
}

function fit(animate = false): void {
  if (!layout) return;
  state.fitted = true;
  const w = container.clientWidth || 800;
  const hgt = container.clientHeight || 600;
  const k = Math.max(0.1, Math.min(1.25, (w - 20) / layout.width, (hgt - 20) / layout.height));
  const x = (w - layout.width * k) / 2;
  const y = Math.max(10, (hgt - layout.height * k) / 2);
  const t = d3.zoomIdentity.translate(x, y).scale(k);
  (animate ? svg.transition().duration(250) : svg).call(zoom.transform as never, t);
}

// --------------------------------------------------------------- export
const STYLE_PROPS = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'font-family', 'font-size', 'font-weight', 'opacity', 'fill-opacity'];
function exportSvg(): void {
  if (!layout || !current) return;
  const ns = 'http://www.w3.org/2000/svg';
  const out = document.createElementNS(ns, 'svg');
  out.setAttribute('xmlns', ns);
  out.setAttribute('width', String(Math.ceil(layout.width)));
  out.setAttribute('height', String(Math.ceil(layout.height)));
  out.setAttribute('viewBox', `0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}`);
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', getComputedStyle(document.body).backgroundColor || '#fff');
  out.append(bg);
  const defsNode = defs.node()!.cloneNode(true) as SVGDefsElement;
  const rootNode = root.node()!;
  const clone = rootNode.cloneNode(true) as SVGGElement;
  clone.removeAttribute('transform');
  // inline the computed theme colours, so the file looks the same outside VS Code
  const inline = (src: Element, dst: Element): void => {
    const cs = getComputedStyle(src);
    for (const p of STYLE_PROPS) {
      const v = cs.getPropertyValue(p);
      if (v) (dst as SVGElement).style.setProperty(p, v);
    }
    dst.removeAttribute('tabindex');
    dst.removeAttribute('role');
    for (let i = 0; i < src.children.length; i++) inline(src.children[i], dst.children[i]);
  };
  inline(rootNode, clone);
  inline(defs.node()!, defsNode);
  out.append(defsNode, clone);
  const text = new XMLSerializer().serializeToString(out);
  post({ type: 'saveSvg', svg: text, name: `braid-bug-${current.bug}.svg` });
}

// --------------------------------------------------------------- controls
fitBtn.addEventListener('click', () => fit(true));
zoomIn.addEventListener('click', () => {
  state.fitted = false;
  svg.transition().duration(150).call(zoom.scaleBy as never, 1.25);
});
zoomOut.addEventListener('click', () => {
  state.fitted = false;
  svg.transition().duration(150).call(zoom.scaleBy as never, 0.8);
});
exportBtn.addEventListener('click', exportSvg);
bugSelect.addEventListener('change', () => {
  const v = Number(valueOf(bugSelect));
  if (Number.isInteger(v) && v !== state.bug) void showBug(v, true);
});
svg.on('keydown', (ev: KeyboardEvent) => {
  const step = 60;
  if (/^([-+=_]|Arrow\w+)$/.test(ev.key)) state.fitted = false;
  switch (ev.key) {
    case '+':
    case '=': svg.call(zoom.scaleBy as never, 1.25); break;
    case '-':
    case '_': svg.call(zoom.scaleBy as never, 0.8); break;
    case '0': fit(); break;
    case 'ArrowLeft': svg.call(zoom.translateBy as never, step, 0); break;
    case 'ArrowRight': svg.call(zoom.translateBy as never, -step, 0); break;
    case 'ArrowUp': svg.call(zoom.translateBy as never, 0, step); break;
    case 'ArrowDown': svg.call(zoom.translateBy as never, 0, -step); break;
    default: return;
  }
  ev.preventDefault();
});
// keep the focused box in view when tabbing through the graph
svg.on('focusin', (ev: FocusEvent) => {
  const el = ev.target as SVGGraphicsElement;
  if (!el || el === svg.node() || typeof el.getBBox !== 'function') return;
  const t = d3.zoomTransform(svg.node()!);
  const bb = el.getBBox();
  const w = container.clientWidth;
  const hh = container.clientHeight;
  const [x0, y0] = t.apply([bb.x, bb.y]);
  const [x1, y1] = t.apply([bb.x + bb.width, bb.y + bb.height]);
  if (x0 < 0 || y0 < 0 || x1 > w || y1 > hh) {
    svg.call(zoom.translateTo as never, bb.x + bb.width / 2, bb.y + bb.height / 2);
  }
});

function option(value: string, label: string, selected: boolean): HTMLElement {
  return h('vscode-option', { value, selected: selected || null }, label);
}
function refreshBugOptions(): void {
  clear(bugSelect);
  if (!bugs.length) bugSelect.append(option('', 'no bugs', true));
  for (const b of bugs) {
    const methods = b.methods.map((m) => shortMethod(m.method)).join(' ⇄ ');
    bugSelect.append(option(String(b.id), truncate(`Bug ${b.id}${methods ? ' — ' + methods : ''}`, 70), b.id === state.bug));
  }
  if (state.bug !== undefined) (bugSelect as unknown as { value: string }).value = String(state.bug);
}

async function showBug(bug: number, refit: boolean): Promise<void> {
  state.bug = bug;
  if (refit) state.transform = undefined;
  saveState(state);
  refreshBugOptions();
  let raw: unknown;
  try {
    raw = await request<unknown>('bugGraph', { bug });
  } catch (e) {
    root.selectAll('*').remove();
    layout = undefined;
    info.textContent = `Could not load the bug graph: ${e instanceof Error ? e.message : String(e)}`;
    return;
  }
  if (state.bug !== bug) return; // superseded
  draw(normalizeBugGraph(raw, bug));
  if (state.transform && !refit) {
    const t = state.transform;
    svg.call(zoom.transform as never, d3.zoomIdentity.translate(t.x, t.y).scale(t.k));
  } else fit();
  document.body.dataset.bug = String(bug);
}

async function load(): Promise<void> {
  try {
    const [br, pr] = await Promise.all([request<BugsResult>('bugs'), request<PatternsResult>('patterns', { offset: 0, limit: 1000 }).catch(() => undefined)]);
    bugs = normalizeBugs(br?.bugs, pr?.patterns ?? []);
  } catch (e) {
    bugs = [];
    info.textContent = `Could not load bugs: ${e instanceof Error ? e.message : String(e)}`;
  }
  const bug = state.bug !== undefined && bugs.some((b) => b.id === state.bug) ? state.bug : bugs[0]?.id;
  refreshBugOptions();
  if (bug !== undefined) await showBug(bug, bug !== state.bug);
  else {
    root.selectAll('*').remove();
    layout = undefined;
    if (!info.textContent) info.textContent = 'No bugs yet.';
  }
}

onMessage((m) => {
  if (m.type === 'showBug' && Number.isInteger(m.bug)) void showBug(m.bug, true);
  else if (m.type === 'changed') void load();
});
// the graph re-fits when the panel changes size (e.g. an editor opened beside it), unless the user zoomed or panned
new ResizeObserver(() => {
  if (layout && (!state.transform || state.fitted)) fit();
}).observe(container);
void load();
post({ type: 'ready' });
