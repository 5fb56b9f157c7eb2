/**
 * Evidence clustering (GRIFFIN's default since issue 27; docs/griffin.md "Evidence clustering"):
 * one bug per root cause, each resting on a pattern with evidence, found by sequential covering
 * of the failing runs.
 *
 *   1. Leads: cause patterns (the ranking's cause group; harness patterns only when no cause
 *      pattern occurs in a failing run) whose one-sided Fisher p-value is below α/m, m = the number
 *      of patterns tested (Bonferroni). A pattern without evidence never heads a bug.
 *   2. While failing runs are left unexplained: among the leads, the pattern that still separates
 *      the unexplained failing runs from the passing runs (Fisher p < α/m both on all runs and on
 *      the residual table: the unexplained failing runs against the passing runs) and ranks best
 *      starts a bug (option seed 'precision': the most precise one — share of failing runs among
 *      the runs showing it — then the lower residual p, then the better rank).
 *   3. Its family: leads not yet in a bug that share a static access (type, variable, file, line)
 *      with it and run only in its methods, whose failing runs are mostly (≥ familyOverlap, 80 %) the seed's, and are nearly as precise (≥ familyPrecision × its
 *      precision). The bug's failing runs are the runs its family shows — a pattern that explains
 *      only runs some bug already explains never starts another, and a different significant
 *      pattern that explains other runs does, even when every failing run has the same symptom.
 *      A seed that shares a static access with an earlier bug's seed and runs only in that seed's
 *      methods joins that bug instead (one fix, in the same methods, removes both) — a weak seed
 *      (step 4) joins a bug with evidence so too.
 *   4. Then weak bugs: the same with the uncorrected α on the runs still unexplained.
 *   5. Related patterns (symptoms, side effects — significant at α but in no family) are listed
 *      with the bug whose failing runs hold most of theirs (at least half); they add no runs and
 *      never name its methods.
 *   6. (option inEveryRun, default on; not in the thesis) When steps 2–4 form no bug, the first
 *      cause pattern occurs in every failing run and there are at least MIN_RUNS failing and
 *      MIN_RUNS passing runs, it makes one weak bug (marked inEveryRun): no pattern has evidence —
 *      the race is in passing runs too and what fails is its order or its values — but the user
 *      still gets the methods of the pattern the ranking puts first.
 *
 * The family members whose accesses all run in the seed's methods give the lanes of the
 * suspicious methods (a pattern that also reaches into another bug's code does not); their lanes are aligned with the lead's
 * by an access that the lead has on one lane only.
 */
import type { CoverageMatrix } from './coverageMatrix';
import type { PatternMember } from './clusterSuspiciousPatterns';
import { fisherOneSided } from '../ranking/fisherExact';

export interface EvidenceOptions {
  alpha: number;
  /** a family member's precision must be at least this fraction of the lead's (default 0.9) */
  familyPrecision: number;
  /** a family member shows at least this share of its failing runs with the seed (default 0.8) */
  familyOverlap: number;
  /** patterns listed per bug: family and related each (default 40) */
  listed: number;
  /** leads considered at most (the most significant first; default 5000) */
  maxLeads: number;
  /**
   * Which lead starts the next bug: 'rank' (default) the best-ranked one that still separates the
   * unexplained failing runs; 'precision' the most precise one (then the lower residual p).
   */
  seed: 'rank' | 'precision';
  /** step 6: a weak bug from the first cause pattern when no bug forms and it occurs in every failing run (default true) */
  inEveryRun: boolean;
  /**
   * A family member whose accesses all run in the methods of one of the seed's lanes — that lane's code
   * racing with another instance of itself, a third thread — gives no lane its methods when the seed's
   * two lanes run in different methods (default true; false = every member in the seed's methods does).
   */
  thirdThread: boolean;
}

/** step 6 needs at least this many failing and this many passing runs */
export const IN_EVERY_RUN_MIN_RUNS = 5;

/** Related patterns (step 5) are looked for among the first rows of the ranking only. */
const RELATED_ROWS = 20000;

export const EVIDENCE_DEFAULTS: EvidenceOptions = { alpha: 0.05, familyPrecision: 0.9, familyOverlap: 0.8, listed: 40, maxLeads: 5000, seed: 'rank', inEveryRun: true, thirdThread: true };

export interface EvidenceBug {
  /** the family's patterns, aligned with the lead's lanes (best-ranked first) */
  family: PatternMember[];
  /** family members that give the lanes of the suspicious methods (accesses in the seed's methods only) */
  lanes: PatternMember[];
  /** related patterns (no runs added), best-ranked first */
  related: number[];
  /** failing runs (indices into m.runs) the family shows */
  runs: Set<number>;
  /** the pattern that started the bug */
  seed: number;
  /** Fisher p-value of the seed on the residual table when it was chosen */
  residualP: number;
  /** chosen at the uncorrected α (step 4), or made by step 6 */
  weak: boolean;
  /** made by step 6: the first cause pattern, in every failing run and in passing runs too (no evidence) */
  inEveryRun?: boolean;
}

