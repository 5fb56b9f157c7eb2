/**
 * Braid's commands: Record Runs, Import Traces, Re-analyze, Open Bug Graph,
 * Open Tracer, Export SARIF, and the internal ones behind clicks and hover
 * links (open an access, reveal a pattern or bug in the views).
 */
import { deleteRecording, nodeFile, setExcluded } from './runActions';
import * as vscode from 'vscode';
import * as path from 'path';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  AnalysisSummaryDto,
  ExportSarifRequest,
  ReanalyzeRequest,
  RecordParams,
  RecordTestArgs,
} from '../../server/src/lsp/protocol';
import { splitCommandLine } from './argv';
import { LAST_COMMAND_KEY, prefillCommand, recordedMessage, recordParams, recordTest, recordWithProgress, requireTrust, saidNothing, testItemArgs, withLastTest } from './recording';
import type { BraidModel } from './model';
import type { BugsTree, Node, PatternsTree, RunsSort, RunsTree } from './trees';
import { workspaceFileOfUri } from './openAccessGuard';
import { registerTriggerPointCommands } from './triggerPoints';
import { registerConfirmCommands } from './confirm';

export interface Webviews {
  openTracer(run?: string, highlightPatternKey?: string): void;
  openUnicorn(): void;
  openGriffin(): void;
  openBugGraph(bug?: number): void;
  openExplanations(): void;
}

export interface CommandDeps {
  context: vscode.ExtensionContext;
  client: LanguageClient;
  model: BraidModel;
  log: vscode.LogOutputChannel;
  webviews: Webviews;
  patternsView: vscode.TreeView<Node>;
  patternsTree: PatternsTree;
  bugsView: vscode.TreeView<Node>;
  bugsTree: BugsTree;
  /** the Runs view: its "failing runs only" filter and sort, and the rows of Check the Fix's verdicts */
  runsTree: Pick<RunsTree, 'setFilter' | 'failingOnly' | 'sort' | 'fixRow' | 'beforeRow'>;
  runsView: Pick<vscode.TreeView<Node>, 'reveal'>;
}

