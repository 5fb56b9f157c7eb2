/**
 * Runs a confirmation (issue 28, docs/confirm.md): the pattern's interleaving forced in N runs, the
 * opposite order forced in N runs, and N control runs with nothing forced — all recorded, each
 * group in its own folder under `<outRoot>/<name>-P<rank>-<time>/` (never under .braid/traces, so
 * confirmation runs do not join the analysis). Stops a group early when its answer is already
 * settled: no forced run met the constraint after the first few, or the forced runs cannot fail.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ControlGroup, decideVerdict, ForcedGroup, Verdict } from '../engine/confirm/confirmVerdict';
import { ForcedPattern, ForceOrder, forcingPlan, ForcingOptions, isSymmetric } from '../engine/confirm/forcingPlan';
import type { NoisePlan } from '../engine/noise/noisePlan';
import type { PatternConfirmation } from '../engine/confirm/confirmedRanking';
import { RecordOptions, sanitizeName } from './recordOptions';
import { recordRuns, RecordSummary } from './recordRuns';
import type { RunResult } from './runOnce';

export interface ConfirmOptions extends ForcingOptions {
  command: string[];
  cwd: string;
  include: string[];
  exclude: string[];
  /** runs per group (default 20) */
  runs: number;
  /** uniform noise in every group (default 0) */
  noise: number;
  timeoutSeconds: number;
  jobs: number;
  seed: number;
  name: string;
  /** folder the confirmation's folder goes into (default <cwd>/.braid/confirm) */
  outRoot?: string;
  failOnOutput?: RegExp;
  env?: Record<string, string>;
  agentJar?: string;
  agentOptions?: string[];
  /** skip the opposite-order group (a quicker, weaker check) */
  skipOpposite?: boolean;
  /** control runs (default: runs; 0 = none) */
  controlRuns?: number;
  /** the verdict rule: p < 0.01 against both the opposite order and the control runs (confirmVerdict.ts) */
  strict?: boolean;
}

export interface ConfirmProgress {
  group: 'forced' | 'opposite' | 'control';
  done: number;
  total: number;
  failed: number;
  forcedOk?: number;
}

export interface Confirmation {
  verdict: Verdict;
  pattern: { rank: number; key: string; id: string };
  forced: { runs: number; failed: number; forcedOk: number };
  opposite?: { runs: number; failed: number; forcedOk: number };
  control?: { runs: number; failed: number };
  pValue: number;
  reason: string;
  /** the confirmation's folder */
  folder: string;
  /** a forced run that met the constraint and failed (its trace), for Reproduce */
  failingRun?: { trace: string; execution: string; seed: string };
  /** the plan that forces the pattern's order (reproduce with braid record --plan) */
  plan: string;
  runsSpent: number;
  seconds: number;
  interrupted?: boolean;
}

/** A confirmation as the verdict kept on a pattern (ranking, editor). */
export function patternConfirmation(c: Confirmation): PatternConfirmation {
  return {
    verdict: c.verdict,
    reason: c.reason,
    pValue: c.pValue,
    forced: c.forced,
    ...(c.opposite ? { opposite: c.opposite } : {}),
    ...(c.control ? { control: c.control } : {}),
    ...(c.failingRun ? { failingTrace: c.failingRun.trace } : {}),
    plan: c.plan,
  };
}

/** The forcing report of a recorded run (the agent's `forcing` trace line), when it has one. */
export function forcingOf(r: RunResult): { ok: boolean; reason?: string } | undefined {
  return r.forcing;
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
}

