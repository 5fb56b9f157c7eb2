/**
 * `braid confirm <traces or folder> [--pattern K|KEY] [--runs N] [--format text|json] [--baseline OLD] [-- <command…>]`
 * (issue 28, docs/confirm.md): proves or refutes a ranked pattern by forcing its interleaving.
 * Exit code: 0 confirmed (or, with --baseline, fixed), 1 otherwise or on an error, 2 on a usage error,
 * 3 when a file could not be written (a full disk), 4 could not check (no run to compare: the command
 * failed, the build is broken, the include list matches nothing…), 130 when stopped with Ctrl-C.
 */
import os from 'node:os';
import { open, readFile } from 'node:fs/promises';
import { findTraceFiles } from '../engine/traceDiscovery';
import path from 'node:path';
import { AnalysisResult, patternAt, patternCount, RankedPattern } from '../engine/analysis';
import { analyzeInputsRanked } from '../engine/summary/workspaceAnalysis';
import { formatDiagnostic } from '../engine/trace/traceFormat';
import { terminalLine, terminalText } from '../engine/outputEscaping';
import { deriveName, MAX_TIMEOUT_SECONDS, sanitizeName, takeList } from '../recorder/runs/recordOptions';
import { launchOf, manifestFailOnOutput, readRecordingManifest, RecordingManifest } from '../recorder/runs/recordingManifest';
import { outputPattern } from '../recorder/runs/outputPattern';
import { isInsideFolder, tracesWorkspace } from '../recorder/runs/manifestUse';
import { commandText } from '../recorder/runs/commandText';
import { ConfirmOptions, confirmPattern, Confirmation } from '../recorder/runs/confirmRuns';
import { withCheckOfUse } from '../engine/confirm/checkOfUse';
import { listedPatterns } from '../engine/confirm/confirmedRanking';
import { withFailingRunFacts } from '../engine/confirm/failingRunFacts';
import { confirmWithCalls, PerCallResult, perCallRankingOf, patternToForce } from '../recorder/runs/confirmPerCall';
import { forceCauseWithin } from '../recorder/runs/confirmWithin';
import { checkFix, FixCheck, recordingNoiseOf } from '../recorder/runs/fixCheck';
import { DEFAULT_WAIT_MS } from '../engine/confirm/forcingPlan';
import { COULD_NOT_CHECK_EXIT } from '../engine/confirm/couldNotCheck';
import { EXIT_WRITE_FAILURE, RecordWriteError } from '../recorder/runs/writeFailure';
import { onStopSignals } from '../recorder/runs/stopSignals';

export const CONFIRM_USAGE = `braid confirm <trace files or folders...> [options] [-- <command...>]
      Forces a ranked pattern's interleaving to prove it: N runs with the pattern's order forced, N with
      the opposite order (a symmetric pattern: its threads serialised), N unforced; verdict confirmed
      (forced runs fail far more than the opposite order, imposed in most of its runs, Fisher p < 0.01),
      confirms the window (the hold makes it fail, not the order), refuted, or not forced (a lock or a
      join orders the accesses); could not check (exit code 4) when
      a group has no finished run or no forced run reached the pattern's accesses. The command defaults
      to the one the traces were recorded with (their folder's recording.json).
      --pattern K|KEY       the K-th pattern as braid analyze lists it (default 1), or a pattern key (JSON, SARIF)
      --runs N              runs per group (default 20)
      --wait-ms MS          longest hold of a thread at a forced access (default ${DEFAULT_WAIT_MS})
      --baseline OLD...     check the fix: the pattern is taken from OLD (the traces before the fix); its
                            interleaving is forced on the new build and the program is recorded again
                            with the old noise; verdict fixed or not fixed
      --noise P             uniform noise in every group (default 0; with --baseline: the re-recording's noise)
      --strict              the verdict needs p < 0.01 against both the opposite order and the unforced runs
                            (default: see docs/confirm.md, Verdicts)
      --no-same-delay       a pattern forced by a hold before a lock is "confirms the window" at best, without
                            the same-delay control that could confirm it (docs/confirm.md, The same delay)
      --any-thread          any thread takes part in the forcing, not only the threads of the failing runs'
                            instance (docs/confirm.md, The instance the failing runs had)
      --any-caller          the pattern's accesses are forced wherever they are called from, not only from
                            the call sites of the failing runs' instance (docs/confirm.md, The callers the
                            failing runs had)
      --no-overlap          two calls of one library method, one per thread, are forced in order (the second
                            after the first returned), not made to overlap (docs/confirm.md, Two calls of a
                            library method)
      --no-callbacks        an awaited library call that calls back or traverses (a stream's collect, forEach,
                            computeIfAbsent…) counts when it returns, not at its thread's next access inside
                            it (docs/confirm.md, Lazy calls and mutations during a call)
      --no-regions          a pattern of one access per thread at one spot (W1 W2) has no counterfactual, not the
                            threads' regions serialised (docs/confirm.md, Verdicts)
      --no-guard            do not also force the held thread's check before its access (a read of another
                            variable the failing runs made before the other thread's write of it;
                            docs/confirm.md, A check the held access depends on)
      --whole               a confirmed pattern of three or four accesses keeps its verdict alone; by default
                            the smaller listed patterns within it (a part per variable, in turn) are forced
                            next; the first confirmed too is named as the cause (docs/confirm.md, The cause within)
      --calls on|off        when the pattern is on a line of several library calls and forcing it there
                            is not confirmed, force its refinements per call (default on; docs/confirm.md)
      --fresh-jvm           one JVM per run; by default the runs of a JUnit test run by the console launcher
                            are repetitions in one JVM per group, each forced afresh (docs/confirm.md, Cost)
      --format text|json    output (default text)
      --include PKG... --exclude PKG... --timeout S --fail-on-output RE --jobs J --seed S   as for braid record`;

