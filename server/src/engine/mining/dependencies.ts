/**
 * Inter-thread data dependencies of one execution (seed 000 §2.2), per occurrence: for two
 * conflicting accesses e1 before e2 (different threads, same dynamic location, one a write)
 *   flow   — e2 reads the value e1 wrote (e1 is the last write before e2),
 *   anti   — e1 reads the value e2 overwrites (e2 is the first write after e1),
 *   output — e1 and e2 both write and e2 is the next write after e1.
 */
import { Execution } from './traceSet';

export type DependencyKind = 'flow' | 'anti' | 'output';

export interface WriterIndex {
  /** last write to the same location before i (-1: none) — for reads the flow source, for writes the output source */
  prevWrite: Int32Array;
  /** first write to the same location after i (-1: none) — for reads the anti target */
  nextWrite: Int32Array;
  /** true when i is a write */
  isWrite: Uint8Array;
}

/** `kindOf(event)` is 'R', 'W' or anything else (not an access). */
export function writerIndex(ex: Execution, kindOf: (staticEvent: number) => string): WriterIndex {
  const n = ex.events.length;
  const prevWrite = new Int32Array(n).fill(-1);
  const nextWrite = new Int32Array(n).fill(-1);
  const isWrite = new Uint8Array(n);
  const last = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const loc = ex.locs[i];
    if (loc < 0) continue;
    const k = kindOf(ex.events[i]);
    if (k !== 'R' && k !== 'W') continue;
    const w = last.get(loc);
    if (w !== undefined) prevWrite[i] = w;
    if (k === 'W') {
      isWrite[i] = 1;
      last.set(loc, i);
    }
  }
  const next = new Map<number, number>();
  for (let i = n - 1; i >= 0; i--) {
    const loc = ex.locs[i];
    if (loc < 0) continue;
    const k = kindOf(ex.events[i]);
    if (k !== 'R' && k !== 'W') continue;
    const w = next.get(loc);
    if (w !== undefined) nextWrite[i] = w;
    if (k === 'W') next.set(loc, i);
  }
  return { prevWrite, nextWrite, isWrite };
}

export interface OccurrenceDependency {
  kind: DependencyKind;
  /** positions in the execution */
  from: number;
  to: number;
  /** indices of the pattern's macros holding from/to */
  fromMacro: number;
  toMacro: number;
}

/**
 * Dependencies between the macros of one occurrence: `ranges[j] = [start, end)` of macro j in the
 * execution, ascending and disjoint. Only pairs in different macros of different threads count.
 */
export function occurrenceDependencies(
  ranges: readonly (readonly [number, number])[],
  w: WriterIndex,
  threadAt: (pos: number) => number,
): OccurrenceDependency[] {
  const out: OccurrenceDependency[] = [];
  const macroAt = (pos: number): number => {
    if (pos < 0) return -1;
    for (let j = 0; j < ranges.length; j++) if (pos >= ranges[j][0] && pos < ranges[j][1]) return j;
    return -1;
  };
  for (let j = 0; j < ranges.length; j++) {
    for (let i = ranges[j][0]; i < ranges[j][1]; i++) {
      const p = w.prevWrite[i];
      const pm = macroAt(p);
      if (pm >= 0 && pm !== j && threadAt(p) !== threadAt(i)) out.push({ kind: w.isWrite[i] ? 'output' : 'flow', from: p, to: i, fromMacro: pm, toMacro: j });
      if (!w.isWrite[i]) {
        const nx = w.nextWrite[i];
        const nm = macroAt(nx);
        if (nm >= 0 && nm !== j && threadAt(nx) !== threadAt(i)) out.push({ kind: 'anti', from: i, to: nx, fromMacro: j, toMacro: nm });
      }
    }
  }
  return out;
}
