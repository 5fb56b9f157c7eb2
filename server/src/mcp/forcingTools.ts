/**
 * confirm, reproduce and check_fix: the editor's Confirm by Forcing and Check the Fix
 * (lsp/confirmRequest.ts, docs/confirm.md) for an agent. Each reruns the recording's own command —
 * from its recording.json, only when the command's folder is inside the root (the manifest is data:
 * recorder/runs/manifestUse.ts) — with the pattern's interleaving forced (recorder/runs/confirmRuns.ts,
 * confirmPerCall.ts, fixCheck.ts); a verdict comes only from those runs. The forced runs go to
 * `<root>/.braid/confirm`. Cancelling the call aborts the runs (their process groups are stopped).
 */
import { withCheckOfUse } from '../engine/confirm/checkOfUse';
import { withFailingRunFacts } from '../engine/confirm/failingRunFacts';
import { findTraceFiles } from '../engine/traceDiscovery';
import os from 'node:os';
import path from 'node:path';
import { AnalysisResult, patternAt, patternCount, RankedPattern } from '../engine/analysis';
import { ConfirmOptions, confirmPattern, ConfirmProgress } from '../recorder/runs/confirmRuns';
import { confirmWithCalls, patternToForce, perCallRankingOf } from '../recorder/runs/confirmPerCall';
import { forceCauseWithin } from '../recorder/runs/confirmWithin';
import { listedPatterns } from '../engine/confirm/confirmedRanking';
import { checkFix, recordingNoiseOf } from '../recorder/runs/fixCheck';
import { launchOf, manifestFailOnOutput, readRecordingManifest, RecordingManifest } from '../recorder/runs/recordingManifest';
import { deriveName, sanitizeName } from '../recorder/runs/recordOptions';
import { outputTail, runStep } from '../recorder/runs/prepareStep';
import { commandLine } from '../recorder/java/testCommand';
import { isInsideFolder } from '../workspace/insideFolder';
import { analyzeInputsRanked } from '../engine/summary/workspaceAnalysis';
import { analyzeRecording, Progress } from './rootCauseTool';
import { McpRoots, ToolInputError } from './mcpRoots';
import { DATA_NOTE, recordedText } from './recordedText';
import { explainTrace } from './runExplanation';

export interface PatternCallInput {
  recording: string;
  pattern?: number | string;
  runs?: number;
}

interface Prepared {
  root: string;
  folder: string;
  result: AnalysisResult;
  pattern: RankedPattern;
  position: number;
  manifest: RecordingManifest;
  options: ConfirmOptions;
}

/** The pattern `selector` (its position in the list, 1 = first, or its key) of the ranking. */
export function pickPattern(result: AnalysisResult, selector: number | string): { pattern: RankedPattern; position: number } {
  const n = patternCount(result);
  if (typeof selector === 'number') {
    const p = patternAt<RankedPattern>(result, selector - 1);
    if (!p) throw new ToolInputError(`"pattern": ${selector} is past the ranking: the recording has ${n} pattern(s)`);
    return { pattern: p, position: selector };
  }
  if (/^\d+$/.test(selector)) return pickPattern(result, Number(selector));
  for (let k = 0; k < n; k++) {
    const p = patternAt<RankedPattern>(result, k)!;
    if (p.key === selector) return { pattern: p, position: k + 1 };
  }
  throw new ToolInputError(`"pattern": no pattern of the recording has the key ${JSON.stringify(recordedText(selector, 200))}; give its position (1 = first) from find_root_cause`);
}

async function prepare(roots: McpRoots, input: PatternCallInput): Promise<Prepared> {
  const { root, folder } = await roots.recording(input.recording);
  const m = await readRecordingManifest(folder);
  if (m.problem) throw new ToolInputError(`"recording": ${m.problem}; record it again with find_root_cause`);
  const manifest = m.manifest;
  if (!manifest) throw new ToolInputError(`"recording": ${McpRoots.handleOf(root, folder)} has no recording.json, so Braid does not know how to run its program (it was recorded before Braid kept one, or copied); record it again with find_root_cause`);
  if (!(await isInsideFolder(root, manifest.cwd))) {
    throw new ToolInputError(`"recording": its recording.json runs the program in ${recordedText(manifest.cwd, 200)}, outside the root ${root}; Braid runs a recording's command only inside the roots given with --root`);
  }
  const { result } = await analyzeRecording(folder);
  if (result.executions.total === 0) throw new ToolInputError(`"recording": ${folder} holds no readable trace`);
  const { pattern, position } = pickPattern(result, input.pattern ?? 1);
  const runs = input.runs ?? 10;
  const options: ConfirmOptions = {
    command: manifest.command,
    cwd: manifest.cwd,
    include: manifest.include,
    exclude: manifest.exclude,
    runs,
    noise: 0,
    timeoutSeconds: manifest.timeoutSeconds,
    jobs: Math.max(1, Math.min(2, os.availableParallelism())),
    seed: Date.now() % 1_000_000_000,
    name: sanitizeName(manifest.name || deriveName(manifest.command)),
    outRoot: path.join(root, '.braid', 'confirm'),
    ...(manifest.failOnOutput !== undefined ? { failOnOutput: manifestFailOnOutput(manifest)! } : {}),
    ...launchOf(manifest),
  };
  return { root, folder, result, pattern: { ...pattern, rank: position }, position, manifest, options };
}

