/**
 * Plan strength calibration (a Braid deviation from seed 004, `--plan-strength auto`): once the
 * trigger points are known, the least noise at them that still reproduces the failure about as
 * often as full-strength noise does.
 *
 * The seed's search and its reproduction setting put noise at every visit of a chosen point
 * (probability 1). A point inside a loop is then visited, and delayed, hundreds of times per run,
 * although one well-placed delay is often all the bug needs. A weaker plan reproduces the failure
 * with fewer perturbations: faster runs, and interleavings closer to the ones the program has
 * without the tool.
 *
 * The levels are the full probability P and P/2, P/4, … P/64. Full strength is measured first
 * (`runsPerLevel` runs); calibration only goes on when it failed in at least `minFullFailures` of
 * them (a plan that reproduces rarely has nothing to spare). A level is accepted when it failed in
 * at least (full-strength failures − `slack`) of its runs: with 8 runs and full strength at 8 of 8,
 * a level needs 7 of 8, which a level that truly fails half the time passes with probability
 * 9/256 ≈ 3.5 %. The levels are searched by bisection over the exponent (the failure rate is
 * assumed to fall as the noise weakens; every accepted level is one whose own runs passed the
 * test, so a wrong assumption can only cost strength, never give an unmeasured plan): at most
 * 1 + ⌈log2(levels)⌉ = 4 levels. When the level kept failed less often than full strength (it used
 * the slack), `runsPerLevel` more runs must confirm it (at least 2 × full − slack of all its runs:
 * 15 of 16); if they do not, the weakest level that failed as often as full strength is kept. At
 * most 40 runs with the defaults, and never more than `budget`.
 */
import { ConfigurationRunner } from './configurationOracle';

/** Runs the plan once at this per-visit probability; resolves true when the run failed. */
export type StrengthOracle = (probability: number) => Promise<boolean>;

export interface PlanStrengthOptions {
  /** the full per-visit probability (the search's, default 1) */
  full?: number;
  /** halvings tried at most (default 6: down to full/64) */
  halvings?: number;
  /** runs per level (default 8) */
  runsPerLevel?: number;
  /** full strength must fail at least this often for calibration to go on (default 6 of 8) */
  minFullFailures?: number;
  /** a level may fail this many runs fewer than full strength (default 1) */
  slack?: number;
  /** most runs to spend (calibration stops, keeping what it has accepted, when they run out) */
  budget: number;
  jobs?: number;
  signal?: AbortSignal;
}

export interface StrengthLevel {
  probability: number;
  runs: number;
  failures: number;
  accepted: boolean;
}

export interface PlanStrength {
  /** the probability the plan uses: the weakest accepted level (the full one when nothing weaker was accepted) */
  probability: number;
  /** every level measured, in the order measured (the first is full strength) */
  levels: StrengthLevel[];
  runs: number;
  /** why it stopped where it did */
  reason: 'calibrated' | 'full-strength-weak' | 'budget' | 'cancelled';
}

export async function calibratePlanStrength(oracle: StrengthOracle, options: PlanStrengthOptions): Promise<PlanStrength> {
  const full = options.full ?? 1;
  const halvings = Math.max(0, Math.floor(options.halvings ?? 6));
  const n = Math.max(1, Math.floor(options.runsPerLevel ?? 8));
  const minFull = options.minFullFailures ?? Math.ceil((3 * n) / 4);
  const slack = Math.max(0, options.slack ?? 1);
  const levels: StrengthLevel[] = [];
  let runs = 0;
  // one ConfigurationRunner per level: it keeps `jobs` runs in flight and never passes the budget
  const measure = async (exponent: number): Promise<StrengthLevel | undefined> => {
    const probability = full / 2 ** exponent;
    const left = options.budget - runs;
    if (left < n || options.signal?.aborted) return undefined;
    const runner = new ConfigurationRunner(() => oracle(probability), 1, n, options.jobs ?? 1, options.signal);
    const outcomes = await runner.run(Array.from({ length: n }, () => [0]));
    runs += runner.runs;
    if (options.signal?.aborted || outcomes.some((o) => o === undefined)) return undefined;
    const level: StrengthLevel = { probability, runs: n, failures: outcomes.filter(Boolean).length, accepted: false };
    levels.push(level);
    return level;
  };
  const stop = (reason: PlanStrength['reason'], probability: number): PlanStrength => ({ probability, levels, runs, reason: options.signal?.aborted ? 'cancelled' : reason });

  const top = await measure(0);
  if (!top) return stop('budget', full);
  top.accepted = true;
  if (top.failures < minFull) return stop('full-strength-weak', full);
  const needed = top.failures - slack;
  // bisection over the exponent: lo is accepted, hi is rejected (halvings + 1 = never measured, rejected by assumption)
  let lo = 0;
  let hi = halvings + 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const level = await measure(mid);
    if (!level) return stop('budget', full / 2 ** lo);
    level.accepted = level.failures >= needed;
    if (level.accepted) lo = mid;
    else hi = mid;
  }
  // the level kept used the slack (e.g. 7 of 8): `runsPerLevel` more runs must confirm it (15 of 16), else the
  // weakest level that failed as often as full strength is kept (a level failing 2/3 of the time passes the first
  // 8 runs with probability 0.19, both tests with probability 0.012)
  const kept = levels.find((l) => l.probability === full / 2 ** lo)!;
  if (lo > 0 && kept.failures < top.failures) {
    const more = await measure(lo);
    if (!more) return stop('budget', strongestExact(levels, top.failures, full));
    levels.pop();
    kept.runs += more.runs;
    kept.failures += more.failures;
    kept.accepted = kept.failures >= 2 * top.failures - slack;
    if (!kept.accepted) return stop('calibrated', strongestExact(levels, top.failures, full));
  }
  return stop('calibrated', full / 2 ** lo);
}

/** The weakest measured level that failed in every run full strength failed in (full strength itself at worst). */
function strongestExact(levels: StrengthLevel[], fullFailures: number, full: number): number {
  let p = full;
  for (const l of levels) if (l.runs === levels[0].runs && l.failures >= fullFailures && l.probability < p) p = l.probability;
  return p;
}