class ConfirmUsageError extends Error {}

export interface ConfirmArgs {
  inputs: string[];
  selector: { position: number } | { key: string };
  runs: number;
  waitMs: number;
  format: 'text' | 'json';
  baseline?: string[];
  command: string[];
  include?: string[];
  exclude?: string[];
  noise?: number;
  timeoutSeconds?: number;
  failOnOutput?: RegExp;
  jobs: number;
  seed: number;
  strict?: boolean;
  /** --no-same-delay: no same-delay control for a hold before a lock (ConfirmOptions.sameDelay) */
  noSameDelay?: boolean;
  /** --any-thread: the plans do not name the failing runs' threads (ForcingOptions.byThread false) */
  anyThread?: boolean;
  /** --no-regions: W1 W2 of one access per thread has no counterfactual (ForcingOptions.regions false) */
  noRegions?: boolean;
  /** --whole: no cause looked for within a confirmed combination (causeWithin.ts) */
  whole?: boolean;
  /** --no-overlap: two calls of one library method are forced in order, not to overlap (ForcingOptions.overlap false) */
  noOverlap?: boolean;
  /** --no-callbacks: every awaited library call counts when it returns (ForcingOptions.callbacks false) */
  noCallbacks?: boolean;
  /** --any-caller: the plans do not name the failing runs' call sites (ForcingOptions.byCaller false) */
  anyCaller?: boolean;
  /** --no-guard: the plans do not force the held thread's check before its access (ForcingOptions.guardChain false) */
  noGuard?: boolean;
  /** --calls on|off (default on): force the pattern's refinements per library call (confirmPerCall.ts) */
  perCall: boolean;
  /** --fresh-jvm: one JVM per run (no repetitions in one JVM) */
  freshJvm?: boolean;
}

function num(flag: string, v: string | undefined, ok: (n: number) => boolean, what: string): number {
  const n = Number(v);
  if (v === undefined || v === '' || !Number.isFinite(n) || !ok(n)) throw new ConfirmUsageError(`${flag} ${v ?? ''}: expected ${what}`.replace(/ +:/, ':'));
  return n;
}

