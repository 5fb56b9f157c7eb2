/**
 * The custom LSP messages between Braid's language server and its client
 * (and, through the client, the webviews). Shared types only: no runtime
 * dependencies, importable from server, client and webview bundles.
 */

import type { PatternConfirmation } from '../engine/confirm/confirmedRanking';
import type { ExplainedEventDto, ExplanationDependencyDto, ExplanationPatternDto, ExplanationLineDto, ExplanationGroupDto } from '../protocol/explanations';

export interface PatternAccessDto {
  thread: 1 | 2;
  /** the thread's name at the pattern's first occurrence (traces that name threads) */
  threadName?: string;
  type: 'R' | 'W';
  variable: string;
  file: string;
  line: number;
  method: string;
  /** workspace file URI when the trace path resolves to a workspace file */
  uri?: string;
  stack: { file: string; line: number; method: string; uri?: string }[];
  /** library location (JDK, …) when file/line are its nearest caller in the user's code */
  library?: { file: string; line: number; method: string };
  /** a library call recorded at this line, e.g. "java.util.HashMap.put" */
  call?: string;
  /** the line makes other library calls too: `call` is one of them (PatternAccess.mixedCalls) */
  mixedCalls?: boolean;
  /** the access is in test code */
  harness?: boolean;
  /** value read or written at the first occurrence (traces with values) */
  value?: unknown;
}

export interface PatternDto {
  rank: number;
  score: number;
  id: string; // "P1".."P17"
  kind: string; // "RWR", ...
  category: 'order' | 'single-variable atomicity' | 'multi-variable atomicity';
  failed: number;
  passed: number;
  accesses: PatternAccessDto[];
  /** stable static signature; use it to refer to a pattern */
  key: string;
  /** one-sided Fisher exact p-value of failed/passed */
  pValue?: number;
  /** cause, harness (test code only) or symptom (after the failure point); absent = cause */
  group?: 'cause' | 'harness' | 'symptom';
  /** tie group number (same group, score and methods) and its size */
  tie?: number;
  tieSize?: number;
  /** does not separate failing from passing runs (weakPatterns.ts): folded, no heat, icon, code lens or hover */
  weak?: boolean;
  /** false: no evidence that it goes with failing (p ≥ 0.05 or in nearly every passing run); listed after those with */
  evidence?: boolean;
  /** the verdict of forcing its interleaving (braid/confirm), when it was forced */
  confirmation?: PatternConfirmationDto;
}

export interface RunDto {
  execution: string;
  file: string;
  outcome: 'pass' | 'fail';
  reason?: string;
  events: number;
  patterns: number;
  seed?: string;
  /** outcome detail, e.g. the exception (added by the server) */
  detail?: string;
  program?: string;
  test?: string;
  /** file URI of the trace file */
  uri?: string;
  /** failing runs: the thread that failed (first uncaught exception), by its trace name */
  failingThread?: { id: number; name: string };
  /** failing runs: event index of the failure point, when known */
  failPoint?: number;
  /** the noise plan the run was recorded with (`braid record --plan`; header.recorder.options.plan) */
  plan?: { name: string; file?: string };
  /**
   * failing runs: what failed (engine/runFailure.ts) — `reason` (`assertion`, `exception`, or the runner's
   * `timeout`, `exit-code`, …), the assertion or exception message, and where the program raised it
   */
  failure?: { reason: string; message?: string; location?: { file: string; line: number; method?: string; uri?: string } };
}

export interface AnalysisSummaryDto {
  state: 'idle' | 'analyzing' | 'done';
  executions: { total: number; failed: number; passed: number };
  topScore: number;
  patternCount: number;
  bugCount: number;
  message?: string;
  /** low-confidence warning (few failing runs, or first p-value ≥ 0.01) */
  confidence?: string;
}

