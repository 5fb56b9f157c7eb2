/**
 * The ranking after confirmation (issue 28, `braid analyze --confirm K`): the patterns that were
 * forced carry their verdict, and the list is reordered — confirmed causes first (in their
 * ranked order, except that a confirmed pattern whose accesses hold all of another confirmed
 * pattern's comes after it: forcing the smaller interleaving already made the failure, the extra
 * accesses are incidental — e.g. WRRW over `checking` and `savings` after the RW on `savings`
 * alone), then the patterns not tried, then the refuted and the not-forced ones, which lose
 * their place and say why. Scores, p-values and ranks are kept (they are the statistics of the
 * recorded runs); ties are renumbered over the new order.
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

function place(p: ConfirmedPattern, redundant: ReadonlySet<ConfirmedPattern>): number {
  const v = p.confirmation?.verdict;
  return v === 'confirmed' ? (redundant.has(p) ? 1 : 0) : v === undefined ? 2 : 3;
}

/** An access without its thread role (roles are numbered per pattern, so they differ between patterns). */
const accessKey = (a: RankedPattern['accesses'][number]) => `${a.type}:${a.variable}@${a.file}:${a.line}`;

/** The confirmed patterns whose accesses strictly contain those of another confirmed pattern. */
export function supersetsOfConfirmed(rows: readonly ConfirmedPattern[]): Set<ConfirmedPattern> {
  const confirmed = rows.filter((p) => p.confirmation?.verdict === 'confirmed').map((p) => ({ p, keys: new Set(p.accesses.map(accessKey)) }));
  const out = new Set<ConfirmedPattern>();
  for (const a of confirmed) {
    for (const b of confirmed) {
      if (a === b || b.keys.size >= a.keys.size) continue;
      if ([...b.keys].every((k) => a.keys.has(k))) {
        out.add(a.p);
        break;
      }
    }
  }
  return out;
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
  const weak = (p: ConfirmedPattern) => (p.evidence === false && p.confirmation?.verdict !== 'confirmed' ? 1 : 0);
  const order = rows.map((p, k) => ({ p, k })).sort((a, b) => weak(a.p) - weak(b.p) || place(a.p, redundant) - place(b.p, redundant) || a.k - b.k);
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
