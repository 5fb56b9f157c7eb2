/**
 * The ranking after confirmation (issue 28, issue 40 item 2, `braid analyze --confirm K`): the
 * patterns that were forced carry their verdict, and the list is reordered — confirmed causes first
 * (in their ranked order, except that a confirmed pattern whose accesses, thread roles included,
 * hold all of another confirmed pattern's comes after it: forcing the smaller interleaving already
 * made the failure, the extra accesses are incidental — e.g. WRRW over `checking` and `savings`
 * after the RW on `savings` alone), then those that confirm the window (forcing showed the failure
 * needs it; its cause pattern is forced next by `--confirm`), then the patterns not tried, then the
 * not-forced ones, then the refuted ones. The place decides before the evidence:
 * a refuted or not-forced pattern never stays first because the others lack evidence. Scores,
 * p-values and ranks are kept (they are the statistics of the recorded runs); ties are renumbered
 * over the new order, and every move is said in one line (reorderLines).
 */
import type { AnalysisResult, RankedPattern } from '../analysis';
import { patternAt, patternCount } from '../ranking/rankedList';
import type { Verdict } from './confirmVerdict';

export interface PatternConfirmation {
  verdict: Verdict;
  reason: string;
  pValue: number;
  forced: { runs: number; failed: number; forcedOk: number };
  opposite?: { runs: number; failed: number; forcedOk: number };
  control?: { runs: number; failed: number };
  /** a forced failing run's trace (Reproduce) */
  failingTrace?: string;
  /** the plan that forces the pattern's order */
  plan?: string;
  /** for `confirms the window`: the key of the pattern taken as the window's cause (windowCause.ts) */
  windowOf?: string;
  /**
   * the per-call pattern that was forced in its place (its key, "…:55#java.util.Iterator.next"): the
   * pattern's lines make several library calls, and a refinement with locations per call was forced
   * at its calls (callRefinement.ts)
   */
  forcedKey?: string;
}

export type ConfirmedPattern = RankedPattern & { confirmation?: PatternConfirmation };

/** Most patterns described for a reordered list (a hostile workspace may have 100,000s). */
export const CONFIRMED_LIST_CAP = 5000;

function place(p: ConfirmedPattern, redundant: ReadonlyMap<ConfirmedPattern, ConfirmedPattern>): number {
  const v = p.confirmation?.verdict;
  return v === 'confirmed' ? (redundant.has(p) ? 1 : 0) : v === 'confirms the window' ? 2 : v === undefined ? 3 : v === 'not forced' ? 4 : 5;
}

type Access = RankedPattern['accesses'][number];
/** An access with a thread role (roles are numbered per pattern: compared under a mapping, `holdsAll`). */
const accessKey = (a: Access, role: number) => `${a.type}${role}:${a.variable}@${a.file}:${a.line}`;

/**
 * Pattern a holds every access of pattern b with the same thread roles, under b's roles as they are
 * or swapped (roles are numbered per pattern): `W1 W2` on value@13 is not within `R1 W2 R1` on
 * value@10/@13, whose only write at 13 is thread 2's — within `R1 W2 W1` it is.
 */
export function holdsAll(a: Pick<RankedPattern, 'accesses'>, b: Pick<RankedPattern, 'accesses'>): boolean {
  const keys = new Set(a.accesses.map((x) => accessKey(x, x.thread)));
  for (const swap of [false, true]) {
    if (b.accesses.every((x) => keys.has(accessKey(x, swap ? 3 - x.thread : x.thread)))) return true;
  }
  return false;
}

/** Distinct accesses with roles (a pattern's size for the superset rule). */
export const patternSize = (p: Pick<RankedPattern, 'accesses'>) => new Set(p.accesses.map((x) => accessKey(x, x.thread))).size;

/**
 * The confirmed patterns whose accesses (with thread roles) strictly contain those of another
 * confirmed pattern, each with the smallest such pattern listed first.
 */
export function supersetsOfConfirmed(rows: readonly ConfirmedPattern[]): Map<ConfirmedPattern, ConfirmedPattern> {
  const confirmed = rows.filter((p) => p.confirmation?.verdict === 'confirmed').map((p) => ({ p, n: patternSize(p) }));
  const out = new Map<ConfirmedPattern, ConfirmedPattern>();
  for (const a of confirmed) {
    for (const b of confirmed) {
      if (a === b || b.n >= a.n) continue;
      if (holdsAll(a.p, b.p)) {
        out.set(a.p, b.p);
        break;
      }
    }
  }
  return out;
}

const ordinal = (k: number) => `${k}${k % 100 >= 11 && k % 100 <= 13 ? 'th' : k % 10 === 1 ? 'st' : k % 10 === 2 ? 'nd' : k % 10 === 3 ? 'rd' : 'th'}`;
const label = (p: RankedPattern, k: number) => `#${k + 1} ${p.id} ${p.kind}`;