/** braid/patterns */
export const PatternsRequest = 'braid/patterns';
export interface PatternsParams {
  offset?: number;
  limit?: number;
  /** filter: pattern ids ("P9") or kinds */
  ids?: string[];
  file?: string;
  /** analyze the traces on disk before answering (right after a recording: its traces are not analyzed yet) */
  fresh?: boolean;
}
export interface PatternsResult {
  summary: AnalysisSummaryDto;
  total: number;
  patterns: PatternDto[];
}

/** braid/runs */
export const RunsRequest = 'braid/runs';
export interface RunsResult {
  runs: RunDto[];
  /** trace files that could not be read (their runs are missing from `runs`), with the first error */
  unreadable?: UnreadableTraceDto[];
  /** trace files the user left out of the analysis (.braid/excluded-runs.json; "Include Run" brings one back) */
  excluded?: { file: string; uri: string }[];
  /** forced failing runs kept by Confirm by Forcing (.braid/confirm/…): not analyzed; the Tracer opens them (Reproduce) */
  forced?: RunDto[];
  /**
   * recordings of older code (issue 43): a source file their accesses point to changed since they
   * were recorded (their folder's sources.json). Kept on disk, not analyzed; newest folder first.
   */
  older?: OlderRecordingDto[];
  /** the bugs of the code before the change (the last analysis that held those recordings), with their lead pattern: for Check the Fix */
  beforeBugs?: {
    bug: number;
    shape?: string;
    headline?: string;
    pattern: PatternDto;
    fix?: BugFixDto;
    /** the keys of the bug's other patterns (GRIFFIN's cluster): Check the Fix on any of them checks this bug */
    otherKeys?: string[];
  }[];
  /** recording folders without any run (a recording whose command failed, or that was cancelled at once), to be seen and deleted */
  empty?: { dir: string; uri: string }[];
}
/** The last Check the Fix of a bug of the code before the change: its verdict and the failure rates before and after. */
export interface BugFixDto {
  verdict: 'fixed' | 'not fixed';
  before: { runs: number; failed: number };
  after: { runs: number; failed: number };
}
export interface OlderRecordingDto {
  /** the trace folder, and its URI */
  dir: string;
  uri: string;
  /** its trace files */
  files: string[];
  /** workspace-relative paths of the files that changed since */
  changed: string[];
  /** its runs and failed runs, when an analysis included it */
  runs?: number;
  failed?: number;
  /** of the code version just before the change (codeVersions.ts): `beforeBugs` are the bugs of these recordings */
  justBefore?: boolean;
}
export interface UnreadableTraceDto {
  file: string;
  uri: string;
  /** 1-based line of the error in the trace file */
  line?: number;
  message: string;
}

/** braid/bugs — GRIFFIN (shape of the engine's Bug with pattern keys resolved) */
export const BugsRequest = 'braid/bugs';
export interface BugsResult {
  bugs: unknown[];
}

/** braid/bugGraph */
export const BugGraphRequest = 'braid/bugGraph';
export interface BugGraphParams {
  bug: number;
}

/** braid/traceEvents — paged events of one run, for the Tracer */
export const TraceEventsRequest = 'braid/traceEvents';
/** The Tracer's paged events: server/src/protocol/traceEvents.ts (shared with the engine's pager and the MCP server). */
export type { TraceEventsParams, TraceEventDto, TraceEventsResult } from '../protocol/traceEvents';

/** braid/lineScores (server → client notification): heat per line */
export const LineScoresNotification = 'braid/lineScores';
export interface LineScoresParams {
  files: { uri: string; lines: { line: number; score: number; rank: number }[] }[];
}

/** braid/status (server → client notification) */
export const StatusNotification = 'braid/status';
export type StatusParams = AnalysisSummaryDto;

/** braid/reanalyze (client → server request) */
export const ReanalyzeRequest = 'braid/reanalyze';

/** braid/exportSarif (client → server request): returns the SARIF JSON text */
export const ExportSarifRequest = 'braid/exportSarif';

