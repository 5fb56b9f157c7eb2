/**
 * Seed 000 §3: macro events and abstract events.
 *
 * 1. Each trace is split into macros at context switches (maximal runs of one thread's events).
 * 2. Refinement to a fixed point (§3.3): repeatedly take the shortest macro m not yet processed
 *    and split every macro that contains m as a proper substring into the pieces around the
 *    occurrences of m. A processed macro is never contained in a later piece (pieces are
 *    substrings of macros that did not contain it), so every macro is processed once.
 * 3. Abstraction (Definition 7): macros sharing an event are in one class (transitive closure),
 *    a class is an abstract event.
 * 4. Common prefix and suffix of all macro traces (initialization, finalization) are pruned.
 */

export interface MacroRefinementStep {
  /** the macro that was split */
  split: number;
  /** the (shorter) macro found inside it */
  by: number;
  /** the pieces that replace it, in order */
  into: number[];
}

export interface MacroTrace {
  /** macro id per position */
  macros: Int32Array;
  /** index of the macro's first event in the original trace */
  starts: Int32Array;
}

export interface Macros {
  /** event sequence of every macro id ever created (dead ones included) */
  events: Int32Array[];
  /** thread of each macro (from its events) */
  thread: Int32Array;
  /** false for macros that were split */
  alive: boolean[];
  /** the macros of step 1, in order of first appearance (ids 0..initialCount-1) */
  initialCount: number;
  steps: MacroRefinementStep[];
  /** one macro trace per input trace, over alive macros */
  traces: MacroTrace[];
}

const keyOf = (a: ArrayLike<number>): string => {
  let s = ',';
  for (let i = 0; i < a.length; i++) s += a[i] + ',';
  return s;
};

/**
 * Splits traces (static event ids) into macros at context switches and refines them to the
 * fixed point. `threadOf(event)` gives an event's thread.
 */
export function deriveMacros(traces: readonly Int32Array[], threadOf: (event: number) => number): Macros {
  const events: Int32Array[] = [];
  const keys: string[] = [];
  const thread: number[] = [];
  const byKey = new Map<string, number>();
  const intern = (a: Int32Array): number => {
    const k = keyOf(a);
    let id = byKey.get(k);
    if (id === undefined) {
      id = events.length;
      events.push(a);
      keys.push(k);
      thread.push(threadOf(a[0]));
      byKey.set(k, id);
    }
    return id;
  };
  // step 1: split at context switches
  const initial: { macros: number[]; starts: number[] }[] = [];
  for (const t of traces) {
    const macros: number[] = [];
    const starts: number[] = [];
    let s = 0;
    for (let i = 1; i <= t.length; i++) {
      if (i === t.length || threadOf(t[i]) !== threadOf(t[s])) {
        macros.push(intern(t.subarray(s, i)));
        starts.push(s);
        s = i;
      }
    }
    initial.push({ macros, starts });
  }
  const initialCount = events.length;
  const alive: boolean[] = events.map(() => true);
  const processed: boolean[] = events.map(() => false);
  const expansion = new Map<number, number[]>();
  const steps: MacroRefinementStep[] = [];

  // step 2: refinement
  for (;;) {
    let m = -1;
    for (let id = 0; id < events.length; id++) {
      if (!alive[id] || processed[id]) continue;
      if (m < 0 || events[id].length < events[m].length) m = id;
    }
    if (m < 0) break;
    processed[m] = true;
    const pat = events[m];
    const pkey = keys[m];
    const count = events.length;
    for (let id = 0; id < count; id++) {
      if (!alive[id] || id === m || events[id].length <= pat.length || !keys[id].includes(pkey)) continue;
      // split at the non-overlapping occurrences of m, left to right
      const a = events[id];
      const pieces: number[] = [];
      let from = 0;
      for (let i = 0; i + pat.length <= a.length; ) {
        let hit = true;
        for (let j = 0; j < pat.length; j++)
          if (a[i + j] !== pat[j]) {
            hit = false;
            break;
          }
        if (hit) {
          if (i > from) pieces.push(intern(a.subarray(from, i)));
          pieces.push(m);
          i += pat.length;
          from = i;
        } else i++;
      }
      if (from < a.length) pieces.push(intern(a.subarray(from)));
      alive[id] = false;
      expansion.set(id, pieces);
      for (const p of pieces) {
        if (alive[p] === undefined) {
          alive[p] = true;
          processed[p] = false;
        }
      }
      steps.push({ split: id, by: m, into: pieces });
    }
  }
  const expand = (id: number, start: number, outM: number[], outS: number[]): void => {
    const parts = expansion.get(id);
    if (!parts) {
      outM.push(id);
      outS.push(start);
      return;
    }
    let s = start;
    for (const p of parts) {
      expand(p, s, outM, outS);
      s += events[p].length;
    }
  };
  const macroTraces: MacroTrace[] = initial.map((t) => {
    const m: number[] = [];
    const s: number[] = [];
    t.macros.forEach((id, k) => expand(id, t.starts[k], m, s));
    return { macros: Int32Array.from(m), starts: Int32Array.from(s) };
  });
  return { events, thread: Int32Array.from(thread), alive, initialCount, steps, traces: macroTraces };
}

export interface Abstraction {
  /** abstract event (class) of each macro id; -1 for dead macros */
  classOf: Int32Array;
  /** alive macro ids of each class, ascending */
  members: number[][];
  /** thread of each class */
  thread: Int32Array;
}

/** Definition 7: classes of the transitive closure of "shares an event". */
export function abstractMacros(m: Macros): Abstraction {
  const n = m.events.length;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  const owner = new Map<number, number>();
  for (let id = 0; id < n; id++) {
    if (!m.alive[id]) continue;
    for (const e of m.events[id]) {
      const o = owner.get(e);
      if (o === undefined) owner.set(e, id);
      else {
        const a = find(o);
        const b = find(id);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  }
  const classOf = new Int32Array(n).fill(-1);
  const members: number[][] = [];
  const rootClass = new Map<number, number>();
  const thread: number[] = [];
  for (let id = 0; id < n; id++) {
    if (!m.alive[id]) continue;
    const r = find(id);
    let c = rootClass.get(r);
    if (c === undefined) {
      c = members.length;
      rootClass.set(r, c);
      members.push([]);
      thread.push(m.thread[id]);
    }
    classOf[id] = c;
    members[c].push(id);
  }
  return { classOf, members, thread: Int32Array.from(thread) };
}

/**
 * Lengths of the macro prefix and suffix common to all macro traces (never overlapping in any
 * trace; at least one macro of every trace is left when traces differ at all).
 */
export function commonPrefixSuffix(traces: readonly MacroTrace[]): { prefix: number; suffix: number } {
  if (traces.length < 2) return { prefix: 0, suffix: 0 };
  const minLen = Math.min(...traces.map((t) => t.macros.length));
  let prefix = 0;
  while (prefix < minLen && traces.every((t) => t.macros[prefix] === traces[0].macros[prefix])) prefix++;
  let suffix = 0;
  const last = (t: MacroTrace, k: number) => t.macros[t.macros.length - 1 - k];
  while (suffix < minLen - prefix && traces.every((t) => last(t, suffix) === last(traces[0], suffix))) suffix++;
  return { prefix, suffix };
}

export function pruneMacroTrace(t: MacroTrace, prefix: number, suffix: number): MacroTrace {
  const end = t.macros.length - suffix;
  return { macros: t.macros.slice(prefix, end), starts: t.starts.slice(prefix, end) };
}
