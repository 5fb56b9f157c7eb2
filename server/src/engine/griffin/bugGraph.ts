/**
 * Bug graph G (thesis §5.3.3, Figure 12) as a JSON model for the d3 view.
 *
 * - One lane per thread role of the bug (lane 1 = role 1 of the bug's
 *   best-ranked pattern).
 * - The accesses of all the bug's patterns are put in one order (every
 *   pattern's access order is a constraint; conflicts are broken by the mean
 *   position of an access in its patterns). Consecutive accesses of the same
 *   lane form a node — a group of accesses with the same ordering with respect
 *   to the other thread — split where they would share no call stack. A node
 *   shows its common call stack (method frames with file and line) and its
 *   accesses (type, variable, file, line).
 * - Edges go between nodes of different lanes, one per inter-thread ordering
 *   (consecutive accesses of a pattern on different threads), labelled with
 *   the patterns that show it. Figure 12: 271 → {851, 852} for PI1, PI2, PI4
 *   and {851, 852} → {681, 682} for PI1, PI2, PI3, PI5.
 */
import type { CoverageMatrix, Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame } from './commonCallStack';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { SuspiciousMethod } from './suspiciousMethods';

export interface BugGraphAccess {
  /** "a1", "a2", … unique in the graph */
  id: string;
  type: 'R' | 'W';
  variable: string;
  file: string;
  line: number;
  method: string;
  /** frames above the node's common call stack, bottom first, up to the accessing method */
  frames: Frame[];
}

export interface BugGraphNode {
  /** "n1", "n2", … in the bug's access order */
  id: string;
  thread: 1 | 2;
  /** position in the bug's access order (0-based; nodes of both lanes share it) */
  order: number;
  /** common call stack of the node's accesses, bottom first (line = lowest line of the frame) */
  frames: CommonFrame[];
  accesses: BugGraphAccess[];
}

export interface BugGraphEdge {
  from: string;
  to: string;
  /** indices into result.patterns of the patterns showing this ordering */
  patterns: number[];
  /** "P4 RWR" per pattern, same order */
  labels: string[];
  /** the access-level orderings behind the edge */
  orderings: { from: string; to: string; patterns: number[] }[];
}

export interface BugGraphLane {
  thread: 1 | 2;
  label: string;
  suspiciousMethod?: { method: string; file: string; line: number };
}

export interface BugGraph {
  lanes: BugGraphLane[];
  nodes: BugGraphNode[];
  edges: BugGraphEdge[];
}

interface AccessInfo {
  lane: 1 | 2;
  type: 'R' | 'W';
  variable: string;
  file: string;
  line: number;
  method: string;
  stack: Frame[];
  posSum: number;
  posN: number;
  firstSeen: number;
}