export function registerCommands(d: CommandDeps): void {
  const { context, client, model, log } = d;
  const reg = (id: string, fn: (...args: any[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (err) {
          const msg = (err as Error)?.message ?? String(err);
          log.error(`${id}: ${msg}`);
          void vscode.window.showErrorMessage(`Braid: ${msg}`);
        }
      }),
    );

  // Runs view: "failing runs only" filter and failing-first sort (title-bar toggles; context keys pick the icon shown)
  const runsFilter = (failingOnly: boolean, sort: RunsSort) => {
    d.runsTree.setFilter(failingOnly, sort);
    void vscode.commands.executeCommand('setContext', 'braid.runsFailingOnly', failingOnly);
    void vscode.commands.executeCommand('setContext', 'braid.runsFailingFirst', sort === 'failing');
  };
  reg('braid.runsFailingOnly', () => runsFilter(true, d.runsTree.sort));
  reg('braid.runsShowAll', () => runsFilter(false, d.runsTree.sort));
  reg('braid.runsSortFailingFirst', () => runsFilter(d.runsTree.failingOnly, 'failing'));
  reg('braid.runsSortByRun', () => runsFilter(d.runsTree.failingOnly, 'run'));
  // Runs view: leave a run out of the analysis (or bring it back), delete a whole recording (issue 30)
  reg('braid.excludeRun', async (node?: unknown) => {
    const file = nodeFile(node);
    if (!file) throw new Error('no run selected: right-click a run in the Runs view');
    await setExcluded(file, true);
  });
  reg('braid.includeRun', async (node?: unknown) => {
    const file = nodeFile(node);
    if (!file) throw new Error('no excluded run selected');
    await setExcluded(file, false);
  });
  reg('braid.deleteRecording', (node?: unknown) => deleteRecording(node, model, log));

  reg('braid.openAccess', async (uri: string, line: number) => {
    // links in hovers come from traces: open workspace files only (client/src/openAccessGuard.ts)
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const file = await workspaceFileOfUri(uri, folders);
    if (!file) {
      log.warn(`braid.openAccess: refused ${String(uri).slice(0, 200)}: not a file inside the workspace`);
      void vscode.window.showWarningMessage('Braid: not opening a location outside the workspace folders.');
      return;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const l = Math.max(0, Math.min(doc.lineCount - 1, (Number(line) || 1) - 1));
    const text = doc.lineAt(l);
    const sel = new vscode.Selection(l, text.firstNonWhitespaceCharacterIndex, l, text.range.end.character);
    await vscode.window.showTextDocument(doc, { selection: sel, preview: true });
  });

  reg('braid.revealPattern', async (key: unknown) => {
    const k = typeof key === 'string' ? key : (key as Node | undefined)?.kind === 'pattern' ? (key as Node & { kind: 'pattern' }).pattern.key : undefined;
    if (!k) return;
    if (!model.patternByKey(k)) await model.refresh();
    const node = d.patternsTree.node(k);
    if (!node) {
      void vscode.window.showInformationMessage('Braid: this pattern is not among the patterns shown in the view (see braid.views.maxPatterns).');
      return;
    }
    await d.patternsView.reveal(node, { select: true, focus: true, expand: true });
  });

  // the empty Ranked Patterns / Bugs views after an edit link here (emptyStates.ts): the recordings before the change, their bugs
  reg('braid.showBeforeTheChange', () => showBeforeTheChange(d));

  reg('braid.revealBug', async (id: unknown) => {
    const node = d.bugsTree.node(Number(id));
    if (node) await d.bugsView.reveal(node, { select: true, focus: true, expand: true });
  });

  reg('braid.openTracer', (arg?: unknown, key?: string) => {
    let run: string | undefined;
    let pattern = key;
    if (typeof arg === 'string') run = arg;
    else if (arg && typeof arg === 'object') {
      const n = arg as Node;
      if (n.kind === 'run') run = n.run.execution;
      else if (n.kind === 'pattern') {
        pattern = n.pattern.key;
        run = undefined;
      }
    }
    if (!run && !pattern) run = model.runs.find((r) => r.outcome === 'fail')?.execution ?? model.runs[0]?.execution;
    if (!run && !pattern) {
      // nothing to show: say so, and how to get runs (not an empty Tracer)
      void vscode.window.showInformationMessage(NO_RUNS_YET, 'Record Runs').then((a) => {
        if (a) void vscode.commands.executeCommand('braid.recordRuns');
      });
      return;
    }
    d.webviews.openTracer(run, pattern);
  });

  reg('braid.openBugGraph', (arg?: unknown) => {
    let bug: number | undefined;
    if (typeof arg === 'number') bug = arg;
    else if (typeof arg === 'string' && /^\d+$/.test(arg)) bug = Number(arg);
    else if (arg && typeof arg === 'object' && (arg as Node).kind === 'bug') bug = (arg as Node & { kind: 'bug' }).bug.id;
    if (bug === undefined && model.bugs.length === 0) {
      // no empty graph: what happened, and what to do
      void vscode.window.showInformationMessage(noBugMessage(model.runs));
      return;
    }
    d.webviews.openBugGraph(bug ?? model.bugs[0]?.id);
  });
  reg('braid.openUnicorn', () => d.webviews.openUnicorn());
  reg('braid.openGriffin', () => d.webviews.openGriffin());
  reg('braid.openExplanations', () => d.webviews.openExplanations());

  reg('braid.reanalyze', () =>
    vscode.window.withProgress({ location: { viewId: 'braid.patterns' }, title: 'Braid: re-analyzing' }, async () => {
      const s = await client.sendRequest<AnalysisSummaryDto>(ReanalyzeRequest);
      log.info(`re-analyzed: ${s.executions.total} runs, ${s.patternCount} patterns, ${s.bugCount} bugs`);
      await model.refresh();
    }),
  );

  reg('braid.exportSarif', async () => {
    if (!model.patterns?.length) {
      void vscode.window.showInformationMessage(`Braid: nothing to export yet — no ranked pattern. ${noPatternReason(model.runs)}`);
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, 'braid.sarif') : undefined,
      filters: { SARIF: ['sarif', 'json'] },
      title: 'Export Braid results as SARIF',
    });
    if (!target) return;
    const top = vscode.workspace.getConfiguration('braid').get<number>('sarif.top', 50);
    const text = await client.sendRequest<string>(ExportSarifRequest, { top });
    await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
    const open = await vscode.window.showInformationMessage(`Braid: wrote ${path.basename(target.fsPath)}`, 'Open');
    if (open) await vscode.window.showTextDocument(target);
  });

  reg('braid.importTraces', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) throw new Error('open a folder first: traces are copied into its .braid/traces folder');
    const files = await vscode.window.showOpenDialog({
      canSelectMany: true,
      canSelectFolders: false,
      filters: { 'Braid traces': ['jsonl', 'gz'] },
      openLabel: 'Import',
      title: 'Import Braid traces (*.trace.jsonl, *.trace.jsonl.gz)',
    });
    if (!files?.length) return;
    const dest = vscode.Uri.joinPath(folder, '.braid', 'traces', 'imported');
    await vscode.workspace.fs.createDirectory(dest);
    let n = 0;
    const skipped: string[] = [];
    for (const f of files) {
      const name = path.basename(f.fsPath);
      if (!/\.trace\.jsonl(\.gz)?$/.test(name)) {
        skipped.push(name);
        continue;
      }
      await vscode.workspace.fs.copy(f, vscode.Uri.joinPath(dest, name), { overwrite: true });
      n++;
    }
    log.info(`imported ${n} traces into ${dest.fsPath}${skipped.length ? `; skipped ${skipped.join(', ')}` : ''}`);
    void vscode.window.showInformationMessage(
      `Braid: imported ${n} trace${n === 1 ? '' : 's'} into .braid/traces/imported${skipped.length ? ` (skipped ${skipped.length} files not named *.trace.jsonl[.gz])` : ''}.`,
    );
    await client.sendRequest(ReanalyzeRequest).catch(() => undefined);
  });

  reg('braid.recordRuns', async (commandArg?: unknown) => {
    if (!(await requireTrust())) return;
    const cfg = vscode.workspace.getConfiguration('braid.record');
    let line = typeof commandArg === 'string' ? commandArg : cfg.get<string>('command', '');
    if (!line) {
      const answer = await vscode.window.showInputBox({
        title: 'Braid: Record Runs',
        prompt: 'Command that runs the flaky program or test (set braid.record.command to skip this question)',
        placeHolder: 'java -cp out bank.Bank   or   mvn -o -q test -Dtest=AccountTest',
        value: await prefillCommand(context, client),
        ignoreFocusOut: true,
      });
      line = answer ?? '';
      if (!line.trim()) return saidNothing(answer);
    }
    const command = splitCommandLine(line);
    const params: RecordParams = withLastTest(context, line, recordParams(command));
    log.info(`recording ${params.runs} runs of ${command.join(' ')}`);
    const result = await recordWithProgress(client, params);
    // offered next time: the last command that recorded runs, not one that failed (issue 43)
    if (result.runs > 0) await context.workspaceState.update(LAST_COMMAND_KEY, line);
    const msg = recordedMessage(result);
    log.info(`${msg} Traces in ${result.outDir}`);
    void vscode.window.showInformationMessage(msg, ...(result.runs > 0 ? ['Show Ranked Patterns'] : [])).then((a) => {
      if (a) void vscode.commands.executeCommand('braid.patterns.focus');
    });
  });

  reg('braid.recordTest', async (arg?: unknown) => {
    // from the code lens: RecordTestArgs (uri is a string); from the Testing view's context menu: a test item
    const item = arg as { uri?: unknown } | undefined;
    const args = item && typeof item === 'object' && item.uri && typeof item.uri === 'object' ? await testItemArgs(arg as vscode.TestItem) : (arg as RecordTestArgs | undefined);
    if (!args) throw new Error('no JUnit or TestNG test found here: open the test file and use the "Braid: find the root cause" code lens');
    return recordTest(context, client, log, args);
  });

  reg('braid.toggleHeat', async () => {
    const cfg = vscode.workspace.getConfiguration('braid');
    await cfg.update('heat.enabled', !cfg.get<boolean>('heat.enabled', true), vscode.ConfigurationTarget.Global);
  });
  reg('braid.showOutput', () => log.show(true));
  // Find Trigger Points and Reproduce with Plan (seed 004): client/src/triggerPoints.ts
  registerTriggerPointCommands({ context, client, log }, reg);
  registerConfirmCommands(
    {
      client,
      log,
      pattern: (key) => model.patternByKey(key),
      // after an edit the current code has no analysis yet: Check the Fix from the palette checks the first bug of the code before the change
      first: () => model.patterns[0] ?? model.beforeBugs[0]?.pattern,
      openTracer: (run, key) => d.webviews.openTracer(run, key),
      showFixInRuns: (key) => showFixInRuns(d, key),
      agentJar: () => context.asAbsolutePath('dist/braid-agent.jar'),
    },
    reg,
  );
}