/** braid/record (client → server request): runs the recorder (trusted workspaces only) */
export const RecordRequest = 'braid/record';
export interface RecordParams {
  command: string[];
  /**
   * runs to record, or "auto": rounds of 10 runs, analyzed after each, until the evidence is in
   * (engine/ranking/evidenceStop.ts: the first cause pattern has p < 1e-6 and the top 3 held for 2
   * rounds) or the budget (`maxRuns`, `maxSeconds`) — the test lens' default
   */
  runs: number | 'auto';
  /** runs "auto": most runs (default 200) */
  maxRuns?: number;
  /** runs "auto": most seconds of recording (default 300) */
  maxSeconds?: number;
  noise?: number;
  /** where the noise goes (`braid record --noise-at`; default accesses) */
  noiseAt?: 'accesses' | 'sync' | 'all';
  /**
   * `adaptive` (default) widens the noise while runs of a recording ("auto" or a number of runs) do not fail
   * (recorder/runs/adaptiveExposure.ts); `uniform` keeps it; `pct` schedules the threads by the Java
   * agent's PCT scheduler instead of noise (recorder/runs/pctNoise.ts)
   */
  noiseMode?: 'uniform' | 'adaptive' | 'pct';
  include?: string[];
  timeoutSeconds?: number;
  jobs?: number;
  /** one JVM per run even for a JUnit console launcher command (otherwise repetitions in one JVM; `braid record --fresh-jvm`) */
  freshJvm?: boolean;
  /** repetitions in one JVM: every jar shared, only the project's classes loaded afresh per repetition (`--shared-libraries`) */
  sharedLibraries?: boolean;
  /** name of the executions (default: derived from the command) */
  name?: string;
  /** working directory of the command inside the workspace folder (default: the folder) */
  cwd?: string;
  /** commands run once before recording, without the recorder (e.g. compiling a test); a failure stops the recording */
  prepare?: { command: string[]; cwd: string; /** Maven: when this step fails or its class path file is unusable, record `orElse.command` instead (recorder/java/testCommand.ts) */ orElse?: { command: string[]; classPathFile: string }; /** Maven: the step also writes the effective POM; surefire's argLine, system properties, environment and working directory are read from it for the runs (recorder/java/surefireSettings.ts) */ surefire?: { effectivePom: string; module: string }; /** Maven: the full build-and-class-path step recorded for a fix check when this one reuses the class path an earlier call wrote (recorder/java/mavenClassPathCache.ts) */ rerun?: string[]; /** Maven: written after the step succeeds, so that a later call can skip the build while nothing it reads changed (recorder/java/mavenClassPathCache.ts) */ stamp?: { file: string; build: string }; /** Maven: the step need not run (nothing the build reads changed since Braid's last build): why */ upToDate?: string }[];
  /** noise plan file (`--plan`, docs/noise.md) inside the workspace folder: noise only at its points */
  plan?: string;
  /** work-done token for progress; cancellation via $/cancelRequest */
  workDoneToken?: string | number;
}
export interface RecordResult {
  runs: number;
  failed: number;
  passed: number;
  outDir: string;
  cancelled: boolean;
  /** runs "auto": why the recording stopped (evidence, max-runs, max-seconds) */
  stopped?: 'evidence' | 'max-runs' | 'max-seconds';
  /** runs "auto": the first pattern's p-value when it has evidence, else null */
  leadPValue?: number | null;
  /**
   * no run failed: what was tried — each level of adaptive exposure and its runs ("noise 0.1 at
   * accesses (runs 0–19), …"), or the one noise ("noise 0.1 at accesses (30 runs)")
   */
  tried?: string;
  /** no run failed: the next things to try, in the editor's settings (neverFailedAdvice.ts), "a; b; or c" */
  next?: string;
}

