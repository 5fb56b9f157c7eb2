/**
 * The Testing view (issue 29, point 5): a test controller "Braid" whose items are the JUnit 4/5 and
 * TestNG tests, and the node:test, mocha, jest and vitest files, suites and tests (issue 32), that the
 * "find the root cause" lens finds (braid/testItems), and a run profile
 * "Run with Braid (N× with noise)" that records each selected test as the lens does
 * (braid/testCommand, braid/record with braid.record.*; `auto` until the evidence is in) and maps
 * the server's report (braid/testRunReport) onto the run: "failed k of N (x %)" beside the test,
 * the test failed as flaky with one message per distinct failure (assertion text, where it was
 * raised) and a link to the root cause; a test that never failed passes "passed N of N with noise"
 * and its output points at Find Trigger Points. Cancel in the Testing view cancels the recording
 * (the runs so far are kept and analyzed). All the logic is the server's: this maps its answers.
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
  TestCommandRequest,
  TestCommandResult,
  TestItemDto,
  TestItemsRequest,
  TestItemsResult,
  TestRunReportDto,
  TestRunReportRequest,
} from '../../server/src/lsp/protocol';
import { rememberCommand, testRecordParams, testRunsSetting, testWhat } from './recording';
import { mdText } from '../../server/src/engine/outputEscaping';

export const CONTROLLER_ID = 'braid';
/** The sources whose tests the Testing view lists: Java, and JS/TS test files (the server decides which are tests). */
export const TEST_SOURCE = /\.(?:java|[cm]?[jt]s|[jt]sx)$/i;
const TEST_SOURCE_GLOB = '**/*.{java,js,mjs,cjs,jsx,ts,mts,cts,tsx}';
/** the root-cause button of a flaky test's messages (package.json `testing/message/content`) and their Markdown link */
export const ROOT_CAUSE_COMMAND = 'braid.testing.showRootCause';
export const FLAKY_MESSAGE_CONTEXT = 'braid.flaky';
/** "Run with Braid" on a test's row, its context menu and the gutter (issue 43: every built-in button says "Run Test") */
export const RUN_WITH_BRAID_COMMAND = 'braid.testing.runWithBraid';

type Client = Pick<LanguageClient, 'sendRequest' | 'onNotification'>;
type RootCause = NonNullable<TestRunReportDto['rootCause']>;

/** The profile's label: the runs it records (braid.record.runs), or until the evidence is in (the lens' default). */
export function profileLabel(runs = testRunsSetting()): string {
  return runs === undefined ? 'Run with Braid (until the evidence is in, with noise)' : `Run with Braid (${runs}× with noise)`;
}

/** the widest progress line: Test Results wraps a longer one, and `\r` then returns only to its last row (a new line per update) */
export const PROGRESS_CHARS = 56;

/** One progress notification as one short line of the test's output, rewritten in place. */
export function progressText(p: RecordProgressParams, auto: boolean): string {
  const text = p.done === 0 && p.message ? p.message : auto ? `${p.done} runs · ${p.failed} failed${p.evidence ? ` · ${p.evidence}` : ''}` : `${p.done}/${p.total} runs · ${p.failed} failed, ${p.passed} passed`;
  return text.length > PROGRESS_CHARS ? `${text.slice(0, PROGRESS_CHARS - 1)}…` : text;
}

/**
 * The result beside the test in the Test Explorer, short enough for the default side-bar width
 * (`failed 15 of 80 (19 %)` was cut): `✗ 15/80 · 19 %`, `✓ 80/80`; after a change, the rate before
 * it instead of the percentage (`✓ 200/200 · was ✗ 15/80`). The long form is in the messages and the output.
 */
