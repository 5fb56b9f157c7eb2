/**
 * Adaptive exposure (issue 41 item 1, docs/noise.md "Adaptive exposure"): while the runs of a
 * `--runs auto` recording show no failing run, or fewer than one in STEP_RUNS, the noise is widened
 * step by step — where it goes (accesses → synchronization points → both) and how much (the
 * probability) — for the runs that start after the step; the Java agent's last level is PCT
 * scheduling (pctNoise.ts: a random priority per thread and change points, no noise), for a window
 * that needs one thread to run ahead of the other, which noise delaying both threads alike rarely
 * gives. Each run's noise is the one it started with: the agent writes it into the run's trace
 * header, and the recording's manifest lists the steps (`exposure`). `--noise-mode uniform` keeps
 * one noise for all runs.
 */
import type { NoiseAt, RecordOptions } from './recordOptions';
import { DEFAULT_PCT_DEPTH, PctOptions } from './pctNoise';
import type { RecordControl, RecordProgress } from './recordRuns';

/** wide noise's longest delay of an await or an fs call (node/runtime.ts WIDE_DELAY_MS), as the progress line says it */
const NODE_WIDE_DELAY_MS = 8;
import { recordExposureSteps } from './recordingManifest';

/**
 * `--noise-mode`: `adaptive` widens the noise while runs do not fail; `uniform` keeps it; `pct`
 * schedules the threads instead (the Java agent's PCT scheduler, pctNoise.ts; never widened).
 */
export type NoiseMode = 'uniform' | 'adaptive' | 'pct';

export const NOISE_MODES: readonly NoiseMode[] = ['uniform', 'adaptive', 'pct'];

/** The default noise mode of `braid test`, the lens and the Testing-view profile (docs/noise.md, the exposure table). */
export const DEFAULT_NOISE_MODE: NoiseMode = 'adaptive';

export interface NoiseLevel {
  noise: number;
  noiseAt: NoiseAt;
  /**
   * the ladder's last level for the Java agent: the agent's PCT scheduler instead of uniform noise
   * (`noise` is then 0 and `noiseAt` unused; the run length is learned as with `--noise-mode pct`)
   */
  pct?: PctOptions;
}

/** One widening: from run `fromRun` on (run index), the runs start with this noise. */
export interface ExposureStep extends NoiseLevel {
  fromRun: number;
  /** what the level before gave: "no failure in 20 runs", "1 failure in 40 runs", "all 20 runs failed" */
  because: string;
  /** a step down (calmerLevels): every run failed, so there was no passing run to compare with */
  lower?: true;
}

/** Runs a level gets before it may be widened, and the failures per that many runs that keep it. */
export const STEP_RUNS = 20;
/** The highest probability adaptive exposure goes to (more makes runs slow and hides the bug's own timing). */
export const MAX_ADAPTIVE_NOISE = 0.3;

/** The ladder's last level for the Java agent: PCT scheduling at its default depth. */
export const PCT_LEVEL: NoiseLevel = { noise: 0, noiseAt: 'all', pct: { depth: DEFAULT_PCT_DEPTH } };

/**
 * The levels tried, in order, from the one given: the given place and probability; then, for the
 * Java agent, synchronization points (when it started at accesses) and both at twice the
 * probability; then both at MAX_ADAPTIVE_NOISE; then PCT scheduling (PCT_LEVEL). The Node.js
 * recorder's probability grows to MAX_ADAPTIVE_NOISE, then **wide noise** at it (`noiseAt: 'all'`, runtime.ts: the
 * same points — awaits, timers, fs calls — delayed at the event loop's scale, a timer up to twice its
 * own delay, an await or an fs call's start or callback up to 8 ms), for an order of callbacks that
 * a setImmediate or a 0–3 ms delay rarely reverses under the recorder's overhead; its last level is
 * PCT for the event loop (runtime.ts, docs/noise.md): a held callback waits for the requests in
 * flight of higher priority, an order that no delay of a given length gives on a busy machine.
 */
