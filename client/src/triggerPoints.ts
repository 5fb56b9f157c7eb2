/**
 * Trigger points in the editor (seed 004, issue 17): "Braid: Find Trigger Points" (braid/pinpoint
 * with a cancellable progress notification; offers Reproduce and shows the points), "Braid:
 * Reproduce with Plan" (braid/record with the plan's `--plan`), and the trigger-point decorations
 * (a gutter target, an overview-ruler mark and an inline hint) from braid/triggerPoints.
 */
import * as vscode from 'vscode';
import * as path from 'path';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  NoisePlanDto,
  PinpointParams,
  PinpointRequest,
  PinpointResultDto,
  RecordParams,
  RunDto,
  TriggerPointLineDto,
  TriggerPointsRequest,
  TriggerPointsResult,
} from '../../server/src/lsp/protocol';
import { splitCommandLine } from './argv';
import { requestWithProgress } from './progressRequest';
import { normalize } from './heat';
import { LAST_COMMAND_KEY, prefillCommand, recordParams, recordWithProgress, requireTrust, saidNothing, withLastTest } from './recording';
import { percent, pinpointSummary, planRates, pointItems, reproducedMessage, triggerHint, type PlanRate } from './triggerPointText';
import { dialogLine } from './commandDialog';

export const FIND_TRIGGER_POINTS = 'braid.findTriggerPoints';
export const REPRODUCE_WITH_PLAN = 'braid.reproduceWithPlan';

export interface TriggerPointDeps {
  context: vscode.ExtensionContext;
  client: LanguageClient;
  log: vscode.LogOutputChannel;
}

type Register = (id: string, fn: (...args: any[]) => unknown) => void;


/** Asks for the command to run (prefilled), like Record Runs; undefined when the user cancels. */
async function askCommand(d: TriggerPointDeps, title: string, prompt: string, value: string): Promise<string | undefined> {
  const answer = await vscode.window.showInputBox({
    title,
    prompt,
    placeHolder: 'java -cp out bank.Bank   or   mvn -o -q test -Dtest=AccountTest',
    value,
    ignoreFocusOut: true,
  });
  const line = answer ?? '';
  if (!line.trim()) {
    saidNothing(answer, 'run');
    return undefined;
  }
  await d.context.workspaceState.update(LAST_COMMAND_KEY, line);
  return line;
}

/** braid/pinpoint with a cancellable progress notification fed by the request's work-done progress. */
export function pinpointWithProgress(client: LanguageClient, params: PinpointParams): Promise<PinpointResultDto> {
  return requestWithProgress<PinpointResultDto>(client, 'Braid: finding trigger points', PinpointRequest, params);
}

/** The button that runs Find Trigger Points again with noise in one thread at a time (`perThread`). */
export const SEARCH_PER_THREAD = 'Search Per Thread';

