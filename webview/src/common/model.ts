/**
 * View models for GRIFFIN bugs and bug graphs. braid/bugs is typed `unknown[]`
 * in the protocol (the engine's Bug with pattern keys resolved), so the views
 * normalize defensively: unknown fields are ignored, missing ones defaulted,
 * and every string is coerced with String() (and rendered as text).
 */
import type { PatternDto } from '../../../server/src/lsp/protocol';

export interface FrameView {
  method: string;
  file?: string;
  line?: number;
  uri?: string;
}

export interface SuspiciousMethodView extends FrameView {
  thread: number;
  role: string;
}

export interface ContextView {
  thread: number;
  role: string;
  /** bottom of the stack (outermost caller) first */
  frames: FrameView[];
}

export interface AdviceView {
  /** one plain sentence: what each thread did (names and calls as `code spans`) */
  headline?: string;
  /** the bug's shape (fixAdvice.ts AdviceShape, e.g. "lost-update") */
  shape?: string;
  summary?: string;
  /** the most suspicious interleaving, access by access */
  interleaving?: string;
  steps: string[];
}

export interface BugView {
  id: number;
  title?: string;
  category?: string;
  score?: number;
  failingRuns: string[];
  methods: SuspiciousMethodView[];
  advice: AdviceView;
  patterns: PatternDto[];
  /** pattern keys that could not be resolved to PatternDto */
  patternKeys: string[];
  contexts: ContextView[];
  /** GRIFFIN's evidence: failing runs explained (of all), p-value of the best pattern, weak evidence */
  evidence?: EvidenceView;
  /** what the bug's failing runs reported (the assertion or exception and where), most frequent first */
  failures?: FailureView[];
}

export interface FailureView {
  reason: string;
  message?: string;
  location?: { file: string; line: number; method?: string; uri?: string };
  runs: number;
}

export interface EvidenceView {
  failingRuns: number;
  totalFailing: number;
  fraction: number;
  pValue: number;
  weak: boolean;
}