export function exposureLadder(start: NoiseLevel, recorder: 'java' | 'node' = 'java'): NoiseLevel[] {
  const levels: NoiseLevel[] = [start];
  const p = start.noise;
  const more = Math.max(p, Math.min(MAX_ADAPTIVE_NOISE, Math.round(p * 2 * 100) / 100));
  if (recorder === 'node') {
    if (start.noiseAt === 'all') {
      if (MAX_ADAPTIVE_NOISE > p) levels.push({ noise: MAX_ADAPTIVE_NOISE, noiseAt: 'all' });
    } else {
      if (more > p) levels.push({ noise: more, noiseAt: start.noiseAt });
      if (MAX_ADAPTIVE_NOISE > more) levels.push({ noise: MAX_ADAPTIVE_NOISE, noiseAt: start.noiseAt });
      levels.push({ noise: Math.max(p, MAX_ADAPTIVE_NOISE), noiseAt: 'all' });
    }
    // and last PCT for the event loop (runtime.ts): a priority per task and per fs request
    levels.push({ ...PCT_LEVEL, pct: { depth: DEFAULT_PCT_DEPTH } });
    return levels;
  }
  if (start.noiseAt === 'accesses') levels.push({ noise: p, noiseAt: 'sync' });
  if (start.noiseAt !== 'all' || more > p) levels.push({ noise: more, noiseAt: 'all' });
  if (MAX_ADAPTIVE_NOISE > more) levels.push({ noise: MAX_ADAPTIVE_NOISE, noiseAt: 'all' });
  levels.push({ ...PCT_LEVEL, pct: { depth: DEFAULT_PCT_DEPTH } });
  return levels;
}

/**
 * The levels below the first one, for a recording in which every run fails (AdaptiveExposure steps
 * down, never back up): half the probability, a quarter (rounded to 0.01, at least 0.01), then no
 * noise — the program's own timing, still recorded. Ranking needs passing runs: with none, no pattern
 * has evidence and GRIFFIN forms no bug (a race that the noise at accesses opens in every run, where
 * plain runs never fail: 200 of 200 failing).
 */
export function calmerLevels(start: NoiseLevel): NoiseLevel[] {
  const out: NoiseLevel[] = [];
  for (const f of [2, 4]) {
    const p = Math.max(0.01, Math.round((start.noise / f) * 100) / 100);
    if (p < start.noise && !out.some((l) => l.noise === p)) out.push({ noise: p, noiseAt: start.noiseAt });
  }
  if (start.noise > 0) out.push({ noise: 0, noiseAt: start.noiseAt });
  return out;
}

/**
 * How a level is said: "noise 0.1 at accesses", "noise 0.2 at accesses and sync points", "pct
 * scheduling (depth 3)"; for the Node.js recorder "noise 0.1" and "wide noise 0.3" (noiseAt all).
 */
export function levelText(l: NoiseLevel, recorder: 'java' | 'node' = 'java'): string {
  if (l.pct) return `pct scheduling (depth ${l.pct.depth})`;
  if (!(l.noise > 0)) return 'no noise';
  if (recorder === 'node') return l.noiseAt === 'all' ? `wide noise ${l.noise}` : `noise ${l.noise}`;
  const where = l.noiseAt === 'accesses' ? 'accesses' : l.noiseAt === 'sync' ? 'sync points' : 'accesses and sync points';
  return `noise ${l.noise} at ${where}`;
}

/**
 * The progress line of a step: "no failure in 20 runs: noise now at sync points, p 0.1 (from run
 * 20)", "no failure in 20 runs: pct scheduling now, depth 3, no noise (from run 80)".
 */
export function stepText(s: ExposureStep, before: NoiseLevel, recorder: 'java' | 'node' = 'java'): string {
  if (s.lower) return s.noise > 0 ? `${s.because}: less noise now, p ${s.noise} (from run ${s.fromRun}), for passing runs to compare with` : `${s.because}: no noise now, the program's own timing (from run ${s.fromRun}), for passing runs to compare with`;
  if (recorder === 'node') {
    if (s.pct) return `${s.because}: pct scheduling now (a random priority per task and per fs request, ${s.pct.depth - 1} change point${s.pct.depth === 2 ? '' : 's'}; a ready callback waits while a request of higher priority is in flight), depth ${s.pct.depth}, no noise (from run ${s.fromRun})`;
    return s.noiseAt === 'all' && before.noiseAt !== 'all'
      ? `${s.because}: wide noise now (timers up to twice their delay late, awaits and fs calls up to ${NODE_WIDE_DELAY_MS} ms), p ${s.noise} (from run ${s.fromRun})`
      : `${s.because}: noise now p ${s.noise} (from run ${s.fromRun})`;
  }
  if (s.pct) return `${s.because}: pct scheduling now (a random priority per thread, ${s.pct.depth - 1} change point${s.pct.depth === 2 ? '' : 's'}), depth ${s.pct.depth}, no noise (from run ${s.fromRun})`;
  const where =
    s.noiseAt === before.noiseAt ? '' : s.noiseAt === 'sync' ? ' at sync points' : s.noiseAt === 'all' ? (before.noiseAt === 'accesses' ? ' at sync points too' : ' at accesses too') : ' at accesses';
  return `${s.because}: noise now${where}, p ${s.noise} (from run ${s.fromRun})`;
}