export function registerTriggerPointCommands(d: TriggerPointDeps, reg: Register): void {
  const { context, client, log } = d;

  reg(FIND_TRIGGER_POINTS, async (commandArg?: unknown, searchArg?: unknown) => {
    if (!(await requireTrust())) return undefined;
    // from the editor's context menu the argument is the file's Uri: not a command
    let line = typeof commandArg === 'string' ? commandArg : vscode.workspace.getConfiguration('braid.record').get<string>('command', '');
    if (!line) {
      line =
        (await askCommand(
          d,
          'Braid: Find Trigger Points',
          'Command that runs the flaky program or test: Braid runs it up to braid.pinpoint.budget times with noise at chosen points',
          await prefillCommand(context, client),
        )) ?? '';
      if (!line) return undefined;
    }
    const command = splitCommandLine(line);
    const rec = withLastTest(context, line, recordParams(command));
    const cfg = vscode.workspace.getConfiguration('braid.pinpoint');
    const params: PinpointParams = {
      command,
      budget: cfg.get<number>('budget', 400),
      candidates: cfg.get<string>('candidates', 'patterns') === 'all' ? 'all' : 'patterns',
      ...(cfg.get<boolean>('perThread', false) === true || (searchArg as { perThread?: unknown } | undefined)?.perThread === true ? { perThread: true } : {}),
      include: rec.include ?? [],
      timeoutSeconds: rec.timeoutSeconds,
      jobs: rec.jobs,
      ...(rec.name ? { name: rec.name } : {}),
      ...(rec.cwd ? { cwd: rec.cwd } : {}),
    };
    log.info(`finding trigger points (budget ${params.budget} runs, candidates ${params.candidates}) of ${command.join(' ')}`);
    const result = await pinpointWithProgress(client, params);
    const summary = pinpointSummary(result);
    log.info(`${summary}${result.plan ? ` Plan: ${result.plan}` : ''}`);
    // the budget went on a program that fails without noise: offer the same search with noise in one thread at a time
    const perThread = result.suggestPerThread ? [SEARCH_PER_THREAD] : [];
    const searchPerThread = (a: string | undefined) => {
      if (a === SEARCH_PER_THREAD) void vscode.commands.executeCommand(FIND_TRIGGER_POINTS, line, { perThread: true });
    };
    if (!result.points.length || !result.plan) {
      void vscode.window.showInformationMessage(summary, ...perThread).then(searchPerThread);
      return result;
    }
    // show the points: the best one in the editor (with its decoration and hover), all of them on demand
    const lines = await pointLinesOfPlan(client, result.plan);
    const best = lines.sort((a, b) => a.line.rank - b.line.rank)[0];
    if (best) await vscode.commands.executeCommand('braid.openAccess', best.uri, best.line.line);
    void vscode.window.showInformationMessage(summary, 'Reproduce', 'All Trigger Points', ...perThread).then(async (a) => {
      if (a === 'Reproduce') void vscode.commands.executeCommand(REPRODUCE_WITH_PLAN, result.plan);
      if (a === 'All Trigger Points') await pickPoint(result, lines);
      searchPerThread(a);
    });
    return result;
  });

  reg(REPRODUCE_WITH_PLAN, async (arg?: unknown) => {
    if (!(await requireTrust())) return undefined;
    const data = await client.sendRequest<TriggerPointsResult>(TriggerPointsRequest);
    const file = typeof arg === 'string' ? arg : arg instanceof vscode.Uri ? arg.fsPath : undefined;
    let plan: NoisePlanDto | undefined;
    if (file) {
      plan = data.plans.find((p) => samePath(p.file, file));
      if (!plan) throw new Error(`${path.basename(file)} is not a noise plan of this workspace (.braid/plans/*.json)`);
    } else if (data.plans.length === 1) plan = data.plans[0];
    else if (data.plans.length === 0) {
      const a = await vscode.window.showInformationMessage('Braid: no noise plan yet (.braid/plans). "Find Trigger Points" finds the points and writes one.', 'Find Trigger Points');
      if (a) void vscode.commands.executeCommand(FIND_TRIGGER_POINTS);
      return undefined;
    } else {
      const pick = await vscode.window.showQuickPick(
        data.plans.map((p) => ({
          label: p.name,
          description: `${p.triggers} trigger point${p.triggers === 1 ? '' : 's'}${p.runs !== undefined ? ` · found in ${p.runs} runs` : ''}`,
          detail: `${planLabel(p.file)}${p.command ? ` · command from the plan: ${quoteLine(p.command)}` : ''}`,
          plan: p,
        })),
        { title: 'Braid: Reproduce with Plan', placeHolder: 'Noise plan to record with' },
      );
      plan = pick?.plan;
    }
    if (!plan) return undefined;
    // the plan's command is workspace content (a cloned repository's file): the box says where it
    // came from and shows it whole, and running it needs a confirmation that names the file
    const fromPlan = plan.command ? quoteLine(plan.command) : undefined;
    const where = planLabel(plan.file);
    const line = await askCommand(
      d,
      `Braid: Reproduce with Plan ${plan.name}`,
      fromPlan
        ? `Command from the noise plan ${dialogLine(where)} (a file of the workspace, not typed by you; check all of it before running): ${dialogLine(fromPlan)}`
        : 'Command to record with the noise plan (noise only at its points)',
      fromPlan ?? (await prefillCommand(context, client)),
    );
    if (!line) return undefined;
    if (fromPlan !== undefined) {
      const runs = vscode.workspace.getConfiguration('braid.record').get<number>('runs', 20);
      const ok = await vscode.window.showWarningMessage(
        `Braid: run this command${line.trim() === fromPlan ? `, which comes from the noise plan ${dialogLine(where)},` : ` (edited from the command of the noise plan ${dialogLine(where)})`} ${runs} times?`,
        // shown escaped: control and bidirectional characters in a plan's command cannot hide what runs
        { modal: true, detail: dialogLine(line) },
        RUN,
      );
      if (ok !== RUN) return undefined;
    }
    const command = splitCommandLine(line);
    const params: RecordParams = { ...withLastTest(context, line, recordParams(command)), plan: plan.file };
    // the plan says where and how much noise: braid.record.noise does not apply
    delete params.noise;
    log.info(`recording ${params.runs} runs with the noise plan ${plan.file}: ${command.join(' ')}`);
    const result = await recordWithProgress(client, params, `Braid: reproducing with plan ${plan.name}`);
    const msg = reproducedMessage(result, plan.name);
    log.info(`${msg} Traces in ${result.outDir}`);
    void vscode.window.showInformationMessage(msg, 'Show Ranked Patterns').then((a) => {
      if (a) void vscode.commands.executeCommand('braid.patterns.focus');
    });
    return result;
  });
}

/** The trigger points of one plan with their workspace file (from braid/triggerPoints). */
async function pointLinesOfPlan(client: LanguageClient, planFile: string): Promise<{ uri: string; line: TriggerPointLineDto }[]> {
  try {
    const data = await client.sendRequest<TriggerPointsResult>(TriggerPointsRequest);
    return data.files.flatMap((f) => f.lines.filter((l) => samePath(l.planFile, planFile)).map((line) => ({ uri: f.uri, line })));
  } catch {
    return [];
  }
}

