/**
 * The result of `braid pinpoint` (seed 004's Iterative Group Sampling): the
 * instrumented points whose noise makes the failure appear, ranked. Shared by
 * the CLI (`--format json`), the language server (`braid/pinpoint`) and the
 * editor (trigger-point decorations and hover).
 */

export interface TriggerPoint {
  rank: number;
  /** stable point id (noisePlan.ts) */
  id: string;
  file: string;
  line: number;
  method: string;
  /** observed failure probability of runs with noise at this point (0..1) */
  failWith: number;
  /** observed failure probability of runs without noise at this point (0..1) */
  failWithout: number;
  /** likelihood-ratio test p-value (seed 004) */
  pValue: number;
  /** the seed's score of the point (likelihood ratio or derivative score) */
  score: number;
  /** with per-thread candidates (`perThread`): the one thread whose noise at the point this is */
  thread?: string;
  /**
   * The point is one of the `together` points (ranks 1 … together) whose noise only together makes
   * the failure appear (IGS's configuration leader): failWith, failWithout and pValue are then the
   * configuration's — runs with noise at all of them against runs without any noise.
   */
  together?: number;
}

/** Configurations of up to this many points are listed point by point; larger ones as ranges. */
const LISTED_RANKS = 6;

/**
 * The other points of a configuration of `n` trigger points (ranks 1 … n) than `rank`: `["#2"]`,
 * `["#1", "#3"]`; from 7 points on as at most two ranges, `["#1–#4", "#6–#9"]`. `n` may come from a
 * plan file (untrusted): the list never has more than 6 entries whatever `n` says, and a count that
 * is not a whole number ≥ 1 gives none.
 */
export function otherRanks(rank: number, n: number): string[] {
  if (!Number.isSafeInteger(n) || n < 1) return [];
  if (n <= LISTED_RANKS) {
    const out: string[] = [];
    for (let r = 1; r <= n; r++) if (r !== rank) out.push(`#${r}`);
    return out;
  }
  const span = (a: number, b: number): string[] => (a > b ? [] : a === b ? [`#${a}`] : [`#${a}–#${b}`]);
  if (!Number.isSafeInteger(rank) || rank < 1 || rank > n) return span(1, n);
  return [...span(1, rank - 1), ...span(rank + 1, n)];
}

export interface PinpointResult {
  points: TriggerPoint[];
  /** the reproduction plan written (absolute path), or undefined when no point was found */
  plan?: string;
  /** program runs spent */
  runs: number;
  /** candidate points at the start */
  candidates: number;
  /** rounds of group sampling */
  rounds: number;
  /** why the search stopped: significance reached, budget spent, no failure seen, cancelled */
  stopped: 'significant' | 'budget' | 'no-failure' | 'cancelled';
  /** a sentence for the user */
  message?: string;
  /**
   * The budget was spent on a program that fails often (≥ 20 %) without noise, searching with noise in
   * every thread: a search with noise in one thread at a time (`perThread`) may still decide it.
   */
  suggestPerThread?: boolean;
  /**
   * plan strength calibration (`--plan-strength auto`): the per-visit probability the plan uses, the runs
   * it took, and each level measured (failures of runs); absent with `full` or when no plan was written
   */
  strength?: {
    probability: number;
    runs: number;
    reason: 'calibrated' | 'full-strength-weak' | 'budget' | 'cancelled';
    full?: { probability: number; failures: number; runs: number };
    chosen?: { failures: number; runs: number };
    levels: { probability: number; failures: number; runs: number; accepted: boolean }[];
  };
}

/** What `braid pinpoint` is asked to do (CLI flags and the `braid/pinpoint` request map onto it). */
export interface PinpointOptions {
  /** the program or test command, as for `braid record` */
  command: string[];
  cwd: string;
  env?: Record<string, string>;
  /** name of the plan (file `.braid/plans/<name>.json`) and of the runs */
  name: string;
  /** most program runs to spend (default 400) */
  budget: number;
  /** `patterns`: points on the lines of the top UNICORN patterns and their neighbours (default); `all`: every instrumented point (the seed) */
  candidates: 'all' | 'patterns';
  /** trace files or folders the top patterns come from (for `patterns`; default the workspace's .braid/traces) */
  traces?: string[];
  /** folder the plan is written to (default <cwd>/.braid/plans) */
  planDir: string;
  include: string[];
  exclude: string[];
  timeoutSeconds: number;
  failOnOutput?: RegExp;
  jobs: number;
  seed: number;
  /**
   * candidates are (point, thread) pairs: noise at a point in one thread only, for the thread names of
   * the top UNICORN patterns — for code that several threads run, where noise in all of them delays
   * them alike (a Braid extension of the seed; default false: noise at a point in every thread)
   */
  perThread?: boolean;
}

export interface PinpointProgress {
  runs: number;
  budget: number;
  round: number;
  /** candidate points still in the race */
  candidates: number;
  message: string;
}

export interface PinpointHooks {
  progress?(p: PinpointProgress): void;
  signal?: AbortSignal;
}

/** Implemented by server/src/recorder/runs/pinpoint.ts (`export const pinpoint: Pinpoint`). */
export type Pinpoint = (options: PinpointOptions, hooks?: PinpointHooks) => Promise<PinpointResult>;
