/**
 * Runs a confirmation (issue 28, docs/confirm.md): the pattern's interleaving forced in N runs, the
 * opposite order forced in N runs, and N control runs with nothing forced — all recorded, each
 * group in its own folder under `<outRoot>/<name>-P<rank>-<time>/` (never under .braid/traces, so
 * confirmation runs do not join the analysis). Stops a group early when its answer is already
 * settled: no forced run met the constraint after the first few, or the forced runs cannot fail.
 * With 20 runs per group (the editor's default) there are two looks: half of each group, then the
 * rest only when the half did not confirm far below α (TWO_LOOKS_MIN_RUNS, docs/confirm.md).
 * No verdict without runs (issue 39): a group without a finished run (the command failed, the
 * include list matches nothing…), or forced runs none of which reached the pattern's accesses, give
 * `could not check` with why and what to do (engine/confirm/couldNotCheck.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIRM_ALPHA, ControlGroup, decideVerdict, failsMoreOften, ForcedGroup, imposed, Outcome, WEAK_ALPHA, WINDOW_VERDICT } from '../../engine/confirm/confirmVerdict';
import { accessesNotReached, CheckedGroup, CouldNotCheck, noRunsIn, reachedNoAccess } from '../../engine/confirm/couldNotCheck';
import { counterfactual, ForcedPattern, ForceOrder, forcingPlan, ForcingOptions, GuardChain, forcedAsOverlap, type GuardPlace, isSymmetric, sameDelaySection } from '../../engine/confirm/forcingPlan';
import type { NoisePlan } from '../../engine/noise/noisePlan';
import type { PatternConfirmation } from '../../engine/confirm/confirmedRanking';
import { RecordOptions, sanitizeName } from './recordOptions';
import { recordRuns, RecordSummary } from './recordRuns';
import { CommandStartError, RunResult } from './runOnce';
import type { ForcingReport } from '../../engine/trace/traceFormat';
import { writeFailure } from './writeFailure';
import { linkBelow } from '../../workspace/regularFile';
import { runsRecorder } from '../node/nodeRunner';

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
  /** the issue's verdict rule: p < 0.01 against both the opposite order and the control runs (confirmVerdict.ts) */
  strict?: boolean;
  /**
   * the recorder of the runs (default: recorderFor, the rule of `braid record`: a Node.js command or
   * JS/TS include globs get the Node.js recorder, docs/recorder-node.md, which forces in the process)
   */
  recorder?: 'java' | 'node';
  /**
   * one JVM per run in every group (`braid confirm --fresh-jvm`). By default a JUnit test's runs are
   * repetitions in one JVM per group and job, each forced afresh with its own forcing report
   * (repeatedRuns.ts), with the same fallback to a JVM per run where repetitions cannot work
   */
  freshJvm?: boolean;
  /** in-JVM repetitions keep the library jars shared (`--shared-libraries`, the recording's manifest) */
  sharedLibraries?: boolean;
  /**
   * a pattern forced by a hold before a lock whose runs would confirm it: also run the same-delay
   * control (forcingPlan.ts sameDelaySection; docs/confirm.md "The same delay, not the order") and keep
   * "confirmed" when the forced runs fail clearly more than it. Default true; false: every such verdict
   * is "confirms the window" at best (`braid confirm --no-same-delay`)
   */
  sameDelay?: boolean;
}


/**
 * Two looks (issue 43: Confirm in ≤ 30 s in the editor): with at least this many runs per group, each
 * group first runs half of them; the pattern is confirmed there only far below the verdict's α, and
 * otherwise the groups run in full and are judged with the rest of α (Bonferroni: α spent over both
 * looks, so a false confirmation stays as unlikely as with one look at the end). Fewer runs: one look.
 */
export const TWO_LOOKS_MIN_RUNS = 14;
/** α of the first look (half the runs): confirmed only at p < 0.001 against the counterfactual, < 0.005 against the control runs */
export const FIRST_LOOK = { alpha: CONFIRM_ALPHA / 10, weakAlpha: WEAK_ALPHA / 10 };
/** α left for the last look */
export const LAST_LOOK = { alpha: CONFIRM_ALPHA - FIRST_LOOK.alpha, weakAlpha: WEAK_ALPHA - FIRST_LOOK.weakAlpha };