/** braid/recordProgress (server → client notification) while braid/record runs */
export const RecordProgressNotification = 'braid/recordProgress';
export interface RecordProgressParams {
  done: number;
  /** the runs asked for; with runs "auto" the budget */
  total: number;
  failed: number;
  passed: number;
  message?: string;
  /** runs "auto": the evidence so far, after the last round (`lead P1 on x (9 failed, 0 passed), p = 2.1e-4`) */
  evidence?: string;
  /** adaptive exposure widened the noise at this round (runs "auto"; with a fixed number of runs, at that run) ("no failure in 20 runs: noise now at sync points, p 0.1 (from run 20)") */
  exposure?: string;
}

/**
 * braid/explanations (client → server request): the mining explanations of the workspace's
 * traces (seed 000, docs/mining.md), computed on the first request and cached until the traces
 * change. `file`/`line` are as in the trace; `uri` is added when the file is in the workspace.
 */
export const ExplanationsRequest = 'braid/explanations';
export interface ExplanationsParams {
  /** only the best `top` groups (default all) */
  top?: number;
}
/** The explanations' groups and events: server/src/protocol/explanations.ts (shared with the engine, issue 45). */
export type { ExplainedEventDto, ExplanationDependencyDto, ExplanationPatternDto, ExplanationLineDto, ExplanationGroupDto } from '../protocol/explanations';
export interface ExplanationsResult {
  /** 'none' when there are no traces (or no failing ones) to explain */
  state: 'done' | 'none';
  groups: ExplanationGroupDto[];
  /** groups in all (before `top`) */
  total: number;
  stats: { failing: number; passing: number; minSupport: number; truncated: boolean; ms: number };
  message?: string;
}

/**
 * braid/methods (client → server request): the call-graph method ranking of the workspace's traces
 * (seed 003, docs/callgraph.md), computed in the worker and cached until the traces change, with
 * GRIFFIN's suspicious methods of the same traces for comparison.
 */
export const MethodsRequest = 'braid/methods';
export interface MethodsParams {
  /** only the best `top` methods (default all) */
  top?: number;
}
export interface MethodEdgeDto {
  kind: 'call' | 'next' | 'inter' | 'intra';
  source: string;
  target: string;
  /** "a →it b" */
  text: string;
  failedRuns: number;
  passedRuns: number;
  meanFailed: number;
  meanPassed: number;
}
export interface MethodDto {
  rank: number;
  score: number;
  method: string;
  file: string;
  line: number;
  loc: number;
  locSource: 'source' | 'span';
  runs: { failed: number; passed: number };
  edge?: MethodEdgeDto;
  uri?: string;
}
/** one suspicious method of a GRIFFIN bug, with its position in the call-graph ranking */
export interface GriffinMethodComparisonDto {
  bug: number;
  thread: number;
  /** the thread's name (the bug's lane), when the traces name it */
  threadName?: string;
  method: string;
  file: string;
  line: number;
  uri?: string;
  /** rank of the same method in the call-graph ranking (absent: not in it) */
  callGraphRank?: number;
  callGraphScore?: number;
}
export interface MethodsResult {
  state: 'done' | 'none';
  methods: MethodDto[];
  total: number;
  executions: { total: number; failed: number; passed: number };
  representation: string;
  griffin: GriffinMethodComparisonDto[];
  stats: { calls: number; edges: number; ms: number };
  message?: string;
}

/** Arguments of the client command braid.recordTest (the "find the root cause" code lens) and of braid/testCommand. */
export interface RecordTestArgs {
  /** file URI of the test's source */
  uri: string;
  /** Java: fully qualified class name (nested classes joined with $); JavaScript/TypeScript: the file's name */
  className: string;
  /** Java: the test method; JavaScript/TypeScript: the test's (or the describe block's) own name */
  method?: string;
  /** `js`: a node:test, mocha, jest or vitest test in a .js/.ts file (recorder/node/jsTestDiscovery.ts) */
  framework: 'junit5' | 'junit4' | 'testng' | 'js';
  /** JavaScript/TypeScript: the enclosing describe names, then the test's own, outermost first; absent or empty: the whole file */
  titles?: string[];
  /** JavaScript/TypeScript: `titles` names a describe block (all its tests) */
  suite?: boolean;
  /** JavaScript/TypeScript: the runner the file imports (`node:test`, `vitest`, `@jest/globals`, `mocha`); absent: package.json decides */
  runner?: 'node-test' | 'mocha' | 'jest' | 'vitest';
}