export function shortSummary(r: Pick<TestRunReportDto, 'outcome' | 'runs' | 'failed' | 'summary' | 'before'>): string {
  if (r.outcome === 'none' && r.runs === 0) return r.summary;
  const pct = (k: number, n: number) => {
    const x = (k / n) * 100;
    return x > 0 && x < 1 ? x.toFixed(1) : String(Math.round(x));
  };
  // with the rate before a change, the percentage gives way
  const now = r.failed > 0 ? `✗ ${r.failed}/${r.runs}${r.before ? '' : ` · ${pct(r.failed, r.runs)} %`}` : `✓ ${r.runs}/${r.runs}`;
  const was = r.before ? ` · was ${r.before.failed > 0 ? `✗ ${r.before.failed}/${r.before.runs}` : `✓ ${r.before.runs}/${r.before.runs}`}` : '';
  return `${now}${was}`;
}

/** globalState key: the user was told once that ▷ records the test many times (issue 43) */
export const LONG_RUN_ACKNOWLEDGED = 'braid.testing.longRunAcknowledged';

/** The first-run warning: what ▷ (Run with Braid) does and how long it may take. */
export function longRunWarning(runs = testRunsSetting()): string {
  return runs === undefined
    ? 'Run with Braid records the test again and again with timing noise until the evidence is in (rounds of 10 runs, up to 200 runs or 300 s) to find the root cause of a flaky failure. It usually takes 40 s to 5 minutes; the Testing view\'s stop button keeps the runs so far.'
    : `Run with Braid records the test ${runs} times with timing noise to find the root cause of a flaky failure. It can take minutes; the Testing view's stop button keeps the runs so far.`;
}

const errorText = (e: unknown) => (e as Error)?.message ?? String(e);

/**
 * Text as Markdown that reads as the text: the project's one Markdown escaper (mdText: every ASCII
 * punctuation mark escaped, so no link, bare-URL autolink, HTML or `$(icon)` survives; line breaks
 * become spaces), the spaces kept. MarkdownString.appendText turns every space into `&nbsp;`, so a
 * long root-cause sentence would not wrap in the peek or in Test Results (seen in code-server).
 */
export const markdownText = mdText;