export interface EvidenceResult {
  bugs: EvidenceBug[];
  /** patterns tested (m of the correction) */
  tested: number;
  /** α / m */
  threshold: number;
}

export function evidenceClustering(m: CoverageMatrix, options: Partial<EvidenceOptions> = {}): EvidenceResult {
  const o = { ...EVIDENCE_DEFAULTS, ...options };
  const F = m.totalFailed;
  const P = m.totalPassed;
  const fisherMemo = new Map<number, number>();
  const fisher = (f: number, p: number, totalF: number) => {
    const key = (f * (P + 1) + p) * (F + 1) + totalF;
    let v = fisherMemo.get(key);
    if (v === undefined) fisherMemo.set(key, (v = fisherOneSided(f, p, totalF, P)));
    return v;
  };
  if (F === 0) return { bugs: [], tested: 0, threshold: o.alpha };
  // 1. the lead pool: cause rows in a failing run (harness rows when there is no cause row)
  const R = m.rowCount;
  const inPool = new Uint8Array(R);
  let tested = 0;
  for (let pass = 0; pass < 2 && tested === 0; pass++)
    for (let row = 0; row < R; row++) {
      if (m.failed[row] === 0) continue;
      const g = m.group(row);
      if (pass === 0 ? g === undefined || g === 'cause' : g === 'harness') {
        inPool[row] = 1;
        tested++;
      }
    }
  const threshold = o.alpha / Math.max(1, tested);
  const orderP = m.orderP;
  // p-values of the rows in a failing run (NaN: none), memoized per (failed, passed) in a dense table when it is small
  const pOf = new Float64Array(R).fill(NaN);
  const dense = (F + 1) * (P + 1) <= 1 << 22 ? new Float64Array((F + 1) * (P + 1)).fill(-1) : undefined;
  let significant = 0;
  for (let row = 0; row < R; row++)
    if (m.failed[row] > 0) {
      const f = m.failed[row];
      const q = m.passed[row];
      let p: number;
      if (dense) {
        p = dense[f * (P + 1) + q];
        if (p < 0) p = dense[f * (P + 1) + q] = fisherOneSided(f, q, F, P);
      } else p = fisher(f, q, F);
      // evidence by order (the ranking's; ranking/orderEvidence.ts): a pattern in passing runs too whose order goes with failing
      const op = orderP ? orderP[row] : NaN;
      pOf[row] = op < p ? op : p;
      if (inPool[row] && p < o.alpha) significant++;
    }
  // every lead significant at the uncorrected α (weak bugs and related patterns come from these), the most
  // significant first; at most maxLeads (the rest are cut at the maxLeads-th smallest p-value)
  let cut = o.alpha;
  if (significant > o.maxLeads) {
    const ps = new Float64Array(significant);
    for (let row = 0, k = 0; row < R; row++) if (inPool[row] && pOf[row] < o.alpha) ps[k++] = pOf[row];
    ps.sort();
    cut = ps[o.maxLeads - 1];
  }
  const leadList: number[] = [];
  for (let row = 0; row < R; row++) if (inPool[row] && (pOf[row] < cut || (cut < o.alpha && pOf[row] === cut))) leadList.push(row);
  const leads = leadList.sort((a, b) => pOf[a] - pOf[b] || a - b).slice(0, o.maxLeads);
  // related candidates (step 5): significant rows among the first RELATED_ROWS, leads or not
  const relatedRows = Math.min(R, RELATED_ROWS);
  // failing-run bitsets of the leads and the related candidates (over m.failingRuns), one pass over the failing runs
  const FW = (F + 31) >>> 5;
  const slotOf = new Int32Array(R).fill(-1);
  leads.forEach((row, k) => (slotOf[row] = k));
  let tracked = leads.length;
  for (let row = 0; row < relatedRows; row++) if (slotOf[row] < 0 && pOf[row] < o.alpha) slotOf[row] = tracked++;
  const bits = new Uint32Array(tracked * FW);
  m.failingRuns.forEach((run, fi) => {
    const word = fi >>> 5;
    const bit = 1 << (fi & 31);
    m.forEachRow(run, (row) => {
      const s = slotOf[row];
      if (s >= 0) bits[s * FW + word] |= bit;
    });
  });
  const precision = (row: number) => m.failed[row] / (m.failed[row] + m.passed[row]);
  const remaining = new Uint32Array(FW);
  for (let fi = 0; fi < F; fi++) remaining[fi >>> 5] |= 1 << (fi & 31);
  let left = F;
  const assigned = new Uint8Array(leads.length);
  const bugs: EvidenceBug[] = [];
  const countAnd = (s: number, mask: Uint32Array) => {
    let n = 0;
    for (let w = 0; w < FW; w++) n += popcount(bits[s * FW + w] & mask[w]);
    return n;
  };
  for (const [limit, weak] of [[threshold, false], [o.alpha, true]] as const) {
    for (;;) {
      if (left === 0) break;
      // 2. the best-ranked (or most precise) lead that still separates the unexplained failing runs from the passing runs
      let best = -1;
      let bestP = 1;
      for (let s = 0; s < leads.length; s++) {
        if (assigned[s]) continue;
        const row = leads[s];
        if (!(pOf[row] < limit)) continue;
        const fr = countAnd(s, remaining);
        if (fr === 0) continue;
        const fp = fisher(fr, m.passed[row], left);
        const op = orderP ? orderP[row] : NaN;
        const rp = op < fp ? op : fp;
        if (!(rp < limit)) continue;
        if (best < 0) {
          best = s;
          bestP = rp;
          continue;
        }
        const b = leads[best];
        if (o.seed === 'rank') {
          if (row < b) {
            best = s;
            bestP = rp;
          }
          continue;
        }
        const dp = precision(row) - precision(b);
        if (dp > 1e-9 || (Math.abs(dp) <= 1e-9 && (rp < bestP || (rp === bestP && row < b)))) {
          best = s;
          bestP = rp;
        }
      }
      if (best < 0) break;
      const seed = leads[best];
      const seedMask = bits.subarray(best * FW, (best + 1) * FW);
      // 3a. a seed at an access of an earlier bug's seed, in that seed's methods, is more of that bug — also a
      // weak seed of a bug with evidence: one lost update's W1 W2 in a few failing runs of their own is the
      // same update as the R1 W2 bug's, not a second bug (one fix in the same methods removes both)
      const earlier = bugs.find((b) => sameSite(m, b.seed, seed));
      if (earlier) {
        assigned[best] = 1;
        earlier.family.push(...alignFamily(m, earlier.seed, [seed]));
        earlier.family.sort((a, b) => a.row - b.row);
        for (let fi = 0; fi < F; fi++)
          if (seedMask[fi >>> 5] & (1 << (fi & 31))) {
            earlier.runs.add(m.failingRuns[fi]);
            if (remaining[fi >>> 5] & (1 << (fi & 31))) {
              remaining[fi >>> 5] &= ~(1 << (fi & 31));
              left--;
            }
          }
        continue;
      }
      // 3. its family
      const floor = o.familyPrecision * precision(seed);
      const members: number[] = [seed];
      assigned[best] = 1;
      const runsMask = Uint32Array.from(seedMask);
      for (let s = 0; s < leads.length; s++) {
        if (assigned[s]) continue;
        const row = leads[s];
        // most of its failing runs are the seed's (a consequence of another bug at the same line is not family)
        if (precision(row) + 1e-9 < floor || countAnd(s, seedMask) < o.familyOverlap * m.failed[row]) continue;
        if (!sameSite(m, seed, row)) continue;
        assigned[s] = 1;
        members.push(row);
        for (let w = 0; w < FW; w++) runsMask[w] |= bits[s * FW + w];
      }
      const runs = new Set<number>();
      for (let fi = 0; fi < F; fi++)
        if (runsMask[fi >>> 5] & (1 << (fi & 31))) {
          runs.add(m.failingRuns[fi]);
          if (remaining[fi >>> 5] & (1 << (fi & 31))) {
            remaining[fi >>> 5] &= ~(1 << (fi & 31));
            left--;
          }
        }
      members.sort((a, b) => a - b);
      const family = alignFamily(m, seed, members).slice(0, o.listed);
      if (!family.some((x) => x.row === seed)) family.push({ row: seed, flip: false, score: m.scores?.[seed] ?? 0, failed: m.failed[seed], passed: m.passed[seed] });
      family.sort((a, b) => a.row - b.row);
      const seedMethods = new Set(m.pattern(seed).accesses.map((a) => `${a.file}\u0000${a.method}`));
      const laneMethods = seedLaneMethods(m, seed, o.thirdThread);
      const lanes = family.filter(
        (x) =>
          x.row === seed ||
          (m.pattern(x.row).accesses.every((a) => seedMethods.has(`${a.file}\u0000${a.method}`)) &&
            !(laneMethods && laneMethods.some((l) => m.pattern(x.row).accesses.every((a) => l.has(`${a.file}\u0000${a.method}`))))),
      );
      bugs.push({ family, lanes, related: [], runs, seed, residualP: bestP, weak });
    }
  }
  // 6. no bug: the first cause pattern when it occurs in every failing run (its methods, marked weak)
  if (o.inEveryRun && bugs.length === 0 && F >= IN_EVERY_RUN_MIN_RUNS && P >= IN_EVERY_RUN_MIN_RUNS) {
    const first = firstCauseRow(m);
    if (first >= 0 && m.failed[first] === F) {
      const member = { row: first, flip: false, score: m.scores?.[first] ?? 0, failed: m.failed[first], passed: m.passed[first] };
      bugs.push({ family: [member], lanes: [member], related: [], runs: new Set(m.failingRuns), seed: first, residualP: pOf[first], weak: true, inEveryRun: true });
    }
  }
  // 5. related patterns: significant, in no family, mostly inside one bug's runs
  if (bugs.length) {
    const related = new Map<EvidenceBug, number[]>();
    const masks = bugs.map((b) => {
      const mask = new Uint32Array(FW);
      m.failingRuns.forEach((run, fi) => {
        if (b.runs.has(run)) mask[fi >>> 5] |= 1 << (fi & 31);
      });
      return mask;
    });
    for (let row = 0; row < relatedRows; row++) {
      const s = slotOf[row];
      if (s < 0 || (s < leads.length && assigned[s])) continue;
      let target = -1;
      let most = 0;
      for (let k = 0; k < bugs.length; k++) {
        const n = countAnd(s, masks[k]);
        if (n > most) {
          most = n;
          target = k;
        }
      }
      if (target < 0 || 2 * most < m.failed[row]) continue;
      const l = related.get(bugs[target]) ?? [];
      if (l.length < o.listed) l.push(row);
      related.set(bugs[target], l);
    }
    for (const b of bugs) b.related = related.get(b) ?? [];
  }
  return { bugs, tested, threshold };
}

