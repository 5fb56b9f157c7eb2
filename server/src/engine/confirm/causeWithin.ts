/**
 * The cause within a confirmed combination (issue 40, item 1: a verdict means what it says). A
 * pattern of three or four accesses is forced with a wait at every change of thread role, so its
 * confirmation imposes the order of all its accesses at once: when a smaller pattern the ranking
 * lists — a pair whose accesses, thread roles included, are among the combination's in its order, on
 * fewer variables — makes
 * the failure by itself, the combination's other accesses are incidental (a scrape's counter reads
 * between a collection's iteration and another thread's `add`), and the claim "this order causes
 * the failure" belongs to the smaller pattern. `braid confirm` and `braid analyze --confirm` force
 * that smaller pattern next; when it is confirmed too, it is named as the cause (and listed first by
 * the superset rule of confirmedRanking.ts). A combination over two variables has a part on each: when
 * the first forced alone is not confirmed, the part on the other variable is forced next
 * (causeWithinCandidates). `--whole` (ConfirmArgs.whole) keeps the paper's
 * behaviour: the combination's verdict alone.
 */
import type { RankedPattern } from '../analysis';
import { patternSize } from './confirmedRanking';

type Access = RankedPattern['accesses'][number];
const same = (a: Access, b: Access, swap: boolean) =>
  a.type === b.type && a.variable === b.variable && a.file === b.file && a.line === b.line && a.thread === (swap ? 3 - b.thread : b.thread);

/**
 * q's accesses, in q's order, are a subsequence of p's, thread roles kept (as they are or swapped:
 * roles are numbered per pattern). Order matters: `W1 :54 → R2 :72` is not within `R1 :72 → W2 :54 …`
 * though it has the same accesses — it is the opposite order.
 */
export function isOrderedWithin(p: Pick<RankedPattern, 'accesses'>, q: Pick<RankedPattern, 'accesses'>): boolean {
  for (const swap of [false, true]) {
    let j = 0;
    for (const a of p.accesses) if (j < q.accesses.length && same(a, q.accesses[j], swap)) j++;
    if (j === q.accesses.length) return true;
  }
  return false;
}

/** Fewest distinct accesses (with thread roles) of a pattern whose cause is looked for within it. */
export const CAUSE_WITHIN_MIN_ACCESSES = 3;

/**
 * The listed patterns strictly within `p` (their accesses, with roles, in p's order, and fewer of them)
 * that leave out at least one of p's variables, smallest first, then in list order. Empty when `p` has
 * fewer than three distinct accesses or one variable: a window on one variable (a lost update's `R1 W2
 * W1`) needs each of its accesses — its pair `R1 W2` forced alone fails only because the thread's write
 * follows by itself, and naming that pair would say less than the window.
 */
export function patternsWithin<T extends Pick<RankedPattern, 'key' | 'accesses'>>(listed: readonly T[], p: Pick<RankedPattern, 'key' | 'accesses'>): T[] {
  const n = patternSize(p);
  if (n < CAUSE_WITHIN_MIN_ACCESSES) return [];
  const vars = new Set(p.accesses.map((a) => a.variable));
  if (vars.size < 2) return [];
  const out: { q: T; n: number; k: number }[] = [];
  for (const [k, q] of listed.entries()) {
    if (q.key === p.key) continue;
    const m = patternSize(q);
    if (m >= n || m < 2) continue;
    // a variable of p left out: on one variable every access of a window is the bug's (a lost update's R1 W2 W1)
    if (new Set(q.accesses.map((a) => a.variable)).size >= vars.size) continue;
    if (isOrderedWithin(p, q)) out.push({ q, n: m, k });
  }
  return out.sort((a, b) => a.n - b.n || a.k - b.k).map((x) => x.q);
}

/**
 * The smaller patterns to force, in turn, after `p` was confirmed: the first of patternsWithin for each
 * set of variables they keep (a combination over `x` and `y` has a part on `x` and a part on `y`; either
 * may be the one whose order fails alone, as when the combination spans two bugs, one on each variable),
 * in patternsWithin's order. The first confirmed is named as the cause; the others are not forced.
 */
export function causeWithinCandidates<T extends Pick<RankedPattern, 'key' | 'accesses'>>(listed: readonly T[], p: Pick<RankedPattern, 'key' | 'accesses'>): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const q of patternsWithin(listed, p)) {
    const vars = [...new Set(q.accesses.map((a) => a.variable))].sort().join('\u0000');
    if (seen.has(vars)) continue;
    seen.add(vars);
    out.push(q);
  }
  return out;
}
