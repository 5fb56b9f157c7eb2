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
}
