/**
 * Braid's VS Code extension (the thin client): starts the language server,
 * shows its results in the Braid activity-bar views, the status bar, heat
 * decorations and webviews, and forwards commands to it.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { AnalysisSummaryDto, LineScoresNotification, LineScoresParams } from '../../server/src/lsp/protocol';
import { registerCommands } from './commands';
import { HeatDecorations } from './heat';
import { BraidModel } from './model';
import { BugsTree, ExplanationsTree, PatternsTree, RunsTree } from './trees';
import { registerWebviews } from './webviews/panels';
import { registerMethodsView } from './methodsTree';
import { MAX_RESTARTS, restartAfterStop } from './restartPolicy';
import { TriggerPointDecorations } from './triggerPoints';
import { TriggerPointsChangedNotification, TriggerPointsRequest, TriggerPointsResult, WorkspaceTrustNotification } from '../../server/src/lsp/protocol';
import { mdText } from '../../server/src/engine/outputEscaping';
import { registerTesting } from './testing';
import { lmApi, registerLanguageModelTools } from './lmTools';
import { registerAddMcpServer } from './mcpServerCommand';
import { testRecordParams } from './recording';
import { noRunsStatus, RESULTS_CONTEXT, resultsContext } from './emptyStates';

let client: LanguageClient | undefined;

/** Commands the hover's command links may run (markdown isTrusted). */
const HOVER_COMMANDS = ['braid.revealPattern', 'braid.openTracer', 'braid.openBugGraph', 'braid.revealBug', 'braid.openAccess', 'braid.reproduceWithPlan', 'braid.confirmPattern', 'braid.reproduceFailure', 'braid.checkFix'];

export interface BraidApi {
  client: LanguageClient;
  model: BraidModel;
  heat: HeatDecorations;
  triggerPoints: TriggerPointDecorations;
}

