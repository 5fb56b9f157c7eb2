/**
 * The abstract program the trigger-point searches sample (seed 004: "sample the program using
 * X_H"): run it once with noise at a configuration of points and say whether the bug appeared.
 * `braid pinpoint` implements it with real runs of the program under a noise plan; tests and the
 * bench implement it with the seed's simulated fault model (good / neutral / bad points).
 */
import { PointStatistics } from './likelihoodRatio';

/** Runs the program once with noise at exactly the points `active` (candidate indices); resolves true when the run failed. */
export type ConfigurationOracle = (active: readonly number[]) => Promise<boolean>;

/**
 * Runs configurations through an oracle, at most `jobs` at once, within a budget of runs, and
 * keeps the per-point statistics of every run (PointStatistics). Shared by IGS and the baselines
 * so that "runs spent" is counted the same way for all of them.
 */
export class ConfigurationRunner {
  readonly stats: PointStatistics;
  runs = 0;

  constructor(
    private readonly oracle: ConfigurationOracle,
    points: number,
    readonly budget: number,
    private readonly jobs = 1,
    private readonly signal?: AbortSignal,
    private readonly onRun?: (runs: number) => void,
  ) {
    this.stats = new PointStatistics(points);
  }

  get remaining(): number {
    return Math.max(0, this.budget - this.runs);
  }

  get cancelled(): boolean {
    return Boolean(this.signal?.aborted);
  }

  /**
   * Runs each configuration once (in order, `jobs` at a time). Returns the outcome of each
   * (true = failed); stops early on cancel, leaving the rest undefined. Never exceeds the budget:
   * configurations past it are not run (undefined).
   */
  async run(configs: readonly (readonly number[])[]): Promise<(boolean | undefined)[]> {
    const out: (boolean | undefined)[] = new Array(configs.length).fill(undefined);
    let next = 0;
    const worker = async () => {
      while (next < configs.length && !this.cancelled && this.runs < this.budget) {
        const k = next++;
        this.runs++;
        const failed = await this.oracle(configs[k]);
        if (this.cancelled) return;
        out[k] = failed;
        this.stats.add(configs[k], failed);
        this.onRun?.(this.runs);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.jobs, configs.length)) }, worker));
    return out;
  }
}
