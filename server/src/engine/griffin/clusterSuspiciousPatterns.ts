/**
 * GRIFFIN Step 3, Algorithm 4 ClusterSuspiciousPatterns (thesis §5.3.3).
 *
 * Takes the top t patterns of one cluster of failing runs, starts with one
 * pattern per cluster and repeatedly merges the first mergeable pair of
 * clusters (isMergeable) until none is left:
 *   1. the clusters have the same common call stacks (per thread, the common
 *      part of the stacks from the bottom, compared by method), or
 *   2. exact subsumption: one cluster is a single pair (P1–P3) whose two
 *      static accesses occur, in the same order and on different threads,
 *      in a triple or quadruple (P4–P17) of the other cluster.
 *
 * Thread roles are per pattern (role 1 = the thread of the pattern's first
 * access), so a pattern may have to be flipped to line up with a cluster: the
 * WR pair 851→681 of the Vector example has addAll's thread as role 1, while
 * in RWR 271→851→681 it is role 2. Each member records whether it is flipped;
 * a cluster's lane 1 is role 1 of its best-ranked pattern.
 */
import { Formula } from '../ranking/suspiciousness';
import type { CoverageMatrix, MatrixPattern } from './coverageMatrix';
import { CommonFrame, commonCallStack, sameCallStack } from './commonCallStack';
import { countsOfRuns, getSuspiciousPatterns, ScoredPattern, Scoring } from './suspiciousPatterns';

export interface ClusterPatternsOptions {
  /** number of suspicious patterns to cluster (thesis default 20) */
  t?: number;
  formula?: Formula;
  /** 'global' = thesis (top t of F), 'cluster' = re-scored per cluster */
  scoring?: Scoring;
}

export const DEFAULT_PATTERN_TOP = 20;

export interface PatternMember {
  /** row of M (index into result.patterns) */
  row: number;
  /** true when the pattern's role 1 is the cluster's lane 2 */
  flip: boolean;
  /** score used to pick it: the global score (thesis) or within the failing-run cluster (scoring 'cluster') */
  score: number;
  /** failing runs of the failing-run cluster covering it, and passing runs covering it */
  failed: number;
  passed: number;
}

export interface PatternCluster {
  /** best first (the order of getSuspiciousPatterns) */
  members: PatternMember[];
}

/** The lane (1|2) of access `k` of a member's pattern. */
export function laneOf(m: CoverageMatrix, member: Pick<PatternMember, 'row' | 'flip'>, k: number): 1 | 2 {
  const role = m.pattern(member.row).accesses[k].thread;
  return (member.flip ? 3 - role : role) as 1 | 2;
}

/** Per lane (index 0 = lane 1), the common call stack of the cluster's accesses on that lane. */
export function laneCommonStacks(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[]): [CommonFrame[], CommonFrame[]] {
  const stacks: [MatrixPattern['accesses'][number]['stack'][], MatrixPattern['accesses'][number]['stack'][]] = [[], []];
  for (const mem of members) {
    const p = m.pattern(mem.row);
    p.accesses.forEach((a, k) => stacks[laneOf(m, mem, k) - 1].push(a.stack));
  }
  return [commonCallStack(stacks[0]), commonCallStack(stacks[1])];
}

interface WorkCluster {
  members: PatternMember[];
  common: [CommonFrame[], CommonFrame[]];
}

/**
 * isMergeable: undefined when not, otherwise whether b's members must be
 * flipped to line up with a's lanes.
 */
export function isMergeable(m: CoverageMatrix, a: WorkCluster, b: WorkCluster): { flip: boolean } | undefined {
  const [a1, a2] = a.common;
  const [b1, b2] = b.common;
  // 1. same common call stacks (both lanes known; empty stacks say nothing)
  if (a1.length && a2.length && b1.length && b2.length) {
    if (sameCallStack(a1, b1) && sameCallStack(a2, b2)) return { flip: false };
    if (sameCallStack(a1, b2) && sameCallStack(a2, b1)) return { flip: true };
  }
  // 2. exact subsumption of a single pair in a triple / quadruple
  const sub = subsumption(m, a, b);
  if (sub !== undefined) return { flip: sub };
  const rev = subsumption(m, b, a);
  if (rev !== undefined) return { flip: rev };
  return undefined;
}

/**
 * `pairCl` is a single pair contained in a triple/quadruple of `other`:
 * returns whether the cluster b (the second argument of isMergeable) must be
 * flipped — the answer is the same whichever of the two is the pair.
 */
function subsumption(m: CoverageMatrix, pairCl: WorkCluster, other: WorkCluster): boolean | undefined {
  if (pairCl.members.length !== 1) return undefined;
  const pm = pairCl.members[0];
  const pair = m.pattern(pm.row);
  if (pair.accesses.length !== 2) return undefined;
  const [x, y] = pair.accesses;
  for (const om of other.members) {
    const q = m.pattern(om.row);
    if (q.accesses.length < 3) continue;
    for (let i = 0; i < q.accesses.length; i++) {
      if (q.accesses[i].key !== x.key) continue;
      for (let j = i + 1; j < q.accesses.length; j++) {
        if (q.accesses[j].key !== y.key || q.accesses[j].thread === q.accesses[i].thread) continue;
        // lanes must agree: x's lane in pairCl vs q[i]'s lane in other
        return laneOf(m, pm, 0) !== laneOf(m, om, i);
      }
    }
  }
  return undefined;
}

/** Algorithm 4 for one cluster of failing runs (run indices into m.runs). */
export function clusterSuspiciousPatterns(m: CoverageMatrix, failingRuns: readonly number[], options: ClusterPatternsOptions = {}): PatternCluster[] {
  const t = options.t ?? DEFAULT_PATTERN_TOP;
  if (!Number.isInteger(t) || t < 1) throw new Error(`pattern top t must be an integer ≥ 1, got ${t}`);
  const scoring = options.scoring ?? 'global';
  const top = getSuspiciousPatterns(m, countsOfRuns(m, failingRuns, scoring === 'global' ? t : undefined), options.formula ?? 'jaccard', t, scoring);
  return clusterPatterns(m, top);
}

/** The merging loop of Algorithm 4 over already chosen patterns (best first). */
export function clusterPatterns(m: CoverageMatrix, top: readonly ScoredPattern[]): PatternCluster[] {
  const clusters: WorkCluster[] = top.map((p) => {
    const members = [{ row: p.row, flip: false, score: p.score, failed: p.failed, passed: p.passed }];
    return { members, common: laneCommonStacks(m, members) };
  });
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let i = 0; i < clusters.length; i++) {
      for (let j = i + 1; j < clusters.length; j++) {
        const how = isMergeable(m, clusters[i], clusters[j]);
        if (!how) continue;
        const a = clusters[i];
        for (const mem of clusters[j].members) a.members.push(how.flip ? { ...mem, flip: !mem.flip } : mem);
        a.common = laneCommonStacks(m, a.members);
        clusters.splice(j, 1);
        merged = true;
        break outer;
      }
    }
  }
  const order = new Map(top.map((p, k) => [p.row, k]));
  return clusters.map((c) => ({ members: c.members.sort((x, y) => order.get(x.row)! - order.get(y.row)!) }));
}
