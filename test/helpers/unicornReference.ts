/**
 * A small, deliberately naive reference implementation of UNICORN Steps 1–2
 * (thesis Algorithm 2 and §4.2.1–4.2.2), written from the thesis for the
 * randomized exactness test. It shares no code with the engine: one array
 * per access window, every pair kept in a list, one stable sort of the whole
 * list, the double loop over the sorted pairs, and Table 1 copied row by row
 * (pattern, then the two pairs it decomposes into).
 *
 * Readings documented in docs/algorithms.md and followed here as well:
 * a location is the dynamic location (variable + object + element); the pair
 * window combines each pair with the w pairs after it (also near the end of
 * the list); x and y of P9–P17 are two different locations. With
 * `happensBefore`, a pair whose first access happens before its second
 * (vector clocks over START/JOIN/SND/RCV) is not collected.
 */

export interface RefAccess {
  kind: 'access';
  idx: number;
  thread: number;
  write: boolean;
  /** dynamic location (variable, object, element) */
  location: string;
  variable: string;
  file: string;
  line: number;
}

export interface RefSync {
  kind: 'START' | 'JOIN' | 'SND' | 'RCV';
  idx: number;
  thread: number;
  /** child thread (START, JOIN) or token (SND, RCV) */
  arg: number;
}

export type RefEvent = RefAccess | RefSync;

/** Table 1: pattern, thread roles, variables, and the two pairs (positions in the pattern). */
const TABLE_1: { id: string; kind: string; roles: string; vars: string; pairs: [number, number][] }[] = [
  { id: 'P4', kind: 'RWR', roles: '121', vars: 'xxx', pairs: [[0, 1], [1, 2]] },
  { id: 'P5', kind: 'WWR', roles: '121', vars: 'xxx', pairs: [[0, 1], [1, 2]] },
  { id: 'P6', kind: 'WRW', roles: '121', vars: 'xxx', pairs: [[0, 1], [1, 2]] },
  { id: 'P7', kind: 'RWW', roles: '121', vars: 'xxx', pairs: [[0, 1], [1, 2]] },
  { id: 'P8', kind: 'WWW', roles: '121', vars: 'xxx', pairs: [[0, 1], [1, 2]] },
  { id: 'P9', kind: 'WWWW', roles: '1221', vars: 'xxyy', pairs: [[0, 1], [2, 3]] },
  { id: 'P10', kind: 'WWWW', roles: '1221', vars: 'xyxy', pairs: [[0, 2], [1, 3]] },
  { id: 'P11', kind: 'WWWW', roles: '1212', vars: 'xyyx', pairs: [[0, 3], [1, 2]] },
  { id: 'P12', kind: 'WRRW', roles: '1221', vars: 'xxyy', pairs: [[0, 1], [2, 3]] },
  { id: 'P13', kind: 'WRRW', roles: '1221', vars: 'xyxy', pairs: [[0, 2], [1, 3]] },
  { id: 'P14', kind: 'RWWR', roles: '1221', vars: 'xxyy', pairs: [[0, 1], [2, 3]] },
  { id: 'P15', kind: 'RWWR', roles: '1221', vars: 'xyxy', pairs: [[0, 2], [1, 3]] },
  { id: 'P16', kind: 'RWRW', roles: '1212', vars: 'xyyx', pairs: [[0, 3], [1, 2]] },
  { id: 'P17', kind: 'WRWR', roles: '1212', vars: 'xyyx', pairs: [[0, 3], [1, 2]] },
];

type Clock = Map<number, number>;
type Stamped = RefAccess & { clock?: Clock };
type Pair = [Stamped, Stamped];
/** A window slot: its latest access, and with `adjacent` writes the first write it replaced */
type Slot = { a: Stamped; first?: Stamped };

/** a happens before b: a's own component is ≤ b's component for a's thread. */
function happensBefore(a: Stamped, b: Stamped): boolean {
  if (!a.clock || !b.clock) return false;
  return a.clock.get(a.thread)! <= (b.clock.get(a.thread) ?? 0);
}

function joinInto(into: Clock, other: Clock): void {
  for (const [t, c] of other) into.set(t, Math.max(into.get(t) ?? 0, c));
}

/**
 * Step 1: access windows of `windowSize` slots, the pairs of one run in emission order. `adjacent`
 * (AnalysisOptions.windowWrites): a slot whose write was replaced by a later write of its thread
 * keeps the first, and a pair whose later access is that slot pairs with the first.
 */
