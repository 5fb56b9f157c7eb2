/**
 * The verdict of a confirmation (issue 28, issue 40): N runs with the pattern's interleaving forced,
 * N with a counterfactual forced — the opposite order, or for a symmetric pattern its two threads'
 * regions serialised — and N control runs (nothing forced).
 *
 *   confirmed            the constraint was met in most forced runs, forced runs fail, and the order
 *                        matters: the counterfactual group had its own order imposed (met in most of
 *                        its runs) and fails clearly less (one-sided Fisher p < α = 0.01), and forced
 *                        runs fail more than the control runs (p < 0.05)
 *   confirms the window  forced runs fail far more than the control runs (p < α), but nothing shows
 *                        that the order does: the counterfactual fails as often (the hold's delay in
 *                        the window makes it fail), could not be imposed, or does not exist (a
 *                        symmetric pattern whose threads each make one access: its only other
 *                        interleaving is itself). Attributed to the window's cause pattern (windowCause.ts)
 *   not forced           the constraint was met in fewer than half of the forced runs (a lock or a
 *                        join orders the accesses, or they never meet on one object)
 *   refuted              forced, and forcing it does not make the failure more likely — or it only
 *                        confirms the window and the pattern has no statistical evidence (an order seen
 *                        in nearly every passing run: nothing tells it from the delay)
 * No verdict without runs (issue 39): a group it compares without a finished run gives
 * `could not check` (couldNotCheck.ts), never `not forced`. A counterfactual group whose constraint
 * was not met in most of its runs is not compared (issue 40: a group that never had its order
 * imposed says nothing about the order).
 */
import { fisherOneSided } from '../ranking/fisherExact';
import type { CouldNotCheckVerdict } from './couldNotCheck';

/** A verdict about the pattern (kept on it, shown in the views). */
export type Verdict = 'confirmed' | 'confirms the window' | 'refuted' | 'not forced';
/** The verdict that forcing proved the window, not the order (issue 40). */
export const WINDOW_VERDICT = 'confirms the window';
/** What a confirmation gives: a verdict, or could not check (no runs to compare: not about the pattern). */
export type Outcome = Verdict | CouldNotCheckVerdict;

export interface ForcedGroup {
  runs: number;
  failed: number;
  /** runs whose constraint was met */
  forcedOk: number;
  /** why a run's constraint was not met, per reason (most common first when reported) */
  reasons?: Map<string, number>;
}

export interface ControlGroup {
  runs: number;
  failed: number;
}

export interface VerdictResult {
  verdict: Outcome;
  /** max of the two one-sided Fisher p-values (forced vs opposite, forced vs control); 1 when not forced */
  pValue: number;
  reason: string;
}

export const CONFIRM_ALPHA = 0.01;
/** forced against unforced runs when the opposite order was forced too */
export const WEAK_ALPHA = 0.05;

/** One-sided Fisher: do group a's runs fail more often than group b's? */
export function failsMoreOften(a: ControlGroup, b: ControlGroup): number {
  return fisherOneSided(a.failed, a.runs - a.failed, a.failed + b.failed, a.runs - a.failed + (b.runs - b.failed));
}

function pct(k: number, n: number): string {
  return n === 0 ? '–' : `${Math.round((100 * k) / n)} %`;
}

export function mostCommonReason(reasons: Map<string, number> | undefined): string | undefined {
  let best: string | undefined;
  let n = 0;
  for (const [r, k] of reasons ?? []) if (k > n) [best, n] = [r, k];
  return best;
}

export interface VerdictOptions {
  alpha?: number;
  /** forced against the control runs when the counterfactual was compared (default WEAK_ALPHA; two looks spend it, confirmRuns.ts) */
  weakAlpha?: number;
  /**
   * the issue's definition: forced runs must fail more than the counterfactual runs and the control
   * runs, p < α against each (`braid confirm --strict`). Default (false): p < 0.05 against the control runs.
   */
  strict?: boolean;
  /** the pattern's statistical evidence (RankedPattern.evidence; false: p ≥ 0.05 or in nearly every passing run) */
  evidence?: boolean;
  /**
   * both threads do the same accesses (forcingPlan.ts isSymmetric): the counterfactual group (`opposite`)
   * is the threads' regions serialised, and without it (one access per thread) there is none
   */
  symmetric?: boolean;
  /**
   * two calls of one library method forced to overlap (forcingPlan.ts isLibraryOverlap), the counterfactual
   * the calls serialised: also confirmed when serialising them prevents the failure — the counterfactual
   * fails clearly less than the forced *and* the unforced runs (p < α each) — while forcing the overlap
   * fails about as often as the unforced runs (not less, p ≥ 0.05): a program whose calls overlap in most
   * unforced runs leaves forcing no room to fail more (indriya-picache: forced 14/20, serialised 0/20,
   * unforced 12/20)
   */
  overlap?: boolean;
  /**
   * an ordered pattern with statistical evidence (`evidence: true`, not symmetric) is also confirmed
   * when its opposite order *prevents* the failure — imposed, it fails clearly less than the forced and
   * the unforced runs (p < α each) — while forcing this order fails no less than the unforced runs
   * (p ≥ 0.05): a program that fails in most unforced runs leaves forcing no room to fail more
   * (hystrix-timerinit, seed 2000: forced 19/20, opposite 0/20, unforced 14/20, refuted before). Default
   * true; not with `strict`; false: the rule before session 24
   */
  prevention?: boolean;
}