/**
 * braid/testCommand (client → server request): the command that runs just one test with the
 * project's build tool (Maven, Gradle, or java with the JUnit console launcher), or for a JS/TS
 * test with its runner (vitest, jest, mocha through `npx`, or `node --test`; recorder/node/jsTestCommand.ts);
 * an error says what is missing. The client records it with braid/record (trusted workspaces only).
 */
export const TestCommandRequest = 'braid/testCommand';
export interface TestCommandResult {
  tool: 'maven' | 'gradle' | 'junit-console' | 'testng' | 'node-test' | 'mocha' | 'jest' | 'vitest';
  prepare: { command: string[]; cwd: string; /** Maven: when this step fails or its class path file is unusable, record `orElse.command` instead (recorder/java/testCommand.ts) */ orElse?: { command: string[]; classPathFile: string }; /** Maven: the step also writes the effective POM; surefire's argLine, system properties, environment and working directory are read from it for the runs (recorder/java/surefireSettings.ts) */ surefire?: { effectivePom: string; module: string }; /** Maven: the full build-and-class-path step recorded for a fix check when this one reuses the class path an earlier call wrote (recorder/java/mavenClassPathCache.ts) */ rerun?: string[]; /** Maven: written after the step succeeds, so that a later call can skip the build while nothing it reads changed (recorder/java/mavenClassPathCache.ts) */ stamp?: { file: string; build: string }; /** Maven: the step need not run (nothing the build reads changed since Braid's last build): why */ upToDate?: string }[];
  command: string[];
  cwd: string;
  name: string;
  include: string[];
  /** the command as one line, for display */
  commandLine: string;
}

/**
 * braid/suggestCommand (client → server request): the command Record Runs offers when none was
 * used before: the project's tests (Maven/Gradle) or the main class of the open editor.
 */
export const SuggestCommandRequest = 'braid/suggestCommand';
export interface SuggestCommandParams {
  /** file URI of the active editor */
  uri?: string;
}
export interface SuggestCommandResult {
  commandLine?: string;
}

/**
 * braid/pinpoint (client → server request; trusted workspaces only): seed 004's Iterative Group
 * Sampling (`braid pinpoint`) — finds the trigger points whose noise makes the failure appear and
 * writes a reproduction plan to `.braid/plans/<name>.json`. Progress as LSP work-done progress on
 * `workDoneToken` ($/progress); cancellation via $/cancelRequest. The fields mirror
 * PinpointOptions (server/src/engine/noise/triggerPoints.ts); the server fills in the folder,
 * the plan folder and the analyzed traces.
 */
export const PinpointRequest = 'braid/pinpoint';
export interface PinpointParams {
  command: string[];
  /** name of the plan and the runs (default: derived from the command) */
  name?: string;
  /** most program runs to spend (default 400) */
  budget?: number;
  /** `patterns` (default): points on the top patterns' lines and their neighbours; `all`: every point */
  candidates?: 'all' | 'patterns';
  /** noise at a point in one thread at a time (the threads of the top patterns; default false) */
  perThread?: boolean;
  include?: string[];
  exclude?: string[];
  timeoutSeconds?: number;
  jobs?: number;
  seed?: number;
  /** working directory inside the workspace folder (default: the folder) */
  cwd?: string;
  /** a run whose output matches this regular expression failed */
  failOnOutput?: string;
  workDoneToken?: string | number;
}
export type PinpointResultDto = import('../engine/noise/triggerPoints').PinpointResult & {
  /** file URI of the plan written */
  planUri?: string;
};

