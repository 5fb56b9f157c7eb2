/**
 * Noise plans (seed 004): which instrumented points get noise, with what
 * probability and of which kind — and no noise anywhere else. A plan is a
 * JSON file (`.braid/plans/<name>.json`), read by `braid record --plan FILE`
 * and by the Java agent (option `plan=FILE`), written by `braid pinpoint`.
 * The format is documented in docs/noise.md.
 *
 * Point ids are stable as long as the class file does not change:
 * `<internal class name>.<method name><descriptor>@<bytecode offset>`,
 * e.g. `bank/Bank.transfer(II)V@12` — the offset of the instrumented
 * instruction in the original (uninstrumented) method.
 */

export const NOISE_PLAN_VERSION = 1;

/** What the agent does at a point when its coin comes up. */
export type NoiseKind =
  /** Thread.yield() */
  | { kind: 'yield' }
  /** park for a random time in [1, ms] milliseconds (uniform) */
  | { kind: 'sleep'; ms: number }
  /** spin (busy wait) for `micros` microseconds */
  | { kind: 'busy'; micros: number };

/** Kinds of instrumented points. */
export type PointKind = 'read' | 'write' | 'lock' | 'unlock' | 'sync' | 'start' | 'call';

/** One instrumented point, as listed by the agent's point catalogue (option `points=FILE`). */
export interface InstrumentedPoint {
  /** stable id, see above */
  id: string;
  /** source file as trace locations name it (`loc.file`): package path + source file name, e.g. "bank/Bank.java" */
  file: string;
  line: number;
  /** dotted class name + "." + method name, e.g. "bank.Bank.transfer" (as trace locations name methods) */
  method: string;
  kind: PointKind;
}

export interface PlannedPoint {
  /** stable point id */
  id: string;
  /** 0..1: probability that noise is injected each time a thread reaches the point */
  probability: number;
  /** overrides the plan's default noise */
  noise?: NoiseKind;
  /**
   * only threads with one of these names get the point's noise (default: every thread) — for code
   * that several threads run, where noise in all of them delays them alike (a Braid extension of
   * the seed's points, docs/noise.md)
   */
  threads?: string[];
  /** for people reading the plan (not used by the agent) */
  file?: string;
  line?: number;
  method?: string;
}

export interface NoisePlan {
  format: 'braid-noise-plan';
  version: typeof NOISE_PLAN_VERSION;
  /** what the plan is for (test or program name), shown in the Runs view */
  name: string;
  /** the command the plan was found for (informative) */
  command?: string[];
  /** default noise of the points */
  noise: NoiseKind;
  points: PlannedPoint[];
  /**
   * the trigger points `braid pinpoint` found (informative for the agent; the
   * editor reads them for its trigger-point decorations and hover)
   */
  triggers?: import('./triggerPoints').TriggerPoint[];
  /** how it was made: "braid pinpoint", date, runs spent, … (informative) */
  origin?: { tool: string; created: string; runs?: number; strength?: import('./triggerPoints').PinpointResult['strength'] };
}
