/**
 * `braid test <Class#method | Class>` (issue 29): the code lens' whole flow from a terminal or CI —
 * find the test's source under the project (recorder/java/testLocate.ts), make the command that runs just
 * that test (recorder/java/testCommand.ts: Maven, Gradle, or the JUnit console launcher / TestNG after a
 * javac step), run the build step once, record runs into `.braid/traces/<name>-<time>`, analyze them
 * and print `braid analyze`'s report (text, JSON or SARIF, with GRIFFIN's bugs) with the recording's
 * figures. `--runs auto` (the default) records in rounds and stops when the evidence is in
 * (engine/ranking/evidenceStop.ts) or at the budget.
 *
 * Exit code (issue 40: what was found, not chance): with --runs auto 0 when the first cause pattern
 * reached the stop rule's p (1e-6), with --runs N 0 when the analysis has a pattern with evidence; 1
 * when the test never failed, nothing separates, or on an error; 2 on a usage error; 130 on Ctrl-C.
 */
import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_EVIDENCE_STOP, evidenceLine, evidenceSnapshot, EvidenceStopRule, formatPValue, noSeparationMaxRuns, noSeparationWhy, StopReason } from '../engine/ranking/evidenceStop';
import { analyzeInputsRanked } from '../engine/summary/workspaceAnalysis';
import { formatDiagnostic } from '../engine/trace/traceFormat';
import { jsonReportSections } from '../engine/report/jsonReport';
import { textReportLines } from '../engine/report/textReport';
import { droppedLocationsWarning, sarifReportSections } from '../engine/report/sarifReport';
import { writeJson, writeLines } from '../engine/report/jsonStream';
import { Bug, explainBugs } from '../engine/griffin/griffin';
import { terminalLine, terminalText } from '../engine/outputEscaping';
import { classPathProblem, commandLine, inferTestCommand, mavenBuildFailed, PrepareStep, TestCommandError, TestPlan } from '../recorder/java/testCommand';
import { applySurefireSettings, SurefireSettingsError } from '../recorder/java/surefireSettings';
import { locateTest } from '../recorder/java/testLocate';
import { EvidenceRounds } from '../recorder/runs/evidenceRounds';
import { outputTail, runBuildStep } from '../recorder/runs/prepareStep';
import { parseRecordArgs, RecordOptions, takeList, UsageError as RecordUsageError } from '../recorder/runs/recordOptions';
import { firstRunOnlyNote, leakedStateNote, withTraceFolder, RecordSummary, recordRuns } from '../recorder/runs/recordRuns';
import { droppedRuns } from '../recorder/runs/notReached';
import { RECORDING_MANIFEST } from '../recorder/runs/recordingManifest';
import { adaptiveExposureFor, NoiseMode } from '../recorder/runs/adaptiveExposure';
import { neverFailedAdvice, nextText } from '../recorder/runs/neverFailedAdvice';
import { EXIT_WRITE_FAILURE, RecordWriteError } from '../recorder/runs/writeFailure';
import { outputPathProblem } from './outputPath';
import { JSON_DEFAULT_TOP, withBugs, writeReport } from './reportOutput';