export class BraidTesting implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly profile: vscode.TestRunProfile;
  /** test item id → the lens' argument (braid/testCommand) */
  private readonly args = new Map<string, RecordTestArgs>();
  /** file uri → ids of its top-level items */
  private readonly files = new Map<string, string[]>();
  /** test item id → the summary of its last run ("failed k of N (x %)"), its description, kept when its file's items are listed again */
  private readonly summaries = new Map<string, string>();
  /** test item id → its root cause from the last run */
  private readonly rootCauses = new Map<string, RootCause>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** runs go one after the other (one recording at a time, one progress handler) */
  private queue: Promise<void> = Promise.resolve();
  private loadedAll = false;

  constructor(
    private readonly client: Client,
    private readonly log: Pick<vscode.LogOutputChannel, 'info' | 'error'>,
    /** globalState (the first-run warning, asked once) and workspaceState (Record Runs' last command); none: no warning */
    private readonly context?: Pick<vscode.ExtensionContext, 'globalState' | 'workspaceState'>,
  ) {
    const ctrl = (this.controller = vscode.tests.createTestController(CONTROLLER_ID, 'Braid'));
    ctrl.resolveHandler = async (item) => {
      if (!item) await this.loadAll();
    };
    ctrl.refreshHandler = () => this.loadAll();
    this.profile = ctrl.createRunProfile(profileLabel(), vscode.TestRunProfileKind.Run, (request, token) => this.enqueue(request, token), true);
    this.disposables.push(
      ctrl,
      vscode.commands.registerCommand(ROOT_CAUSE_COMMAND, (arg?: unknown) => this.showRootCause(arg)),
      vscode.commands.registerCommand(RUN_WITH_BRAID_COMMAND, (...items: unknown[]) => this.runItems(items)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('braid.record.runs')) this.profile.label = profileLabel();
      }),
      vscode.workspace.onDidOpenTextDocument((d) => this.documentChanged(d, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => this.documentChanged(e.document, 500)),
    );
    const watcher = vscode.workspace.createFileSystemWatcher(TEST_SOURCE_GLOB);
    this.disposables.push(
      watcher,
      watcher.onDidCreate((u) => this.loadedAll && void this.loadFile(u.toString())),
      watcher.onDidChange((u) => this.loadedAll && void this.loadFile(u.toString())),
      watcher.onDidDelete((u) => this.setFile(u.toString(), [])),
    );
    for (const d of vscode.workspace.textDocuments) this.documentChanged(d, 0);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }

  private documentChanged(doc: vscode.TextDocument, delay: number): void {
    if (doc.uri.scheme !== 'file' || !TEST_SOURCE.test(doc.uri.path)) return;
    const uri = doc.uri.toString();
    clearTimeout(this.timers.get(uri));
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        void this.loadFile(uri);
      }, delay),
    );
  }

  /** Every test of the workspace (the Testing view asks when it opens, and on refresh). */
  async loadAll(): Promise<void> {
    try {
      const r = await this.client.sendRequest<TestItemsResult>(TestItemsRequest, {});
      const seen = new Set(r.files.map((f) => f.uri));
      for (const uri of [...this.files.keys()]) if (!seen.has(uri)) this.setFile(uri, []);
      for (const f of r.files) this.setFile(f.uri, f.items);
      this.loadedAll = true;
      if (r.truncated) this.log.info('Testing view: the search for tests stopped at its limit of source files; open a test file to see its tests');
    } catch (e) {
      this.log.error(`Testing view: could not list the tests: ${errorText(e)}`);
    }
  }

  async loadFile(uri: string): Promise<void> {
    try {
      const r = await this.client.sendRequest<TestItemsResult>(TestItemsRequest, { uri });
      this.setFile(uri, r.files.find((f) => f.uri === uri)?.items ?? []);
    } catch (e) {
      this.log.error(`Testing view: could not list the tests of ${uri}: ${errorText(e)}`);
    }
  }

  /**
   * Replaces the items of one file with the server's. An item that is still there is added again
   * under its id, which VS Code takes as an update in place: deleting it first would collapse it in
   * the Test Explorer (and its children with it) every time the file's tests are listed again.
   */
  setFile(uri: string, dtos: TestItemDto[]): void {
    const kept = new Set(dtos.map((d) => d.id));
    for (const id of this.files.get(uri) ?? []) {
      this.forget(this.controller.items.get(id));
      if (!kept.has(id)) this.controller.items.delete(id);
    }
    const items = dtos.map((d) => this.item(d));
    for (const it of items) this.controller.items.add(it);
    if (items.length) this.files.set(uri, items.map((i) => i.id));
    else this.files.delete(uri);
  }

  private forget(item: vscode.TestItem | undefined): void {
    if (!item) return;
    this.args.delete(item.id);
    item.children.forEach((c) => this.forget(c));
  }

  private item(d: TestItemDto): vscode.TestItem {
    const it = this.controller.createTestItem(d.id, d.label, vscode.Uri.parse(d.uri));
    it.range = new vscode.Range(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character);
    const description = this.summaries.get(d.id) ?? d.description;
    if (description) it.description = description;
    this.args.set(d.id, d.args);
    for (const c of d.children) it.children.add(this.item(c));
    return it;
  }

  private enqueue(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const next = this.queue.then(() => this.run(request, token));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The items to record: the included ones (all when none is named) with a lens argument, none inside another one, none excluded. */
  collect(request: vscode.TestRunRequest): vscode.TestItem[] {
    const all: vscode.TestItem[] = [];
    this.controller.items.forEach((i) => all.push(i));
    const include = request.include ?? all;
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const chosen = include.filter((i) => this.args.has(i.id) && !excluded.has(i.id));
    const ids = new Set(chosen.map((i) => i.id));
    const insideChosen = (i: vscode.TestItem) => {
      for (let p = i.parent; p; p = p.parent) if (ids.has(p.id)) return true;
      return false;
    };
    // once each (an item may be named twice)
    return [...new Map(chosen.filter((i) => !insideChosen(i)).map((i) => [i.id, i])).values()];
  }

  /** Run with Braid from a test's menu or the gutter: the items given (VS Code passes the clicked one, and the selection). */
  runItems(args: unknown[]): Promise<void> {
    const ids = new Set<string>();
    for (const a of args.flat()) {
      const id = (a as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string') ids.add(id);
    }
    const items: vscode.TestItem[] = [];
    const find = (c: vscode.TestItemCollection) =>
      c.forEach((i) => {
        if (ids.has(i.id)) items.push(i);
        find(i.children);
      });
    find(this.controller.items);
    if (!items.length) return Promise.resolve();
    // the Testing view's stop button cancels it (the run's own token, run.token)
    return this.enqueue(new vscode.TestRunRequest(items, undefined, this.profile), new vscode.CancellationTokenSource().token);
  }

  /** Once: says that ▷ starts a long recording, and asks to go on. */
  private async acknowledged(): Promise<boolean> {
    const state = this.context?.globalState;
    if (!state || state.get<boolean>(LONG_RUN_ACKNOWLEDGED)) return true;
    const RECORD = 'Record';
    const pick = await vscode.window.showWarningMessage(longRunWarning(), { modal: true, detail: 'Braid asks this once.' }, RECORD);
    if (pick !== RECORD) return false;
    await state.update(LONG_RUN_ACKNOWLEDGED, true);
    return true;
  }

  async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    if (!(await this.acknowledged())) return;
    const run = this.controller.createTestRun(request, 'Braid', true);
    const items = this.collect(request);
    for (const it of items) run.enqueued(it);
    // cancelled by the profile's token or the run's own (a run started from Run with Braid's menu)
    const cancel = new vscode.CancellationTokenSource();
    const subs = [token.onCancellationRequested(() => cancel.cancel()), ...(run.token ? [run.token.onCancellationRequested(() => cancel.cancel())] : [])];
    if (token.isCancellationRequested || run.token?.isCancellationRequested) cancel.cancel();
    try {
      for (const it of items) {
        if (cancel.token.isCancellationRequested) run.skipped(it);
        else await this.runOne(run, it, cancel.token);
      }
    } finally {
      for (const s of subs) s.dispose();
      cancel.dispose();
      run.end();
    }
  }

  private async runOne(run: vscode.TestRun, item: vscode.TestItem, token: vscode.CancellationToken): Promise<void> {
    const args = this.args.get(item.id)!;
    const what = testWhat(args);
    const out = (text: string) => run.appendOutput(text.replace(/\r?\n/g, '\r\n'), undefined, item);
    run.started(item);
    const t0 = Date.now();
    if (!vscode.workspace.isTrusted) {
      run.errored(item, new vscode.TestMessage('Braid: recording runs your program, so it needs a trusted workspace. Analyzing existing traces works without trust.'));
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === args.uri);
    if (doc?.isDirty) await doc.save();
    let plan: TestCommandResult;
    let params: RecordParams;
    let result: RecordResult;
    try {
      plan = await this.client.sendRequest<TestCommandResult>(TestCommandRequest, args);
      params = testRecordParams(plan);
    } catch (e) {
      run.errored(item, new vscode.TestMessage(`Braid: ${errorText(e)}`));
      return;
    }
    const auto = params.runs === 'auto';
    out(`Braid: recording ${what} ${auto ? 'until the evidence is in' : `${params.runs}×`} with noise ${params.noise ?? 0.1} (${plan.tool}): ${plan.commandLine}\n`);
    this.log.info(`Testing view: recording ${auto ? 'until the evidence is in' : `${params.runs} runs`} of ${what} (${plan.tool}): ${plan.commandLine}`);
    const sub = this.client.onNotification(RecordProgressNotification, (p: RecordProgressParams) => out(`\r\x1b[K${progressText(p, auto)}`));
    try {
      result = await this.client.sendRequest<RecordResult>(RecordRequest, params, token);
    } catch (e) {
      out('\n');
      if (token.isCancellationRequested) run.skipped(item);
      else run.errored(item, new vscode.TestMessage(`Braid: ${errorText(e)}`));
      return;
    } finally {
      sub.dispose();
    }
    out('\n');
    if (this.context) await rememberCommand(this.context, result, plan);
    let report: TestRunReportDto;
    try {
      report = await this.client.sendRequest<TestRunReportDto>(TestRunReportRequest, { result, what });
    } catch (e) {
      run.errored(item, new vscode.TestMessage(`Braid: recorded ${result.runs} runs (${result.failed} failed), but the report failed: ${errorText(e)}`));
      return;
    }
    const short = shortSummary(report);
    item.description = short;
    this.summaries.set(item.id, short);
    for (const line of report.output) out(`${line}\n`);
    this.log.info(`Testing view: ${what} ${report.summary}`);
    const duration = Date.now() - t0;
    if (report.rootCause) this.rootCauses.set(item.id, report.rootCause);
    else this.rootCauses.delete(item.id);
    if (report.outcome === 'failed') run.failed(item, this.messages(item, report), duration);
    else if (report.outcome === 'passed') run.passed(item, duration);
    else run.skipped(item);
  }

  /** The failed test's messages: "flaky: failed k of N runs with noise" (with the root cause) at the test, then each distinct failure where it was raised. */
  messages(item: vscode.TestItem, report: TestRunReportDto): vscode.TestMessage[] {
    const rc = report.rootCause;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [ROOT_CAUSE_COMMAND] };
    md.appendMarkdown(markdownText(report.message ?? report.summary));
    if (rc) {
      md.appendMarkdown('\n\n');
      md.appendMarkdown(markdownText(`Root cause — pattern #${rc.rank}${rc.bug ? ` (Bug ${rc.bug})` : ''}: ${rc.sentence}`));
      // on its own line: the peek's "Show the Root Cause" button floats over the end of the sentence's line
      md.appendMarkdown(`\n\n[Show the root cause](command:${ROOT_CAUSE_COMMAND}?${encodeURIComponent(JSON.stringify([rc.key]))})`);
    }
    const head = new vscode.TestMessage(md);
    if (item.uri && item.range) head.location = new vscode.Location(item.uri, item.range);
    const messages = [head];
    for (const f of report.failures) {
      const text = `${f.message ?? f.reason} — ${f.runs} of ${report.runs} runs`;
      const m = f.expected !== undefined && f.actual !== undefined ? vscode.TestMessage.diff(text, f.expected, f.actual) : new vscode.TestMessage(text);
      if (f.location?.uri) m.location = new vscode.Location(vscode.Uri.parse(f.location.uri), new vscode.Position(Math.max(0, f.location.line - 1), 0));
      messages.push(m);
    }
    if (rc) for (const m of messages) m.contextValue = FLAKY_MESSAGE_CONTEXT;
    return messages;
  }

  /** The root cause of a test's last run: the pattern revealed in the Ranked Patterns view, then its first access opened in the editor. */
  async showRootCause(arg: unknown): Promise<void> {
    const a = arg as { test?: { id?: unknown } } | string | undefined;
    const rc =
      typeof a === 'string'
        ? [...this.rootCauses.values()].find((r) => r.key === a)
        : typeof a?.test?.id === 'string'
          ? this.rootCauses.get(a.test.id)
          : undefined;
    const key = typeof a === 'string' ? a : rc?.key;
    if (!key) {
      void vscode.window.showInformationMessage('Braid: no root cause for this test yet — run it with Braid first.');
      return;
    }
    await vscode.commands.executeCommand('braid.revealPattern', key);
    if (rc?.uri && rc.line) {
      const line = Math.max(0, rc.line - 1);
      await vscode.window.showTextDocument(vscode.Uri.parse(rc.uri), { selection: new vscode.Range(line, 0, line, 0), preview: true });
    }
  }
}

export function registerTesting(client: Client, log: Pick<vscode.LogOutputChannel, 'info' | 'error'>, context?: Pick<vscode.ExtensionContext, 'globalState' | 'workspaceState'>): BraidTesting {
  return new BraidTesting(client, log, context);
}
