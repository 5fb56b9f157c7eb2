/**
 * The listed order (rootCauseOrder.ts) in typed arrays, for Analyzer.rank():
 * rows already sorted by (group, score, …, static key) get their competition
 * ranks (listRanks) and tie groups (tieGroups: within a run of equal group and
 * score, the patterns over the same methods are one group, listed at the
 * place of its first member), and are written to the ranked list. Linear in
 * the rows; nothing is allocated per row.
 */
import { sameScore } from './competitionRanking';
import { PATTERN_GROUPS } from './rootCauseOrder';
import type { RankedList } from './rankedList';

export interface SortedRows {
  /** registry ids in sorted order */
  ids: Int32Array;
  /** per sorted row: its bucket (rows of one bucket have one score and group), methods key (interned, ≥ 0; grouping only) */
  bucket: Int32Array;
  tieKey?: Int32Array;
  /** per bucket: score, group (index into PATTERN_GROUPS) */
  bucketScore: Float64Array;
  bucketGroup: Uint8Array;
  /** per registry id: failing / passing runs */
  failed: Int32Array;
  passed: Int32Array;
  /** room for 2 · rows int32 the caller no longer needs (saves allocating them; grouping only) */
  scratch?: Int32Array;
}

/** Writes rows [0, n) of `list`: ranks, then tie groups when `rows.tieKey` is given (grouping on). */
export function placeRows(list: RankedList<any>, rows: SortedRows): void {
  const { ids, bucket, bucketScore, bucketGroup, tieKey, failed, passed } = rows;
  const score = (q: number) => bucketScore[bucket[q]];
  const group = (q: number) => bucketGroup[bucket[q]];
  const count = ids.length;
  const grouping = tieKey !== undefined;
  let keys = 0;
  if (tieKey) for (let q = 0; q < count; q++) if (tieKey[q] >= keys) keys = tieKey[q] + 1;
  // per methods key: the last sub-run that met it and its bucket there
  const stamp = new Int32Array(keys).fill(-1);
  const slot = new Int32Array(keys);
  const room = grouping && rows.scratch && rows.scratch.length >= 2 * count ? rows.scratch : new Int32Array(grouping ? 2 * count : 0);
  const memberTie = room.subarray(0, count);
  const rowAt = room.subarray(count, 2 * count);
  // per tie group of a sub-run (at most one per methods key)
  const tieCount = new Int32Array(keys + 1);
  const tieStart = new Int32Array(keys + 1);
  let j = 0;
  let tieNo = 0;
  for (let start = 0; start < count; ) {
    const g = group(start);
    let end = start + 1;
    while (end < count && sameScore(score(end), score(end - 1)) && (!grouping || group(end) === g)) end++;
    const rank = start + 1;
    if (!grouping || end - start === 1) {
      for (let q = start; q < end; q++) list.setRow(j++, ids[q], rank, score(q), failed[ids[q]], passed[ids[q]], g, ++tieNo, 1);
      start = end;
      continue;
    }
    // tie groups: scores equal to the first of the sub-run (tieGroups), a sub-run of the rank's run
    for (let sub = start; sub < end; ) {
      let subEnd = sub + 1;
      while (subEnd < end && sameScore(score(subEnd), score(sub))) subEnd++;
      if (subEnd - sub === 1) {
        list.setRow(j++, ids[sub], rank, score(sub), failed[ids[sub]], passed[ids[sub]], g, ++tieNo, 1);
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
      // each row's place, then the list's columns one at a time: ids and scores scattered (one stream
      // each; with thousands of tie groups, writing every column at once misses the cache on every row),
      // the rest in list order (ranks and group of the run, tie groups as ranges, counts read by id)
      const m = subEnd - sub;
      for (let k = 0; k < m; k++) rowAt[k] = j + tieStart[memberTie[k]]++;
      for (let k = 0; k < m; k++) list.ids[rowAt[k]] = ids[sub + k];
      for (let k = 0; k < m; k++) list.scores[rowAt[k]] = score(sub + k);
      list.ranks.fill(rank, j, j + m);
      // a section code: the group, + PATTERN_GROUPS.length without evidence (RankedList.setRow)
      list.groupCodes.fill(g % PATTERN_GROUPS.length, j, j + m);
      list.evidence.fill(g < PATTERN_GROUPS.length ? 1 : 0, j, j + m);
      for (let b = 0, at = j; b < nb; b++) {
        const size = tieStart[b] - (at - j);
        list.ties.fill(tieNo + b + 1, at, at + size);
        list.tieSizes.fill(size, at, at + size);
        at += size;
      }
      for (let q = j; q < j + m; q++) {
        const id = list.ids[q];
        list.failed[q] = failed[id];
        list.passed[q] = passed[id];
      }
      tieNo += nb;
      j += subEnd - sub;
      sub = subEnd;
    }
    start = end;
  }
  list.countGroups();
}