export const TEST_USAGE = `  braid test <Class#method | Class> [options]
      runs one JUnit 4/5 or TestNG test many times with noise, as the code lens does: finds its source
      under the project, builds it (Maven, Gradle, or javac + the JUnit console launcher / TestNG),
      records runs into .braid/traces/<name>-<time>, analyzes them and prints braid analyze's report
      with the recording's figures (runs, failed, seconds, why it stopped)
      --project DIR              the project folder (default: the current folder)
      --runs N|auto              N runs, or auto (default): rounds of 10 runs, analyzed after each, until the
                                 first pattern has p < 1e-6, the top 3 patterns held for 2 rounds and every GRIFFIN
                                 bug is settled (failing runs no bug explains hold it too), or the budget
      --max-runs N               auto: most runs (default 200)
      --max-seconds S            auto: most seconds of recording (default 300)
      --noise P                  noise probability at each instrumented point (default 0.1)
      --noise-at WHERE           accesses (default), sync (monitor enter, park/unpark, calls into application
                                 code: windows without a field access, e.g. a lost notification) or all
      --noise-mode MODE          adaptive (default): with --runs auto, while a level of noise gives fewer than
                                 1 failing run in 20, widen it (sync points, then both at twice the noise, then
                                 0.3), said in the progress line and kept in each trace's header; uniform: one
                                 noise for every run; pct (Java only): the agent's PCT scheduler (a random priority
                                 per thread, 2 priority change points per run; docs/noise.md "PCT") instead of noise
      --include PKG...           packages/classes to record (default: the test class's package)
      --timeout S                time limit per run (default 60; Maven and Gradle 300)
      --jobs J                   runs in parallel (default 1; always 1 when each run starts Maven or Gradle)
      --via-build-tool           Maven: start mvn for each run (all of surefire's settings apply) instead of
                                 resolving the test class path once and running the JUnit console launcher
                                 (which applies surefire's argLine, system properties, environment variables
                                 and working directory from Maven's effective POM)
      --fresh-class-path         Maven: resolve the test class path again even when the one an earlier call
                                 wrote is newer than every pom.xml, .mvn/maven.config and ~/.m2/settings.xml
      --seed S                   base noise seed (default random)
      --fresh-jvm                one JVM per run; by default the runs of a JUnit test run by the console launcher
                                 are repetitions in one JVM, each loading the project's classes and the jars
                                 holding --include'd classes afresh (their static state starts fresh)
      --shared-libraries         repetitions in one JVM: every jar stays shared, only the project's classes are
                                 loaded afresh per repetition
      --format text|json|sarif   report format (default text); json adds a "recording" section
      --top N|all                patterns to print (as for braid analyze)
      --output FILE              write the report to FILE instead of stdout
      Exit code (what was found, not chance): with --runs auto 0 when the first cause pattern reached p < 1e-6,
      with --runs N 0 when a pattern has evidence; 1 when the test never failed (try braid pinpoint), nothing
      separates failing from passing runs, or on an error; 2 on a usage error.`;

class UsageError extends Error {}

export interface TestArgs {
  test: string;
  project: string;
  /** undefined: auto */
  runs?: number;
  maxRuns: number;
  maxSeconds: number;
  noise?: string;
  /** --noise-at accesses|sync|all */
  noiseAt?: string;
  /** --noise-mode uniform|adaptive (recorder/runs/adaptiveExposure.ts) */
  noiseMode?: NoiseMode;
  include: string[];
  timeout?: string;
  jobs?: string;
  seed?: string;
  format: 'text' | 'json' | 'sarif';
  top?: number;
  topAll?: boolean;
  output?: string;
  /** one JVM per run instead of repetitions in one JVM (recorder/java/repeatedRuns.ts) */
  freshJvm?: boolean;
  /** repetitions in one JVM: every jar shared (not the libraries under test loaded afresh per repetition) */
  sharedLibraries?: boolean;
  /** Maven: mvn each run instead of the console launcher on the class path resolved once */
  viaBuildTool?: boolean;
  /** Maven: resolve the class path again even when the last one is current (mavenClassPathCache.ts) */
  freshClassPath?: boolean;
}

