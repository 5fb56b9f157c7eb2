/**
 * Recording from the editor: braid/record with a cancellable progress notification (shared by
 * Record Runs and the "find the root cause" test code lens), the command Record Runs prefills, and
 * braid.recordTest (records runs of one test with the project's build tool, then shows the result).
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  RecordParams,
  RecordProgressNotification,
  RecordProgressParams,
  RecordRequest,
  RecordResult,
  RecordTestArgs,
  SuggestCommandRequest,
  SuggestCommandResult,
  TestCommandRequest,
  TestCommandResult,
} from '../../server/src/lsp/protocol';

export const LAST_COMMAND_KEY = 'braid.record.lastCommand';
/** the last test recorded from the code lens: Record Runs of the same command keeps its package, name and folder */
const LAST_TEST_KEY = 'braid.record.lastTest';

interface LastTest {
  commandLine: string;
  include: string[];
  name: string;
  cwd: string;
}

/** Record Runs of the command the test lens used last: the same include list (the test's package), name and folder. */
export function withLastTest(context: vscode.ExtensionContext, line: string, params: RecordParams): RecordParams {
  const t = context.workspaceState.get<LastTest>(LAST_TEST_KEY);
  if (!t || t.commandLine !== line) return params;
  return { ...params, include: params.include?.length ? params.include : t.include, name: t.name, cwd: t.cwd };
}

/** Shown when recording is asked for in an untrusted workspace; false then. */
export async function requireTrust(): Promise<boolean> {
  if (vscode.workspace.isTrusted) return true;
  const pick = await vscode.window.showWarningMessage(
    'Braid: recording runs your program, so it needs a trusted workspace. Analyzing existing traces works without trust.',
    'Manage Workspace Trust',
  );
  if (pick) await vscode.commands.executeCommand('workbench.trust.manage');
  return false;
}

/** The recording settings (braid.record.*) as braid/record parameters for `command`. */
export function recordParams(command: string[]): RecordParams {
  const cfg = vscode.workspace.getConfiguration('braid.record');
  return {
    command,
    runs: cfg.get<number>('runs', 20),
    noise: cfg.get<number>('noise', 0.1),
    // where the noise goes (braid.record.noiseAt); sent only when not the default
    ...(cfg.get<string>('noiseAt', 'accesses') !== 'accesses' ? { noiseAt: cfg.get<'sync' | 'all'>('noiseAt') } : {}),
    // one noise for every run, or PCT scheduling, only when asked (braid.record.noiseMode); absent = adaptive
    ...(cfg.get<string>('noiseMode', 'adaptive') === 'uniform' ? { noiseMode: 'uniform' as const } : {}),
    ...(cfg.get<string>('noiseMode', 'adaptive') === 'pct' ? { noiseMode: 'pct' as const } : {}),
    include: cfg.get<string[]>('include', []),
    timeoutSeconds: cfg.get<number>('timeoutSeconds', 60),
    jobs: cfg.get<number>('jobs', 1),
    // one JVM per run only when asked (braid.record.freshJvm); absent = repetitions where they work
    ...(cfg.get<boolean>('freshJvm', false) ? { freshJvm: true } : {}),
    // every jar shared by the repetitions only when asked (braid.record.sharedLibraries); absent = the included libraries' jars loaded afresh
    ...(cfg.get<boolean>('sharedLibraries', false) ? { sharedLibraries: true } : {}),
  };
}

export async function recordWithProgress(client: LanguageClient, params: RecordParams, title = 'Braid: recording'): Promise<RecordResult> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    let last = 0;
    const auto = params.runs === 'auto';
    const sub = client.onNotification(RecordProgressNotification, (p: RecordProgressParams) => {
      // runs "auto": the budget is no goal, so no bar; the runs so far, failed so far and the evidence
      const pct = p.total && !auto ? (p.done / p.total) * 100 : 0;
      const counts = auto ? `${p.done} runs · ${p.failed} failed${p.evidence ? ` · ${p.evidence}` : ''}` : `${p.done}/${p.total} runs · ${p.failed} failed, ${p.passed} passed`;
      progress.report({ message: p.done === 0 && p.message ? p.message : counts, increment: pct - last });
      last = pct;
    });
    try {
      return await client.sendRequest<RecordResult>(RecordRequest, params, token);
    } finally {
      sub.dispose();
    }
  });
}