/**
 * "Show in Runs" after Check the Fix: reveals and selects the row that holds the check's verdict
 * (`Bug 1 · lost update — fixed · failed 15/30 before, 0/20 after`, under the recording of the code
 * before the change that it judged). The server lists it once the check is kept: the results are read
 * again first when the row is not there yet.
 */
export async function showFixInRuns(d: Pick<CommandDeps, 'model' | 'runsTree' | 'runsView'>, key: string): Promise<boolean> {
  let row = d.runsTree.fixRow(key);
  if (!row) {
    await d.model.refresh();
    row = d.runsTree.fixRow(key);
  }
  if (row) {
    await d.runsView.reveal(row, { select: true, focus: true });
    return true;
  }
  await vscode.commands.executeCommand('braid.runs.focus');
  void vscode.window.showInformationMessage(FIX_NOT_LISTED);
  return false;
}

/** Reveals, selects and expands the Runs view's row of the recordings just before the change (their bugs, Check the Fix). */
export async function showBeforeTheChange(d: Pick<CommandDeps, 'model' | 'runsTree' | 'runsView'>): Promise<boolean> {
  let row = d.runsTree.beforeRow();
  if (!row) {
    await d.model.refresh();
    row = d.runsTree.beforeRow();
  }
  if (row) {
    await d.runsView.reveal(row, { select: true, focus: true, expand: true });
    return true;
  }
  void vscode.window.showInformationMessage(NOTHING_BEFORE);
  return false;
}