/** What was tried, for the advice when no run failed: "noise 0.1 at accesses (runs 0–19), …, pct scheduling (depth 3) (runs 80–199)". */
export function triedText(levels: readonly (NoiseLevel & { fromRun: number })[], total: number, recorder: 'java' | 'node' = 'java'): string {
  return levels
    .map((l, k) => {
      const to = (k + 1 < levels.length ? levels[k + 1].fromRun : total) - 1;
      return `${levelText(l, recorder)} (runs ${l.fromRun}–${Math.max(l.fromRun, to)})`;
    })
    .join(', ');
}

/**
 * Decides each run's noise. `runNoise(index)` (RecordControl) gives the noise a run starts with;
 * `runFinished` counts its outcome for the level it ran at, and makes a decision due when it is the
 * current level's STEP_RUNS-th finished run (then every `roundRuns` more: 20, 30, 40 …); `consider()`
 * then widens when the level had fewer than one failure per STEP_RUNS. The decision is due when the
 * level's own runs are in, not at a round's end: with 2 jobs a run of the level before is still
 * going when a level starts, so at a round's end a level had 19 finished runs and was judged only a
 * round later (each level after the first got ~30 runs, PCT from run ~111 instead of 80). With one
 * job a level starts at a round's end and its checks fall on round ends, as before. As a
 * RecordControl of its own (the bench, a fixed `--runs N`) it considers before the next run starts.
 */
export class AdaptiveExposure implements RecordControl {
  readonly ladder: NoiseLevel[];
  /** the recorder whose ladder this is (the texts differ: Node.js has no sync points, its wide level) */
  readonly recorder: 'java' | 'node';
  /** the steps taken so far (the first level, from run 0, is not a step) */
  readonly steps: ExposureStep[] = [];
  private level = 0;
  /** the levels below the first (calmerLevels), for a recording in which every run fails */
  readonly calmer: NoiseLevel[];
  /** how many of them were stepped down (0: on the ladder) */
  private down = 0;
  /** the level each started run ran at: ladder index ≥ 0, or -d for calmer[d - 1] */
  private readonly levelOf = new Map<number, number>();
  private readonly runsDown: number[];
  private readonly failedDown: number[];
  private readonly runsAt: number[];
  private readonly failedAt: number[];
  private nextIndex = 0;
  private decide = false;

  constructor(
    o: Pick<RecordOptions, 'noise' | 'noiseAt' | 'recorder' | 'outDir'>,
    private readonly roundRuns = 10,
    private readonly onStep?: (step: ExposureStep, text: string) => void,
  ) {
    this.recorder = o.recorder ?? 'java';
    this.ladder = exposureLadder({ noise: o.noise, noiseAt: o.noiseAt ?? 'accesses' }, this.recorder);
    this.runsAt = this.ladder.map(() => 0);
    this.failedAt = this.ladder.map(() => 0);
    this.calmer = calmerLevels(this.ladder[0]);
    this.runsDown = this.calmer.map(() => 0);
    this.failedDown = this.calmer.map(() => 0);
    this.outDir = o.outDir;
  }

  private readonly outDir: string;

  /** The noise of the runs starting now. */
  get current(): NoiseLevel {
    return this.down > 0 ? this.calmer[this.down - 1] : this.ladder[this.level];
  }

  /** The key of the current level in levelOf: its ladder index, or -d below the ladder. */
  private get currentKey(): number {
    return this.down > 0 ? -this.down : this.level;
  }

  /** Whether a decision is due: the current level's STEP_RUNS-th (then every roundRuns more) run finished since the last consider(). */
  get due(): boolean {
    return this.decide;
  }

  /** Every level used so far, with the run it started from. */
  get levels(): (NoiseLevel & { fromRun: number })[] {
    return [{ ...this.ladder[0], fromRun: 0 }, ...this.steps.map((s) => ({ noise: s.noise, noiseAt: s.noiseAt, ...(s.pct ? { pct: s.pct } : {}), fromRun: s.fromRun }))];
  }

  /** Whether the ladder's PCT level was reached (the advice names --noise-mode pct when not). */
  get reachedPct(): boolean {
    return this.steps.some((s) => s.pct);
  }