export interface ConfirmProgress {
  group: 'forced' | 'opposite' | 'control' | 'same delay';
  done: number;
  total: number;
  failed: number;
  forcedOk?: number;
}

export interface Confirmation {
  /** the verdict, or `could not check` (then `couldNotCheck` says why and what to do) */
  verdict: Outcome;
  couldNotCheck?: CouldNotCheck;
  pattern: { rank: number; key: string; id: string };
  forced: { runs: number; failed: number; forcedOk: number };
  opposite?: { runs: number; failed: number; forcedOk: number };
  /** what the `opposite` group forced: the opposite order, or for a symmetric pattern the threads serialised */
  counterfactual?: 'opposite order' | 'serialised';
  control?: { runs: number; failed: number };
  /** the same-delay control of a hold before a lock (ConfirmOptions.sameDelay), when it ran */
  sameDelay?: { runs: number; failed: number; forcedOk: number };
  /** per thread role, the threads the plans named: those of the failing runs' instance (threadRoles.ts), when they were named */
  threads?: Partial<Record<number, string[]>>;
  /** the held thread's check the plans also force (ForcedPattern.guard, guardChain.ts; left out of a plan only past the format's limits) */
  guard?: GuardChain;
  /** per access of the pattern, the call sites the plans matched it from: those of the failing runs' instance (instanceCallers.ts), when named */
  callers?: { at: number; sites: GuardPlace[] }[];
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

/** A confirmation as the verdict kept on a pattern (ranking, editor); never one that could not check. */
export function patternConfirmation(c: Confirmation): PatternConfirmation {
  if (c.verdict === 'could not check') throw new Error(`no verdict to keep: could not check (${c.reason})`);
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
export function forcingOf(r: RunResult): ForcingReport | undefined {
  return r.forcing;
}

const NO_REPORT = 'the agent wrote no forcing report (no included class was instrumented?)';

/**
 * What every run of a confirmation or a fix check shares (recordRuns' options but the runs and the
 * noise): the recording's command, working folder, include list, time limit and jobs, the recorder it
 * needs (a JS/TS command runs through the Node.js recorder, which reads the plan's force section), and
 * the JVM's or process' settings; written into `outDir` as `name` with `seed`.
 */
export function confirmRunOptions(o: ConfirmOptions, outDir: string, name: string, seed: number): Omit<RecordOptions, 'runs' | 'noise'> {
  return {
    command: o.command,
    include: o.include,
    exclude: o.exclude,
    outDir,
    timeoutSeconds: o.timeoutSeconds,
    jobs: o.jobs,
    seed,
    name,
    cwd: o.cwd,
    ...runsRecorder(o),
    ...(o.failOnOutput ? { failOnOutput: o.failOnOutput } : {}),
    ...(o.env ? { env: o.env } : {}),
    ...(o.agentJar ? { agentJar: o.agentJar } : {}),
    ...(o.agentOptions ? { agentOptions: o.agentOptions } : {}),
    ...(o.freshJvm ? { freshJvm: true } : {}),
    ...(o.sharedLibraries ? { sharedLibraries: true } : {}),
  };
}

/** The pattern's accesses in words: "Bank.java:11 (R balance), Bank.java:13 (W balance)". */
export function accessWords(p: Pick<ForcedPattern, 'accesses'>): string {
  const words = p.accesses.map((a) => `${a.file.slice(Math.max(a.file.lastIndexOf('/'), a.file.lastIndexOf('\\')) + 1)}:${a.line} (${a.type} ${a.variable.slice(a.variable.lastIndexOf('.') + 1)})`);
  return [...new Set(words)].join(', ');
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
}

/**
 * A folder of its own for one confirmation: `base`, or `base-2`, `base-3`… when a confirmation of the same
 * pattern started in the same second (two seeds at once, two editors on one workspace) already made it —
 * created exclusively, so two confirmations never write their plans and runs into one folder.
 */
export async function freshFolder(base: string): Promise<string> {
  await fs.mkdir(path.dirname(base), { recursive: true });
  for (let k = 1; ; k++) {
    const folder = k === 1 ? base : `${base}-${k}`;
    try {
      await fs.mkdir(folder);
      return folder;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || k >= 1000) throw writeFailure(folder, e) ?? e;
    }
  }
}

export async function confirmPattern(
  p: ForcedPattern,
  o: ConfirmOptions,
  onProgress?: (p: ConfirmProgress) => void,
  signal?: AbortSignal,
): Promise<Confirmation> {
  const started = Date.now();
  const outRoot = path.resolve(o.cwd, o.outRoot ?? path.join('.braid', 'confirm'));
  const named = path.join(outRoot, `${sanitizeName(o.name)}-P${p.rank}-${stamp()}`);
  // the default folder (.braid/confirm of the working folder) is never reached through a link: a
  // cloned repository's .braid or .braid/confirm linked elsewhere would put plans and traces outside it
  if (o.outRoot === undefined) {
    const link = await linkBelow(o.cwd, named);
    if (link) throw new Error(`${link} is a symbolic link: Braid writes confirmations only into a real .braid/confirm folder of ${o.cwd} (remove the link)`);
  }
  const folder = await freshFolder(named);
  await fs.mkdir(path.join(folder, 'plans'), { recursive: true });
  const planFile = async (order: ForceOrder, label: string = order): Promise<{ file: string; plan: NoisePlan }> => {
    const plan = forcingPlan(`${o.name} P${p.rank} ${label}`, p, order, o, o.command);
    const file = path.join(folder, 'plans', `${label}.json`);
    try {
      await fs.writeFile(file, JSON.stringify(plan, null, 2) + '\n');
    } catch (e) {
      throw writeFailure(file, e) ?? e;
    }
    return { file, plan };
  };
  const base = (group: string, seed: number): RecordOptions => ({
    ...confirmRunOptions(o, path.join(folder, group), `${sanitizeName(o.name)}-${group}`, seed),
    runs: o.runs,
    noise: o.noise,
  });
  let interrupted = false;

  /**
   * One group, or more runs of it (`into`: the group so far, the runs numbered on from its count, in
   * `<group>-more`); `settle` may stop it early once its answer cannot change. `reached`: forced runs
   * that reached one of the pattern's accesses; `error`: the command could not be started (no run);
   * `settled`: `settle` stopped it (its answer is in: no more runs).
   */
  type GroupRuns = { g: ForcedGroup & { reached: number }; summaries: RecordSummary[]; settled: boolean; error?: Error };
  const group = async (name: ConfirmProgress['group'], options: RecordOptions, settle: ((g: ForcedGroup) => boolean) | undefined, total: number, into?: GroupRuns): Promise<GroupRuns> => {
    const g: GroupRuns['g'] = into?.g ?? { runs: 0, failed: 0, forcedOk: 0, reasons: new Map(), reached: 0 };
    const out: GroupRuns = into ?? { g, summaries: [], settled: false };
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stop.abort();
    try {
      const summary = await recordRuns(options, (pr) => {
        g.runs++;
        if (pr.run.outcome === 'fail') g.failed++;
        const f = forcingOf(pr.run);
        if (!reachedNoAccess(f)) g.reached++;
        if (f?.ok) g.forcedOk++;
        else if (options.plan) {
          const why = f?.reason ?? (f ? 'the constraint was not met' : NO_REPORT);
          g.reasons!.set(why, (g.reasons!.get(why) ?? 0) + 1);
        }
        onProgress?.({ group: name, done: g.runs, total, failed: g.failed, ...(options.plan ? { forcedOk: g.forcedOk } : {}) });
        if (settle?.(g)) {
          out.settled = true;
          stop.abort();
        }
      }, stop.signal);
      // a full disk stops the confirmation (the CLI's exit 3): no verdict from the runs before it
      if (summary.writeFailure) throw summary.writeFailure;
      if (signal?.aborted) interrupted = true;
      out.summaries.push(summary);
      return out;
    } catch (e) {
      // a command that cannot start is no run (could not check); anything else is an error
      if (!(e instanceof CommandStartError) || g.runs > 0) throw e;
      if (signal?.aborted) interrupted = true;
      return { ...out, error: e as Error };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  };
  /** `count` more runs of a group (`first`: the runs it has so far): numbered on, in `<label>-more` */
  const more = (label: string, seed: number, first: number, count: number, extra: Partial<RecordOptions> = {}): RecordOptions => ({
    ...base(`${label}-more`, seed + first),
    runs: count,
    ...extra,
  });

  const forcedPlan = await planFile('pattern');
  const alt = counterfactual(p, o);
  const third = Math.max(3, Math.ceil(o.runs / 4));
  // two looks (docs/confirm.md): half the runs of each group, then the rest only when the half did not confirm
  // (only with a counterfactual group: without it nothing is confirmed, so a first look cannot end it)
  const half = o.runs >= TWO_LOOKS_MIN_RUNS && !o.skipOpposite && alt ? Math.floor(o.runs / 2) : o.runs;
  const controlRuns = o.controlRuns ?? o.runs;
  const controlHalf = half < o.runs ? Math.floor(controlRuns / 2) : controlRuns;
  const forcedSettle = (g: ForcedGroup) =>
    // never met after the first runs, or no failure in half the runs: the answer is in
    (g.runs >= third && g.forcedOk === 0) || (g.runs * 2 >= o.runs && g.failed === 0);
  const oppositeSettle = (g: ForcedGroup) => g.runs >= third && g.forcedOk === 0;
  const forced = await group('forced', { ...base('forced', o.seed), runs: half, plan: forcedPlan }, forcedSettle, o.runs);
  const forcedDone = () => forced.settled || forced.g.runs >= o.runs;
  let opposite: GroupRuns | undefined;
  let control: GroupRuns | undefined;
  /** why a group has no finished run */
  const none = (name: CheckedGroup, r: GroupRuns): CouldNotCheck =>
    r.error ? { why: `the command failed: ${r.error.message} (no ${name === 'forced' ? 'forced' : name === 'opposite' ? 'opposite-order' : 'unforced'} run finished)`, hint: 'check the program name, the PATH and the working folder' } : noRunsIn(name, r.summaries.at(-1), interrupted);
  const forcedUnchecked = (): CouldNotCheck | undefined =>
    forced.g.runs === 0
      ? none('forced', forced)
      : forced.g.reached === 0
        ? accessesNotReached(forced.g.runs, accessWords(p), forced.g.reasons?.has(NO_REPORT) ? o.include : undefined)
        : undefined;
  let unchecked: CouldNotCheck | undefined = forcedUnchecked();
  const forcedSettled = () => forced.g.forcedOk * 2 < forced.g.runs || forced.g.failed === 0;
  // a half that looks unforced or without failure is not an answer yet: the forced group first runs in full
  if (!unchecked && !interrupted && !forcedDone() && forcedSettled()) {
    await group('forced', more('forced', o.seed, forced.g.runs, o.runs - forced.g.runs, { plan: forcedPlan }), forcedSettle, o.runs, forced);
    unchecked = forcedUnchecked();
  }
  const verdictOptions = { strict: o.strict, symmetric: isSymmetric(p), overlap: forcedAsOverlap(p, o), ...(p.evidence !== undefined ? { evidence: p.evidence } : {}) };
  let looks = 1;
  let early = false;
  if (!unchecked && !interrupted && !forcedSettled()) {
    // the counterfactual: the opposite order, or for a symmetric pattern (its opposite order is the same
    // interleaving) the two threads serialised; none for one access per thread. Stopped once it was
    // never imposed in its first runs: a group whose order was not imposed is not compared (issue 40)
    const oppositePlan = !o.skipOpposite && alt ? await planFile('opposite', alt) : undefined;
    const runGroups = async (oppositeRuns: number, controlCount: number) => {
      if (oppositePlan && !interrupted) {
        opposite =
          opposite === undefined
            ? await group('opposite', { ...base(alt!, o.seed + 100_000), runs: oppositeRuns, plan: oppositePlan }, oppositeSettle, o.runs)
            : opposite.settled || opposite.error || opposite.g.runs === 0
              ? opposite
              : await group('opposite', more(alt!, o.seed + 100_000, opposite.g.runs, oppositeRuns, { plan: oppositePlan }), oppositeSettle, o.runs, opposite);
      }
      if (!interrupted && controlCount > 0) {
        control =
          control === undefined
            ? await group('control', { ...base('control', o.seed + 200_000), runs: controlCount }, undefined, controlRuns)
            : control.error || control.g.runs === 0
              ? control
              : await group('control', more('control', o.seed + 200_000, control.g.runs, controlCount), undefined, controlRuns, control);
      }
    };
    // the forced group in full already (a half that looked unforced, or one look): the others in full too
    await runGroups(forcedDone() ? o.runs : half, forcedDone() ? controlRuns : controlHalf);
    if (!forcedDone() && !interrupted && !(opposite?.error || opposite?.g.runs === 0) && (control ? !(control.error || control.g.runs === 0) : controlRuns === 0)) {
      // the first look: confirmed only far below α (the rest of α is spent at the end)
      const first = decideVerdict(forced.g, opposite?.g, control?.g, { ...verdictOptions, ...FIRST_LOOK });
      looks = 2;
      if (first.verdict === 'confirmed') early = true;
      else {
        await group('forced', more('forced', o.seed, forced.g.runs, o.runs - forced.g.runs, { plan: forcedPlan }), forcedSettle, o.runs, forced);
        if (!interrupted && !forcedSettled()) await runGroups(o.runs - (opposite?.g.runs ?? 0), controlRuns - (control?.g.runs ?? 0));
      }
    }
    if (opposite && opposite.g.runs === 0) unchecked = none('opposite', opposite);
    else if (control && control.g.runs === 0) unchecked = none('control', control);
  }
  const oppositeRuns = opposite as GroupRuns | undefined;
  const controlDone = control as GroupRuns | undefined;
  const controlGroup: ControlGroup | undefined = controlDone ? { runs: controlDone.g.runs, failed: controlDone.g.failed } : undefined;
  const v = unchecked
    ? { verdict: 'could not check' as const, pValue: 1, reason: `could not check: ${unchecked.why}` }
    : decideVerdict(forced.g, oppositeRuns?.g, controlGroup, { ...verdictOptions, ...(early ? FIRST_LOOK : looks === 2 ? LAST_LOOK : {}) });
  // the hold is inside a lock the other access needs and cannot be made before it (lockedHold.ts): runs that do not confirm say nothing
  if (p.lockedHold && !p.lockedHold.site && v.verdict === 'refuted') Object.assign(v, { verdict: 'not forced' as const, reason: `not forced: ${p.lockedHold.reason} (the runs: ${v.reason})` });
  // the pattern's order forced by a hold before a lock (ForceWait.beforeLock): the hold delays everything
  // the thread does under that lock, so it widens any window that ends where the lock is taken — on
  // metrics-rescale a decoy (a snapshot's read awaited before the rescale's write lock) failed 20/20 forced
  // against 4/20 opposite and 4/20 unforced. Such runs do not tell the order from that delay: the window at most
  const lockHold = forcedPlan.plan.force?.waits.find((w) => w.beforeLock)?.beforeLock;
  let sameDelay: GroupRuns | undefined;
  // the counterfactual with the same delay but not the order: the thread held before its lock only until
  // the other thread is held before its own, which then waits for the held access (sameDelaySection). Run
  // for a verdict the hold's delay may have made: confirmed (capped below without it), or the window (the
  // plain opposite order not imposed in most runs, or failing as often)
  const windowOrBetter = v.verdict === 'confirmed' || v.verdict === WINDOW_VERDICT;
  if (lockHold && windowOrBetter && o.sameDelay !== false && !interrupted) {
    const section = sameDelaySection(p, o);
    if (section) {
      const plan: NoisePlan = { ...forcedPlan.plan, name: `${o.name} P${p.rank} same delay`, force: section };
      const file = path.join(folder, 'plans', 'same-delay.json');
      try {
        await fs.writeFile(file, JSON.stringify(plan, null, 2) + '\n');
      } catch (e) {
        throw writeFailure(file, e) ?? e;
      }
      sameDelay = await group('same delay', { ...base('same-delay', o.seed + 300_000), runs: o.runs, plan: { file, plan } }, oppositeSettle, o.runs);
    }
  }
  const sd = sameDelay && sameDelay.g.runs > 0 ? sameDelay.g : undefined;
  const sdWords = sd ? `, the same delay without the order ${sd.failed}/${sd.runs} (imposed in ${sd.forcedOk})` : '';
  // as decideVerdict's confirmed: the control fails clearly less (p < α), and forced runs fail more than unforced ones
  const alpha = early ? FIRST_LOOK : looks === 2 ? LAST_LOOK : { alpha: CONFIRM_ALPHA, weakAlpha: WEAK_ALPHA };
  const pSd = sd ? failsMoreOften(forced.g, sd) : 1;
  const pCtl = controlGroup ? failsMoreOften(forced.g, controlGroup) : 0;
  const delayRuledOut = !!sd && imposed(sd) && pSd < alpha.alpha && pCtl < (o.strict ? alpha.alpha : alpha.weakAlpha);
  if (lockHold && windowOrBetter && delayRuledOut) {
    const rates = `forced ${forced.g.failed}/${forced.g.runs} failed${oppositeRuns ? `, the opposite order ${oppositeRuns.g.failed}/${oppositeRuns.g.runs} (imposed in ${oppositeRuns.g.forcedOk})` : ''}${controlGroup ? `, unforced ${controlGroup.failed}/${controlGroup.runs}` : ''}${sdWords}`;
    Object.assign(v, {
      verdict: 'confirmed' as const,
      pValue: Math.max(pSd, pCtl),
      reason: `forcing it makes the failure happen and the order matters: ${rates}: holding the thread before its lock as long without this order fails clearly less, so the order, not the delay, makes the failure`,
    });
  } else if (lockHold && v.verdict === WINDOW_VERDICT && sd) {
    v.reason = `${v.reason}; the same delay without the order ${sd.failed}/${sd.runs} (imposed in ${sd.forcedOk}${imposed(sd) ? '' : ': not compared'})`;
  } else if (lockHold && v.verdict === 'confirmed') {
    const at = `${lockHold.file.slice(lockHold.file.lastIndexOf('/') + 1)}:${lockHold.line}`;
    const rates = v.reason.replace(/^forcing it makes the failure happen and the order matters: /, '') + sdWords;
    const why = sd
      ? `the order was forced by holding a thread before it takes the lock at ${at}, and the same delay without this order ${imposed(sd) ? 'fails about as often' : 'could not be imposed'}: nothing tells this order from that delay`
      : `the order was forced by holding a thread before it takes the lock at ${at}, which delays all it does under that lock: nothing tells this order from that delay`;
    // as decideVerdict does for a window: a pattern without evidence (in nearly every passing run) is refuted
    Object.assign(
      v,
      p.evidence === false
        ? { verdict: 'refuted' as const, reason: `forcing it makes the failure happen (${rates}) but ${why}, and this order occurs in nearly every passing run` }
        : { verdict: WINDOW_VERDICT, reason: `the hold makes the failure happen, not this order: ${rates}; ${why}` },
    );
  }
  const failing = forced.summaries.flatMap((s) => s.runs).find((r) => r.outcome === 'fail' && forcingOf(r)?.ok && r.traces.length > 0);
  return {
    verdict: v.verdict,
    ...(unchecked ? { couldNotCheck: unchecked } : {}),
    pattern: { rank: p.rank, key: p.key, id: p.id },
    forced: { runs: forced.g.runs, failed: forced.g.failed, forcedOk: forced.g.forcedOk },
    ...(oppositeRuns ? { opposite: { runs: oppositeRuns.g.runs, failed: oppositeRuns.g.failed, forcedOk: oppositeRuns.g.forcedOk }, counterfactual: alt === 'serialised' ? ('serialised' as const) : ('opposite order' as const) } : {}),
    ...(controlGroup ? { control: controlGroup } : {}),
    ...(sameDelay ? { sameDelay: { runs: sameDelay.g.runs, failed: sameDelay.g.failed, forcedOk: sameDelay.g.forcedOk } } : {}),
    ...(p.roleThreads && o.byThread !== false ? { threads: p.roleThreads } : {}),
    ...(p.guard && o.guardChain !== false ? { guard: p.guard } : {}),
    ...(p.callers?.length && o.byCaller !== false ? { callers: p.callers } : {}),
    pValue: v.pValue,
    reason: interrupted ? `stopped before the end: ${v.reason}` : early ? `${v.reason} (p < ${FIRST_LOOK.alpha} after half the runs: the rest were not needed)` : v.reason,
    folder,
    ...(failing ? { failingRun: { trace: failing.traces[0], execution: failing.execution, seed: failing.seed } } : {}),
    plan: forcedPlan.file,
    runsSpent: forced.g.runs + (oppositeRuns?.g.runs ?? 0) + (controlDone?.g.runs ?? 0) + (sameDelay?.g.runs ?? 0),
    seconds: (Date.now() - started) / 1000,
    ...(interrupted ? { interrupted: true } : {}),
  };
}