/** A counterfactual group had its order imposed: its constraint was met in most of its runs. */
export function imposed(g: ForcedGroup): boolean {
  return g.forcedOk * 2 > g.runs;
}

/**
 * The verdict (issue 40: a verdict means what it says). The constraint must have been met in at
 * least half of the forced runs (else not forced). Then
 *   - confirmed: the counterfactual (the opposite order; for a symmetric pattern the two threads'
 *     regions serialised) was imposed in most of its runs and fails clearly less (p < α), and forced
 *     runs fail more than the control runs (p < 0.05; α with `strict`);
 *   - confirms the window: forced runs fail far more than the control runs (p < α) without that
 *     evidence about the order — the counterfactual fails about as often (the hold's delay in the
 *     window makes it fail: a hold in the middle of a read-modify-write loses the update whichever
 *     thread goes first), was not imposed (not compared), or does not exist; a pattern without
 *     statistical evidence is refuted instead (an order seen in nearly every run);
 *   - confirmed too, for an ordered pattern with evidence whose opposite order prevents the failure
 *     (`prevention`, below; not with `strict`);
 *   - confirmed too, for two calls of a library method forced to overlap (`overlap`, not with `strict`):
 *     the calls serialised fail clearly less than the forced and the unforced runs (p < α each) and the
 *     forced runs fail no less than the unforced ones (p ≥ 0.05);
 *   - refuted otherwise.
 */
export function decideVerdict(forced: ForcedGroup, opposite: ForcedGroup | undefined, control: ControlGroup | undefined, o: VerdictOptions | number = {}): VerdictResult {
  const { alpha = CONFIRM_ALPHA, weakAlpha = WEAK_ALPHA, strict = false, evidence, symmetric = false, overlap = false, prevention = true } = typeof o === 'number' ? { alpha: o } : o;
  // no verdict without runs in every group compared (issue 39): zero forced runs are not "not forced"
  if (forced.runs === 0) return { verdict: 'could not check', pValue: 1, reason: 'no forced run finished' };
  if (forced.forcedOk * 2 < forced.runs) {
    const why = mostCommonReason(forced.reasons);
    return {
      verdict: 'not forced',
      pValue: 1,
      reason: `the interleaving could be forced in ${forced.forcedOk} of ${forced.runs} runs${why ? `: ${why}` : ''}`,
    };
  }
  const alt = symmetric ? 'the threads serialised' : 'the opposite order';
  if (opposite && opposite.runs === 0) return { verdict: 'could not check', pValue: 1, reason: `no ${symmetric ? 'serialised' : 'opposite-order'} run finished` };
  if (control && control.runs === 0) return { verdict: 'could not check', pValue: 1, reason: 'no unforced run finished' };
  const compared = opposite && imposed(opposite) ? opposite : undefined;
  const pOpp = compared ? failsMoreOften(forced, compared) : 1;
  const pCtl = control ? failsMoreOften(forced, control) : 1;
  const rates =
    `forced ${forced.failed}/${forced.runs} failed (${pct(forced.failed, forced.runs)})` +
    (opposite ? `, ${alt} ${opposite.failed}/${opposite.runs}${compared ? '' : ` (imposed in ${opposite.forcedOk} of ${opposite.runs} runs: not compared)`}` : '') +
    (control ? `, unforced ${control.failed}/${control.runs}` : '');
  const orderMatters = !!compared && pOpp < alpha && (!control || pCtl < (strict ? alpha : weakAlpha));
  if (orderMatters) return { verdict: 'confirmed', pValue: Math.max(pOpp, control ? pCtl : 0), reason: `forcing it makes the failure happen and the order matters: ${rates}` };
  // the counterfactual prevents the failure that forcing makes as often as unforced runs do: two library
  // calls serialised (overlap), or the opposite order of an ordered pattern with evidence (prevention)
  const prevents = overlap || (prevention && !symmetric && evidence === true);
  if (prevents && compared && control && !strict) {
    const pPrevents = failsMoreOften(control, compared);
    const notLess = failsMoreOften(control, forced) >= weakAlpha;
    if (pOpp < alpha && pPrevents < alpha && notLess) {
      const why = overlap ? 'the calls overlapping make the failure happen and serialising them prevents it' : 'the opposite order prevents the failure that this order makes as often as unforced runs do';
      return { verdict: 'confirmed', pValue: Math.max(pOpp, pPrevents), reason: `${why}: ${rates}` };
    }
  }
  const windowMatters = !!control && pCtl < alpha;
  if (!windowMatters) {
    return { verdict: 'refuted', pValue: control ? pCtl : 1, reason: `forcing it does not make the failure more likely: ${rates}` };
  }
  const why = !opposite
    ? symmetric
      ? 'both threads make the same single access: its only other interleaving is itself, so nothing tells this order from the hold’s delay in the window'
      : `${alt} was not forced: nothing tells this order from the hold’s delay`
    : !compared
      ? `${alt} could not be imposed (met in ${opposite.forcedOk} of ${opposite.runs} runs): nothing tells this order from the hold’s delay`
      : `${alt} fails about as often: the hold’s delay in the window, not the order, makes it fail`;
  if (evidence === false) {
    return { verdict: 'refuted', pValue: pCtl, reason: `forcing it makes the failure happen (${rates}) but ${why}, and this order occurs in nearly every passing run` };
  }
  return { verdict: WINDOW_VERDICT, pValue: pCtl, reason: `the hold makes the failure happen, not this order: ${rates}; ${why}` };
}