export function bugGraph(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[], methods: readonly SuspiciousMethod[] = []): BugGraph {
  // distinct accesses (lane + static access)
  const accesses = new Map<string, AccessInfo>();
  const succ = new Map<string, Set<string>>();
  const cross: { a: string; b: string; row: number }[] = [];
  for (const mem of members) {
    const p = m.pattern(mem.row);
    const keys = p.accesses.map((a, k) => {
      const lane = laneOf(m, mem, k);
      const key = `${lane}|${a.key}`;
      let info = accesses.get(key);
      if (!info) {
        info = { lane, type: a.type, variable: a.variable, file: a.file, line: a.line, method: a.method, stack: a.stack, posSum: 0, posN: 0, firstSeen: accesses.size };
        accesses.set(key, info);
      }
      info.posSum += p.accesses.length > 1 ? k / (p.accesses.length - 1) : 0;
      info.posN++;
      return key;
    });
    for (let k = 0; k + 1 < keys.length; k++) {
      if (keys[k] === keys[k + 1]) continue;
      let s = succ.get(keys[k]);
      if (!s) succ.set(keys[k], (s = new Set()));
      s.add(keys[k + 1]);
      if (accesses.get(keys[k])!.lane !== accesses.get(keys[k + 1])!.lane) cross.push({ a: keys[k], b: keys[k + 1], row: mem.row });
    }
  }

  const order = accessOrder(accesses, succ);

  // nodes: runs of the same lane in the order, split where no common stack is left
  const nodes: BugGraphNode[] = [];
  const nodeOf = new Map<string, BugGraphNode>();
  let group: string[] = [];
  const flush = () => {
    if (!group.length) return;
    const infos = group.map((k) => accesses.get(k)!);
    const frames = commonCallStack(infos.map((a) => a.stack));
    const node: BugGraphNode = {
      id: `n${nodes.length + 1}`,
      thread: infos[0].lane,
      order: nodes.length,
      frames,
      accesses: [],
    };
    nodes.push(node);
    for (const k of group) nodeOf.set(k, node);
    group = [];
  };
  for (const key of order) {
    const info = accesses.get(key)!;
    if (group.length) {
      const prev = accesses.get(group[0])!;
      const stacks = [...group, key].map((k) => accesses.get(k)!.stack);
      if (prev.lane !== info.lane || commonCallStack(stacks).length === 0) flush();
    }
    group.push(key);
  }
  flush();

  // accesses inside nodes, with ids in order
  const accessId = new Map<string, string>();
  order.forEach((key, k) => {
    const info = accesses.get(key)!;
    const node = nodeOf.get(key)!;
    const id = `a${k + 1}`;
    accessId.set(key, id);
    node.accesses.push({
      id,
      type: info.type,
      variable: info.variable,
      file: info.file,
      line: info.line,
      method: info.method,
      frames: info.stack.slice(Math.min(node.frames.length, info.stack.length)),
    });
  });

  // edges between lanes
  const edges = new Map<string, BugGraphEdge>();
  const orderingOf = new Map<string, { from: string; to: string; patterns: number[] }>();
  for (const c of cross) {
    const from = nodeOf.get(c.a)!.id;
    const to = nodeOf.get(c.b)!.id;
    const ek = `${from}>${to}`;
    let e = edges.get(ek);
    if (!e) edges.set(ek, (e = { from, to, patterns: [], labels: [], orderings: [] }));
    if (!e.patterns.includes(c.row)) {
      e.patterns.push(c.row);
      const p = m.pattern(c.row);
      e.labels.push(`${p.id} ${p.kind}`);
    }
    const ok = `${ek}|${c.a}>${c.b}`;
    let o = orderingOf.get(ok);
    if (!o) {
      orderingOf.set(ok, (o = { from: accessId.get(c.a)!, to: accessId.get(c.b)!, patterns: [] }));
      e.orderings.push(o);
    }
    if (!o.patterns.includes(c.row)) o.patterns.push(c.row);
  }
  const edgeList = [...edges.values()];
  for (const e of edgeList) {
    const idx = e.patterns.map((_, k) => k).sort((x, y) => e.patterns[x] - e.patterns[y]);
    e.patterns = idx.map((k) => e.patterns[k]);
    e.labels = idx.map((k) => e.labels[k]);
    for (const o of e.orderings) o.patterns.sort((x, y) => x - y);
  }
  const nodeOrder = new Map(nodes.map((n) => [n.id, n.order]));
  edgeList.sort((x, y) => nodeOrder.get(x.from)! - nodeOrder.get(y.from)! || nodeOrder.get(x.to)! - nodeOrder.get(y.to)!);

  const lanes: BugGraphLane[] = [];
  for (const thread of [1, 2] as const) {
    if (!nodes.some((n) => n.thread === thread)) continue;
    const sm = methods.find((x) => x.thread === thread);
    lanes.push({ thread, label: `Thread ${thread}`, ...(sm ? { suspiciousMethod: { method: sm.method, file: sm.file, line: sm.line } } : {}) });
  }
  return { lanes, nodes, edges: edgeList };
}

/**
 * One order of all accesses respecting every pattern's order where possible:
 * Kahn's algorithm, picking among the ready accesses the one with the lowest
 * mean position in its patterns; on a cycle, the lowest remaining one.
 */
function accessOrder(accesses: Map<string, AccessInfo>, succ: Map<string, Set<string>>): string[] {
  const indeg = new Map<string, number>();
  for (const k of accesses.keys()) indeg.set(k, 0);
  for (const s of succ.values()) for (const b of s) indeg.set(b, indeg.get(b)! + 1);
  const mean = (k: string) => {
    const a = accesses.get(k)!;
    return a.posSum / a.posN;
  };
  const better = (x: string, y: string) => {
    const d = mean(x) - mean(y);
    if (Math.abs(d) > 1e-12) return d < 0;
    return accesses.get(x)!.firstSeen < accesses.get(y)!.firstSeen;
  };
  const left = new Set(accesses.keys());
  const out: string[] = [];
  while (left.size) {
    let pick: string | undefined;
    for (const k of left) if (indeg.get(k) === 0 && (pick === undefined || better(k, pick))) pick = k;
    if (pick === undefined) for (const k of left) if (pick === undefined || better(k, pick)) pick = k;
    left.delete(pick!);
    out.push(pick!);
    for (const b of succ.get(pick!) ?? []) if (left.has(b)) indeg.set(b, indeg.get(b)! - 1);
  }
  return out;
}