export function parseConfirmArgs(argv: string[]): ConfirmArgs {
  const dash = argv.indexOf('--');
  const flags = dash < 0 ? argv : argv.slice(0, dash);
  const a: ConfirmArgs = {
    inputs: [],
    selector: { position: 1 },
    runs: 20,
    waitMs: DEFAULT_WAIT_MS,
    format: 'text',
    command: dash < 0 ? [] : argv.slice(dash + 1),
    jobs: Math.max(1, Math.min(2, os.availableParallelism())),
    seed: Math.floor(Math.random() * 1_000_000_000),
    perCall: true,
  };
  for (let i = 0; i < flags.length; ) {
    const flag = flags[i];
    const v = flags[i + 1];
    switch (flag) {
      case '--pattern':
        if (!v) throw new ConfirmUsageError('--pattern needs a position in the list (1 = the first pattern) or a pattern key');
        a.selector = /^\d+$/.test(v) ? { position: num(flag, v, (n) => n >= 1, 'a position ≥ 1') } : { key: v };
        i += 2;
        break;
      case '--runs':
        a.runs = num(flag, v, (n) => Number.isInteger(n) && n >= 2 && n <= 10_000, 'a whole number of runs from 2 to 10000');
        i += 2;
        break;
      case '--wait-ms':
        a.waitMs = num(flag, v, (n) => n > 0 && n <= 60_000, 'milliseconds from 1 to 60000');
        i += 2;
        break;
      case '--format':
        if (v !== 'text' && v !== 'json') throw new ConfirmUsageError(`--format ${v ?? ''}: expected text or json`);
        a.format = v;
        i += 2;
        break;
      case '--baseline': {
        const [list, next] = takeList(flags, i + 1);
        if (!list.length) throw new ConfirmUsageError('--baseline needs the trace files or folder recorded before the fix');
        a.baseline = [...(a.baseline ?? []), ...list];
        i = next;
        break;
      }
      case '--strict':
        a.strict = true;
        i += 1;
        break;
      case '--no-same-delay':
        a.noSameDelay = true;
        i += 1;
        break;
      case '--any-thread':
        a.anyThread = true;
        i += 1;
        break;
      case '--no-regions':
        a.noRegions = true;
        i += 1;
        break;
      case '--whole':
        a.whole = true;
        i += 1;
        break;
      case '--no-callbacks':
        a.noCallbacks = true;
        i += 1;
        break;
      case '--no-overlap':
        a.noOverlap = true;
        i += 1;
        break;
      case '--any-caller':
        a.anyCaller = true;
        i += 1;
        break;
      case '--no-guard':
        a.noGuard = true;
        i += 1;
        break;
      case '--fresh-jvm':
        a.freshJvm = true;
        i += 1;
        break;
      case '--calls':
        if (v !== 'on' && v !== 'off') throw new ConfirmUsageError(`--calls ${v ?? ''}: expected on or off`);
        a.perCall = v === 'on';
        i += 2;
        break;
      case '--noise':
        a.noise = num(flag, v, (n) => n >= 0 && n <= 1, 'a probability from 0 to 1');
        i += 2;
        break;
      case '--include':
      case '--exclude': {
        const [list, next] = takeList(flags, i + 1);
        if (!list.length) throw new ConfirmUsageError(`${flag} needs at least one package or class`);
        if (flag === '--include') a.include = [...(a.include ?? []), ...list];
        else a.exclude = [...(a.exclude ?? []), ...list];
        i = next;
        break;
      }
      case '--timeout':
        a.timeoutSeconds = num(flag, v, (n) => n > 0 && n <= MAX_TIMEOUT_SECONDS, `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}`);
        i += 2;
        break;
      case '--fail-on-output':
        if (v === undefined) throw new ConfirmUsageError('--fail-on-output needs a regular expression');
        {
          const re = outputPattern(v);
          if (re instanceof Error) throw new ConfirmUsageError(`--fail-on-output ${v}: ${re.message}`);
          a.failOnOutput = re;
        }
        i += 2;
        break;
      case '--jobs':
        a.jobs = v === 'auto' ? os.availableParallelism() : num(flag, v, (n) => Number.isInteger(n) && n >= 1, 'a whole number ≥ 1 or "auto"');
        i += 2;
        break;
      case '--seed':
        a.seed = num(flag, v, (n) => Number.isSafeInteger(n) && n >= 0, 'a whole number ≥ 0');
        i += 2;
        break;
      default:
        if (flag.startsWith('-')) throw new ConfirmUsageError(`unknown option ${flag} for braid confirm`);
        a.inputs.push(flag);
        i += 1;
    }
  }
  if (!a.inputs.length && a.baseline) a.inputs = [...a.baseline];
  if (!a.inputs.length) throw new ConfirmUsageError('give the trace files or folder the pattern was ranked from, e.g. braid confirm .braid/traces/Bank-20261127-101500');
  return a;
}

