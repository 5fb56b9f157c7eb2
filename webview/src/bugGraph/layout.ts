/**
 * Bug graph layout (after Figure 12 of the GRIFFIN thesis): one column per
 * thread role; nodes top to bottom in time order, each a set of nested
 * call-stack boxes (outermost caller outside) around dashed access boxes;
 * edges across lanes. Pure geometry, no DOM.
 */
import type { BugGraphView, GraphNodeView, GraphAccessView, FrameView } from '../common/model';
import { shortMethod as displayMethod, shortVariable as displayVariable } from '../../../server/src/engine/displayNames';

export const LANE_W = 420;
export const LANE_GAP = 190;
export const MARGIN = 24;
export const LANE_HEAD = 44;
export const FRAME_HEAD = 22;
export const FRAME_PAD = 8;
export const ACC_H = 24;
export const ACC_GAP = 6;
export const NODE_GAP = 34;

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface FrameBox extends Box {
  frame: FrameView;
  depth: number;
  /** the lane's suspicious method (GRIFFIN), or the node's top frame when the lane names none */
  top: boolean;
  laneIndex: number;
}
export interface AccessBox extends Box {
  access: GraphAccessView;
}
export interface NodeLayout extends Box {
  node: GraphNodeView;
  laneIndex: number;
  frames: FrameBox[];
  accesses: AccessBox[];
}
export interface EdgeLayout {
  id: string;
  label: string;
  patterns: string[];
  path: string;
  labelX: number;
  labelY: number;
  from: string;
  to: string;
}
export interface GraphLayout {
  width: number;
  height: number;
  lanes: { id: string; label: string; x: number; w: number }[];
  nodes: NodeLayout[];
  edges: EdgeLayout[];
}

export interface LayoutOptions {
  /** edge-label glyph width and height in px (high contrast draws larger, bolder labels) */
  labelCharW?: number;
  labelH?: number;
}