/**
 * What to say after a recording, in plain words (issue 30, point 6): a cancelled recording says that
 * the runs so far are kept and analyzed (not to raise the noise); one without a failing run says what
 * to change.
 */
export function recordedMessage(result: RecordResult, what?: string): string {
  const of = what ? ` of ${what}` : '';
  if (result.cancelled) {
    return result.runs === 0
      ? `Braid: recording${of} cancelled before any run finished; nothing was recorded.`
      : `Braid: recording${of} cancelled after ${result.runs} runs (${result.failed} failed, ${result.passed} passed); those runs are kept and analyzed. Record again to add more.`;
  }
  const msg = `Braid: recorded ${result.runs} runs${of} — ${result.failed} failed, ${result.passed} passed${stoppedWords(result)}.`;
  if (result.failed === 0 && result.runs > 0) {
    if (result.tried) return `${msg} The test never failed with ${result.tried}: Find Trigger Points looks for the lines where timing noise makes it fail${result.next ? `; or try ${result.next}` : ''}.`;
    return result.stopped
      ? `${msg} The test never failed: Find Trigger Points looks for the lines where timing noise makes it fail (or raise braid.record.noise).`
      : `${msg} None failed: raise braid.record.noise or braid.record.runs.`;
  }
  return msg;
}

/** runs "auto": why the recording stopped, in words. */
function stoppedWords(result: RecordResult): string {
  if (result.stopped === 'evidence') return ` (stopped when the evidence was in: p = ${result.leadPValue?.toExponential(1) ?? '?'})`;
  if (result.stopped === 'max-runs') return ` (stopped at the budget of ${result.runs} runs${result.failed > 0 && !result.leadPValue ? '; no pattern has evidence yet' : ''})`;
  if (result.stopped === 'max-seconds') return ' (stopped at the time budget)';
  return '';
}

/** An empty command box answered with Enter (not Escape): say that nothing ran and how to go on. */
export function saidNothing(answer: string | undefined, what = 'recorded'): void {
  if (answer !== undefined && !answer.trim())
    void vscode.window.showInformationMessage(`Braid: nothing ${what} — the command was empty. Enter the command that runs the flaky program or test (e.g. java -cp out bank.Bank), or set braid.record.command.`);
}

/** What Record Runs offers in its box: the last command used, else one inferred from the workspace. */
export async function prefillCommand(context: vscode.ExtensionContext, client: LanguageClient): Promise<string> {
  const last = context.workspaceState.get<string>(LAST_COMMAND_KEY, '');
  if (last) return last;
  const doc = vscode.window.activeTextEditor?.document;
  try {
    const r = await client.sendRequest<SuggestCommandResult>(SuggestCommandRequest, { uri: doc?.uri.scheme === 'file' ? doc.uri.toString() : undefined });
    return r?.commandLine ?? '';
  } catch {
    return '';
  }
}

/** braid.record.runs when the user set it; undefined: the test lens' default, until the evidence is in (issue 29). */
export function testRunsSetting(): number | undefined {
  const runsSetting = vscode.workspace.getConfiguration('braid.record').inspect<number>('runs');
  return [runsSetting?.workspaceFolderValue, runsSetting?.workspaceValue, runsSetting?.globalValue].find((v) => v !== undefined);
}

/** The braid/record parameters of one test's command (the lens and the Testing view's Run with Braid). */
export function testRecordParams(plan: TestCommandResult): RecordParams {
  const params = recordParams(plan.command);
  // the lens records until the evidence is in, unless braid.record.runs is set (issue 29)
  if (testRunsSetting() === undefined) params.runs = 'auto';
  params.name = plan.name;
  params.cwd = plan.cwd;
  params.prepare = plan.prepare;
  if (!params.include?.length) params.include = plan.include;
  if (plan.tool === 'maven' || plan.tool === 'gradle') {
    // a build tool starts slower than a plain program, and parallel builds of one module share target/ (build/)
    params.timeoutSeconds = Math.max(params.timeoutSeconds ?? 60, 300);
    params.jobs = 1;
  }
  return params;
}

/**
 * How a test is named in the progress and the messages: Java `AccountTest.transfer` (the simple
 * class name and the method); JavaScript/TypeScript the describe names and the test's, `Inventory ›
 * two orders` (the file's name for a whole file).
 */