/** The include/exclude lists the first trace's header recorded (`recorder.options`), when it has them. */
export async function recordedOptions(source: string[]): Promise<{ include?: string[]; exclude?: string[] } | undefined> {
  const { files } = await findTraceFiles(source);
  const file = files.find((f) => f.endsWith('.trace.jsonl'));
  const gz = file ? undefined : files.find((f) => f.endsWith('.trace.jsonl.gz'));
  const target = file ?? gz;
  if (!target) return undefined;
  try {
    let head: string;
    if (gz) {
      const zlib = await import('node:zlib');
      head = zlib.gunzipSync(await readFile(gz)).subarray(0, 1 << 16).toString('utf8');
    } else {
      const fh = await open(target, 'r');
      try {
        const buf = Buffer.alloc(1 << 16);
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        head = buf.subarray(0, bytesRead).toString('utf8');
      } finally {
        await fh.close();
      }
    }
    const o = (JSON.parse(head.split('\n')[0]) as { recorder?: { options?: { include?: unknown; exclude?: unknown } } }).recorder?.options;
    const list = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
    return { include: list(o?.include), exclude: list(o?.exclude) };
  } catch {
    return undefined;
  }
}

/** The selected pattern of a ranking. */
export function selectPattern(result: AnalysisResult, selector: ConfirmArgs['selector']): RankedPattern | string {
  const n = patternCount(result);
  if ('position' in selector) {
    const p = patternAt<RankedPattern>(result, selector.position - 1);
    return p ?? `--pattern ${selector.position}: the traces have ${n} pattern(s)`;
  }
  for (let k = 0; k < n; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    if (p.key === selector.key) return p;
  }
  return `--pattern ${selector.key}: no pattern with this key in the traces`;
}

const short = (f: string) => f.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1);

/** One access of the pattern: "T2 W @ Gson.java:1329". */
function accessText(p: RankedPattern, k: number): string {
  const a = p.accesses[k];
  return a ? `T${a.thread} ${a.type} @ ${short(a.file)}:${a.line}` : `access ${k}`;
}

/** "T1 R balance @ Bank.java:11 → T2 W @ :13 → T1 W @ :13" */
export function interleavingText(p: RankedPattern): string {
  let lastFile = '';
  return p.accesses
    .map((a) => {
      const file = short(a.file);
      const where = file === lastFile ? `:${a.line}` : `${file}:${a.line}`;
      lastFile = file;
      const v = a.variable.slice(a.variable.lastIndexOf('.') + 1);
      return `T${a.thread} ${a.type} ${v} @ ${where}`;
    })
    .join(' → ');
}

function fmtP(p: number): string {
  return p < 1e-3 ? p.toExponential(1) : p.toFixed(3);
}

/** The smaller pattern forced after a confirmed combination (causeWithin.ts), and its confirmation. */
export interface WithinResult {
  pattern: RankedPattern;
  confirmation: PerCallResult;
  /** every pattern within it forced alone, in the order they were (this one among them); absent: this one alone */
  tried?: { pattern: RankedPattern; confirmation: PerCallResult }[];
  /** runs and seconds of every pattern forced within it */
  runsSpent?: number;
  seconds?: number;
}

const withinRuns = (w: WithinResult | undefined) => w?.runsSpent ?? w?.confirmation.runsSpent ?? 0;
const withinSeconds = (w: WithinResult | undefined) => w?.seconds ?? w?.confirmation.seconds ?? 0;

function withinJson(q: RankedPattern, w: PerCallResult): Record<string, unknown> {
  return {
    pattern: { rank: w.pattern.rank, key: q.key, id: q.id, kind: q.kind },
    verdict: w.verdict,
    forced: w.forced,
    opposite: w.opposite ?? null,
    control: w.control ?? null,
    ...(w.counterfactual ? { counterfactual: w.counterfactual } : {}),
    pValue: w.pValue,
    reason: w.reason,
    folder: w.folder,
    plan: w.plan,
    runs: w.runsSpent,
  };
}