export interface GraphAccessView {
  id: string;
  type: 'R' | 'W' | string;
  variable: string;
  file: string;
  line: number;
  uri?: string;
  method?: string;
  /** frames above the node's common call stack, up to the accessing method */
  frames?: FrameView[];
}
export interface GraphNodeView {
  id: string;
  lane: string;
  /** time order across lanes; nodes are laid out top to bottom by it */
  order: number;
  /** outermost caller first; the last frame is the common call stack's top (suspicious method) */
  frames: FrameView[];
  accesses: GraphAccessView[];
}
export interface GraphEdgeView {
  id: string;
  /** access id or node id */
  from: string;
  to: string;
  patterns: string[];
  label: string;
}
export interface GraphLaneView {
  id: string;
  label: string;
  thread?: number;
  suspicious?: FrameView;
}
export interface BugGraphView {
  bug: number;
  title?: string;
  lanes: GraphLaneView[];
  nodes: GraphNodeView[];
  edges: GraphEdgeView[];
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
const str = (x: unknown, d = ''): string => (typeof x === 'string' ? x : typeof x === 'number' || typeof x === 'boolean' ? String(x) : d);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x)) ? Number(x) : undefined);
function pick(o: Obj, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

export function toFrame(x: unknown): FrameView | undefined {
  if (typeof x === 'string') return { method: x };
  if (!isObj(x)) return undefined;
  const method = str(pick(x, 'method', 'name', 'signature'));
  if (!method) return undefined;
  const f: FrameView = { method };
  const file = str(pick(x, 'file', 'path'));
  if (file) f.file = file;
  const line = num(x.line);
  if (line !== undefined && line > 0) f.line = Math.floor(line);
  const uri = str(x.uri);
  if (uri) f.uri = uri;
  return f;
}

function roleOf(o: Obj, thread: number): string {
  return str(pick(o, 'role', 'threadRole', 'threadName', 'lane'), `Thread ${thread}`);
}

function isPattern(x: unknown): x is PatternDto {
  return isObj(x) && typeof x.key === 'string' && Array.isArray(x.accesses) && typeof x.kind === 'string';
}

function toAdvice(x: unknown): AdviceView {
  if (Array.isArray(x)) return { steps: x.map((a) => str(a)).filter(Boolean) };
  if (isObj(x)) {
    const a: AdviceView = { steps: arr(pick(x, 'steps', 'fixes')).map((s) => str(s)).filter(Boolean) };
    const headline = str(x.headline);
    if (headline) a.headline = headline;
    const shape = str(x.shape);
    if (shape) a.shape = shape;
    const summary = str(pick(x, 'summary', 'text'));
    if (summary) a.summary = summary;
    const interleaving = str(x.interleaving);
    if (interleaving) a.interleaving = interleaving;
    return a;
  }
  const s = str(x);
  return s ? { summary: s, steps: [] } : { steps: [] };
}

export function normalizeBugs(raw: unknown, allPatterns: PatternDto[] = []): BugView[] {
  const byKey = new Map(allPatterns.map((p) => [p.key, p]));
  return arr(raw)
    .filter(isObj)
    .map((b, k): BugView => {
      const id = num(pick(b, 'id', 'bug', 'index', 'cluster')) ?? k + 1;
      const failingRuns = arr(pick(b, 'failingRuns', 'failedRuns', 'runs', 'executions')).map((r) => (isObj(r) ? str(pick(r, 'execution', 'id', 'file')) : str(r))).filter(Boolean);
      const methods: SuspiciousMethodView[] = [];
      for (const [i, m] of arr(pick(b, 'suspiciousMethods', 'methods')).entries()) {
        const f = toFrame(m);
        if (!f) continue;
        const thread = (isObj(m) ? num(m.thread) : undefined) ?? i + 1;
        methods.push({ ...f, thread, role: isObj(m) ? roleOf(m, thread) : `Thread ${thread}` });
      }
      const advice = toAdvice(pick(b, 'advice', 'fixAdvice', 'fix'));
      const patterns: PatternDto[] = [];
      const patternKeys: string[] = [];
      // the engine's Bug has `patterns` as indices and `patternKeys` as stable keys: prefer the keys
      const refs = Array.isArray(b.patternKeys) ? b.patternKeys : arr(b.patterns);
      for (const p of refs) {
        if (isPattern(p)) patterns.push(p);
        else if (typeof p === 'number') continue;
        else {
          const key = isObj(p) ? str(p.key) : str(p);
          const found = byKey.get(key);
          if (found) patterns.push(found);
          else if (key) patternKeys.push(key);
        }
      }
      const graph = isObj(b.graph) ? normalizeBugGraph(b.graph, id) : undefined;
      const laneLabel = (thread: number): string | undefined => graph?.lanes.find((l) => l.thread === thread)?.label;
      const contexts: ContextView[] = [];
      for (const [i, c] of arr(pick(b, 'contexts', 'callingContexts', 'commonCallStacks', 'callStacks')).entries()) {
        if (!isObj(c)) continue;
        const thread = num(c.thread) ?? i + 1;
        const frames = arr(pick(c, 'frames', 'stack', 'callStack')).map(toFrame).filter((f): f is FrameView => !!f);
        contexts.push({ thread, role: roleOf(c, thread), frames });
      }
      if (!contexts.length && graph) {
        // the graph's nodes carry the common call stacks: one context per distinct stack per lane
        for (const lane of graph.lanes) {
          const seen = new Set<string>();
          for (const n of graph.nodes.filter((x) => x.lane === lane.id).sort((x, y) => x.order - y.order)) {
            const sig = n.frames.map((f) => f.method).join('>');
            if (!n.frames.length || seen.has(sig)) continue;
            seen.add(sig);
            contexts.push({ thread: lane.thread ?? graph.lanes.indexOf(lane) + 1, role: lane.label, frames: n.frames });
          }
        }
      }
      for (const m of methods) {
        const label = laneLabel(m.thread);
        if (label && m.role === `Thread ${m.thread}`) m.role = label;
      }
      const bug: BugView = { id, failingRuns, methods, advice, patterns, patternKeys, contexts };
      const title = str(pick(b, 'title', 'name', 'summary'));
      if (title) bug.title = title;
      const category = str(pick(b, 'category', 'type', 'kind'));
      if (category) bug.category = category;
      const score = num(pick(b, 'score', 'topScore'));
      if (score !== undefined) bug.score = score;
      if (isObj(b.evidence)) {
        const e = b.evidence;
        const runs = num(e.failingRuns) ?? failingRuns.length;
        const total = num(e.totalFailing) ?? runs;
        bug.evidence = { failingRuns: runs, totalFailing: total, fraction: num(e.fraction) ?? (total ? runs / total : 0), pValue: num(e.pValue) ?? 1, weak: e.weak === true };
      }
      if (Array.isArray(b.failures)) {
        const failures: FailureView[] = [];
        for (const f of b.failures.slice(0, 5)) {
          if (!isObj(f)) continue;
          const l = isObj(f.location) ? f.location : undefined;
          const line = l ? num(l.line) : undefined;
          const location = l && str(l.file) && line !== undefined ? { file: str(l.file)!, line, ...(str(l.method) ? { method: str(l.method)! } : {}), ...(str(l.uri) ? { uri: str(l.uri)! } : {}) } : undefined;
          const message = str(f.message);
          if (!message && !location) continue;
          failures.push({ reason: str(f.reason) ?? 'failed', ...(message ? { message } : {}), ...(location ? { location } : {}), runs: num(f.runs) ?? 1 });
        }
        if (failures.length) bug.failures = failures;
      }
      return bug;
    });
}

/**
 * Bug graph JSON (server/src/engine/griffin/bugGraph.ts): lanes per thread
 * role; nodes = groups of accesses with a common call stack (method frames
 * and accesses); edges across lanes = orderings labelled with pattern ids.
 */
export function normalizeBugGraph(raw: unknown, bug = 0): BugGraphView {
  const g: Obj = isObj(raw) ? (isObj(raw.graph) ? raw.graph : raw) : {};
  const lanes: GraphLaneView[] = [];
  const laneIds = new Set<string>();
  for (const [i, l] of arr(pick(g, 'lanes', 'threads')).entries()) {
    const id = isObj(l) ? str(pick(l, 'id', 'role', 'name', 'thread'), `lane${i}`) : str(l, `lane${i}`);
    if (laneIds.has(id)) continue;
    laneIds.add(id);
    const lane: GraphLaneView = { id, label: isObj(l) ? str(pick(l, 'label', 'role', 'name'), id) : id };
    if (isObj(l)) {
      const t = num(l.thread);
      if (t !== undefined) lane.thread = t;
      const sm = toFrame(l.suspiciousMethod);
      if (sm) lane.suspicious = sm;
    }
    lanes.push(lane);
  }
  const nodes: GraphNodeView[] = [];
  const accessIds = new Set<string>();
  for (const [i, n] of arr(g.nodes).entries()) {
    if (!isObj(n)) continue;
    const id = str(n.id, `n${i}`);
    let lane = str(pick(n, 'lane', 'role', 'thread'), lanes[0]?.id ?? 'lane0');
    if (!laneIds.has(lane)) {
      laneIds.add(lane);
      lanes.push({ id: lane, label: lane });
    }
    const frames = arr(pick(n, 'frames', 'methods', 'stack', 'callStack')).map(toFrame).filter((f): f is FrameView => !!f);
    const accesses: GraphAccessView[] = [];
    for (const [j, a] of arr(n.accesses).entries()) {
      if (!isObj(a)) continue;
      const aid = str(a.id, `${id}.a${j}`);
      accessIds.add(aid);
      const acc: GraphAccessView = { id: aid, type: str(a.type, '?'), variable: str(a.variable), file: str(a.file), line: Math.max(0, Math.floor(num(a.line) ?? 0)) };
      const uri = str(a.uri);
      if (uri) acc.uri = uri;
      const method = str(a.method);
      if (method) acc.method = method;
      const frames = arr(a.frames).map(toFrame).filter((f): f is FrameView => !!f);
      if (frames.length) acc.frames = frames;
      accesses.push(acc);
    }
    nodes.push({ id, lane, order: num(pick(n, 'order', 'time', 'seq')) ?? i, frames, accesses });
  }
  const known = new Set([...accessIds, ...nodes.map((n) => n.id)]);
  const edges: GraphEdgeView[] = [];
  for (const [i, e] of arr(g.edges).entries()) {
    if (!isObj(e)) continue;
    const rawPatterns = arr(pick(e, 'patterns', 'patternIds'));
    const labels = arr(e.labels).map((x) => str(x));
    // pattern references may be indices (labelled by `labels`, same order) or ids
    const labelOf = (p: unknown): string => {
      const k = rawPatterns.indexOf(p);
      return k >= 0 && labels[k] ? labels[k] : str(p);
    };
    const orderings = arr(e.orderings).filter(isObj);
    const parts = orderings.length ? orderings : [e];
    for (const [j, o] of parts.entries()) {
      const from = str(pick(o, 'from', 'source'));
      const to = str(pick(o, 'to', 'target'));
      if (!known.has(from) || !known.has(to)) continue;
      const pats = (o === e ? rawPatterns : arr(o.patterns)).map(labelOf).filter(Boolean);
      const label = o === e && typeof e.label === 'string' ? e.label : pats.join(', ');
      edges.push({ id: str(e.id, `e${i}`) + (o === e ? '' : `.${j}`), from, to, patterns: pats, label });
    }
  }
  const view: BugGraphView = { bug: num(pick(g, 'bug', 'id')) ?? bug, lanes, nodes, edges };
  const title = str(pick(g, 'title', 'name'));
  if (title) view.title = title;
  return view;
}