export async function activate(context: vscode.ExtensionContext): Promise<BraidApi> {
  const log = vscode.window.createOutputChannel('Braid', { log: true });
  context.subscriptions.push(log);

  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const restarts: number[] = [];
  const clientOptions: LanguageClientOptions = {
    // any source file may be named by a trace (Java, Kotlin, Scala, …)
    documentSelector: [{ scheme: 'file' }],
    outputChannel: log,
    markdown: { isTrusted: { enabledCommands: HOVER_COMMANDS }, supportHtml: false },
    // a function: a restarted server gets the trust of the moment (braid/pinpoint needs it)
    initializationOptions: () => ({ settings: vscode.workspace.getConfiguration('braid'), trusted: vscode.workspace.isTrusted }),
    errorHandler: {
      error: (error, _message, count) => {
        log.error(`connection error: ${error?.message ?? error}`);
        return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown };
      },
      closed: () => {
        if (restartAfterStop(restarts, Date.now())) {
          log.warn(`the language server stopped unexpectedly; restarting (${restarts.length}/${MAX_RESTARTS} in 3 minutes)`);
          void vscode.window.showWarningMessage('Braid: the language server stopped unexpectedly and was restarted.', 'Show Output').then((a) => {
            if (a) log.show(true);
          });
          return { action: CloseAction.Restart, handled: true };
        }
        return {
          action: CloseAction.DoNotRestart,
          message: `Braid: the language server crashed ${MAX_RESTARTS} times in 3 minutes and stays stopped. See the Braid output; run "Developer: Reload Window" to start it again.`,
        };
      },
    },
  };
  client = new LanguageClient('braid', 'Braid', serverOptions, clientOptions);
  const c = client;

  const model = new BraidModel(c, log);
  context.subscriptions.push(model);
  const heat = new HeatDecorations(context);
  context.subscriptions.push(heat);
  c.onNotification(LineScoresNotification, (p: LineScoresParams) => heat.update(p));
  const triggerPoints = new TriggerPointDecorations(context);
  context.subscriptions.push(triggerPoints);
  c.onNotification(TriggerPointsChangedNotification, (p: TriggerPointsResult) => triggerPoints.update(p));
  // a plan's hint shows the rate its latest Reproduce with Plan measured (issue 30, point 4)
  context.subscriptions.push(model.onDidChange(() => triggerPoints.setRuns(model.runs, (dir) => model.recordings.get(dir)?.startedAt)));

  const runsTree = new RunsTree(model);
  const patternsTree = new PatternsTree(model);
  const bugsTree = new BugsTree(model);
  const runsView = vscode.window.createTreeView('braid.runs', { treeDataProvider: runsTree, showCollapseAll: false });
  const patternsView = vscode.window.createTreeView('braid.patterns', { treeDataProvider: patternsTree, showCollapseAll: true });
  const bugsView = vscode.window.createTreeView('braid.bugs', { treeDataProvider: bugsTree, showCollapseAll: true });
  const explanationsTree = new ExplanationsTree(model);
  const explanationsView = vscode.window.createTreeView('braid.explanations', { treeDataProvider: explanationsTree, showCollapseAll: true });
  context.subscriptions.push(runsView, patternsView, bugsView, explanationsTree, explanationsView);
  context.subscriptions.push(vscode.commands.registerCommand('braid.refreshExplanations', () => explanationsTree.refresh()));

  const status = vscode.window.createStatusBarItem('braid.status', vscode.StatusBarAlignment.Left, 10);
  status.name = 'Braid';
  status.command = 'workbench.view.extension.braid';
  const showStatus = (s: AnalysisSummaryDto) => {
    const ex = s.executions;
    if (s.state === 'analyzing') {
      status.text = '$(sync~spin) Braid: analyzing…';
      status.tooltip = s.message ?? 'Braid is analyzing the traces';
    } else if (ex.total === 0) {
      // after an edit the recordings are of the code before it: not "no traces found" (emptyStates.ts)
      ({ text: status.text, tooltip: status.tooltip } = noRunsStatus(model.older));
    } else {
      status.text = `$(pulse) Braid: ${ex.total} runs (${ex.failed} failed) · top ${s.topScore.toFixed(2)}`;
      status.tooltip = new vscode.MarkdownString(
        `**Braid**: ${ex.total} runs, ${ex.failed} failed, ${ex.passed} passed\n\n${s.patternCount} ranked patterns, top score ${s.topScore.toFixed(3)}, ${s.bugCount} bugs${s.message ? `\n\n${mdText(s.message)}` : ''}`, // the message may name trace files: text (outputEscaping.ts)
      );
    }
    // no runs at all: the views' welcome text says what to do (no error-like message above it)
    patternsView.message = s.state === 'done' && s.message && ex.total > 0 ? s.message : undefined;
    runsView.description = ex.total ? `${ex.failed} failed / ${ex.total}` : undefined;
    bugsView.description = s.bugCount ? String(s.bugCount) : undefined;
    status.show();
  };
  context.subscriptions.push(status, model.onDidChangeStatus(showStatus));
  showStatus(model.summary);
  // the empty views' welcome texts say what is true after an edit (package.json viewsWelcome, emptyStates.ts)
  context.subscriptions.push(
    model.onDidChange(() => void vscode.commands.executeCommand('setContext', RESULTS_CONTEXT, resultsContext(model))),
  );

  const webviews = registerWebviews(context, {
    request: <R>(method: string, params?: unknown) => model.request<R>(method, params),
    onDidChange: (listener: () => void) => model.onDidChange(listener),
  });

  registerCommands({ context, client: c, model, log, webviews, patternsView, patternsTree, bugsView, bugsTree, runsTree, runsView });
  registerMethodsView(context, model, () => webviews.openMethods());

  context.subscriptions.push(
    c.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        void model.refresh();
        void c.sendRequest<TriggerPointsResult>(TriggerPointsRequest).then((p) => triggerPoints.update(p), () => undefined);
      }
      if (e.newState === State.Stopped) {
        status.text = '$(error) Braid: server stopped';
        status.tooltip = 'The Braid language server is not running. See the Braid output.';
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: Record Runs and Find Trigger Points are available');
      if (c.isRunning()) void c.sendNotification(WorkspaceTrustNotification, { trusted: true });
    }),
  );
  void vscode.commands.executeCommand('setContext', 'braid.active', true);
  // "Find the Root Cause" in the Testing view's context menu when the Java test runner provides the tests
  const javaTestRunner = () => void vscode.commands.executeCommand('setContext', 'braid.javaTestRunner', !!vscode.extensions.getExtension('vscjava.vscode-java-test'));
  javaTestRunner();
  context.subscriptions.push(vscode.extensions.onDidChange(javaTestRunner));

  try {
    await c.start();
    log.info('Braid language server started');
  } catch (err) {
    log.error(`could not start the Braid language server: ${(err as Error)?.message ?? err}`);
    void vscode.window.showErrorMessage(`Braid: could not start the language server: ${(err as Error)?.message ?? err}`);
  }
  // the Testing view: "Run with Braid (N× with noise)" on the tests the lens finds (client/src/testing.ts)
  context.subscriptions.push(registerTesting(c, log, context));
  // agent mode: Braid's language-model tools (VS Code 1.95+; lmTools.ts) and its MCP server in .vscode/mcp.json
  const lm = lmApi(vscode);
  if (!lm) log.info('this VS Code has no language-model tool API (1.95+): Braid: Add MCP Server to Workspace gives agents Braid\'s tools');
  context.subscriptions.push(
    ...registerLanguageModelTools(lm, {
      request: (method, params, token) => c.sendRequest(method, params, token as vscode.CancellationToken | undefined),
      trusted: () => vscode.workspace.isTrusted,
      folder: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      recordParams: testRecordParams,
      message: (text) => new vscode.MarkdownString(text),
    }),
    registerAddMcpServer(context),
  );
  return { client: c, model, heat, triggerPoints };
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop().catch(() => undefined);
  client = undefined;
}