export function confirmJson(c: PerCallResult, within?: WithinResult): Record<string, unknown> {
  const w = within?.confirmation;
  return {
    verdict: c.verdict,
    ...(c.couldNotCheck ? { why: c.couldNotCheck.why, hint: c.couldNotCheck.hint } : {}),
    pattern: c.pattern,
    forced: c.forced,
    ...(c.threads ? { threads: c.threads } : {}),
    ...(c.guard ? { guard: c.guard } : {}),
    ...(c.callers ? { callers: c.callers } : {}),
    opposite: c.opposite ?? null,
    control: c.control ?? null,
    ...(c.sameDelay ? { sameDelay: c.sameDelay } : {}),
    pValue: c.pValue,
    reason: c.reason,
    folder: c.folder,
    plan: c.plan,
    failingRun: c.failingRun ?? null,
    ...(c.counterfactual ? { counterfactual: c.counterfactual } : {}),
    perCall: c.perCall ?? null,
    ...(c.refinements ? { refinements: c.refinements } : {}),
    runs: c.runsSpent + withinRuns(within),
    seconds: Math.round((c.seconds + withinSeconds(within)) * 10) / 10,
    ...(within && w
      ? {
          within: withinJson(within.pattern, w),
          ...((within.tried?.length ?? 0) > 1 ? { withinOthers: within.tried!.filter((t) => t.confirmation !== w).map((t) => withinJson(t.pattern, t.confirmation)) } : {}),
          ...(w.verdict === 'confirmed' ? { cause: { rank: w.pattern.rank, key: within.pattern.key, id: within.pattern.id, kind: within.pattern.kind } } : {}),
        }
      : {}),
  };
}

/** The lines that say what forcing the smaller pattern within a confirmed combination showed. */
export function withinText(within: WithinResult): string[] {
  const w = within.confirmation;
  const q = within.pattern;
  const line = (x: RankedPattern, v: PerCallResult) => {
    const cf = v.opposite ? `, ${v.counterfactual === 'serialised' ? 'threads serialised' : 'opposite order'} ${v.opposite.failed} of ${v.opposite.runs}` : '';
    return `  within it: #${v.pattern.rank} ${x.id} ${x.kind}  ${interleavingText(x)} — forced alone: ${v.verdict} (forced ${v.forced.failed} of ${v.forced.runs} failed${cf})`;
  };
  // every part forced, in the order they were
  const tried = within.tried ?? [within];
  const what =
    w.verdict === 'confirmed'
      ? `  the cause is #${w.pattern.rank} ${q.id} ${q.kind}: its order alone makes the failure; the other accesses of this pattern are incidental (braid confirm --whole keeps this pattern's verdict alone)`
      : tried.length > 1
        ? `  the order of the whole pattern is what was confirmed: none of its parts alone was (${tried.map((t) => `#${t.confirmation.pattern.rank} ${t.pattern.id} ${t.confirmation.verdict}`).join(', ')})`
        : `  the order of the whole pattern is what was confirmed: its pair alone was ${w.verdict} (${w.reason})`;
  return [...tried.map((t) => line(t.pattern, t.confirmation)), what];
}