/**
 * braid/triggerPoints (client → server request) and braid/triggerPointsChanged (server → client
 * notification, same payload): the trigger points of the workspace's noise plans
 * (`.braid/plans/*.json`, their `triggers`), for decorations and Reproduce.
 */
export const TriggerPointsRequest = 'braid/triggerPoints';
export const TriggerPointsChangedNotification = 'braid/triggerPointsChanged';
export interface NoisePlanDto {
  name: string;
  /** absolute path of the plan file */
  file: string;
  uri: string;
  /** the command the plan was found for */
  command?: string[];
  /** trigger points in the plan (readable ones) */
  triggers: number;
  /** program runs `braid pinpoint` spent */
  runs?: number;
  created?: string;
}
export interface TriggerPointLineDto {
  /** 1-based */
  line: number;
  rank: number;
  failWith: number;
  failWithout: number;
  pValue: number;
  method: string;
  /** the one thread whose noise at the point this is (per-thread search) */
  thread?: string;
  /** one of the points #1 … #together whose noise only together elicits the failure (rates are the configuration's) */
  together?: number;
  /** name of the plan (NoisePlanDto.name) */
  plan: string;
  /** plan file (absolute) */
  planFile: string;
}
export interface TriggerPointsResult {
  plans: NoisePlanDto[];
  files: { uri: string; lines: TriggerPointLineDto[] }[];
  /** plan files that could not be read, with why */
  problems: { file: string; message: string }[];
}

/** braid/workspaceTrust (client → server notification): the workspace was trusted (also `trusted` in initializationOptions) */
export const WorkspaceTrustNotification = 'braid/workspaceTrust';
export interface WorkspaceTrustParams {
  trusted: boolean;
}

/** The verdict of forcing a pattern's interleaving (braid confirm, docs/confirm.md), on PatternDto.confirmation */
export type PatternConfirmationDto = PatternConfirmation & {
  /** ISO time of the confirmation */
  at?: string;
};

/** braid/confirm (client → server request): force a pattern's interleaving (confirm), or check a fix */
export const ConfirmRequest = 'braid/confirm';
export interface ConfirmParams {
  /** the pattern's key (PatternDto.key) */
  key: string;
  /** confirm (default), or checkFix: force it on the edited program and record it again with the recording's noise */
  mode?: 'confirm' | 'checkFix';
  /** runs per group (default 20; checkFix: forced and noise runs) */
  runs?: number;
  /** the command (default: the recording's, from recording.json next to the traces) */
  command?: string[];
  /** steps before the runs (e.g. compile the edited sources), each run in the workspace folder; a failing step stops the check */
  prepare?: { command: string[]; cwd?: string }[];
  workDoneToken?: string | number;
}
export interface ConfirmResultDto {
  key: string;
  mode: 'confirm' | 'checkFix';
  /** the verdict kept on the pattern; absent when it could not check (`couldNotCheck`) */
  confirmation?: PatternConfirmationDto;
  /**
   * no verdict (issue 39): a group had no finished run (the command failed, the build is broken, the
   * include list matches nothing…) or no forced run reached the pattern's accesses; why, and what to do
   */
  couldNotCheck?: { why: string; hint: string };
  /** checkFix: the answer (`after`: 0 runs when the noise runs were not recorded) */
  fix?: { verdict: 'fixed' | 'not fixed' | 'could not check'; reason: string; before: { runs: number; failed: number }; after: { runs: number; failed: number }; pValue: number };
  /** the forced failing run, when there is one: its execution id and trace URI (open it in the Tracer) */
  failingRun?: { execution: string; uri: string };
  /** the forcing plan's URI (Reproduce, launch.json) */
  planUri?: string;
  /** the command the runs used */
  command: string[];
  runs: number;
  seconds: number;
}

