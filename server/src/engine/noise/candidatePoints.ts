/**
 * The candidate set S of `braid pinpoint` (issue 17): every instrumented point of the agent's
 * catalogue (`all`, the seed's setting), or by default the points on the source lines of the
 * top UNICORN patterns plus their neighbours (points of the same method within
 * `neighbourLines` lines), which keeps S — and so the runs IGS needs — small.
 */
import type { InstrumentedPoint } from './noisePlan';

export interface SourceLine {
  file: string;
  line: number;
}

export interface CandidateSelection {
  points: InstrumentedPoint[];
  /** why `patterns` fell back to every point, when it did */
  fallback?: string;
}

/** File names compare by base name: the catalogue has the class file's `Bank.java`, traces may have `bank/Bank.java`. */
export function baseName(file: string): string {
  const k = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return k < 0 ? file : file.slice(k + 1);
}

export function candidatePoints(
  catalogue: readonly InstrumentedPoint[],
  mode: 'all' | 'patterns',
  patternLines: readonly SourceLine[],
  neighbourLines = 2,
): CandidateSelection {
  if (mode === 'all') return { points: [...catalogue] };
  if (patternLines.length === 0) return { points: [...catalogue], fallback: 'no UNICORN pattern to start from (record runs first, or pass traces); using every instrumented point' };
  const lines = new Map<string, number[]>();
  for (const l of patternLines) {
    const f = baseName(l.file);
    const list = lines.get(f) ?? [];
    list.push(l.line);
    lines.set(f, list);
  }
  // methods holding a pattern line: their points near the line are the neighbours
  const onLine = catalogue.filter((p) => lines.get(baseName(p.file))?.includes(p.line));
  if (onLine.length === 0) return { points: [...catalogue], fallback: 'no instrumented point on the top patterns’ lines (were the traces recorded from this build?); using every instrumented point' };
  const methods = new Set(onLine.map((p) => `${baseName(p.file)}\0${p.method}`));
  const points = catalogue.filter((p) => {
    const near = lines.get(baseName(p.file))?.some((l) => Math.abs(l - p.line) <= neighbourLines);
    const onPatternLine = lines.get(baseName(p.file))?.includes(p.line) ?? false;
    // a call into application code (invoke) only on a pattern's own line: one a line before an access
    // triggers the same delay and would be reported instead of the access
    if (p.kind === 'invoke' && !onPatternLine) return false;
    return near && (methods.has(`${baseName(p.file)}\0${p.method}`) || onPatternLine);
  });
  return { points };
}

/** The bytecode offset of a point id `<class>.<method><desc>@<offset>` (−1 when absent). */
export function pointOffset(id: string): number {
  const k = id.lastIndexOf('@');
  const n = k < 0 ? NaN : Number(id.slice(k + 1));
  return Number.isFinite(n) ? n : -1;
}

/**
 * Neighbours of each candidate along the execution path, for the derivative score: the other
 * candidates of the same method in bytecode order (nearest first, before and after).
 */
export function pathNeighbours(candidates: readonly InstrumentedPoint[]): (p: number) => { before: number[]; after: number[] } {
  const byMethod = new Map<string, number[]>();
  candidates.forEach((p, k) => {
    const key = `${baseName(p.file)}\0${p.method}`;
    const list = byMethod.get(key) ?? [];
    list.push(k);
    byMethod.set(key, list);
  });
  const order = (k: number) => [candidates[k].line, pointOffset(candidates[k].id)];
  for (const list of byMethod.values()) list.sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1] || a - b);
  return (p) => {
    const list = byMethod.get(`${baseName(candidates[p].file)}\0${candidates[p].method}`) ?? [p];
    const at = list.indexOf(p);
    return { before: list.slice(0, at).reverse(), after: list.slice(at + 1) };
  };
}