export function confirmText(c: Confirmation, p: RankedPattern, command: string[], cwd = process.cwd(), within?: WithinResult): string {
  const rel = (f: string) => path.relative(cwd, f) || f;
  const out = [
    `braid confirm: ${p.id} ${p.kind} (listed #${c.pattern.rank}) — ${c.verdict.toUpperCase()}`,
    `  ${interleavingText(p)}`,
    `  forced: ${c.forced.failed} of ${c.forced.runs} runs failed (interleaving forced in ${c.forced.forcedOk})`,
  ];
  if (c.opposite) out.push(`  ${c.counterfactual === 'serialised' ? 'threads serialised' : 'opposite order'}: ${c.opposite.failed} of ${c.opposite.runs} failed (forced in ${c.opposite.forcedOk})`);
  if (c.control) out.push(`  unforced: ${c.control.failed} of ${c.control.runs} failed`);
  if (c.threads) out.push(`  forced between the threads the failing runs had: ${Object.entries(c.threads).map(([role, names]) => `T${role} ${(names ?? []).join(', ')}`).join('; ')}`);
  if (c.guard) {
    const at = (x: { file: string; line: number }) => `${x.file.slice(x.file.lastIndexOf('/') + 1)}:${x.line}`;
    out.push(
      c.guard.kind === 'publication'
        ? `  with the held thread's publication first: the read of ${c.guard.variable} at ${at(c.guard.read)} waited for its write at ${at(c.guard.write)}`
        : `  with the held thread's check first: the write of ${c.guard.variable} at ${at(c.guard.write)} waited for its read at ${at(c.guard.read)}`,
    );
  }
  if (c.callers?.length) {
    const site = (x: { file: string; line: number; method: string }) => `${x.method.slice(x.method.lastIndexOf('.') + 1)} (${x.file.slice(x.file.lastIndexOf('/') + 1)}${x.line ? `:${x.line}` : ''})`;
    for (const c1 of c.callers) out.push(`  ${accessText(p, c1.at)} only when called from ${c1.sites.map(site).join(' < ')}, as in the failing runs`);
  }
  if (c.sameDelay) out.push(`  the same delay without the order: ${c.sameDelay.failed} of ${c.sameDelay.runs} failed (forced in ${c.sameDelay.forcedOk})`);
  out.push(`  ${c.reason}${c.verdict === 'confirmed' ? ` (p = ${fmtP(c.pValue)})` : ''}`);
  if (c.couldNotCheck) out.push(`  what to do: ${c.couldNotCheck.hint}`);
  if (within) out.push(...withinText(within));
  out.push(`  ${c.runsSpent + withinRuns(within)} runs in ${(c.seconds + withinSeconds(within)).toFixed(1)} s; runs in ${rel(c.folder)}`);
  if (c.verdict === 'confirmed' || c.verdict === 'confirms the window') out.push(`  reproduce: braid record --runs 1 --plan ${rel(c.plan)} -- ${command.join(' ')}`);
  return out.map(terminalLine).join('\n');
}

export function fixJson(f: FixCheck, pattern: RankedPattern): Record<string, unknown> {
  return {
    fix: f.verdict,
    ...(f.couldNotCheck ? { why: f.couldNotCheck.why, hint: f.couldNotCheck.hint } : {}),
    pattern: { rank: pattern.rank, key: pattern.key, id: pattern.id },
    forced: f.forced,
    before: f.before,
    after: f.after ?? null,
    pValue: f.pValue,
    reason: f.reason,
  };
}

export function fixText(f: FixCheck, p: RankedPattern): string {
  const last = f.couldNotCheck ? `  what to do: ${f.couldNotCheck.hint}` : `  p = ${fmtP(f.pValue)} (the runs before the fix failed more often than after)`;
  return [`braid confirm --baseline: ${p.id} ${p.kind} — ${f.verdict.toUpperCase()}`, `  ${interleavingText(p)}`, `  ${f.reason}`, last].map(terminalLine).join('\n');
}

/** What confirmOptionsFor needs of the command line (braid confirm's, or braid analyze --confirm's). */
export type ConfirmSettings = Pick<ConfirmArgs, 'command' | 'runs' | 'waitMs' | 'jobs' | 'seed'> & Partial<Pick<ConfirmArgs, 'include' | 'exclude' | 'noise' | 'timeoutSeconds' | 'failOnOutput' | 'baseline' | 'strict' | 'freshJvm' | 'noSameDelay' | 'anyThread' | 'anyCaller' | 'noOverlap' | 'noCallbacks' | 'noRegions' | 'noGuard'>>;

/**
 * The confirmation's options: the command after "--", or the recording's (recording.json next to the
 * traces, with its working directory and include list); a sentence when there is no command to run.
 * The manifest is data, not instructions (issue 39): its fields are validated (readRecordingManifest),
 * its command runs only in a folder inside the traces' workspace (manifestUse.ts), and every field
 * taken from it is written to `log` (stderr, escaped for the terminal) before anything runs.
 */