  /** What was tried, for the advice when no run failed (triedText in this recorder's words). */
  tried(total: number): string {
    return triedText(this.levels, total, this.recorder);
  }

  /** Whether the ladder's last level was reached (PCT scheduling). */
  get reachedLast(): boolean {
    return this.level + 1 >= this.ladder.length;
  }

  /** Whether the ladder has a PCT level (for both recorders since PCT for the event loop). */
  get hasPct(): boolean {
    return this.ladder.some((l) => l.pct);
  }

  /** The progress line of one of this recording's steps. */
  stepLine(step: ExposureStep): string {
    const k = this.steps.indexOf(step);
    return stepText(step, k > 0 ? this.steps[k - 1] : this.ladder[0], this.recorder);
  }

  runNoise(index: number): NoiseLevel {
    this.levelOf.set(index, this.currentKey);
    this.nextIndex = Math.max(this.nextIndex, index + 1);
    return this.current;
  }

  runFinished(p: Pick<RecordProgress, 'run'>): void {
    const k = this.levelOf.get(p.run.index);
    if (k === undefined) return;
    this.levelOf.delete(p.run.index);
    const [runsOf, failedOf, i] = k < 0 ? [this.runsDown, this.failedDown, -k - 1] : [this.runsAt, this.failedAt, k];
    const runs = ++runsOf[i];
    if (p.run.outcome === 'fail') failedOf[i]++;
    // the current level's 20th finished run (then its 30th, 40th …): a decision is due
    if (k === this.currentKey && runs >= STEP_RUNS && (runs - STEP_RUNS) % Math.max(1, this.roundRuns) === 0) this.decide = true;
  }

  /**
   * When a decision is due (`due`): widens the noise if the current level had fewer than one
   * failure per STEP_RUNS runs; the step, or undefined.
   */
  async consider(): Promise<ExposureStep | undefined> {
    if (!this.decide) return undefined;
    this.decide = false;
    const k = this.level;
    // every run failed (fewer than one passing run per STEP_RUNS) at the first level, or at a calmer one:
    // one level down (calmerLevels) — never after the noise was widened, and never back up
    if (k === 0 && this.down < this.calmer.length) {
      const i = this.down > 0 ? this.down - 1 : -1;
      const runs = i < 0 ? this.runsAt[0] : this.runsDown[i];
      const passed = runs - (i < 0 ? this.failedAt[0] : this.failedDown[i]);
      if (runs >= STEP_RUNS && passed * STEP_RUNS < runs) {
        this.down++;
        return this.takeStep({ ...this.calmer[this.down - 1], fromRun: this.nextIndex, because: passed === 0 ? `all ${runs} runs failed` : `${passed} passing run${passed === 1 ? '' : 's'} in ${runs}`, lower: true });
      }
    }
    if (this.down > 0) return undefined;
    if (k + 1 >= this.ladder.length) return undefined;
    const runs = this.runsAt[k];
    const failed = this.failedAt[k];
    if (runs < STEP_RUNS || failed * STEP_RUNS >= runs) return undefined;
    this.level++;
    const next = this.ladder[this.level];
    return this.takeStep({ ...next, fromRun: this.nextIndex, because: failed === 0 ? `no failure in ${runs} runs` : `${failed} failure${failed === 1 ? '' : 's'} in ${runs} runs` });
  }

  private async takeStep(step: ExposureStep): Promise<ExposureStep> {
    this.steps.push(step);
    await recordExposureSteps(this.outDir, this.levels, this.down > 0 ? this.ladder[0] : undefined).catch(() => {});
    this.onStep?.(step, this.stepLine(step));
    return step;
  }

  /** RecordControl (standalone): considers a step before the next run when one is due. */
  async beforeRun(): Promise<boolean> {
    if (this.decide) await this.consider();
    return true;
  }
}

/**
 * The adaptive exposure of a `--runs auto` recording, or undefined when its noise stays as given:
 * `--noise-mode uniform`, a noise plan (the plan decides where noise goes), or noise 0 (off).
 */
export function adaptiveExposureFor(
  o: Pick<RecordOptions, 'noise' | 'noiseAt' | 'recorder' | 'outDir' | 'plan' | 'pct'>,
  mode: NoiseMode = DEFAULT_NOISE_MODE,
  onStep?: (step: ExposureStep, text: string) => void,
  roundRuns?: number,
): AdaptiveExposure | undefined {
  if (mode !== 'adaptive' || o.plan || o.pct || !(o.noise > 0)) return undefined;
  return new AdaptiveExposure(o, roundRuns, onStep);
}