export function collectPairs(events: RefEvent[], windowSize: number, hb: boolean, adjacent = false): Pair[] {
  const clocks = new Map<number, Clock>();
  const tokens = new Map<number, Clock>();
  const clockOf = (t: number) => {
    if (!clocks.has(t)) clocks.set(t, new Map([[t, 1]]));
    return clocks.get(t)!;
  };
  const tick = (t: number) => clockOf(t).set(t, clockOf(t).get(t)! + 1);
  const windows = new Map<string, Slot[]>();
  const pairs: Pair[] = [];
  const emitOldest = (w: Slot[]) => {
    const o = w[0].a;
    for (const slot of w.slice(1)) {
      const b = slot.first ?? slot.a;
      if (b.thread === o.thread) continue;
      if (!o.write && !b.write) continue;
      if (hb && happensBefore(o, b)) continue;
      pairs.push([o, b]);
    }
  };
  for (const e of events) {
    if (e.kind !== 'access') {
      if (!hb) continue;
      if (e.kind === 'START') {
        joinInto(clockOf(e.arg), clockOf(e.thread));
        tick(e.thread);
      } else if (e.kind === 'JOIN') {
        joinInto(clockOf(e.thread), clockOf(e.arg));
        tick(e.arg);
      } else if (e.kind === 'SND') {
        if (!tokens.has(e.arg)) tokens.set(e.arg, new Map());
        joinInto(tokens.get(e.arg)!, clockOf(e.thread));
        tick(e.thread);
      } else if (tokens.has(e.arg)) joinInto(clockOf(e.thread), tokens.get(e.arg)!);
      continue;
    }
    const a: Stamped = hb ? { ...e, clock: new Map(clockOf(e.thread)) } : e;
    let w = windows.get(a.location);
    if (!w) windows.set(a.location, (w = []));
    const last = w[w.length - 1];
    if (last && last.a.thread === a.thread) {
      if (last.a.write && !a.write) continue; // keep the write
      if (adjacent && last.a.write && !last.first) last.first = last.a;
      last.a = a;
      continue;
    }
    if (w.length === windowSize) {
      emitOldest(w);
      w.shift();
    }
    w.push({ a });
  }
  for (const w of windows.values()) {
    while (w.length) {
      emitOldest(w);
      w.shift();
    }
  }
  return pairs;
}

function accessKey(a: RefAccess, role: number): string {
  return `${a.write ? 'W' : 'R'}${role}:${a.variable}@${a.file}:${a.line}`;
}

/** The P1–P3 pattern of one pair, as a static key. */
function pairPattern([a, b]: Pair): string {
  const id = a.write ? (b.write ? 'P3' : 'P2') : 'P1';
  return `${id}|${accessKey(a, 1)}|${accessKey(b, 2)}`;
}

/** isPattern + makePattern: the Table 1 row (P4–P17) that p1 and p2 form, as a static key, or undefined. */
function makePattern(p1: Pair, p2: Pair): string | undefined {
  const all = [...new Set([p1[0], p1[1], p2[0], p2[1]])].sort((a, b) => a.idx - b.idx);
  if (all.length < 3) return undefined;
  const threads = new Set(all.map((a) => a.thread));
  const locations = new Set(all.map((a) => a.location));
  if (threads.size !== 2 || locations.size > 2) return undefined;
  const t1 = all[0].thread;
  const x = all[0].location;
  const kind = all.map((a) => (a.write ? 'W' : 'R')).join('');
  const roles = all.map((a) => (a.thread === t1 ? '1' : '2')).join('');
  const vars = all.map((a) => (a.location === x ? 'x' : 'y')).join('');
  for (const row of TABLE_1) {
    if (row.kind !== kind || row.roles !== roles || row.vars !== vars) continue;
    const [[i, j], [k, l]] = row.pairs;
    const same = (p: Pair, q: [number, number]) => p[0] === all[q[0]] && p[1] === all[q[1]];
    const decomposes = (same(p1, [i, j]) && same(p2, [k, l])) || (same(p1, [k, l]) && same(p2, [i, j]));
    if (!decomposes) continue;
    return `${row.id}|${all.map((a, n) => accessKey(a, Number(roles[n]))).join('|')}`;
  }
  return undefined;
}

/** Step 2 for one run: the static keys of its patterns (Algorithm 2, lines 8–25). */
export function runPatterns(events: RefEvent[], windowSize: number, pairWindow: number, hb: boolean, adjacent = false): Set<string> {
  const pairlist = collectPairs(events, windowSize, hb, adjacent);
  const patternset = new Set<string>();
  for (const p of pairlist) patternset.add(pairPattern(p));
  // line 13: order by the global index of the first access (a stable sort keeps emission order on ties)
  const orderedPairs = pairlist.map((p, seq) => ({ p, seq })).sort((a, b) => a.p[0].idx - b.p[0].idx || a.seq - b.seq).map((x) => x.p);
  const n = orderedPairs.length;
  for (let j = 0; j < n; j++) {
    const p1 = orderedPairs[j];
    for (let k = j + 1; k <= j + pairWindow && k < n; k++) {
      const p2 = orderedPairs[k];
      // the pairs belong to the same two threads (cheap test first; makePattern checks everything)
      if (p1[0].thread !== p2[1].thread || p1[1].thread !== p2[0].thread) continue;
      const pt = makePattern(p1, p2);
      if (pt) patternset.add(pt);
    }
  }
  return patternset;
}
