/**
 * Seed 004 §4, the derivative score: once IGS has found the points that elicit the bug, walk the
 * execution path forward and backward from each of them. Each run has noise at all found points
 * but one (p), plus one point q before or after p along the path; the walk goes on, one point
 * further each step, until the failure rate drops (below `dropRatio` of the found points'
 * rate). The score of q is the change of the failure rate from the previous step to q — its
 * peaks are where the noise starts or stops mattering, i.e. the race's own accesses. With several
 * found points, the rate of the others alone (without p or q) is measured too: a neighbour only
 * stands in for p when it beats that.
 */
import { ConfigurationOracle, ConfigurationRunner } from './configurationOracle';

export interface PathNeighbours {
  /** points before p along the path, nearest first */
  before: number[];
  /** points after p, nearest first */
  after: number[];
}

export interface DerivativeOptions {
  budget: number;
  jobs?: number;
  /** runs per configuration (default 8) */
  runsPerPoint?: number;
  /** most points walked in each direction (default 3) */
  maxSteps?: number;
  /** a rate below this share of the found points' rate is a drop (default 0.5) */
  dropRatio?: number;
  signal?: AbortSignal;
}

export interface DerivativePoint {
  point: number;
  /** the found point it stands in for */
  replaces: number;
  direction: 'before' | 'after';
  step: number;
  failRate: number;
  /** failure rate at this step minus the rate one step nearer p (p itself at step 1) */
  derivative: number;
  /** failure rate with noise at the other found points only (0 without running when p is alone) */
  restRate: number;
}

export interface DerivativeResult {
  /** failure rate with noise at exactly the found points */
  foundRate: number;
  points: DerivativePoint[];
  runs: number;
}

export async function derivativeScores(
  found: readonly number[],
  neighbours: (p: number) => PathNeighbours,
  points: number,
  oracle: ConfigurationOracle,
  options: DerivativeOptions,
): Promise<DerivativeResult> {
  const per = Math.max(1, options.runsPerPoint ?? 8);
  const maxSteps = options.maxSteps ?? 3;
  const dropRatio = options.dropRatio ?? 0.5;
  const runner = new ConfigurationRunner(oracle, points, options.budget, options.jobs ?? 1, options.signal);
  const rate = async (config: number[]): Promise<number | undefined> => {
    if (runner.remaining < per) return undefined;
    const out = await runner.run(Array.from({ length: per }, () => config));
    const done = out.filter((o) => o !== undefined);
    return done.length ? done.filter(Boolean).length / done.length : undefined;
  };
  const foundRate = (await rate([...found])) ?? 0;
  const result: DerivativePoint[] = [];
  const seen = new Set(found);
  for (const p of found) {
    const rest = found.filter((x) => x !== p);
    const around = neighbours(p);
    // what the other found points do without p or q: a neighbour only counts above it
    const restRate = rest.length === 0 || (around.before.length === 0 && around.after.length === 0) ? 0 : await rate(rest);
    if (restRate === undefined) return { foundRate, points: result, runs: runner.runs };
    for (const direction of ['before', 'after'] as const) {
      let previous = foundRate;
      const path = around[direction].slice(0, maxSteps);
      for (let step = 0; step < path.length; step++) {
        const q = path[step];
        if (runner.cancelled) return { foundRate, points: result, runs: runner.runs };
        if (seen.has(q)) continue;
        const r = await rate([...rest, q]);
        if (r === undefined) return { foundRate, points: result, runs: runner.runs };
        result.push({ point: q, replaces: p, direction, step: step + 1, failRate: r, derivative: r - previous, restRate });
        previous = r;
        if (r < foundRate * dropRatio) break;
      }
    }
  }
  return { foundRate, points: result, runs: runner.runs };
}