/** braid/confirmCommand: what braid/confirm would run (the editor shows it before it runs anything) */
export const ConfirmCommandRequest = 'braid/confirmCommand';
/** braid/confirmCommand's parameters: the pattern to confirm (its runs' recording.json is the one used) */
export interface ConfirmCommandParams {
  key?: string;
}

/** Every field braid/confirm takes from a recording's manifest (recording.json), for the editor to show before running it. */
export interface ConfirmCommandResult {
  /** undefined: the traces do not say (no recording.json, or `problem`) */
  command?: string[];
  cwd?: string;
  /** the recording's preparation steps (rerun by Check the Fix) */
  prepare: { command: string[]; cwd: string }[];
  /** the packages the recording instrumented */
  include?: string[];
  exclude?: string[];
  /** per-run time limit */
  timeoutSeconds?: number;
  /** a run whose output matches it fails */
  failOnOutput?: string;
  name?: string;
  /** the noise Check the Fix records with */
  noise?: number;
  /** the manifest file */
  manifest?: string;
  /** the manifest is not valid: why (naming the file and field) */
  problem?: string;
}

/**
 * braid/testItems (client → server request): the JUnit 4/5 and TestNG tests for VS Code's Testing
 * view, found as the "find the root cause" lens finds them (recorder/java/testDiscovery.ts). With `uri`:
 * that file (its open editor's text, else the file on disk); without: every .java file of the
 * workspace folders (hidden folders, node_modules, target, build, out, bin and dist skipped).
 */
export const TestItemsRequest = 'braid/testItems';
export interface TestItemsParams {
  uri?: string;
}
export interface TestItemDto {
  /** stable id: `<file uri>#<class>` or `<file uri>#<class>#<method>` */
  id: string;
  label: string;
  /** a class: its package */
  description?: string;
  uri: string;
  /** the class or method name (0-based) */
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  /** braid/testCommand's argument for this test (as the lens passes it) */
  args: RecordTestArgs;
  /** a class: its test methods and nested test classes */
  children: TestItemDto[];
}
export interface TestItemsResult {
  files: { uri: string; items: TestItemDto[] }[];
  /** the walk stopped at its limit of source files (.java and JS/TS test files) */
  truncated?: boolean;
}

/**
 * braid/testRunReport (client → server request, after braid/record of one test from the Testing
 * view): the recording's runs as the analysis sees them (its folder `outDir`), in the Testing
 * view's words — "failed k of N (x %)", one entry per distinct failure (assertion text and
 * where), and the root cause (the best pattern found in this recording's failing runs).
 */
export const TestRunReportRequest = 'braid/testRunReport';
export interface TestRunReportParams {
  /** braid/record's answer */
  result: RecordResult;
  /** the test, for the output (`AccountTest.transfers`) */
  what?: string;
}
export interface TestRunReportDto {
  /** failed: some run failed; passed: every run passed; none: no run finished (cancelled early) */
  outcome: 'failed' | 'passed' | 'none';
  runs: number;
  failed: number;
  /** "failed 3 of 20 (15 %)" / "passed 20 of 20 with noise" */
  summary: string;
  /** failed: "flaky: failed 3 of 20 runs with noise" */
  message?: string;
  /** distinct failures, most frequent first */
  failures: {
    reason: string;
    message?: string;
    location?: { file: string; line: number; method?: string; uri?: string };
    runs: number;
    /** the assertion's expected and actual values, when its message says them (`expected: <2> but was: <1>`) */
    expected?: string;
    actual?: string;
  }[];
  /** the best non-weak pattern occurring in a failing run of this recording */
  rootCause?: { key: string; rank: number; sentence: string; score: number; failed: number; passed: number; uri?: string; line?: number; bug?: number };
  /** lines for the test's output in Test Results */
  output: string[];
  /** passed: Find Trigger Points is the next step (the test never failed) */
  suggestTriggerPoints: boolean;
  /** the latest recording of the same test on the code before the last change (issue 43): its rate, shown beside this one */
  before?: { runs: number; failed: number };
}
