/**
 * The verdict of a confirmation (issue 28): N runs with the pattern's interleaving forced, N with the
 * opposite order forced, N control runs (nothing forced).
 *
 *   confirmed   the constraint was met in most forced runs and forced runs fail far more than the
 *               opposite-order runs (one-sided Fisher p < α = 0.01) and more than the control runs
 *               (p < 0.05); a symmetric pattern (no opposite order): p < α against the control runs
 *   not forced  the constraint was met in fewer than half of the forced runs (a lock or a join orders
 *               the accesses, or the accesses never meet on one object) — itself evidence that the
 *               pattern cannot happen, so it is benign as recorded
 *   refuted     forced, and forcing it does not make the failure more likely
 * No verdict without runs (issue 39): a group it compares without a finished run gives
 * `could not check` (couldNotCheck.ts), never `not forced`.
 */
import { fisherOneSided } from '../ranking/fisherExact';
import type { CouldNotCheckVerdict } from './couldNotCheck';

/** A verdict about the pattern (kept on it, shown in the views). */
export type Verdict = 'confirmed' | 'refuted' | 'not forced';
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
  /**
   * the issue's definition: forced runs must fail more than the opposite-order runs and the control
   * runs, p < α against each (`braid confirm --strict`). Default (false): see decideVerdict.
   */
  strict?: boolean;
  /** the pattern's statistical evidence (RankedPattern.evidence; false: p ≥ 0.05 or in nearly every passing run) */
  evidence?: boolean;
}

/**
 * The verdict. Default rule: the constraint was met in at least half of the forced runs, and either
 *   - the order matters: p < α against the opposite order, and p < 0.05 against the control runs
 *     (a program that often fails unforced leaves little room above it); or
 *   - forcing makes it fail far more than not forcing (p < α against the control runs) and the
 *     pattern has statistical evidence. The opposite order is then not required to pass: in a loop,
 *     or with a third thread, holding a thread for the opposite order also delays it in the middle of
 *     its own read-modify-write, which may be the bug again (measured: a lost update in a loop failed
 *     10 of 10 with the opposite of W1 W2 W1 forced). A pattern without evidence (an order present in
 *     nearly every run) still needs the opposite order to pass.
 * `strict`: p < α against both (the issue's definition).
 */
export function decideVerdict(forced: ForcedGroup, opposite: ForcedGroup | undefined, control: ControlGroup | undefined, o: VerdictOptions | number = {}): VerdictResult {
  const { alpha = CONFIRM_ALPHA, strict = false, evidence } = typeof o === 'number' ? { alpha: o } : o;
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
  if (opposite && opposite.runs === 0) return { verdict: 'could not check', pValue: 1, reason: 'no opposite-order run finished' };
  if (control && control.runs === 0) return { verdict: 'could not check', pValue: 1, reason: 'no unforced run finished' };
  const hasOpp = !!opposite;
  const hasCtl = !!control;
  const pOpp = hasOpp ? failsMoreOften(forced, opposite!) : 1;
  const pCtl = hasCtl ? failsMoreOften(forced, control!) : 1;
  const p = Math.max(hasOpp ? pOpp : 0, hasCtl ? pCtl : 0, !hasOpp && !hasCtl ? 1 : 0);
  const rates = `forced ${forced.failed}/${forced.runs} failed (${pct(forced.failed, forced.runs)})` +
    (opposite ? `, the opposite order ${opposite.failed}/${opposite.runs}` : '') +
    (control ? `, unforced ${control.failed}/${control.runs}` : '');
  const orderMatters = hasOpp && pOpp < alpha && (!hasCtl || pCtl < (strict ? alpha : WEAK_ALPHA));
  const forcingMatters = hasCtl && pCtl < alpha && (!hasOpp || (!strict && evidence !== false));
  const confirmed = strict && hasOpp ? orderMatters : orderMatters || forcingMatters;
  if (confirmed) {
    const note = !orderMatters && hasOpp ? ' (the opposite order fails often too: holding a thread there also delays it)' : '';
    return { verdict: 'confirmed', pValue: p, reason: `forcing it makes the failure happen: ${rates}${note}` };
  }
  const weak = hasOpp && pOpp >= alpha && pCtl < alpha ? ' (the opposite order fails about as often: the delay, not the order, makes it fail)' : '';
  return { verdict: 'refuted', pValue: p, reason: `forcing it does not make the failure more likely: ${rates}${weak}` };
}
