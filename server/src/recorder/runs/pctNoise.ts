/**
 * Schedule-based noise (`--noise-mode pct`, issue 41 item 2, docs/noise.md "PCT"): the Java agent's
 * PctScheduler (Burckhardt et al., ASPLOS 2010) gives each thread a random priority and lowers the
 * running thread's priority at `depth - 1` change points drawn from the expected run length in
 * scheduling points. This file holds the recorder's side: the options, the agent option lines, the
 * agent's end-of-run report (`{"pct":{…}}`) and the run length learned from the runs so far.
 */

/** The PCT options of a recording. */
export interface PctOptions {
  /** PCT's d: the bug depth it aims at (d - 1 priority change points per run) */
  depth: number;
  /** the expected run length in scheduling points; absent: learned from the runs so far (DEFAULT_PCT_STEPS before the first) */
  steps?: number;
}

/** The default depth: bugs of depth 1–3 (an ordering, and one or two preemptions), PCT's usual choice. */
export const DEFAULT_PCT_DEPTH = 3;
export const MAX_PCT_DEPTH = 100;
/** The run length assumed before a run of the recording has reported its own (scheduling points). */
export const DEFAULT_PCT_STEPS = 1000;

/** The agent's report of one JVM's schedule (the trace line `{"pct":{…}}`, docs/trace-format.md). */
export interface PctReport {
  /** scheduling points the run made */
  steps: number;
  /** threads the scheduler ordered */
  threads: number;
  /** waits for a thread of higher priority */
  waits: number;
  /** waits ended by the step bound (a higher thread kept stepping: a spin) */
  endedByStepBound: number;
  /** waits ended because no thread made a step for the stall time (a higher thread in native or uninstrumented code) */
  endedByStall: number;
  /** priority change points reached */
  changes: number;
  /** threads beyond the scheduler's table, run unscheduled */
  unscheduled: number;
}

const REPORT_KEYS: (keyof PctReport)[] = ['steps', 'threads', 'waits', 'endedByStepBound', 'endedByStall', 'changes', 'unscheduled'];

/** A `pct` line's value, or undefined when it is not a well-formed report. */
export function parsePctReport(v: unknown): PctReport | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const out = {} as PctReport;
  for (const k of REPORT_KEYS) {
    const x = o[k];
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) return undefined;
    out[k] = x;
  }
  return out;
}

/** The reports of a run's JVMs as one (sums). */
export function mergePctReports(reports: readonly PctReport[]): PctReport | undefined {
  if (reports.length === 0) return undefined;
  const sum = Object.fromEntries(REPORT_KEYS.map((k) => [k, 0])) as unknown as PctReport;
  for (const r of reports) for (const k of REPORT_KEYS) sum[k] += r[k];
  return sum;
}

/** The agent options of a run with PCT: the mode, the depth and the run length assumed. */
export function pctAgentOptions(p: PctOptions, steps: number): string[] {
  return ['noiseMode=pct', `pctDepth=${p.depth}`, `pctSteps=${Math.max(1, Math.round(steps))}`];
}

/**
 * The run length to assume for the next run: the one given, else the median of the steps the
 * finished runs reported (PCT draws its change points from [1, k] with k the run's length), else
 * DEFAULT_PCT_STEPS.
 */
export class PctRunLength {
  private readonly seen: number[] = [];

  constructor(private readonly given?: number) {}

  add(report: PctReport | undefined): void {
    if (report && report.steps > 0) this.seen.push(report.steps);
  }

  get steps(): number {
    if (this.given !== undefined) return this.given;
    if (this.seen.length === 0) return DEFAULT_PCT_STEPS;
    const s = [...this.seen].sort((a, b) => a - b);
    return s[Math.floor((s.length - 1) / 2)];
  }
}

/** "pct: 3 of 40 waits ended by the bound (…)" for a recording's summary, or undefined when none did. */
export function pctBoundText(reports: readonly (PctReport | undefined)[]): string | undefined {
  let waits = 0;
  let stepBound = 0;
  let stall = 0;
  let runs = 0;
  for (const r of reports) {
    if (!r) continue;
    runs++;
    waits += r.waits;
    stepBound += r.endedByStepBound;
    stall += r.endedByStall;
  }
  if (runs === 0 || stepBound + stall === 0) return undefined;
  const parts = [stepBound ? `${stepBound} by the step bound (a higher-priority thread kept stepping)` : '', stall ? `${stall} by a stall (a higher-priority thread made no step: native or uninstrumented code)` : ''].filter(Boolean);
  return `pct: ${stepBound + stall} of ${waits} waits in ${runs} run(s) ended before the higher-priority thread blocked: ${parts.join(', ')}`;
}