async function pickPoint(result: PinpointResultDto, lines: { uri: string; line: TriggerPointLineDto }[]): Promise<void> {
  const items = pointItems(result).map((it, k) => ({ ...it, point: result.points[k] }));
  const pick = await vscode.window.showQuickPick(items, { title: 'Braid: trigger points', placeHolder: 'Open a trigger point' });
  if (!pick) return;
  const hit = lines.find((l) => l.line.rank === pick.point.rank && l.line.line === pick.point.line);
  if (hit) await vscode.commands.executeCommand('braid.openAccess', hit.uri, hit.line.line);
  else void vscode.window.showWarningMessage(`Braid: ${pick.point.file} is not in the workspace (see braid.sourceRoots).`);
}

/** The button of the confirmation before a plan's command runs. */
export const RUN = 'Run';

/** A plan file as people find it: relative to its workspace folder (`.braid/plans/x.json`), else the absolute path. */
export function planLabel(file: string): string {
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    const rel = path.relative(f.uri.fsPath, file);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return file;
}

function samePath(a: string, b: string): boolean {
  return path.resolve(a) === path.resolve(b);
}

/** The command as one line for the input box (arguments with spaces or quotes quoted, as splitCommandLine reads them). */
export function quoteLine(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./#-]+$/.test(a) ? a : `"${a.replace(/(["\\$`])/g, '\\$1')}"`)).join(' ');
}

/**
 * Trigger-point decorations: a target in the gutter (light and dark icons in media/), a mark in
 * the overview ruler's left lane (the heat uses the right one) and an inline hint
 * (`◎ trigger #1 · fails 2% → 61%`). Off with braid.triggerPoints.enabled.
 */
export class TriggerPointDecorations implements vscode.Disposable {
  private readonly type: vscode.TextEditorDecorationType;
  private byUri = new Map<string, TriggerPointLineDto[]>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext) {
    this.type = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      overviewRulerColor: new vscode.ThemeColor('braid.triggerPointRuler'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
      light: { gutterIconPath: context.asAbsolutePath('media/trigger-point-light.svg') },
      dark: { gutterIconPath: context.asAbsolutePath('media/trigger-point-dark.svg') },
      gutterIconSize: 'contain',
      after: { color: new vscode.ThemeColor('braid.triggerPointForeground'), margin: '0 0 0 2em', fontStyle: 'italic' },
    });
    this.subs.push(
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('braid.triggerPoints')) this.paintAll();
      }),
    );
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration('braid').get<boolean>('triggerPoints.enabled', true);
  }

  update(p: TriggerPointsResult): void {
    this.byUri = new Map(p.files.map((f) => [normalize(f.uri), f.lines]));
    this.paintAll();
  }

  private rates = new Map<string, PlanRate>();
  /** The runs of the analysis: a plan's latest recording (Reproduce with Plan) gives its hint the measured rate. */
  setRuns(runs: readonly RunDto[], startedAt?: (folder: string) => string | undefined): void {
    const rates = new Map([...planRates(runs, startedAt)].map(([file, r]) => [path.resolve(file), r]));
    const same = rates.size === this.rates.size && [...rates].every(([k, r]) => this.rates.get(k)?.failed === r.failed && this.rates.get(k)?.runs === r.runs);
    this.rates = rates;
    if (!same) this.paintAll();
  }

  /** the measured rate of a plan: by its file, else by its file name (a run may name the plan relative to where it was recorded) */
  private measured = (planFile: string): PlanRate | undefined => {
    const exact = this.rates.get(path.resolve(planFile));
    if (exact) return exact;
    const byName = [...this.rates].filter(([f]) => path.basename(f) === path.basename(planFile));
    return byName.length === 1 ? byName[0][1] : undefined;
  };

  /** the trigger points of a document */
  linesOf(uri: vscode.Uri): TriggerPointLineDto[] {
    return this.byUri.get(normalize(uri.toString())) ?? [];
  }

  paintAll(): void {
    for (const e of vscode.window.visibleTextEditors) this.paint(e);
  }

  private paint(editor: vscode.TextEditor): void {
    const byLine = new Map<number, TriggerPointLineDto[]>();
    if (this.enabled) {
      for (const l of this.byUri.get(normalize(editor.document.uri.toString())) ?? []) {
        if (l.line < 1 || l.line > editor.document.lineCount) continue;
        byLine.set(l.line, [...(byLine.get(l.line) ?? []), l]);
      }
    }
    const ranges: vscode.DecorationOptions[] = [...byLine].map(([line, ls]) => ({
      range: editor.document.lineAt(line - 1).range,
      renderOptions: { after: { contentText: triggerHint(ls, this.measured) } },
    }));
    editor.setDecorations(this.type, ranges);
  }

  dispose(): void {
    this.type.dispose();
    for (const s of this.subs) s.dispose();
  }
}