export async function confirmOptionsFor(
  source: string[],
  a: ConfirmSettings,
  log: (line: string) => void = (line) => process.stderr.write(`braid confirm: ${terminalLine(line)}\n`),
): Promise<{ options: ConfirmOptions; manifest?: RecordingManifest } | string> {
  const m = await readRecordingManifest(path.resolve(source[0]));
  const fromCommandLine = a.command.length > 0;
  if (m.problem) {
    if (!fromCommandLine) return `${m.problem}; put the command after "--" to confirm without it`;
    log(`${m.problem}; not used`);
  }
  const manifest = m.manifest;
  const command = fromCommandLine ? a.command : (manifest?.command ?? []);
  if (!command.length) {
    return `no command: the traces' folder has no recording.json (recorded before it existed, or copied); put the command after "--", e.g. braid confirm ${source[0]} -- java -cp out bank.Bank`;
  }
  const taken: string[] = [];
  let cwd = process.cwd();
  if (!fromCommandLine && manifest) {
    const workspace = tracesWorkspace(path.dirname(m.file));
    if (!(await isInsideFolder(workspace, manifest.cwd))) {
      return `${m.file}: the recording ran in ${manifest.cwd}, outside the traces' workspace ${workspace}; Braid runs a recording's command only inside it. Put the command after "--" to run it here`;
    }
    cwd = manifest.cwd;
    taken.push(`command: ${commandText(command)}`, `in: ${cwd}`);
  }
  // traces without a manifest: the include list their header recorded (recorder.options.include)
  const recorded = manifest ? undefined : await recordedOptions(source);
  const include = a.include ?? manifest?.include ?? recorded?.include ?? [];
  const exclude = a.exclude ?? manifest?.exclude ?? recorded?.exclude ?? [];
  if (!a.include && manifest?.include.length) taken.push(`include: ${manifest.include.join(' ')}`);
  if (!a.exclude && manifest?.exclude.length) taken.push(`exclude: ${manifest.exclude.join(' ')}`);
  const timeoutSeconds = a.timeoutSeconds ?? manifest?.timeoutSeconds ?? 60;
  if (a.timeoutSeconds === undefined && manifest) taken.push(`timeout: ${manifest.timeoutSeconds} s per run`);
  const failOnOutput = a.failOnOutput ?? (manifest ? manifestFailOnOutput(manifest) : undefined);
  if (!a.failOnOutput && manifest?.failOnOutput !== undefined) taken.push(`fail on output: /${manifest.failOnOutput}/`);
  if (manifest?.name) taken.push(`name: ${manifest.name}`);
  const launch = launchOf(manifest);
  if (launch.freshJvm && !a.freshJvm) taken.push('one JVM per run (--fresh-jvm)');
  if (launch.sharedLibraries) taken.push('library jars shared between repetitions (--shared-libraries)');
  if (a.baseline && a.noise === undefined && manifest) taken.push(`noise of the re-recording: ${manifest.noise}`);
  if (taken.length) {
    log(`from ${m.file}:`);
    for (const t of taken) log(`  ${t}`);
  }
  return {
    manifest,
    options: {
      command,
      cwd,
      include,
      exclude,
      runs: a.runs,
      noise: a.baseline ? 0 : (a.noise ?? 0),
      timeoutSeconds,
      jobs: a.jobs,
      seed: a.seed,
      name: sanitizeName(manifest?.name || deriveName(command)),
      waitMs: a.waitMs,
      ...(a.strict ? { strict: true } : {}),
      ...(a.noSameDelay ? { sameDelay: false } : {}),
      ...(a.anyThread ? { byThread: false } : {}),
      ...(a.anyCaller ? { byCaller: false } : {}),
      ...(a.noOverlap ? { overlap: false } : {}),
      ...(a.noCallbacks ? { callbacks: false } : {}),
      ...(a.noRegions ? { regions: false } : {}),
      ...(a.noGuard ? { guardChain: false } : {}),
      ...launch,
      ...(a.freshJvm ? { freshJvm: true } : {}),
      outRoot: path.join(process.cwd(), '.braid', 'confirm'),
      ...(failOnOutput ? { failOnOutput } : {}),
    },
  };
}