/** Progress per run over the groups (forced, opposite, unforced, after). */
function groupProgress(progress: Progress, groups: number, runs: number): (p: ConfirmProgress | { group: 'after'; done: number; total: number; failed: number }) => void {
  const words: Record<string, string> = { forced: 'forced', opposite: 'opposite order', control: 'unforced', after: 'fresh runs with noise' };
  const seen: string[] = [];
  return (p) => {
    if (!seen.includes(p.group)) seen.push(p.group);
    // the groups take turns (two looks, confirmRuns.ts): each one's runs go after the groups before it
    const before = seen.indexOf(p.group) * runs;
    progress(Math.min(before + p.done, groups * runs), groups * runs, `${words[p.group]}: ${p.done}/${p.total} runs, ${p.failed} failed`);
  };
}

const patternOf = (x: Prepared) => ({ pattern: x.position, key: recordedText(x.pattern.key, 300), kind: x.pattern.kind });

export async function confirmTool(roots: McpRoots, input: PatternCallInput, progress: Progress, signal: AbortSignal) {
  const x = await prepare(roots, input);
  const perCall = perCallRankingOf([x.folder], x.result.options, () => undefined);
  const traceFiles = (await findTraceFiles([x.folder])).files;
  const pattern = await withFailingRunFacts(withCheckOfUse(x.pattern, x.result.patterns), traceFiles);
  const forceOne = (p: Parameters<typeof confirmPattern>[0], offset: number) => confirmPattern(p, { ...x.options, seed: x.options.seed + offset }, groupProgress(progress, 3, x.options.runs), signal);
  const c = await confirmWithCalls(pattern, forceOne, perCall, { signal });
  if (signal.aborted) throw new Error('cancelled: the runs were stopped');
  // a confirmed combination: the smaller patterns within it, forced alone in turn (causeWithin.ts, as braid confirm and the editor)
  const w = await forceCauseWithin(listedPatterns(x.result), pattern, c, { traceFiles: () => traceFiles, forceOne, perCallRanking: perCall, signal });
  if (signal.aborted) throw new Error('cancelled: the runs were stopped');
  const cause = w?.confirmation.verdict === 'confirmed' ? w : undefined;
  const parts = w?.tried ?? [];
  const next = cause
    ? `The cause is proven: pattern ${cause.rank} within it, whose order alone makes the failure (this pattern's other accesses are incidental). Fix it, then call check_fix {recording: "${input.recording}", pattern: ${cause.rank}}.`
    : c.verdict === 'confirmed'
      ? `The cause is proven${parts.length ? ' — the order of the whole pattern: no smaller pattern within it (`within`) fails alone' : ''}. Fix it, then call check_fix {recording: "${input.recording}", pattern: ${x.position}}.`
      : c.verdict === 'confirms the window'
        ? `The window is real but the order is not what makes it fail: confirm the pattern whose order opens this window (the reason names it), or the next pattern.`
        : c.verdict === 'refuted'
          ? `Not the cause: try the next pattern (confirm {recording: "${input.recording}", pattern: ${x.position + 1}}).`
          : c.verdict === 'not forced'
            ? 'A lock or a join already orders these accesses: try the next pattern.'
            : 'No verdict: follow the hint, then call confirm again.';
  return {
    note: DATA_NOTE,
    verdict: c.verdict,
    pattern: patternOf(x),
    forced: c.forced,
    ...(c.opposite ? { opposite: c.opposite } : {}),
    ...(c.control ? { unforced: c.control } : {}),
    pValue: Number(c.pValue.toPrecision(3)),
    reason: recordedText(c.reason, 600),
    ...(c.couldNotCheck ? { why: recordedText(c.couldNotCheck.why, 600), hint: recordedText(c.couldNotCheck.hint, 400) } : {}),
    ...(parts.length
      ? {
          within: parts.map((t) => ({
            pattern: t.rank,
            key: recordedText(t.pattern.key, 300),
            kind: t.pattern.kind,
            verdict: t.confirmation.verdict,
            forced: { runs: t.confirmation.forced.runs, failed: t.confirmation.forced.failed },
            ...(t.confirmation.opposite ? { opposite: { runs: t.confirmation.opposite.runs, failed: t.confirmation.opposite.failed } } : {}),
          })),
        }
      : {}),
    ...(cause ? { cause: { pattern: cause.rank, key: recordedText(cause.pattern.key, 300), kind: cause.pattern.kind } } : {}),
    runs: c.runsSpent + (w?.runsSpent ?? 0),
    seconds: Math.round((c.seconds + (w?.seconds ?? 0)) * 10) / 10,
    next,
  };
}