/**
 * One line per move of the reordering (issue 40: every reordering explained): each pattern with a
 * verdict that changed places says where it went and why; the patterns not tried that moved up say
 * so in one line.
 */
export function reorderLines(before: readonly RankedPattern[], after: readonly ConfirmedPattern[]): string[] {
  const was = new Map(before.map((p, k) => [p.key, k]));
  const redundant = supersetsOfConfirmed(after);
  const lines: string[] = [];
  let movedUp = 0;
  let firstUp = -1;
  for (const [k, p] of after.entries()) {
    const old = was.get(p.key);
    if (old === undefined || old === k) continue;
    const v = p.confirmation?.verdict;
    const to = `${label(p, old)} → ${ordinal(k + 1)}`;
    if (!v) {
      if (k < old) {
        movedUp++;
        if (firstUp < 0) firstUp = old;
      }
      continue;
    }
    if (v === 'confirmed') {
      const smaller = redundant.get(p);
      lines.push(smaller ? `${to}: confirmed, but its accesses hold all of ${label(smaller, was.get(smaller.key) ?? 0)}'s (confirmed too): listed after it` : `${to}: confirmed — forcing its order makes the failure, the opposite order does not`);
    } else if (v === 'confirms the window') {
      const cause = p.confirmation?.windowOf ? before.findIndex((x) => x.key === p.confirmation!.windowOf) : -1;
      lines.push(`${to}: confirms the window only (the hold makes the failure, not this order)${cause >= 0 ? `; the window's cause is taken to be ${label(before[cause], cause)}` : ''}: after the confirmed patterns, before those not tried`);
    } else {
      lines.push(`${to}: ${v} — after the patterns not tried${v === 'refuted' ? ' and the not-forced ones' : ''}, whatever their evidence`);
    }
  }
  if (movedUp) lines.push(`${movedUp} pattern${movedUp === 1 ? '' : 's'} not tried move${movedUp === 1 ? 's' : ''} up (from ${label(before[firstUp], firstUp)} on): patterns before ${movedUp === 1 ? 'it' : 'them'} were refuted, not forced or only confirm the window`);
  return lines;
}

/** The patterns confirmation looks at: the first CONFIRMED_LIST_CAP of the ranking, in its order. */
export function listedPatterns(result: AnalysisResult): RankedPattern[] {
  return Array.from({ length: Math.min(patternCount(result), CONFIRMED_LIST_CAP) }, (_, k) => patternAt<RankedPattern>(result, k)!);
}

/**
 * A result whose list is reordered by the verdicts (keyed by RankedPattern.key). Without any
 * verdict the result is returned as it is.
 */
export function withConfirmations(result: AnalysisResult, verdicts: ReadonlyMap<string, PatternConfirmation>): AnalysisResult {
  if (verdicts.size === 0) return result;
  const n = Math.min(patternCount(result), CONFIRMED_LIST_CAP);
  const rows: ConfirmedPattern[] = [];
  for (let k = 0; k < n; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    const c = verdicts.get(p.key);
    rows.push(c ? { ...p, confirmation: c } : { ...p });
  }
  // stable: within a place, the ranked order; patterns without evidence stay after those with —
  // unless confirmed: a forced failure is evidence the recorded runs could not give (an interleaving
  // that needs a precise timing, seen in passing runs too at the recorder's granularity)
  const redundant = supersetsOfConfirmed(rows);
  // the place first: a refuted or not-forced pattern never stays ahead of one not tried because that one lacks evidence
  const weak = (p: ConfirmedPattern) => (p.evidence === false && p.confirmation?.verdict !== 'confirmed' ? 1 : 0);
  const order = rows.map((p, k) => ({ p, k })).sort((a, b) => place(a.p, redundant) - place(b.p, redundant) || weak(a.p) - weak(b.p) || a.k - b.k);
  const out = order.map((o) => o.p);
  // ties over the new order: consecutive members of one old tie group that kept no verdict
  let tie = 0;
  for (let k = 0; k < out.length; ) {
    let end = k + 1;
    if (!out[k].confirmation) while (end < out.length && !out[end].confirmation && out[end].tie === out[k].tie && out[end].group === out[k].group) end++;
    tie++;
    for (let j = k; j < end; j++) out[j] = { ...out[j], tie, tieSize: end - k };
    k = end;
  }
  const { ranking: _ranking, ...rest } = result;
  return {
    ...rest,
    patterns: out,
    ...(patternCount(result) > n ? { message: [result.message, `confirmation: only the first ${n} of ${patternCount(result)} patterns are listed`].filter(Boolean).join('\n') } : {}),
  };
}