function positiveInt(flag: string, v: string | undefined): number {
  if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number ≥ 1, got "${v}"`);
  return n;
}

export function parseTestArgs(argv: string[], cwd = process.cwd()): TestArgs {
  const a: TestArgs = { test: '', project: cwd, maxRuns: DEFAULT_EVIDENCE_STOP.maxRuns, maxSeconds: DEFAULT_EVIDENCE_STOP.maxSeconds, include: [], format: 'text' };
  const tests: string[] = [];
  let maxGiven = false;
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const next = (): string => {
      const v = inline !== undefined ? inline : argv[++k];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--project':
        a.project = path.resolve(cwd, next());
        break;
      case '--runs': {
        const v = next();
        a.runs = v === 'auto' ? undefined : positiveInt(flag, v);
        break;
      }
      case '--max-runs':
        a.maxRuns = positiveInt(flag, next());
        maxGiven = true;
        break;
      case '--max-seconds': {
        const v = next();
        const n = Number(v);
        if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--max-seconds must be a number of seconds > 0, got "${v}"`);
        a.maxSeconds = n;
        maxGiven = true;
        break;
      }
      case '--noise':
        a.noise = next();
        break;
      case '--noise-at':
        a.noiseAt = next();
        break;
      case '--noise-mode': {
        const v = next();
        if (v !== 'uniform' && v !== 'adaptive' && v !== 'pct') throw new UsageError(`--noise-mode needs adaptive, uniform or pct, got "${v}"`);
        a.noiseMode = v;
        break;
      }
      case '--timeout':
        a.timeout = next();
        break;
      case '--jobs':
        a.jobs = next();
        break;
      case '--seed':
        a.seed = next();
        break;
      case '--include': {
        const [list, after] = inline !== undefined ? [inline.split(',').filter(Boolean), k + 1] : takeList(argv, k + 1);
        if (!list.length) throw new UsageError('--include needs at least one package or class');
        a.include.push(...list);
        k = after - 1;
        break;
      }
      case '--format': {
        const v = next();
        if (v !== 'text' && v !== 'json' && v !== 'sarif') throw new UsageError(`--format must be text, json or sarif, got "${v}"`);
        a.format = v;
        break;
      }
      case '--top': {
        const v = next();
        if (v === 'all') a.topAll = true;
        else {
          const n = Number(v);
          if (!Number.isInteger(n) || n < 0) throw new UsageError(`--top must be a whole number ≥ 0 or all, got "${v}"`);
          a.top = n;
        }
        break;
      }
      case '--via-build-tool':
        if (inline !== undefined) throw new UsageError('--via-build-tool takes no value');
        a.viaBuildTool = true;
        break;
      case '--fresh-class-path':
        if (inline !== undefined) throw new UsageError('--fresh-class-path takes no value');
        a.freshClassPath = true;
        break;
      case '--fresh-jvm':
        if (inline !== undefined) throw new UsageError('--fresh-jvm takes no value');
        a.freshJvm = true;
        break;
      case '--shared-libraries':
        if (inline !== undefined) throw new UsageError('--shared-libraries takes no value');
        a.sharedLibraries = true;
        break;
      case '--output':
      case '-o':
        a.output = next();
        if (!a.output) throw new UsageError(`${flag} needs a file name`);
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        tests.push(arg);
    }
  }
  if (tests.length !== 1) throw new UsageError(tests.length ? `give one test, got ${tests.length}: ${tests.join(' ')}` : 'give the test to run: Class#method or Class, e.g. braid test bank.AccountTest#concurrentDepositsAreAllKept');
  a.test = tests[0];
  if (a.runs !== undefined && maxGiven) throw new UsageError('--max-runs and --max-seconds go with --runs auto');
  if (a.output !== undefined) {
    const problem = outputPathProblem(a.output);
    if (problem) throw new UsageError(`--output: ${problem}`);
  }
  return a;
}