export function testWhat(args: RecordTestArgs): string {
  if (args.framework === 'js') return Array.isArray(args.titles) && args.titles.length ? args.titles.join(' › ') : args.className;
  const simple = args.className.replace(/^.*\./, '');
  return args.method ? `${simple}.${args.method}` : simple;
}

/** Remembers a test's command for Record Runs once it recorded some run (a failed command is not offered again). */
export async function rememberCommand(context: Pick<vscode.ExtensionContext, 'workspaceState'>, result: Pick<RecordResult, 'runs'>, plan: Pick<TestCommandResult, 'commandLine' | 'include' | 'name' | 'cwd'>): Promise<void> {
  if (result.runs <= 0) return;
  await context.workspaceState.update(LAST_COMMAND_KEY, plan.commandLine);
  await context.workspaceState.update(LAST_TEST_KEY, { commandLine: plan.commandLine, include: plan.include, name: plan.name, cwd: plan.cwd } satisfies LastTest);
}

/** braid.recordTest: records runs of one test (code lens or Testing view), then shows the root cause. */
export async function recordTest(context: vscode.ExtensionContext, client: LanguageClient, log: vscode.LogOutputChannel, args: RecordTestArgs): Promise<RecordResult | undefined> {
  if (!(await requireTrust())) return undefined;
  if (!args || typeof args.uri !== 'string' || typeof args.className !== 'string') throw new Error('no test to record: use the "Braid: find the root cause" code lens above a test');
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === args.uri);
  if (doc?.isDirty) await doc.save();
  const plan = await client.sendRequest<TestCommandResult>(TestCommandRequest, args);
  const what = testWhat(args);
  const params = testRecordParams(plan);
  log.info(`recording ${params.runs === 'auto' ? 'until the evidence is in' : `${params.runs} runs`} of the test ${what} (${plan.tool}): ${plan.commandLine}`);
  const result = await recordWithProgress(client, params, `Braid: recording ${what}`);
  // Record Runs offers the last command that recorded runs, never one that failed (issue 43)
  await rememberCommand(context, result, plan);
  const msg = recordedMessage(result, what);
  log.info(`${msg} Traces in ${result.outDir}`);
  if (result.failed === 0) {
    // a test that never failed: the lines where noise makes it fail are the next step
    const find = result.runs > 0 && !result.cancelled ? ['Find Trigger Points'] : [];
    void vscode.window.showInformationMessage(msg, ...find).then((a) => {
      if (a === 'Find Trigger Points') void vscode.commands.executeCommand('braid.findTriggerPoints', plan.commandLine);
    });
    return result;
  }
  // the root cause: the ranked patterns and, when GRIFFIN found a bug, its graph
  await vscode.commands.executeCommand('braid.reanalyze');
  await vscode.commands.executeCommand('braid.patterns.focus');
  void vscode.window.showInformationMessage(msg, 'Open Bug Graph', 'Open Tracer').then((a) => {
    if (a === 'Open Bug Graph') void vscode.commands.executeCommand('braid.openBugGraph');
    if (a === 'Open Tracer') void vscode.commands.executeCommand('braid.openTracer');
  });
  return result;
}

/** The argument of braid.recordTest from the Testing view: the test item's lens found through the code lens provider. */
export async function testItemArgs(item: vscode.TestItem): Promise<RecordTestArgs | undefined> {
  if (!item?.uri) return undefined;
  // another extension's item may arrive as plain data: uri components, range {start, end}
  const uri = item.uri instanceof vscode.Uri ? item.uri : vscode.Uri.from(item.uri as vscode.Uri);
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
  const ours = lenses.filter((l) => l.command?.command === 'braid.recordTest' && l.command.arguments?.[0]);
  const r = item.range as { start: { line: number }; end: { line: number } } | undefined;
  const inside = r ? ours.filter((l) => l.range.start.line >= r.start.line && l.range.start.line <= r.end.line) : ours;
  // the first lens inside the item's range: the class's name comes before its methods, a method's after its annotations
  const hit = inside.sort((a, b) => a.range.start.line - b.range.start.line)[0] ?? ours[0];
  return hit?.command?.arguments?.[0] as RecordTestArgs | undefined;
}