/**
 * The family's members with their lanes lined up with the seed's: by an access the seed has on one
 * lane only (its type, variable, file and line); members without such an access keep their roles.
 */
function alignFamily(m: CoverageMatrix, seed: number, rows: readonly number[]): PatternMember[] {
  const lead = m.pattern(seed).accesses;
  const laneOfKey = new Map<string, number>();
  for (const a of lead) {
    const known = laneOfKey.get(a.key);
    laneOfKey.set(a.key, known === undefined || known === a.thread ? a.thread : 0);
  }
  return rows.map((row) => {
    let flip = false;
    if (row !== seed)
      for (const a of m.pattern(row).accesses) {
        const lane = laneOfKey.get(a.key);
        if (lane) {
          flip = lane !== a.thread;
          break;
        }
      }
    return { row, flip, score: m.scores?.[row] ?? 0, failed: m.failed[row], passed: m.passed[row] };
  });
}

/**
 * The method of each of the seed's lanes, when each lane runs in one method and they differ (else
 * undefined: a method racing with itself, a lane of several methods, or the rule is off). A family member inside one of these sets is that lane racing with
 * another instance of itself (a third thread: two captures of a pool while a release runs) — it shares the
 * seed's access on that lane, and aligning it by that access would put the lane's own method on the other
 * lane.
 */