export const NOTHING_BEFORE = 'Braid: no recording of the code before a change: every recording ran the current code.';

/** Show in Runs when the check's recording still counts as one of the current code (no row holds the verdict). */
export const FIX_NOT_LISTED =
  'Braid: the Runs view lists a check\'s verdict under "Before the change", beside the recording it judged, once a source file that recording ran has changed; this recording still counts as one of the current code (see the Braid output for the verdict).';

/** Open Tracer with no run. */
export const NO_RUNS_YET = 'Braid: no recorded runs yet. Record runs of the flaky test ("Braid: find the root cause" above it) or of the program (Record Runs), or import traces.';

/** Why there is no bug, from the runs: none recorded, none failed, or no pattern with evidence yet; and what to do. */
export function noBugMessage(runs: readonly { outcome: string }[]): string {
  if (!runs.length) return NO_RUNS_YET;
  if (!runs.some((r) => r.outcome === 'fail'))
    return `Braid: no bug to show: none of the ${runs.length} runs failed. Record more runs, raise braid.record.noise, or use Find Trigger Points to make the failure appear.`;
  return 'Braid: no bug to show yet: no pattern separates the failing runs from the passing ones with evidence. Record more runs.';
}

/** Why no pattern is ranked, and what to do (Export SARIF with nothing to export). */
export function noPatternReason(runs: readonly { outcome: string }[]): string {
  if (!runs.length) return 'Record runs of the flaky test or program first.';
  if (!runs.some((r) => r.outcome === 'fail')) return `None of the ${runs.length} runs failed: record more runs, raise braid.record.noise, or use Find Trigger Points.`;
  return `The ${runs.length} runs hold no shared access of two threads: check that braid.record.include names the packages of your code, then record again.`;
}
