/**
 * find_root_cause: the test lens' and `braid test`'s flow for an agent — find the test and the
 * command that runs it (recorder/java/testLocate.ts, testCommand.ts, jsTestCommand.ts) or take the
 * command given, run its build step once, record runs into `<project>/.braid/traces/<name>-<time>`
 * until the evidence is in (recorder/runs/evidenceRounds.ts, engine/ranking/evidenceStop.ts) or the
 * budget, analyze them with GRIFFIN and answer with the digest (analysisDigest.ts). With
 * `recording`, only the analysis of runs recorded before. The same library functions as the CLI
 * (cli/testCliCommand.ts), no CLI process.
 */
import path from 'node:path';
import { DEFAULT_EVIDENCE_STOP, EvidenceStopRule } from '../engine/ranking/evidenceStop';
import { analyzeInputsRanked } from '../engine/summary/workspaceAnalysis';
import type { AnalysisResult } from '../engine/analysis';
import { Bug, explainBugs } from '../engine/griffin/griffin';
import { classPathProblem, commandLine, inferTestCommand, TestCommandError, TestPlan } from '../recorder/java/testCommand';
import { applySurefireSettings, SurefireSettingsError } from '../recorder/java/surefireSettings';
import { inferJsTestCommand } from '../recorder/node/jsTestCommand';
import { locateTest } from '../recorder/java/testLocate';
import { EvidenceRounds } from '../recorder/runs/evidenceRounds';
import { adaptiveExposureFor } from '../recorder/runs/adaptiveExposure';
import { outputTail, runBuildStep } from '../recorder/runs/prepareStep';
import { deriveName, RecordOptions, sanitizeName, UsageError as RecordUsageError } from '../recorder/runs/recordOptions';
import { withTraceFolder, recordRuns } from '../recorder/runs/recordRuns';
import { recordOptionsFor, TestArgs } from '../cli/testCliCommand';
import { analysisDigest, Digest } from './analysisDigest';
import { McpRoots, ToolInputError } from './mcpRoots';
import { recordingResourceUri } from './recordingCatalog';
import { isInsideFolder } from '../workspace/insideFolder';

export interface FindRootCauseInput {
  test?: string;
  jsTest?: { file: string; titles?: string[] };
  command?: string[];
  build?: string[];
  include?: string[];
  recording?: string;
  project?: string;
  maxRuns?: number;
  maxSeconds?: number;
  noise?: number;
  timeoutSeconds?: number;
}

/** Progress of a long call: `progress` of `total` (runs), and a line for the user. */
export type Progress = (progress: number, total: number | undefined, message: string, always?: boolean) => void;

/** The analysis of a recording folder, with GRIFFIN's bugs (none when GRIFFIN fails: the ranking stands). */
export async function analyzeRecording(folder: string): Promise<{ result: AnalysisResult; bugs: Bug[] | undefined }> {
  const { result } = await analyzeInputsRanked([folder]);
  return { result, bugs: bugsOf(result) };
}

function bugsOf(result: AnalysisResult): Bug[] | undefined {
  if (result.executions.failed === 0) return undefined;
  try {
    return explainBugs(undefined, result, {});
  } catch {
    return undefined;
  }
}

