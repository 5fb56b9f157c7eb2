/**
 * Baseline of `npm run bench` (issue 17): one-point-at-a-time search. The candidate points are
 * tried in random order, noise at one point per run, each point up to `runsPerPoint` runs (in
 * batches of `jobs`; a promising point up to `extendTo`); a point is found when its likelihood-ratio test against every run without it
 * reaches p < 10⁻⁶ (the same test and threshold IGS stops on). A few runs without any noise come
 * first so the first points have something to be compared with.
 */
import { ConfigurationOracle, ConfigurationRunner } from './configurationOracle';
import { SIGNIFICANCE } from './likelihoodRatio';
import { rankPoints, RankedPoint } from './iterativeGroupSampling';

export interface OneAtATimeOptions {
  budget: number;
  random: () => number;
  jobs?: number;
  /** most runs per point (default 20) */
  runsPerPoint?: number;
  /**
   * A point still promising after `runsPerPoint` runs (its test at p < `promising`, default 0.01)
   * gets up to this many runs in all (default: no extension) — so a trigger point with a moderate
   * effect can still reach p < 10⁻⁶ (fairer to the baseline than a hard cap).
   */
  extendTo?: number;
  promising?: number;
  /** runs without noise first (default 10) */
  baselineRuns?: number;
  significance?: number;
  /** stop once this holds for the points found so far (default: one point found) */
  until?: (found: readonly number[]) => boolean;
  signal?: AbortSignal;
}

export interface OneAtATimeResult {
  /** points found significant, in the order found */
  found: number[];
  /** every point tried, best first */
  ranked: RankedPoint[];
  runs: number;
  stopped: 'found' | 'budget' | 'exhausted' | 'cancelled';
}

export async function oneAtATime(points: number, oracle: ConfigurationOracle, options: OneAtATimeOptions): Promise<OneAtATimeResult> {
  const alpha = options.significance ?? SIGNIFICANCE;
  const perPoint = options.runsPerPoint ?? 20;
  const jobs = Math.max(1, options.jobs ?? 1);
  const until = options.until ?? ((found) => found.length > 0);
  const extendTo = options.extendTo ?? perPoint;
  const promising = options.promising ?? 0.01;
  const runner = new ConfigurationRunner(oracle, points, options.budget, jobs, options.signal);
  await runner.run(Array.from({ length: Math.min(options.baselineRuns ?? 10, options.budget) }, () => []));
  const order = Array.from({ length: points }, (_, k) => k);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(options.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const found: number[] = [];
  const tried: number[] = [];
  let stopped: OneAtATimeResult['stopped'] = 'exhausted';
  outer: for (const p of order) {
    tried.push(p);
    for (let done = 0; done < Math.max(perPoint, extendTo); ) {
      if (done >= perPoint && !(runner.stats.pValue(p) < promising)) break;
      if (runner.cancelled) {
        stopped = 'cancelled';
        break outer;
      }
      if (runner.remaining <= 0) {
        stopped = 'budget';
        break outer;
      }
      const batch = Math.min(jobs, (done < perPoint ? perPoint : extendTo) - done);
      await runner.run(Array.from({ length: batch }, () => [p]));
      done += batch;
      if (runner.stats.pValue(p) < alpha) {
        found.push(p);
        break;
      }
    }
    if (found.length && until(found)) {
      stopped = 'found';
      break;
    }
  }
  return { found, ranked: rankPoints(tried, runner.stats), runs: runner.runs, stopped };
}
