/**
 * Pair before its combination (issue 38, "a combination adds an access the failure does not need";
 * AnalysisOptions.pairFirst, off by default; docs/algorithms.md "Pair before its combination"). A
 * single-variable combination (three accesses, P4–P8) is made of pairs: two of its accesses by its two threads, in its order, adjacent
 * in their location's run. Each such pair occurs in every run the combination does, so it explains every
 * failure the combination does; a combination scores above it only by occurring in fewer runs — its
 * extra access narrows the pair to the runs where something else (often a neighbouring write that merely
 * tends to follow) happened too. When a contained pair has evidence, the combination is scored on that
 * pair's counts and listed right after it (shorter first), instead of above it. Computed once per rank(): one pass over the pairs (a map from their
 * two static accesses), one over the combinations with evidence (at most six lookups each).
 */
import type { PatternDefinition } from '../unicorn/patternCatalog';

/** What the rule reads of the registry: a pattern's definition and its static accesses. */
export interface PatternShapes {
  patternDef(id: number): PatternDefinition;
  patternAccessAt(id: number, k: number): number;
}

/**
 * Per pattern id, the id of the pair whose counts it is scored on (-1: its own). `candidate(id)`: the
 * pattern is in some run and has evidence by its presence or by its order (a pair must have it to
 * qualify, a combination to be moved); `sortsAfter(s, c)`: pair s, on its own counts, is listed after
 * combination c on c's counts, lengths aside (same section, lower score or, at an equal score, a later
 * tie-break); `sameGroup(a, b)`: both are causes, or both harness, or both symptoms. Of several pairs
 * that qualify the one listed first is taken.
 */
export function pairFirstOf(
  reg: PatternShapes,
  n: number,
  candidate: (id: number) => boolean,
  sortsAfter: (s: number, c: number) => boolean,
  sameGroup: (a: number, b: number) => boolean,
): Int32Array {
  const out = new Int32Array(n).fill(-1);
  // the pairs with evidence, by their two static accesses (roles 1 → 2 implied)
  const pairs = new Map<number, number>();
  let width = 1;
  for (let id = 0; id < n; id++) if (reg.patternDef(id).kind.length === 2) width = Math.max(width, reg.patternAccessAt(id, 0) + 1, reg.patternAccessAt(id, 1) + 1);
  for (let id = 0; id < n; id++) {
    if (reg.patternDef(id).kind.length !== 2 || !candidate(id)) continue;
    pairs.set(reg.patternAccessAt(id, 0) * width + reg.patternAccessAt(id, 1), id);
  }
  if (pairs.size === 0) return out;
  for (let c = 0; c < n; c++) {
    const def = reg.patternDef(c);
    const len = def.kind.length;
    // (single-variable combinations only, P4–P8: a multi-variable one says what none of its pairs can — two
    // variables left inconsistent — and is the unit of its bug, as vectorcopy's size and data)
    if (len !== 3 || !candidate(c)) continue;
    let best = -1;
    for (let i = 0; i < len; i++) {
      const a = reg.patternAccessAt(c, i);
      if (a >= width) continue;
      for (let j = i + 1; j < len; j++) {
        if (def.roles[i] === def.roles[j]) continue;
        const b = reg.patternAccessAt(c, j);
        if (b >= width) continue;
        const s = pairs.get(a * width + b);
        if (s === undefined || !sameGroup(s, c) || !sortsAfter(s, c)) continue;
        if (best < 0 || sortsAfter(best, s)) best = s;
      }
    }
    out[c] = best;
  }
  return out;
}