function seedLaneMethods(m: CoverageMatrix, seed: number, on: boolean): Set<string>[] | undefined {
  if (!on) return undefined;
  const lanes = [new Set<string>(), new Set<string>()];
  for (const a of m.pattern(seed).accesses) lanes[a.thread - 1].add(`${a.file}\u0000${a.method}`);
  // each lane one method, and not the same one: a lane that spans several methods is itself a sequence
  // of calls whose races with each other tell which of them is its region (datasource of the bug set:
  // getConnection and returnConnection on one lane, two returnConnections racing name the second)
  if (lanes[0].size !== 1 || lanes[1].size !== 1) return undefined;
  for (const x of lanes[0]) if (lanes[1].has(x)) return undefined;
  return lanes;
}

/** The first row the ranking groups as a cause (or the first row when it does not group); -1 when none. */
function firstCauseRow(m: CoverageMatrix): number {
  for (let row = 0; row < m.rowCount; row++) {
    const g = m.group(row);
    if (g === undefined || g === 'cause') return row;
  }
  return -1;
}

/** b shares a static access with a and every access of b is in a method of a's accesses. */
function sameSite(m: CoverageMatrix, a: number, b: number): boolean {
  const pa = m.pattern(a).accesses;
  const keys = new Set(pa.map((x) => x.key));
  const methods = new Set(pa.map((x) => `${x.file}\u0000${x.method}`));
  const pb = m.pattern(b).accesses;
  return pb.some((x) => keys.has(x.key)) && pb.every((x) => methods.has(`${x.file}\u0000${x.method}`));
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