export async function findRootCause(roots: McpRoots, input: FindRootCauseInput, progress: Progress, signal: AbortSignal): Promise<Digest> {
  const given = (['test', 'jsTest', 'command', 'recording'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    throw new ToolInputError(
      given.length
        ? `give one of "test", "jsTest", "command" or "recording", not ${given.map((g) => `"${g}"`).join(' and ')}`
        : 'give what to run: "test" (Java Class#method), "jsTest" ({file, titles}), "command" (a program and its arguments), or "recording" (runs recorded before)',
    );
  }
  if (input.build && !input.command) throw new ToolInputError('"build" goes with "command" (a test finds its own build step)');
  if (input.recording !== undefined) {
    const { root, folder } = await roots.recording(input.recording);
    const { result, bugs } = await analyzeRecording(folder);
    if (result.executions.total === 0) throw new ToolInputError(`"recording": ${folder} holds no readable trace (*.trace.jsonl, *.trace.jsonl.gz)`);
    return analysisDigest(result, bugs, handleOf(roots, root, folder));
  }
  const { root, folder } = await roots.folder(input.project, 'project');
  let plan: TestPlan;
  try {
    if (input.test !== undefined) plan = inferTestCommand(folder, locateTest(folder, input.test));
    else if (input.jsTest !== undefined) {
      const file = path.resolve(folder, input.jsTest.file);
      if (!(await isInsideFolder(root, path.dirname(file)))) throw new ToolInputError(`"jsTest.file": ${input.jsTest.file} is outside the root ${root}`);
      plan = inferJsTestCommand(folder, { file, titles: input.jsTest.titles ?? [] });
    } else {
      const command = input.command!;
      if (command.some((a) => typeof a !== 'string' || a === '')) throw new ToolInputError('"command": every argument must be a non-empty string');
      // a plain command: TestPlan's tool names only how a test is run, which recordOptionsFor does not read
      plan = {
        tool: 'junit-console',
        prepare: input.build ? [{ command: input.build, cwd: folder }] : [],
        command,
        cwd: folder,
        name: sanitizeName(deriveName(command)),
        include: input.include ?? [],
      };
    }
  } catch (e) {
    if (e instanceof TestCommandError) throw new ToolInputError(`"${given[0]}": ${e.message}`);
    throw e;
  }
  const rule: EvidenceStopRule = { ...DEFAULT_EVIDENCE_STOP, maxRuns: input.maxRuns ?? DEFAULT_EVIDENCE_STOP.maxRuns, maxSeconds: input.maxSeconds ?? DEFAULT_EVIDENCE_STOP.maxSeconds };
  const args: TestArgs = {
    test: input.test ?? plan.name,
    project: folder,
    maxRuns: rule.maxRuns,
    maxSeconds: rule.maxSeconds,
    include: input.include ?? [],
    format: 'json',
    ...(input.noise !== undefined ? { noise: String(input.noise) } : {}),
    ...(input.timeoutSeconds !== undefined ? { timeout: String(input.timeoutSeconds) } : {}),
  };
  const buildTool = plan.tool === 'maven' || plan.tool === 'gradle';
  let options: RecordOptions;
  try {
    if (!plan.include.length && !args.include.length && !input.test && !input.jsTest && plan.command[0] && path.basename(plan.command[0]).startsWith('java')) {
      throw new ToolInputError('"include": give the Java packages or classes to record, e.g. ["com.acme.pool"] (a command does not say which code is yours)');
    }
    options = recordOptionsFor(args, plan, buildTool);
  } catch (e) {
    if (e instanceof RecordUsageError) throw new ToolInputError(e.message);
    throw e;
  }
  if (buildTool && plan.command[0] !== 'java') options = { ...options, jobs: 1 };
  // the build step, once (Maven: resolve the class path once, or each run through mvn)
  const done: { command: string[]; cwd: string }[] = [];
  for (const step of plan.prepare) {
    progress(0, rule.maxRuns, step.upToDate ? `building: skipped, ${step.upToDate}` : `building: ${commandLine(step.command).slice(0, 160)}`);
    const r = await runBuildStep(step, signal);
    if (signal.aborted) throw new Error('cancelled while building');
    if (step.orElse) {
      let problem = r.code !== 0 ? `exit ${r.code}` : classPathProblem(step.orElse.classPathFile);
      if (!problem && step.surefire) {
        // surefire's argLine, system properties, environment and working directory, from Maven's effective POM
        try {
          const { run } = applySurefireSettings({ command: options.command, cwd: options.cwd, env: options.env }, step.surefire);
          plan = { ...plan, command: run.command, cwd: run.cwd };
          options = { ...options, command: run.command, cwd: run.cwd, ...(run.env ? { env: run.env } : {}) };
        } catch (e) {
          if (!(e instanceof SurefireSettingsError)) throw e;
          problem = e.message;
        }
      }
      if (problem) {
        plan = { ...plan, command: step.orElse.command };
        options = { ...options, command: step.orElse.command, jobs: 1 };
        continue;
      }
      done.push({ command: step.rerun ?? step.command, cwd: step.cwd });
      continue;
    }
    if (r.code !== 0) throw new ToolInputError(`the build step failed (${commandLine(step.command)} ${r.error ? 'did not start' : `exit ${r.code}`}): ${outputTail(r.output) || r.error || 'no output'}`);
    done.push(step);
  }
  if (plan.prepare.length) options = { ...options, ...(done.length ? { prepare: done } : { prepare: undefined }) };
  options = await withTraceFolder(options);
  const started = Date.now();
  let failed = 0;
  // adaptive exposure (the default noise mode): the noise widens while runs do not fail (recorder/runs/adaptiveExposure.ts)
  const exposure = adaptiveExposureFor(options);
  const rounds = new EvidenceRounds(
    rule,
    (history, finished, steps) => {
      const lead = history[history.length - 1]?.lead;
      // adaptive exposure's steps since the last round (taken when a level's 20th run finished)
      const widened = exposure ? steps.map((s) => `; ${exposure.stepLine(s)}`).join('') : '';
      // after run `finished` was reported: half a step on, so the round's line is sent (progress only increases)
      progress(finished + 0.5, rule.maxRuns, `${finished} runs, ${failed} failed${lead ? `, lead p = ${lead.pValue.toPrecision(2)}` : ', no cause with evidence yet'}${widened}`, true);
    },
    exposure,
  );
  const summary = await recordRuns(
    options,
    (p) => {
      failed = p.failed;
      rounds.runFinished(p);
      progress(p.done, rule.maxRuns, `${p.done} runs, ${p.failed} failed`);
    },
    signal,
    rounds,
  );
  const nr = summary.notReached;
  if (nr?.stopped && summary.total === 0) {
    throw new ToolInputError(`${nr.testDidNotRun ? 'the test did not run' : 'the program never ran'}: ${nr.reason}; nothing recorded. ${nr.hint}${nr.output.trim() ? `\nLast output:\n${outputTail(nr.output, 10)}` : ''}`);
  }
  if (summary.writeFailure) throw new Error(`${summary.writeFailure.message}; the recording stopped`);
  const last = summary.total > 0 && !signal.aborted ? await rounds.finish(summary.durationMs / 1000) : undefined;
  const result = (await rounds.asFolderAnalysis(options.outDir)) ?? (await analyzeInputsRanked([options.outDir])).result;
  const recorded = { command: commandLine(plan.command), seconds: Math.round((Date.now() - started) / 100) / 10, stopped: signal.aborted ? 'cancelled' : (last?.reason ?? 'max-runs') };
  return analysisDigest(result, bugsOf(result), handleOf(roots, root, options.outDir), recorded);
}

function handleOf(roots: McpRoots, root: string, folder: string): { recording: string; resource: string } {
  const recording = McpRoots.handleOf(root, folder);
  return { recording, resource: recordingResourceUri(roots.folders.indexOf(root), recording) };
}