export function layoutGraph(g: BugGraphView, opts: LayoutOptions = {}): GraphLayout {
  const charW = opts.labelCharW ?? 7;
  const labelH = opts.labelH ?? 18;
  const laneIndex = new Map(g.lanes.map((l, i) => [l.id, i]));
  const lanes = g.lanes.map((l, i) => ({ id: l.id, label: l.suspicious ? `${l.label} · ${shortMethod(l.suspicious.method)}` : l.label, x: MARGIN + i * (LANE_W + LANE_GAP), w: LANE_W }));
  const sorted = [...g.nodes].sort((a, b) => a.order - b.order);
  const nodes: NodeLayout[] = [];
  const accessAt = new Map<string, { box: AccessBox; lane: number }>();
  const nodeAt = new Map<string, { box: Box; lane: number }>();
  let y = MARGIN + LANE_HEAD;
  for (const n of sorted) {
    const li = laneIndex.get(n.lane) ?? 0;
    const lane = lanes[li];
    const susp = g.lanes[li]?.suspicious;
    const F = n.frames.length;
    const inset = F > 0 ? Math.min(12, Math.max(3, (LANE_W - 220) / (2 * F))) : 0;
    const accArea = Math.max(1, n.accesses.length) * (ACC_H + ACC_GAP) + ACC_GAP;
    // heights from the innermost frame outwards
    const heights: number[] = new Array(F);
    let inner = accArea;
    for (let k = F - 1; k >= 0; k--) {
      heights[k] = FRAME_HEAD + inner + (k === F - 1 ? 0 : FRAME_PAD);
      inner = heights[k];
    }
    const total = F > 0 ? heights[0] : accArea;
    const frames: FrameBox[] = n.frames.map((frame, k) => ({
      frame,
      depth: k,
      laneIndex: li,
      // GRIFFIN's suspicious method of the lane (one meaning in every view); the frames inside it hold the accesses.
      // Without one named, the top of the node's common call stack.
      top: susp ? sameMethod(frame.method, susp.method) : k === F - 1,
      x: lane.x + k * inset,
      y: y + k * FRAME_HEAD,
      w: LANE_W - 2 * k * inset,
      h: heights[k],
    }));
    const ax = lane.x + F * inset + 6;
    const aw = LANE_W - 2 * F * inset - 12;
    const ay0 = y + F * FRAME_HEAD + ACC_GAP;
    const accesses: AccessBox[] = n.accesses.map((access, j) => ({ access, x: ax, y: ay0 + j * (ACC_H + ACC_GAP), w: aw, h: ACC_H }));
    const nl: NodeLayout = { node: n, laneIndex: li, frames, accesses, x: lane.x, y, w: LANE_W, h: total };
    nodes.push(nl);
    nodeAt.set(n.id, { box: nl, lane: li });
    for (const a of accesses) accessAt.set(a.access.id, { box: a, lane: li });
    y += total + NODE_GAP;
  }
  const edges: EdgeLayout[] = [];
  const placed: Box[] = [];
  for (const e of g.edges) {
    const s = accessAt.get(e.from) ?? nodeAt.get(e.from);
    const t = accessAt.get(e.to) ?? nodeAt.get(e.to);
    if (!s || !t) continue;
    const sy = s.box.y + s.box.h / 2;
    const ty = t.box.y + t.box.h / 2;
    let path: string;
    let lx: number;
    let ly: number;
    if (s.lane === t.lane) {
      // same lane: loop out on the right side
      const x = s.box.x + s.box.w;
      const bulge = 60;
      path = `M${x},${sy} C${x + bulge},${sy} ${x + bulge},${ty} ${x},${ty}`;
      lx = x + bulge * 0.75;
      ly = (sy + ty) / 2;
    } else {
      const rightward = t.lane > s.lane;
      const sx = rightward ? s.box.x + s.box.w : s.box.x;
      const tx = rightward ? t.box.x : t.box.x + t.box.w;
      const dx = (tx - sx) * 0.45;
      path = `M${sx},${sy} C${sx + dx},${sy} ${tx - dx},${ty} ${tx},${ty}`;
      lx = (sx + tx) / 2;
      ly = (sy + ty) / 2;
    }
    // keep labels from overlapping: try offsets 0, +h, -h, +2h, … along y (with a gap between labels)
    const lw = Math.min(40, e.label.length) * charW + 16;
    const step = labelH + 4;
    for (let k = 0; k < 40; k++) {
      const off = k === 0 ? 0 : Math.ceil(k / 2) * step * (k % 2 ? 1 : -1);
      const box = { x: lx - lw / 2, y: ly + off - step / 2, w: lw, h: step };
      if (!placed.some((b) => b.x < box.x + box.w && box.x < b.x + b.w && b.y < box.y + box.h && box.y < b.y + b.h)) {
        placed.push(box);
        ly += off;
        break;
      }
    }
    edges.push({ id: e.id, label: e.label, patterns: e.patterns, path, labelX: lx, labelY: ly, from: e.from, to: e.to });
  }
  const width = MARGIN * 2 + Math.max(1, lanes.length) * LANE_W + Math.max(0, lanes.length - 1) * LANE_GAP;
  const height = y - NODE_GAP + MARGIN;
  return { width, height: Math.max(height, MARGIN * 2 + LANE_HEAD), lanes, nodes, edges };
}

/** "com.x.Vector.addAll(Collection)" → "Vector.addAll()", "app.Main.lambda$main$1()" → "Main.lambda in main()" (displayNames.ts) */
export function shortMethod(m: string): string {
  return displayMethod(m) + (/\(.*\)$/.test(m) ? '()' : '');
}

/** `pkg.Outer$Inner.field` → `Inner.field` (the full name is in the tooltip). */
export function shortVariable(v: string): string {
  return displayVariable(v);
}

/** Same method, ignoring parameter lists: `Vector.<init>(Collection)` and `Vector.<init>`. */
export function sameMethod(a: string, b: string): boolean {
  return a.replace(/\(.*\)$/, '') === b.replace(/\(.*\)$/, '');
}

export function truncate(s: string, maxChars: number): string {
  return s.length > maxChars ? s.slice(0, Math.max(1, maxChars - 1)) + '…' : s;
}