export async function confirmPattern(
  p: ForcedPattern,
  o: ConfirmOptions,
  onProgress?: (p: ConfirmProgress) => void,
  signal?: AbortSignal,
): Promise<Confirmation> {
  const started = Date.now();
  const outRoot = path.resolve(o.cwd, o.outRoot ?? path.join('.braid', 'confirm'));
  const folder = path.join(outRoot, `${sanitizeName(o.name)}-P${p.rank}-${stamp()}`);
  await fs.mkdir(path.join(folder, 'plans'), { recursive: true });
  const planFile = async (order: ForceOrder): Promise<{ file: string; plan: NoisePlan }> => {
    const plan = forcingPlan(`${o.name} P${p.rank} ${order}`, p, order, o, o.command);
    const file = path.join(folder, 'plans', `${order}.json`);
    await fs.writeFile(file, JSON.stringify(plan, null, 2) + '\n');
    return { file, plan };
  };
  const base = (group: string, seed: number): RecordOptions => ({
    command: o.command,
    runs: o.runs,
    noise: o.noise,
    include: o.include,
    exclude: o.exclude,
    outDir: path.join(folder, group),
    timeoutSeconds: o.timeoutSeconds,
    jobs: o.jobs,
    seed,
    name: `${sanitizeName(o.name)}-${group}`,
    cwd: o.cwd,
    ...(o.failOnOutput ? { failOnOutput: o.failOnOutput } : {}),
    ...(o.env ? { env: o.env } : {}),
    ...(o.agentJar ? { agentJar: o.agentJar } : {}),
    ...(o.agentOptions ? { agentOptions: o.agentOptions } : {}),
  });
  let interrupted = false;

  /** One group; `settle` may stop it early once its answer cannot change. */
  const group = async (name: ConfirmProgress['group'], options: RecordOptions, settle?: (g: ForcedGroup) => boolean): Promise<{ g: ForcedGroup; summary: RecordSummary }> => {
    const g: ForcedGroup = { runs: 0, failed: 0, forcedOk: 0, reasons: new Map() };
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stop.abort();
    try {
      const summary = await recordRuns(options, (pr) => {
        g.runs++;
        if (pr.run.outcome === 'fail') g.failed++;
        const f = forcingOf(pr.run);
        if (f?.ok) g.forcedOk++;
        else if (options.plan) {
          const why = f?.reason ?? (f ? 'the constraint was not met' : 'the agent wrote no forcing report (no included class was instrumented?)');
          g.reasons!.set(why, (g.reasons!.get(why) ?? 0) + 1);
        }
        onProgress?.({ group: name, done: g.runs, total: options.runs, failed: g.failed, ...(options.plan ? { forcedOk: g.forcedOk } : {}) });
        if (settle?.(g)) stop.abort();
      }, stop.signal);
      if (signal?.aborted) interrupted = true;
      return { g, summary };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };

  const forcedPlan = await planFile('pattern');
  const third = Math.max(3, Math.ceil(o.runs / 4));
  const forced = await group('forced', { ...base('forced', o.seed), plan: forcedPlan }, (g) =>
    // never met after the first runs, or no failure in half the runs: the answer is in
    (g.runs >= third && g.forcedOk === 0) || (g.runs * 2 >= o.runs && g.failed === 0));
  let opposite: Awaited<ReturnType<typeof group>> | undefined;
  let control: Awaited<ReturnType<typeof group>> | undefined;
  const forcedSettled = forced.g.forcedOk * 2 < forced.g.runs || forced.g.failed === 0;
  if (!interrupted && !forcedSettled) {
    // a symmetric pattern's opposite order is the same interleaving: compared with the unforced runs only
    if (!o.skipOpposite && !isSymmetric(p)) opposite = await group('opposite', { ...base('opposite', o.seed + 100_000), plan: await planFile('opposite') });
    const controlRuns = o.controlRuns ?? o.runs;
    if (!interrupted && controlRuns > 0) control = await group('control', { ...base('control', o.seed + 200_000), runs: controlRuns });
  }
  const controlGroup: ControlGroup | undefined = control ? { runs: control.g.runs, failed: control.g.failed } : undefined;
  let v = decideVerdict(forced.g, opposite?.g, controlGroup, { strict: o.strict, ...(p.evidence !== undefined ? { evidence: p.evidence } : {}) });
  if (v.verdict === 'confirmed' && !opposite && isSymmetric(p) && p.evidence === false) {
    // no opposite order to tell the order from the hold's delay, and the order happens in nearly every passing run
    v = { ...v, verdict: 'refuted', reason: `${v.reason}; but both threads do the same accesses (no opposite order to compare with) and this order occurs in nearly every passing run: the hold's delay, not the order, makes it fail` };
  }
  const failing = forced.summary.runs.find((r) => r.outcome === 'fail' && forcingOf(r)?.ok && r.traces.length > 0);
  return {
    verdict: v.verdict,
    pattern: { rank: p.rank, key: p.key, id: p.id },
    forced: { runs: forced.g.runs, failed: forced.g.failed, forcedOk: forced.g.forcedOk },
    ...(opposite ? { opposite: { runs: opposite.g.runs, failed: opposite.g.failed, forcedOk: opposite.g.forcedOk } } : {}),
    ...(controlGroup ? { control: controlGroup } : {}),
    pValue: v.pValue,
    reason: interrupted ? `stopped before the end: ${v.reason}` : v.reason,
    folder,
    ...(failing ? { failingRun: { trace: failing.traces[0], execution: failing.execution, seed: failing.seed } } : {}),
    plan: forcedPlan.file,
    runsSpent: forced.g.runs + (opposite?.g.runs ?? 0) + (control?.g.runs ?? 0),
    seconds: (Date.now() - started) / 1000,
    ...(interrupted ? { interrupted: true } : {}),
  };
}