export async function reproduceTool(roots: McpRoots, input: PatternCallInput, progress: Progress, signal: AbortSignal) {
  const x = await prepare(roots, input);
  const runs = input.runs ?? 5;
  const c = await confirmPattern(x.pattern, { ...x.options, runs, skipOpposite: true, controlRuns: 0 }, groupProgress(progress, 1, runs), signal);
  if (signal.aborted) throw new Error('cancelled: the runs were stopped');
  const run = c.failingRun;
  // the pattern's accesses as the forced run made them, up to its failure
  const explained = run ? await explainTrace(run.trace, await forcedRunResult(run.trace, run.execution), 16, new Set(x.pattern.accesses.map((a) => a.variable))) : undefined;
  return {
    note: DATA_NOTE,
    reproduced: Boolean(run),
    ...(explained?.failure ? { failure: explained.failure } : {}),
    ...(explained?.failureAt ? { failureAt: explained.failureAt } : {}),
    interleaving: explained?.events ?? [],
    ...(run ? { plan: c.plan, run: run.trace } : {}),
    forced: c.forced,
    reason: recordedText(run ? `forced ${c.forced.forcedOk} of ${c.forced.runs} runs, ${c.forced.failed} failed` : (c.couldNotCheck?.why ?? c.reason), 600),
    next: run
      ? `Replay it: braid record --runs 1 --plan ${c.plan} -- ${recordedText(commandLine(x.options.command), 300)}. explain_run {recording: "${input.recording}"} shows a recorded failing run.`
      : 'No forced run failed: confirm this pattern to see whether it causes the failure, or try the next pattern.',
  };
}

/** The failing forced run as the analysis reads it (its failure point and message). */
async function forcedRunResult(trace: string, execution: string) {
  const { result } = await analyzeInputsRanked([trace]);
  return result.runs[0] ?? { execution, outcome: 'fail' as const };
}

export async function checkFixTool(roots: McpRoots, input: PatternCallInput & { build?: string[] }, progress: Progress, signal: AbortSignal) {
  const x = await prepare(roots, input);
  const started = Date.now();
  const steps = input.build ? [{ command: input.build, cwd: x.root }] : (x.manifest.prepare ?? []);
  const before = { runs: x.result.executions.total, failed: x.result.executions.failed };
  const unchecked = (why: string, hint: string, built?: string) => ({
    note: DATA_NOTE,
    verdict: 'could not check' as const,
    reason: 'the fixed program was not run',
    before,
    after: { runs: 0, failed: 0 },
    forced: { runs: 0, failed: 0, forcedOk: 0 },
    pValue: 1,
    why,
    hint,
    ...(built ? { built } : {}),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    next: 'Fix the build, then call check_fix again.',
  });
  let built: string | undefined;
  for (const s of steps) {
    if (!(await isInsideFolder(x.root, s.cwd))) throw new ToolInputError(`the build step runs in ${recordedText(s.cwd, 200)}, outside the root ${x.root}`);
    built = recordedText(commandLine(s.command), 300);
    progress(0, undefined, `building: ${built}`);
    const r = await runStep(s.command, s.cwd, signal);
    if (signal.aborted) throw new Error('cancelled while building');
    if (r.code !== 0) return unchecked(`the build failed (${built}: ${r.error ? 'did not start' : `exit ${r.code}`}): ${recordedText(outputTail(r.output, 8), 1200)}`, 'Make the code compile, then call check_fix again.', built);
  }
  const forced = await patternToForce(x.pattern, perCallRankingOf([x.folder], x.result.options, () => undefined), (x.pattern as { confirmation?: { forcedKey?: string } }).confirmation?.forcedKey);
  const f = await checkFix(forced.pattern, before, { ...x.options, ...recordingNoiseOf(x.manifest) }, groupProgress(progress, 2, x.options.runs), signal);
  if (signal.aborted) throw new Error('cancelled: the runs were stopped');
  return {
    note: DATA_NOTE,
    verdict: f.verdict,
    reason: recordedText(f.reason, 600),
    before: f.before,
    after: { runs: f.after?.runs ?? 0, failed: f.after?.failed ?? 0 },
    forced: { runs: f.forced.runs, failed: f.forced.failed, forcedOk: f.forced.forcedOk },
    pValue: Number(f.pValue.toPrecision(3)),
    ...(f.couldNotCheck ? { why: recordedText(f.couldNotCheck.why, 600), hint: recordedText(f.couldNotCheck.hint, 400) } : {}),
    ...(built ? { built } : {}),
    seconds: Math.round((Date.now() - started) / 100) / 10,
    next:
      f.verdict === 'fixed'
        ? 'Fixed: forcing the interleaving no longer makes it fail, and fresh runs do not fail as before. Run the project’s tests.'
        : f.verdict === 'not fixed'
          ? 'Not fixed (see reason). When a forced run still fails, the fix does not make the pattern’s accesses atomic: one lock, or one atomic operation, must cover every access of the pattern. Then call check_fix again.'
          : 'No verdict: follow the hint, then call check_fix again.',
  };
}