export async function runConfirmCommand(argv: string[]): Promise<number> {
  let a: ConfirmArgs;
  try {
    a = parseConfirmArgs(argv);
  } catch (e) {
    if (e instanceof ConfirmUsageError) {
      process.stderr.write(`braid confirm: ${terminalText(e.message)}\n${CONFIRM_USAGE}\n`);
      return 2;
    }
    throw e;
  }
  const source = a.baseline ?? a.inputs;
  const { result } = await analyzeInputsRanked(source, {});
  for (const d of result.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  if (result.executions.total === 0) {
    process.stderr.write('braid confirm: no runs in the traces\n');
    return 1;
  }
  const picked = selectPattern(result, a.selector);
  if (typeof picked === 'string') {
    process.stderr.write(`braid confirm: ${terminalText(picked)}\n`);
    return 2;
  }
  // an order pattern whose read is a use guarded by a check the traces show: its order is forced with the check (checkOfUse.ts)
  const checked = withCheckOfUse({ ...picked, rank: 'position' in a.selector ? a.selector.position : picked.rank }, result.patterns);
  const traceFiles = (await findTraceFiles(source)).files;
  const pattern = await withFailingRunFacts(checked, traceFiles);
  const resolved = await confirmOptionsFor(source, a);
  if (typeof resolved === 'string') {
    process.stderr.write(`braid confirm: ${terminalText(resolved)}\n`);
    return 2;
  }
  const { options: o, manifest } = resolved;
  const command = o.command;
  const abort = new AbortController();
  // Ctrl-C, SIGTERM, SIGHUP: stop the runs' process groups (stopSignals.ts); exit 130, 143, 129
  const stops = onStopSignals(() => abort.abort());
  const stopped = () => stops.exitCode ?? 130;
  const tty = process.stderr.isTTY;
  const progress = (p: { group: string; done: number; total: number; failed: number; forcedOk?: number }) => {
    const line = `${p.group}: ${p.done}/${p.total} runs, ${p.failed} failed${p.forcedOk !== undefined ? `, forced in ${p.forcedOk}` : ''}`;
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
    else if (p.done === p.total) process.stderr.write(line + '\n');
  };
  try {
    // a pattern on a line of several library calls: its refinements per call, from the same traces
    const perCallRanking = a.perCall ? perCallRankingOf(source, result.options, (m) => process.stderr.write(`braid confirm: ${terminalText(m)}\n`)) : undefined;
    if (a.baseline) {
      const before = { runs: result.executions.total, failed: result.executions.failed };
      const forced = await patternToForce(pattern, perCallRanking);
      if (forced.calls) process.stderr.write(`braid confirm: forcing at the calls ${terminalText(forced.calls)} (the pattern's lines make several library calls)\n`);
      const f = await checkFix(forced.pattern, before, { ...o, ...recordingNoiseOf(manifest, a.noise) }, progress, abort.signal);
      if (tty) process.stderr.write('\r\x1b[K');
      process.stdout.write((a.format === 'json' ? JSON.stringify(fixJson(f, pattern), null, 2) : fixText(f, pattern)) + '\n');
      return abort.signal.aborted ? stopped() : f.verdict === 'fixed' ? 0 : f.verdict === 'could not check' ? COULD_NOT_CHECK_EXIT : 1;
    }
    const c = await confirmWithCalls(pattern, (p, offset) => confirmPattern(p, { ...o, seed: o.seed + offset }, progress, abort.signal), perCallRanking, { signal: abort.signal });
    // a confirmed combination: the smaller listed pattern within it, forced alone (causeWithin.ts)
    const listed = a.whole ? [] : listedPatterns(result);
    const w = await forceCauseWithin(listed, pattern, c, {
      traceFiles: () => traceFiles,
      forceOne: (p, offset) => confirmPattern(p, { ...o, seed: o.seed + offset }, progress, abort.signal),
      perCallRanking,
      signal: abort.signal,
      onStart: (q, rank) => {
        if (tty) process.stderr.write('\r\x1b[K');
        process.stderr.write(`braid confirm: confirmed; forcing #${rank} ${q.id} ${q.kind} within it alone (are the other accesses incidental?)\n`);
      },
    });
    const within: WithinResult | undefined = w && w.confirmation.verdict !== 'could not check' ? w : undefined;
    if (tty) process.stderr.write('\r\x1b[K');
    process.stdout.write((a.format === 'json' ? JSON.stringify(confirmJson(c, within), null, 2) : confirmText(c, pattern, command, undefined, within)) + '\n');
    return abort.signal.aborted ? stopped() : c.verdict === 'confirmed' ? 0 : c.verdict === 'could not check' ? COULD_NOT_CHECK_EXIT : 1;
  } catch (e) {
    // a full disk (or another refused write): what and where, exit 3 as for braid record
    if (!(e instanceof RecordWriteError)) throw e;
    if (tty) process.stderr.write('\r\x1b[K');
    process.stderr.write(`braid confirm: ${terminalText(e.message)}; stopped: the unfinished run's files are deleted\n`);
    return EXIT_WRITE_FAILURE;
  } finally {
    stops.dispose();
  }
}
