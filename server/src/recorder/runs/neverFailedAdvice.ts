/**
 * What to say when no run of a recording failed (issue 41 item 1, docs/noise.md "Adaptive exposure"):
 * what was tried — each level of adaptive exposure's ladder and its runs, or the one noise — and the
 * next things the user can do that were not tried yet, in the words of where it is said: the CLI's
 * options (`braid test`, `braid record`) or the editor's settings (the lens, the Testing view).
 */
import type { AdaptiveExposure } from './adaptiveExposure';
import type { NoiseAt } from './recordOptions';

export interface NeverFailedInput {
  /** runs made, none failed */
  runs: number;
  recorder: 'java' | 'node';
  /** the recording's noise (the first level when adaptive exposure widened it) */
  noise: number;
  noiseAt?: NoiseAt;
  /** --noise-mode pct from the start */
  pct?: boolean;
  /** a noise plan decided where the noise went */
  plan?: boolean;
  /** adaptive exposure (`--noise-mode adaptive`, runs auto or a fixed number), when it ran */
  exposure?: AdaptiveExposure;
  /** `braid test` with a fixed `--runs N` (more runs: --runs, not --max-runs) */
  fixedRuns?: boolean;
  /** a --fail-on-output expression was given */
  failOnOutput?: boolean;
  /** `braid test` (--max-runs), `braid record` (--runs, --fail-on-output) or the editor (settings) */
  where: 'test' | 'record' | 'editor';
}

export interface NeverFailedAdvice {
  /** "noise 0.1 at accesses (runs 0–19), noise 0.1 at sync points (runs 20–39)", "noise 0.1 at accesses" */
  tried: string;
  /** the next steps, most likely to help first ("record more runs (--max-runs 400)", …) */
  next: string[];
}

/** Where one noise goes, as the advice says it. */
function oneNoise(i: NeverFailedInput): string {
  if (i.pct) return 'pct scheduling';
  if (i.plan) return 'the noise plan';
  if (!(i.noise > 0)) return 'no noise';
  if (i.recorder === 'node') return `${i.noiseAt === 'all' ? 'wide noise' : 'noise'} ${i.noise} at awaits, timers and fs calls`;
  const at = i.noiseAt === 'sync' ? 'sync points' : i.noiseAt === 'all' ? 'accesses and sync points' : 'accesses';
  return `noise ${i.noise} at ${at}`;
}

/** What was tried and what to do next when no run failed. */
export function neverFailedAdvice(i: NeverFailedInput): NeverFailedAdvice {
  const e = i.exposure;
  const widened = !!e && e.steps.length > 0;
  const tried = widened ? e.tried(i.runs) : `${oneNoise(i)} (${i.runs} run${i.runs === 1 ? '' : 's'})`;
  const cli = i.where !== 'editor';
  const next: string[] = [];
  const moreRuns = Math.max(200, 2 * i.runs);
  if (e && !e.reachedLast) {
    // the ladder stopped at the budget before its last level: more runs reach the next levels
    next.push(cli ? `record more runs, so the noise can widen further (${i.where === 'test' && !i.fixedRuns ? `--max-runs ${moreRuns}` : `--runs ${moreRuns}`})` : `record more runs, so the noise can widen further (braid.record.runs, or record again)`);
  } else if (!e && !i.pct && !i.plan && i.noise > 0) {
    // one noise for every run (--noise-mode uniform; braid record's default): the levels adaptive exposure would try
    if (i.recorder === 'node') {
      if (i.noiseAt !== 'all' || i.noise < 0.3) next.push(cli ? 'wide noise (--noise 0.3 --noise-at all: timers up to twice their delay late, awaits and fs calls up to 8 ms)' : 'wide noise (braid.record.noise 0.3 and braid.record.noiseAt "all")');
    } else if (i.noiseAt !== 'all' || i.noise < 0.3) {
      next.push(cli ? 'more noise, at sync points too (--noise 0.3 --noise-at all)' : 'more noise, at sync points too (braid.record.noise 0.3, braid.record.noiseAt "all")');
    }
    // adaptive exposure widens the noise with a fixed number of runs too (braid record: only when asked)
    if (i.where === 'record') next.push(`more runs (--runs ${moreRuns})`, 'adaptive exposure, which widens the noise while no run fails (--noise-mode adaptive)');
    else if (i.where === 'test') next.push('adaptive exposure, which widens the noise while no run fails (--noise-mode adaptive)');
    else next.push('adaptive exposure, which widens the noise while no run fails (braid.record.noiseMode "adaptive")');
  }
  // PCT scheduling (the Java agent's; the ladder's last level) when no run had it
  if (i.recorder === 'java' && !i.pct && !e?.reachedPct) next.push(cli ? 'schedule the threads instead of noise (--noise-mode pct)' : 'schedule the threads instead of noise (braid.record.noiseMode "pct")');
  // a failure the exit code does not show
  if (!i.failOnOutput && i.where === 'record') next.push('if the failure shows only in the output (a logged error, exit code 0): --fail-on-output REGEX');
  return { tried, next };
}

/** The advice as one sentence's end: "next: a; b; or c". */
export function nextText(next: readonly string[]): string {
  if (next.length === 0) return '';
  if (next.length === 1) return next[0];
  return `${next.slice(0, -1).join('; ')}; or ${next[next.length - 1]}`;
}