/** The recording's figures: the `recording` section of the JSON report (and a SARIF run property). */
export interface RecordingFigures {
  test: string;
  tool: TestPlan['tool'];
  command: string[];
  cwd: string;
  /** the trace folder */
  traces: string;
  mode: 'auto' | 'fixed';
  runs: number;
  failed: number;
  passed: number;
  /** seconds of recording (the build step not included) */
  seconds: number;
  runsPerSecond: number;
  /** JVMs started when the runs were repetitions in one JVM (absent: one JVM per run) */
  jvms?: number;
  /**
   * repetitions in one JVM: `fresh` when each loaded the project's classes afresh (static state starts
   * fresh), else why each run was a JVM of its own (or `shared`: the classes were not in folders)
   */
  staticState?: string;
  /** the jars of the libraries under test every repetition loaded afresh too (file names; absent: none) */
  freshLibraries?: string[];
  /** why those jars were shared by the repetitions after all */
  librariesShared?: string;
  /** failures of the first run of each JVM against the later runs (repetitions only) */
  firstRuns?: { runs: number; failed: number; laterRuns: number; laterFailed: number };
  /** seconds of the build step */
  buildSeconds: number;
  /** evidence | max-runs | max-seconds (auto); runs (fixed N); interrupted; write-failure */
  stopped: StopReason | 'runs' | 'interrupted' | 'write-failure';
  noise: number;
  /** adaptive exposure widened the noise: each level used, from the run it started at (`pct` at the PCT level, noise 0) */
  exposure?: { fromRun: number; noise: number; noiseAt: string; pct?: { depth: number } }[];
  seed: number;
  /** auto: the rule and the analysis after each round */
  rule?: EvidenceStopRule;
  /** …`unexplained`: failing runs no GRIFFIN bug with evidence explained in that round's analysis (evidenceStop.unexplainedRuns decides whether they held it) */
  rounds?: { runs: number; failed: number; leadPValue: number | null; lead: string | null; unexplained?: number }[];
  /** the first pattern's p-value in the final analysis, when it has evidence */
  leadPValue: number | null;
  /** a sentence for the user when the recording needs explaining (the test never failed…) */
  message?: string;
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

export async function runTestCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`Usage:\n${TEST_USAGE}\n`);
    return 0;
  }
  let args: TestArgs;
  try {
    args = parseTestArgs(argv);
    const st = statSync(args.project, { throwIfNoEntry: false });
    if (!st?.isDirectory()) throw new UsageError(`--project ${args.project}: ${st ? 'not a folder' : 'no such folder'}`);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`braid test: ${terminalText(e.message)}\nRun "braid test --help" for usage.\n`);
      return 2;
    }
    throw e;
  }
  const say = (line: string) => process.stderr.write(`braid test: ${terminalText(line)}\n`);
  // the test and its command
  let plan: TestPlan;
  try {
    const target = locateTest(args.project, args.test);
    plan = inferTestCommand(args.project, target, { viaBuildTool: args.viaBuildTool, freshClassPath: args.freshClassPath });
  } catch (e) {
    if (e instanceof TestCommandError) {
      say(e.message);
      return 1;
    }
    throw e;
  }
  const buildTool = plan.tool === 'maven' || plan.tool === 'gradle';
  let options: RecordOptions;
  // each run starts mvn/gradle (not the console launcher on the class path a build step resolved)
  const runsBuildTool = (p: TestPlan) => buildTool && p.command[0] !== 'java';
  try {
    options = recordOptionsFor(args, plan, buildTool);
  } catch (e) {
    if (e instanceof RecordUsageError) {
      process.stderr.write(`braid test: ${terminalText(e.message)}\nRun "braid test --help" for usage.\n`);
      return 2;
    }
    throw e;
  }
  if (runsBuildTool(plan) && args.jobs !== undefined && options.jobs !== 1) say(`note: ${plan.tool} runs go one at a time (they share the module's build folder); --jobs ignored`);
  if (runsBuildTool(plan)) options = { ...options, jobs: 1 };

  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts === 1) {
      process.stderr.write('\nbraid test: stopping (Ctrl-C again to quit at once); finished runs are kept and analyzed\n');
      controller.abort();
    } else process.exit(130);
  };
  process.on('SIGINT', onSigint);
  try {
    // the build step, once
    // the time of the build commands that ran (a step skipped as up to date counts 0)
    let buildMs = 0;
    const done: PrepareStep[] = [];
    for (const step of plan.prepare) {
      // Maven: nothing the build reads changed since Braid's last build (mavenClassPathCache.ts mavenBuildUpToDate): no Maven start
      if (step.upToDate) say(`building: skipped, ${step.upToDate}`);
      else say(`building: ${commandLine(step.command).slice(0, 200)}${commandLine(step.command).length > 200 ? ' …' : ''}`);
      const stepStarted = Date.now();
      const r = await runBuildStep(step, controller.signal);
      if (!step.upToDate) buildMs += Date.now() - stepStarted;
      if (controller.signal.aborted) return 130;
      const tail = outputTail(r.output);
      const shownTail = tail ? `\n${tail.split('\n').map((l) => `  | ${terminalLine(l)}`).join('\n')}` : '';
      if (step.orElse) {
        // Maven: the class path resolved once, or each run through mvn — unless the build itself failed
        if (r.code !== 0 && mavenBuildFailed(r.output)) {
          say(`the build failed (${path.basename(step.command[0])} exit ${r.code}):${shownTail}`);
          return 1;
        }
        const problem = r.code !== 0 ? `${path.basename(step.command[0])} ${r.error ? 'did not start' : `exit ${r.code}`}${shownTail}` : classPathProblem(step.orElse.classPathFile);
        if (problem) {
          say(`note: could not resolve the test class path once (${problem}); each run starts ${path.basename(step.orElse.command[0])} instead (slower)`);
          plan = { ...plan, command: step.orElse.command };
          options = { ...options, command: step.orElse.command };
          continue;
        }
        if (step.surefire) {
          // surefire's argLine, system properties, environment and working directory, from Maven's effective POM
          try {
            const { run, settings } = applySurefireSettings({ command: options.command, cwd: options.cwd, env: options.env }, step.surefire);
            // the effective POM's notes (settings not applied, an @{…} without a value) replace the plan's, read from the poms alone
            plan = { ...plan, command: run.command, cwd: run.cwd, notes: undefined };
            options = { ...options, command: run.command, cwd: run.cwd, ...(run.env ? { env: run.env } : {}) };
            if (settings.applied.length) {
              const shown = commandLine(run.command);
              say(`surefire's configuration applied to the runs: ${settings.applied.join('; ')}\n  each run: ${shown.slice(0, 300)}${shown.length > 300 ? ' …' : ''} (in ${run.cwd})`);
            }
            for (const n of settings.notes) say(`note: ${n}`);
          } catch (e) {
            if (!(e instanceof SurefireSettingsError)) throw e;
            say(`note: could not read surefire's configuration (${e.message}); each run starts ${path.basename(step.orElse.command[0])} instead (slower)`);
            plan = { ...plan, command: step.orElse.command };
            options = { ...options, command: step.orElse.command };
            continue;
          }
        }
        done.push({ command: step.rerun ?? step.command, cwd: step.cwd });
        continue;
      }
      if (r.code !== 0) {
        say(`the build failed (${path.basename(step.command[0])} ${r.error ? 'did not start' : `exit ${r.code}`}): ${r.error ?? ''}${shownTail}`);
        return 1;
      }
      done.push(step);
    }
    // the steps a fix check reruns (recording.json): those that ran
    if (plan.prepare.length) options = { ...options, ...(done.length ? { prepare: done } : { prepare: undefined }) };
    if (runsBuildTool(plan)) options = { ...options, jobs: 1 };
    // the plan's notes are about the console launcher's runs (not when each run went back to the build tool)
    if (!runsBuildTool(plan)) for (const n of plan.notes ?? []) say(`note: ${n}`);
    return await recordAndReport(args, plan, options, buildMs, controller.signal, say);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** The recorder's options for the plan: the lens' folder and naming (.braid/traces/<name>-<time>, ids <name>-<time>-NNNN). */
export function recordOptionsFor(args: TestArgs, plan: TestPlan, buildTool: boolean): RecordOptions {
  // --runs auto: the rule stops at --max-runs unless no pattern separates (then the time budget, evidenceStop.ts)
  const argv = ['--runs', String(args.runs ?? noSeparationMaxRuns({ maxRuns: args.maxRuns }))];
  if (args.noise !== undefined) argv.push('--noise', args.noise);
  if (args.noiseAt !== undefined) argv.push('--noise-at', args.noiseAt);
  if (args.noiseMode === 'pct') argv.push('--noise-mode', 'pct');
  // none (a JS/TS test: the Node.js recorder records the project's own files, as the editor's test lens does): no --include
  const include = args.include.length ? args.include : plan.include;
  if (include.length) argv.push('--include', ...include);
  argv.push('--timeout', args.timeout ?? String(buildTool ? 300 : 60));
  if (args.jobs !== undefined) argv.push('--jobs', args.jobs);
  if (args.seed !== undefined) argv.push('--seed', args.seed);
  if (args.freshJvm) argv.push('--fresh-jvm');
  if (args.sharedLibraries) argv.push('--shared-libraries');
  argv.push('--name', plan.name, '--', ...plan.command);
  const o = parseRecordArgs(argv, args.project);
  return { ...o, name: path.basename(o.outDir), cwd: plan.cwd, ...(plan.prepare.length ? { prepare: plan.prepare.map((s) => ({ command: s.command, cwd: s.cwd })) } : {}) };
}

async function recordAndReport(
  args: TestArgs,
  plan: TestPlan,
  options: RecordOptions,
  buildMs: number,
  signal: AbortSignal,
  say: (line: string) => void,
): Promise<number> {
  const auto = args.runs === undefined;
  const rule: EvidenceStopRule = { ...DEFAULT_EVIDENCE_STOP, maxRuns: args.maxRuns, maxSeconds: args.maxSeconds };
  try {
    options = await withTraceFolder(options);
  } catch (e) {
    say((e as Error).message);
    return 1;
  }
  const rel = shownPath(options.outDir);
  // --noise-mode adaptive (default): the noise widens while runs do not fail (adaptiveExposure.ts);
  // with a fixed --runs N too (a user asking for N runs wants failing runs): the exposure decides at
  // each level's 20th finished run on its own, as the evidence rounds do in auto
  let lineLength = 0;
  const exposure = adaptiveExposureFor(
    options,
    args.noiseMode,
    auto
      ? undefined
      : (_step, text) => {
          if (lineLength) status('', true);
          say(`note: ${text}`);
        },
  );
  say(
    `${auto ? `recording until the evidence is in for every bug (at most ${rule.maxRuns} runs — ${noSeparationMaxRuns(rule)} while no pattern separates — and ${rule.maxSeconds} s)` : `recording ${options.runs} run(s)`} of ${args.test} (${plan.tool}), ${options.pct ? `pct scheduling (depth ${options.pct.depth})` : `noise ${options.noise}`}${!options.pct && options.noiseAt && options.noiseAt !== 'accesses' ? ` at ${options.noiseAt}` : ''}${exposure ? ' (adaptive: widened while runs do not fail)' : ''}, seed ${options.seed}, jobs ${options.jobs}, include ${options.include.join(' ')} → ${rel}`,
  );
  // the analysis grows with the runs (Analyzer.addTrace): each round adds only its new traces
  let failedSoFar = 0;
  /** the runs of the last analysis printed */
  let printed = 0;
  const tty = Boolean(process.stderr.isTTY);
  const status = (text: string, final = false) => {
    if (tty) {
      process.stderr.write('\r' + terminalLine(text).padEnd(lineLength) + (final ? '\n' : ''));
      lineLength = final ? 0 : text.length;
    } else if (final) process.stderr.write(terminalLine(text) + '\n');
  };
  const started = Date.now();
  const rounds = new EvidenceRounds(
    rule,
    (history, finished, steps) => {
      status(`${finished} runs, ${failedSoFar} failed, ${secs(Date.now() - started)} s · ${evidenceLine(history, rule)}`, true);
      // adaptive exposure's steps since the last round (taken when a level's 20th run finished)
      if (exposure) for (const step of steps) say(`note: ${exposure.stepLine(step)}`);
      printed = finished;
    },
    exposure,
  );
  let summary: RecordSummary;
  try {
    summary = await recordRuns(
      options,
      (p) => {
        if (p.note) {
          if (lineLength) status('', true);
          say(`note: ${p.note}`);
        }
        failedSoFar = p.failed;
        rounds.runFinished(p);
        status(`${p.done} runs, ${p.failed} failed, ${secs(Date.now() - started)} s${rounds.history.length ? ` · ${evidenceLine(rounds.history, rule)}` : ''}`);
      },
      signal,
      auto ? rounds : exposure,
    );
  } catch (e) {
    status('', true);
    say((e as Error).message);
    return e instanceof RecordWriteError ? EXIT_WRITE_FAILURE : 1;
  }
  const recordMs = summary.durationMs;
  const nr = summary.notReached;
  if (nr?.stopped && summary.total === 0) {
    if (lineLength) status('', true);
    say(`${nr.testDidNotRun ? 'the test did not run' : 'the test never ran'}: ${terminalLine(nr.reason)}; nothing recorded${nr.testDidNotRun ? ` (no failing run; stopped after ${nr.runs} run(s))` : ''}.\n  ${nr.hint}${nr.output.trim() ? `\noutput of the run:\n${nr.output.trimEnd().split('\n').slice(-20).map((l) => `  | ${terminalLine(l)}`).join('\n')}` : ''}`);
    return 1;
  }
  if (nr) say(`warning: ${nr.runs} run(s) ${nr.testDidNotRun ? 'in which the test did not run' : 'never reached the program'} (${terminalLine(nr.reason)}): ${terminalLine(droppedRuns(nr.executions))}; not counted, traces not kept`);
  // the last round (runs finished after the last analysis), then why the recording stopped
  const last = await rounds.finish(recordMs / 1000);
  const history = rounds.history;
  let stopped: RecordingFigures['stopped'];
  if (summary.writeFailure) stopped = 'write-failure';
  else if (signal.aborted) stopped = 'interrupted';
  else if (!auto) stopped = 'runs';
  else stopped = last.reason;
  if (auto && printed !== summary.total) status(`${summary.total} runs, ${summary.failed} failed, ${secs(recordMs)} s · ${evidenceLine(history, rule)}`, true);
  else if (!auto && lineLength) status(`${summary.total} runs, ${summary.failed} failed, ${secs(recordMs)} s`, true);
  if (summary.writeFailure) say(`${summary.writeFailure.message}; recording stopped, the ${summary.total} finished run(s) are kept`);
  const firstOnly = summary.repetitions ? firstRunOnlyNote(summary.repetitions) : undefined;
  if (firstOnly) say(`note: ${firstOnly}`);
  const leaked = summary.repetitions ? leakedStateNote(summary.repetitions) : undefined;
  if (leaked) say(`note: ${leaked}`);
  await noteRuns(options.outDir, summary.total);

  // the report: the runs' analysis, exactly braid analyze's of the folder
  const result = (await rounds.asFolderAnalysis(options.outDir)) ?? (await analyzeInputsRanked([options.outDir])).result;
  for (const d of result.diagnostics) process.stderr.write(formatDiagnostic(d) + '\n');
  const final = evidenceSnapshot(result, rule.top);
  const figures: RecordingFigures = {
    test: args.test,
    tool: plan.tool,
    command: plan.command,
    cwd: plan.cwd,
    traces: options.outDir,
    mode: auto ? 'auto' : 'fixed',
    runs: summary.total,
    failed: summary.failed,
    passed: summary.passed,
    seconds: secs(recordMs),
    runsPerSecond: recordMs > 0 ? Math.round((summary.total / (recordMs / 1000)) * 100) / 100 : 0,
    ...(summary.jvms !== undefined ? { jvms: summary.jvms } : {}),
    ...(summary.repetitions
      ? {
          staticState: summary.repetitions.sharedBecause ? `a JVM per run: ${summary.repetitions.sharedBecause}` : summary.repetitions.freshStatic ? 'fresh' : 'shared',
          ...(summary.repetitions.freshLibraries ? { freshLibraries: summary.repetitions.freshLibraries } : {}),
          ...(summary.repetitions.librariesSharedBecause ? { librariesShared: summary.repetitions.librariesSharedBecause } : {}),
          firstRuns: { runs: summary.repetitions.firstRuns, failed: summary.repetitions.firstFailed, laterRuns: summary.repetitions.laterRuns, laterFailed: summary.repetitions.laterFailed },
        }
      : {}),
    buildSeconds: secs(buildMs),
    stopped,
    noise: options.noise,
    ...(exposure?.steps.length ? { exposure: exposure.levels } : {}),
    seed: options.seed,
    ...(auto
      ? {
          rule,
          rounds: history.map((s) => ({ runs: s.runs, failed: s.failed, leadPValue: s.lead?.pValue ?? null, lead: s.lead?.key ?? null, ...(s.unexplained !== undefined ? { unexplained: s.unexplained } : {}) })),
        }
      : {}),
    leadPValue: final.lead?.pValue ?? null,
  };
  const pinpoint = `braid pinpoint -- ${commandLine(plan.command)}`;
  if (summary.total > 0 && summary.failed === 0) {
    // what was tried (adaptive exposure's levels, or the one noise) and what was not: more runs while
    // the ladder had levels left, PCT scheduling when no run had it (neverFailedAdvice.ts)
    const advice = neverFailedAdvice({ runs: summary.total, recorder: options.recorder ?? 'java', noise: options.noise, noiseAt: options.noiseAt, pct: !!options.pct, exposure, fixedRuns: !auto, where: 'test' });
    const more = advice.next.length ? `, or ${nextText(advice.next)}` : '';
    figures.message = `The test never failed in ${summary.total} run(s) (${secs(recordMs)} s, tried ${advice.tried}): nothing to explain yet. Find the points where timing noise makes it fail: ${pinpoint} (in ${plan.cwd}; in the editor: Braid: Find Trigger Points)${more}.`;
  } else if (summary.total > 0 && summary.passed === 0) {
    figures.message = `Every run failed (${summary.total}): the analysis needs passing runs too. Check that the test can pass, or use less noise (--noise 0.02).`;
  } else if (!final.lead && summary.total > 0) {
    // issue 40 item 5: say why nothing separates (in auto mode the time budget was used first)
    figures.message = `No pattern separates failing from passing runs (${summary.failed} of ${summary.total} runs failed${auto ? `, ${secs(recordMs)} s of the ${rule.maxSeconds} s budget` : ''}): ${noSeparationWhy(final)}.${auto ? '' : ' Record more runs (--runs auto).'}`;
  }
  let bugs: Bug[] | undefined;
  if (args.format !== 'sarif' && result.executions.failed > 0) {
    try {
      bugs = explainBugs(undefined, result, {});
    } catch (err) {
      process.stderr.write(formatDiagnostic({ severity: 'error', file: 'GRIFFIN', message: `no bugs: ${(err as Error).message}` }) + '\n');
    }
  }
  const top = args.topAll ? undefined : args.top;
  await writeReport(args.output, async (sink) => {
    if (args.format === 'json') {
      await writeJson(jsonReportSections(result, { top: args.topAll ? undefined : (top ?? JSON_DEFAULT_TOP), extra: { recording: figures, ...(bugs ? { bugs } : {}) } }), sink);
      await sink('\n');
    } else if (args.format === 'sarif') {
      const dropped = { count: 0 };
      const log = sarifReportSections(result, top ?? 20, undefined, { dropped });
      log.runs[0].properties = { ...log.runs[0].properties, recording: figures };
      await writeJson(log, sink);
      await sink('\n');
      if (dropped.count) process.stderr.write(droppedLocationsWarning(dropped.count) + '\n');
    } else {
      const lines = textReportLines(result, args.topAll ? Infinity : (top ?? 20));
      await writeLines(withRecording(bugs ? withBugs(lines, bugs, result) : lines, recordingLines(figures, rule)), sink);
    }
  });
  if (figures.message) say(figures.message);
  if (stopped === 'interrupted') return 130;
  if (stopped === 'write-failure') return EXIT_WRITE_FAILURE;
  // what was found, not chance (issue 40 item 5): with --runs auto, 0 only when the lead cause pattern
  // reached the rule's p-value (1e-6) — a recording where nothing separates never crosses it by chance
  if (auto) return final.lead && final.lead.pValue < rule.pValue ? 0 : 1;
  return final.lead ? 0 : 1;
}

/** The text report's first lines: what was recorded and why it stopped. */
export function recordingLines(f: RecordingFigures, rule: EvidenceStopRule): string[] {
  const why: Record<RecordingFigures['stopped'], string> = {
    evidence: `the evidence is in: the first cause pattern has p = ${f.leadPValue === null ? '?' : formatPValue(f.leadPValue)} < ${formatPValue(rule.pValue)}, the top ${rule.top} patterns held for ${rule.stableRounds} rounds and every bug is settled`,
    'max-runs': f.leadPValue === null && f.failed > 0 && f.passed > 0 && f.mode === 'auto' ? `budget of ${noSeparationMaxRuns(rule)} runs reached (no pattern separates)` : `budget of ${rule.maxRuns} runs reached`,
    'max-seconds': `budget of ${rule.maxSeconds} s reached`,
    runs: `${f.runs} run(s) as asked (--runs)`,
    interrupted: 'interrupted',
    'write-failure': 'a trace or log could not be written',
  };
  return [
    terminalLine(
      `braid test ${f.test} (${f.tool}): ${f.runs} runs in ${f.seconds} s (${f.runsPerSecond} runs/s; build ${f.buildSeconds} s), ${f.failed} failed, ${f.passed} passed — stopped: ${why[f.stopped]}`,
    ),
    ...(f.jvms !== undefined
      ? [terminalLine(`JVMs: ${f.jvms}; static state: ${staticStateText(f)}`)]
      : []),
    terminalLine(`traces: ${shownPath(f.traces)}`),
    ...(f.message ? [terminalLine(f.message)] : []),
    '',
  ];
}

/** The report's words for the repetitions' static state. */
function staticStateText(f: RecordingFigures): string {
  if (f.staticState === 'fresh') {
    const libraries = f.freshLibraries?.length ? ` and ${f.freshLibraries.join(', ')}` : '';
    const shared = f.librariesShared ? `; the library jars shared: ${f.librariesShared}` : '';
    return `fresh in every run (the project's classes${libraries} loaded anew for each${shared})`;
  }
  return f.staticState === 'shared' ? 'shared by the runs of a JVM' : String(f.staticState);
}

/** A path relative to the current folder when it is inside it, else absolute. */
function shownPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return !rel ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

function* withRecording(lines: Iterable<string>, block: string[]): Generator<string> {
  yield* block;
  yield* lines;
}

/** recording.json says how many runs were recorded (with --runs auto it was written with the budget). */
async function noteRuns(outDir: string, runs: number): Promise<void> {
  const file = path.join(outDir, RECORDING_MANIFEST);
  try {
    const m = JSON.parse(await fs.readFile(file, 'utf8'));
    if (m && typeof m === 'object' && m.runs !== runs) {
      m.runs = runs;
      await fs.writeFile(file, JSON.stringify(m, null, 2) + '\n');
    }
  } catch {
    // no manifest (it is informative)
  }
}
