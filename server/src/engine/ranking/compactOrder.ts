/**
 * The listed order (rootCauseOrder.ts) in typed arrays, for Analyzer.rank():
 * rows already sorted by (group, score, …, static key) get their competition
 * ranks (listRanks) and tie groups (tieGroups: within a run of equal group and
 * score, the patterns over the same methods are one group, listed at the
 * place of its first member), and are written to the ranked list. Linear in
 * the rows; nothing is allocated per row.
 */
import { sameScore } from './competitionRanking';
import type { RankedList } from './rankedList';

export interface SortedRows {
  /** registry ids in sorted order */
  ids: Int32Array;
  /** per sorted row: score, group (index into PATTERN_GROUPS), methods key (interned, ≥ 0; grouping only) */
  score: Float64Array;
  group: Uint8Array;
  tieKey?: Int32Array;
  /** per registry id: failing / passing runs */
  failed: Int32Array;
  passed: Int32Array;
}

/** Writes rows [0, n) of `list`: ranks, then tie groups when `rows.tieKey` is given (grouping on). */
export function placeRows(list: RankedList<any>, rows: SortedRows): void {
  const { ids, score, group, tieKey, failed, passed } = rows;
  const count = ids.length;
  const grouping = tieKey !== undefined;
  let keys = 0;
  if (tieKey) for (let q = 0; q < count; q++) if (tieKey[q] >= keys) keys = tieKey[q] + 1;
  // per methods key: the last sub-run that met it and its bucket there
  const stamp = new Int32Array(keys).fill(-1);
  const slot = new Int32Array(keys);
  const memberTie = new Int32Array(count);
  const tieCount = new Int32Array(count + 1);
  const tieStart = new Int32Array(count + 1);
  let j = 0;
  let tieNo = 0;
  for (let start = 0; start < count; ) {
    const g = group[start];
    let end = start + 1;
    while (end < count && sameScore(score[end], score[end - 1]) && (!grouping || group[end] === g)) end++;
    const rank = start + 1;
    if (!grouping || end - start === 1) {
      for (let q = start; q < end; q++) list.setRow(j++, ids[q], rank, score[q], failed[ids[q]], passed[ids[q]], g, ++tieNo, 1);
      start = end;
      continue;
    }
    // tie groups: scores equal to the first of the sub-run (tieGroups), a sub-run of the rank's run
    for (let sub = start; sub < end; ) {
      let subEnd = sub + 1;
      while (subEnd < end && sameScore(score[subEnd], score[sub])) subEnd++;
      if (subEnd - sub === 1) {
        list.setRow(j++, ids[sub], rank, score[sub], failed[ids[sub]], passed[ids[sub]], g, ++tieNo, 1);
        sub = subEnd;
        continue;
      }
      // one bucket per methods key, in order of first appearance
      let nb = 0;
      for (let q = sub; q < subEnd; q++) {
        const key = tieKey![q];
        if (stamp[key] !== sub) {
          stamp[key] = sub;
          slot[key] = nb;
          tieCount[nb++] = 0;
        }
        const b = slot[key];
        memberTie[q - sub] = b;
        tieCount[b]++;
      }
      for (let b = 0, at = 0; b < nb; b++) {
        tieStart[b] = at;
        at += tieCount[b];
      }
      for (let q = sub; q < subEnd; q++) {
        const b = memberTie[q - sub];
        list.setRow(j + tieStart[b]++, ids[q], rank, score[q], failed[ids[q]], passed[ids[q]], g, tieNo + b + 1, tieCount[b]);
      }
      tieNo += nb;
      j += subEnd - sub;
      sub = subEnd;
    }
    start = end;
  }
  list.countGroups();
}
