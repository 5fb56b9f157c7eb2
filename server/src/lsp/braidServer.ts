/**
 * Braid's language server: finds and watches the workspace's traces, has
 * the analysis worker rank them, and serves hovers, code lenses, heat
 * (braid/lineScores), optional diagnostics and the braid/... requests.
 */
import { isExcludedRunsFile, readExcludedRuns } from '../workspace/excludedRuns';
import { isLibraryCode } from '../engine/libraryCode';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CancellationToken,
  CodeLensRefreshRequest,
  Connection,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  Diagnostic as LspDiagnostic,
  DiagnosticSeverity,
  InitializeParams,
  InitializeResult,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
  WatchKind,
  WorkDoneProgressServerReporter,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { sarifReport } from '../engine/report/sarifReport';
import { analyzeTraceFiles, type AnalysisResult, type RunResult } from '../engine/analysis';
import { SummaryCache } from '../engine/summary/summaryCache';
import { confineSourceRoots, SourceResolver } from '../workspace/sourceResolver';
import { TraceFinder, type TraceFileInfo } from '../workspace/traceFinder';
import { AnalysisState, fileUri, toRunDto } from './analysisState';
import { codeLensesFor, diagnosticsFor, findMethodDeclaration, hoverFor } from './features';
import { MethodState, methodHoverLine } from './methodState';
import { FixVerdictStore } from './fixVerdicts';
import {
  AnalysisSummaryDto,
  BugGraphParams,
  BugGraphRequest,
  BugsRequest,
  BugsResult,
  ExplanationsParams,
  ExplanationsRequest,
  ExplanationsResult,
  ExportSarifRequest,
  LineScoresNotification,
  MethodsParams,
  MethodsRequest,
  MethodsResult,
  PatternsParams,
  PatternsRequest,
  PatternsResult,
  ReanalyzeRequest,
  RecordParams,
  RecordRequest,
  RecordTestArgs,
  RunsRequest,
  SuggestCommandParams,
  SuggestCommandRequest,
  SuggestCommandResult,
  TestCommandRequest,
  TestCommandResult,
  UnreadableTraceDto,
  RunsResult,
  type RunDto,
  StatusNotification,
  TraceEventsParams,
  TraceEventsRequest,
  TraceEventsResult,
  PinpointParams,
  PinpointRequest,
  TriggerPointsChangedNotification,
  TriggerPointsRequest,
  TriggerPointsResult,
  WorkspaceTrustNotification,
  WorkspaceTrustParams,
} from './protocol';
import type { Pinpoint } from '../engine/noise/triggerPoints';
import { pinpointFromServer } from './pinpointRequest';
import { isPlanFile, loadPlans, TriggerPointState } from './triggerPointState';
import { BraidSettings, DEFAULT_SETTINGS, normalizeSettings } from './settings';
import { TraceEventPager } from '../engine/trace/traceEventPager';
import { AnalysisWorkerClient } from './workerClient';
import { recordRunsFromServer } from './record';
import { testCodeLenses } from './testLenses';
import { testItemsRequest } from './testItems';
import { testRunReport, type BeforeRecording } from './testRunReport';
import { readRecordingManifest } from '../recorder/runs/recordingManifest';
import { TestItemsRequest, TestRunReportRequest, type TestItemsParams, type TestRunReportParams } from './protocol';
import { commandLine, inferTestCommand, suggestRecordCommand, TestCommandError } from '../recorder/java/testCommand';
import { inferJsTestCommand } from '../recorder/node/jsTestCommand';
import { JS_SOURCE } from '../recorder/node/jsTestDiscovery';
import { ExplanationState } from './explanationState';
import { ConfirmationStore } from './confirmState';
import { confirmCommandFromServer, confirmFromServer } from './confirmRequest';
import { perCallRankingOf } from '../recorder/runs/confirmPerCall';
import { ConfirmCommandRequest, ConfirmRequest, type ConfirmCommandParams, type ConfirmParams } from './protocol';
import { CodeVersions, type OlderRecording } from './codeVersions';
import { IDENTITY, lineMapping, type LineMapping } from './lineMapping';
import { promises as fsp } from 'node:fs';

export function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? path.normalize(fileURLToPath(uri)) : undefined;
  } catch {
    return undefined;
  }
}

export class BraidServer {
  private folders: string[] = [];
  /** verdicts of braid/confirm, by pattern key (.braid/confirm/verdicts.json) */
  private confirmations = new ConfirmationStore(undefined);
  private settings: BraidSettings = DEFAULT_SETTINGS;
  private readonly documents = new TextDocuments(TextDocument);
  private readonly worker: AnalysisWorkerClient;
  private state: AnalysisState | undefined;
  private resolver: SourceResolver | undefined;
  private finder: TraceFinder | undefined;
  private readonly globWarnings = new Set<string>();
  private pager: TraceEventPager | undefined;
  private analyzing = false;
  private pending: { force: boolean } | undefined;
  private running: Promise<void> | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  /** recordings in progress: folder → its finished traces (the others are still being written) */
  private readonly recordings = new Map<string, ReadonlySet<string>>();
  private supportsConfiguration = false;
  private supportsWatchRegistration = false;
  private supportsProgress = false;
  private supportsCodeLensRefresh = false;
  private supportsWorkspaceFolders = false;
  private diagnosedUris = new Set<string>();
  private traceProblemUris = new Set<string>();
  private reportedTraceProblems = new Set<string>();
  private unresolvedThisRound: string[] = [];
  private initialized = false;
  private analyses = 0;
  /** trace files of the last analysis, and a counter bumped whenever they (or their contents) change */
  private traceFiles: string[] = [];
  /** trace files left out of the analysis by the user (excludedRuns.ts) */
  private excludedTraces: string[] = [];
  /** which recordings ran the current code (codeVersions.ts); the others are listed apart, not analyzed */
  private readonly versions = new CodeVersions(() => this.folders, (m) => this.connection.console.warn(m));
  private olderRecordings: OlderRecording[] = [];
  /** the last analysis that still held the recordings now of older code: Check the Fix of their bugs after the edit */
  private beforeState: AnalysisState | undefined;
  /** the trace files beforeState holds (analyzeBefore) */
  private beforeKey = '';
  /** Check the Fix's verdicts per pattern key of the code before the change, beside the recordings they judged (fixVerdicts.ts) */
  private readonly fixVerdicts = new FixVerdictStore(
    () => this.folders,
    (level, m) => (level === 'error' ? this.connection.console.error(m) : level === 'warning' ? this.connection.console.warn(m) : this.connection.console.info(m)),
  );
  /** open documents whose text differs from the disk the analysis read: their lines through the edits (lineMapping.ts) */
  private readonly mappings = new Map<string, LineMapping>();
  private mappingTimer: NodeJS.Timeout | undefined;
  private traceGen = 0;
  /** mining explanations: the computation for a trace generation, and the latest finished one (hover) */
  private explaining: { gen: number; promise: Promise<ExplanationState> } | undefined;
  private explanations: ExplanationState | undefined;
  /** call-graph method ranking (seed 003): the computation for a trace generation, and the latest finished one */
  private rankingMethods: { gen: number; key: string; promise: Promise<MethodState> } | undefined;
  private methodState: MethodState | undefined;
  /** the settings being read again after workspace/didChangeConfiguration, until the analysis they schedule has started */
  private reloading: Promise<void> | undefined;
  /** workspace trust as the client reports it (initializationOptions.trusted, braid/workspaceTrust); editors without trust: true */
  private trusted = true;
  /** trigger points of the workspace's noise plans (.braid/plans/*.json) */
  private triggerPoints: TriggerPointState | undefined;
  private planTimer: NodeJS.Timeout | undefined;
  private planLoad: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly deps: { pinpoint?: Pinpoint } = {},
  ) {
    this.worker = new AnalysisWorkerClient((m) => connection.console.error(m));
  }

  listen(): void {
    const c = this.connection;
    c.onInitialize((p) => this.onInitialize(p));
    c.onInitialized(() => void this.onInitialized());
    c.onDidChangeConfiguration(() => {
      // the settings are read back from the client (a request): until they are in and the analysis they
      // schedule has started, a request must not answer with the old ones (settled waits for this)
      const reload = this.reloadSettings().then(() => (this.schedule(false), this.reloadPlans()));
      this.reloading = reload;
      const done = () => {
        if (this.reloading === reload) this.reloading = undefined;
      };
      reload.then(done, (err) => (done(), c.console.error(`Braid: the settings could not be applied: ${(err as Error)?.message ?? err}`)));
    });
    c.onDidChangeWatchedFiles((p) => {
      let relevant = false;
      for (const ch of p.changes) {
        const f = uriToPath(ch.uri);
        if (f && isPlanFile(f, this.folders)) this.debouncePlans();
        else if (f && isExcludedRunsFile(f, this.folders)) relevant = true;
        else if (f && (this.finder?.matches(f) ?? true)) relevant = true;
        else if (f) {
          this.resolver?.invalidate();
          // a source file a recording ran changed: that recording may now be one of older code
          if (this.versions.touches(f)) relevant = true;
        }
      }
      if (relevant) this.debounceRescan();
    });
    c.onHover((p) => {
      const f = uriToPath(p.textDocument.uri);
      if (!f) return null;
      // a line changed in the editor since the analysis: no hover describing the old code
      const line = (this.mappings.get(f) ?? IDENTITY).toDisk(p.position.line + 1);
      if (line === undefined) return null;
      const hover = this.state ? hoverFor(this.state, f, line, this.settings.hover.maxPatterns, this.settings.analysis.formula, this.explanations) : null;
      return this.withTriggerHover(this.withMethodHover(hover, f, line), f, line);
    });
    c.onCodeLens((p) => {
      const f = uriToPath(p.textDocument.uri);
      const text = this.documents.get(p.textDocument.uri)?.getText();
      const tests = this.settings.testLens.enabled ? testCodeLenses(p.textDocument.uri, text, (m) => c.console.warn(m)) : [];
      if (!f || !this.state) return tests;
      return [...tests, ...this.withMethodLenses(codeLensesFor(this.state, f, text), f, text)];
    });
    c.onRequest(MethodsRequest, (p: MethodsParams | undefined) => this.methodsRequest(p ?? {}));
    c.onRequest(TestCommandRequest, (p: RecordTestArgs) => this.testCommand(p));
    // the Testing view's "Run with Braid" profile (testItems.ts, testRunReport.ts)
    c.onRequest(TestItemsRequest, (p: TestItemsParams | undefined) => testItemsRequest(p, { folders: this.folders, openText: (uri) => this.documents.get(uri)?.getText(), log: (m) => c.console.warn(m) }));
    c.onRequest(TestRunReportRequest, async (p: TestRunReportParams) => {
      if (!p?.result || typeof p.result.outDir !== 'string' || typeof p.result.runs !== 'number') throw new ResponseError(-32602, 'braid/testRunReport needs "result": the answer of braid/record');
      // the recording's last traces: analyzed now (or after the analysis under way)
      if (p.result.runs > 0) await this.analyze(false);
      return testRunReport(p.result, this.state, typeof p.what === 'string' ? p.what : undefined, await this.beforeRecording(p.result.outDir));
    });
    c.onRequest(SuggestCommandRequest, (p: SuggestCommandParams | undefined) => this.suggestCommand(p ?? {}));
    c.onRequest(PatternsRequest, (p: PatternsParams | undefined) => this.patterns(p ?? {}));
    c.onRequest(RunsRequest, async (): Promise<RunsResult> => {
      const forced = await this.forcedRuns();
      return {
        runs: this.state?.runs ?? [],
        unreadable: this.unreadableTraces(),
        excluded: this.excludedTraces.map((f) => ({ file: f, uri: fileUri(f) })),
        ...(this.olderRecordings.length ? { older: this.olderRecordings.map((o) => ({ ...o, uri: fileUri(o.dir) })) } : {}),
        ...((b) => (b.length ? { beforeBugs: b } : {}))(this.beforeBugs()),
        ...(await this.emptyRecordings().then((e) => (e.length ? { empty: e.map((dir) => ({ dir, uri: fileUri(dir) })) } : {}))),
        ...(forced.length ? { forced } : {}),
      };
    });
    c.onRequest(BugsRequest, (): BugsResult => ({ bugs: this.state?.bugs ?? [] }));
    c.onRequest(BugGraphRequest, (p: BugGraphParams) => this.bugGraph(p));
    c.onRequest(TraceEventsRequest, (p: TraceEventsParams) => this.traceEvents(p));
    c.onRequest(ExplanationsRequest, (p: ExplanationsParams | undefined) => this.explanationsRequest(p ?? {}));
    c.onRequest(ReanalyzeRequest, async () => {
      this.resolver?.invalidate();
      await this.analyze(true);
      return this.summary();
    });
    c.onRequest(ExportSarifRequest, (p: { top?: number } | undefined) => this.exportSarif(p?.top));
    c.onRequest(RecordRequest, (p: RecordParams, token: CancellationToken) =>
      recordRunsFromServer(this.connection, p, token, {
        folder: this.folders[0],
        outDir: this.settings.record.outDir,
        trusted: this.trusted,
        afterRun: () => this.debounceRescan(),
        recording: (outDir, finished) => {
          if (finished) this.recordings.set(path.resolve(outDir), finished);
          else this.recordings.delete(path.resolve(outDir));
        },
      }),
    );
    c.onNotification(WorkspaceTrustNotification, (p: WorkspaceTrustParams) => {
      const was = this.trusted;
      this.trusted = p?.trusted === true;
      // source roots outside the workspace count only once it is trusted: resolve the traces' paths again
      if (was !== this.trusted && this.initialized) void this.reloadSettings().then(() => (this.schedule(false), this.reloadPlans()));
    });
    c.onRequest(TriggerPointsRequest, async (): Promise<TriggerPointsResult> => {
      await this.planLoad;
      return this.triggerPoints?.result() ?? { plans: [], files: [], problems: [] };
    });
    c.onRequest(PinpointRequest, async (p: PinpointParams, token: CancellationToken) => {
      if (this.trusted) await this.settled();
      return pinpointFromServer(this.connection, p, token, {
        folder: this.folders[0],
        trusted: this.trusted,
        traces: this.traceFiles,
        pinpoint: this.deps.pinpoint,
        planWritten: () => this.reloadPlans(),
      });
    });
    c.onRequest(ConfirmCommandRequest, async (p: ConfirmCommandParams | undefined) => {
      await this.settled();
      const st = this.stateOf(p?.key);
      return confirmCommandFromServer({ traces: st === this.state ? this.traceFiles : this.filesOf(st), folder: this.folders[0], tracesOf: (key) => st?.runFilesWithPattern(key) ?? [] }, p);
    });
    c.onRequest(ConfirmRequest, async (p: ConfirmParams, token: CancellationToken) => {
      if (this.trusted) await this.settled();
      // a bug of the code before the change (its recording is now one of older code): its own analysis
      const st = this.stateOf(p?.key);
      const traces = st === this.state ? this.traceFiles : this.filesOf(st);
      return confirmFromServer(this.connection, p, token, {
        folder: this.folders[0],
        trusted: this.trusted,
        traces,
        tracesOf: (key) => st?.runFilesWithPattern(key) ?? [],
        pattern: (key) => st?.patternByKey(key),
        patterns: () => st?.patterns ?? [],
        executions: st?.result.executions ?? { total: 0, failed: 0 },
        // the same traces ranked with locations per call (a pattern on a line of several library calls)
        ...(st ? { perCallRanking: perCallRankingOf(traces, st.result.options, (m) => c.console.warn(`Braid: ${m}`)) } : {}),
        verdict: async (key, v) => {
          await this.confirmations.set(key, v).catch((e) => c.console.error(`Braid: the verdict could not be saved: ${(e as Error).message}`));
          if (this.state) this.confirmations.decorate(this.state.patterns);
          // the views read the patterns again on a status change
          this.sendStatus(this.summary());
          if (this.supportsCodeLensRefresh) c.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
        },
        fixChecked: async (key, check, recording) => {
          // the recording it judged: the one whose manifest ran, else the folder of the runs with the pattern
          const runs = st?.runFilesWithPattern(key) ?? [];
          const dir = recording ?? (runs.length ? path.dirname(path.resolve(runs[0])) : undefined);
          if (dir) await this.fixVerdicts.set(dir, key, check).catch((e) => c.console.error(`Braid: the verdict of Check the Fix could not be saved: ${(e as Error).message}`));
          else c.console.warn('Braid: the verdict of Check the Fix is not kept: no recording holds the pattern');
          // the Runs view reads braid/runs again on a status change
          this.sendStatus(this.summary());
        },
      });
    });
    c.onShutdown(async () => {
      if (this.planTimer) clearTimeout(this.planTimer);
      if (this.watchTimer) clearTimeout(this.watchTimer);
      if (this.mappingTimer) clearTimeout(this.mappingTimer);
      await this.worker.dispose();
    });
    // heat and hovers follow unsaved edits (lineMapping.ts); a saved edit makes older recordings (codeVersions.ts)
    this.documents.onDidChangeContent((e) => this.debounceMappings(e.document.uri));
    this.documents.onDidClose((e) => this.debounceMappings(e.document.uri));
    this.documents.onDidSave((e) => {
      const f = uriToPath(e.document.uri);
      this.debounceMappings(e.document.uri);
      if (f && this.versions.touches(f)) this.debounceRescan();
    });
    this.documents.listen(c);
    c.listen();
  }

  private onInitialize(p: InitializeParams): InitializeResult {
    const folders = p.workspaceFolders?.map((f) => uriToPath(f.uri)).filter((f): f is string => !!f) ?? [];
    if (!folders.length && p.rootUri) {
      const r = uriToPath(p.rootUri);
      if (r) folders.push(r);
    }
    if (!folders.length && p.rootPath) folders.push(p.rootPath);
    this.folders = folders;
    this.confirmations = new ConfirmationStore(folders[0]);
    const caps = p.capabilities;
    this.supportsConfiguration = !!caps.workspace?.configuration;
    this.supportsWatchRegistration = !!caps.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    this.supportsProgress = !!caps.window?.workDoneProgress;
    this.supportsCodeLensRefresh = !!caps.workspace?.codeLens?.refreshSupport;
    this.supportsWorkspaceFolders = !!caps.workspace?.workspaceFolders;
    if (p.initializationOptions && typeof p.initializationOptions === 'object' && 'settings' in p.initializationOptions) {
      this.settings = normalizeSettings((p.initializationOptions as { settings: unknown }).settings);
    }
    if (p.initializationOptions && typeof p.initializationOptions === 'object' && (p.initializationOptions as { trusted?: unknown }).trusted === false) this.trusted = false;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'braid-language-server', version: '0.1.0' },
    };
  }

  private async onInitialized(): Promise<void> {
    const c = this.connection;
    if (this.supportsConfiguration) {
      void c.client.register(DidChangeConfigurationNotification.type, { section: 'braid' }).catch(() => undefined);
    }
    if (this.supportsWatchRegistration) {
      // Broad patterns, filtered here by braid.traceGlobs (so changing the setting needs no re-registration).
      await c.client
        .register(DidChangeWatchedFilesNotification.type, {
          watchers: [
            { globPattern: '**/*.trace.jsonl', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
            { globPattern: '**/*.trace.jsonl.gz', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
            { globPattern: '**/.braid/plans/*.json', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
            { globPattern: '**/.braid/excluded-runs.json', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
            // source files: an edit outside the editor can make a recording one of older code (codeVersions.ts)
            { globPattern: '**/*.{java,kt,scala,groovy,js,mjs,cjs,jsx,ts,mts,cts,tsx}', kind: WatchKind.Create | WatchKind.Change | WatchKind.Delete },
          ],
        })
        .catch((err) => c.console.warn(`could not watch trace files: ${err}`));
    }
    if (this.supportsWorkspaceFolders) c.workspace.onDidChangeWorkspaceFolders((e) => {
      const removed = new Set(e.removed.map((f) => uriToPath(f.uri)));
      this.folders = this.folders.filter((f) => !removed.has(f));
      for (const f of e.added) {
        const p = uriToPath(f.uri);
        if (p && !this.folders.includes(p)) this.folders.push(p);
      }
      this.schedule(false);
    });
    await this.reloadSettings();
    this.initialized = true;
    this.reloadPlans();
    c.console.info(`Braid language server started; workspace folders: ${this.folders.join(', ') || '(none)'}`);
    this.schedule(false);
  }

  private async reloadSettings(): Promise<void> {
    if (this.supportsConfiguration) {
      try {
        const raw = await this.connection.workspace.getConfiguration('braid');
        this.settings = normalizeSettings(raw);
      } catch (err) {
        this.connection.console.warn(`could not read the braid settings: ${err}`);
      }
    }
    this.resolver = new SourceResolver(this.folders, this.sourceRoots(true), (tracePath, tried) => {
      // JDK/library sources are expected to be missing: their accesses are shown at the user's call line
      if (isLibraryCode(tracePath, '')) return;
      this.unresolvedThisRound.push(tracePath);
      this.connection.console.warn(
        `Cannot find the source file "${tracePath}" named in the traces in the workspace (tried ${tried.length} places, e.g. ${tried.slice(0, 3).join(', ')}). ` +
          'Set "braid.sourceRoots" to the folders your source paths are relative to.',
      );
    });
    this.pager = new TraceEventPager((file) => {
      const f = this.resolver?.resolve(file);
      return f ? fileUri(f) : undefined;
    });
  }

  /**
   * `braid.sourceRoots` as they may be used: in an untrusted workspace (Restricted Mode) only the
   * roots inside the workspace folders — the workspace's own settings must not make trace paths
   * reach other files of the machine; the others are ignored with a log line (`log`).
   */
  private sourceRoots(log = false): string[] {
    if (this.trusted) return this.settings.sourceRoots;
    const { roots, ignored } = confineSourceRoots(this.folders, this.settings.sourceRoots);
    if (log)
      for (const r of ignored)
        this.connection.console.warn(`Restricted Mode: the source root ${JSON.stringify(r)} of braid.sourceRoots is outside the workspace folders; ignored until the workspace is trusted.`);
    return roots;
  }

  private beingRecorded(file: string): boolean {
    const f = path.resolve(file);
    for (const [dir, finished] of this.recordings) if (f.startsWith(dir + path.sep) && !finished.has(f)) return true;
    return false;
  }

  /** The analysis holding a pattern: the current one, else the one before the change (a bug of older code). */
  private stateOf(key: unknown): AnalysisState | undefined {
    if (typeof key !== 'string' || this.state?.patternByKey(key) || !this.beforeState?.patternByKey(key)) return this.state;
    return this.beforeState;
  }

  private filesOf(st: AnalysisState | undefined): string[] {
    return (st?.result.runs ?? []).map((r) => r.file).sort();
  }

  /**
   * The analysis of the recordings of the code version just before the change (codeVersions.ts
   * justBefore), and only of them: the analysis that held them when they became older when it held
   * exactly their folders (an edit in this session), else an analysis of their traces apart (after a
   * restart the first analysis held every recording, older versions and the current code included).
   */
  private async analyzeBefore(found: readonly TraceFileInfo[]): Promise<void> {
    const group = await this.versions.justBefore(this.olderRecordings);
    for (const o of group) o.justBefore = true;
    const dirs = new Set(group.map((o) => o.dir));
    const files = group.flatMap((o) => o.files).sort();
    const key = files.join('\n');
    if (!files.length) {
      this.beforeState = undefined;
      this.beforeKey = '';
      return;
    }
    if (key === this.beforeKey && this.beforeState) return;
    const dirsOf = (st: AnalysisState) => new Set(st.result.runs.map((r) => path.dirname(path.resolve(r.file))));
    const held = this.state && dirsOf(this.state);
    if (held && held.size === dirs.size && [...dirs].every((d) => held.has(d))) {
      this.beforeState = this.state;
    } else {
      const wanted = new Set(files);
      const cache = this.folders[0] ? await SummaryCache.workspaceDir(this.folders[0]) : {};
      try {
        const res = await this.worker.analyze({
          options: this.settings.analysis,
          griffin: this.settings.griffin,
          files: found.filter((f) => wanted.has(f.path)),
          maxPatterns: this.settings.maxPatterns,
          apart: true,
          ...(cache.dir ? { cacheDir: cache.dir } : {}),
        });
        this.beforeState = new AnalysisState(res.result, res.bugs, this.resolver!, res.totalPatterns, this.settings.views.minScore);
        this.confirmations.decorate(this.beforeState.patterns);
        this.connection.console.info(`Braid: the code before the change: ${res.result.executions.total} runs of ${group.length} recording${group.length === 1 ? '' : 's'} analyzed apart (${Math.round(res.ms)} ms)`);
      } catch (err) {
        this.beforeState = undefined;
        this.connection.console.error(`Braid: the recordings of the code before the change could not be analyzed: ${(err as Error)?.message ?? err}`);
      }
    }
    this.beforeKey = key;
  }

  /** The bugs of the code before the change (beforeState), each with its lead pattern: offered for Check the Fix. */
  private beforeBugs(): NonNullable<RunsResult['beforeBugs']> {
    const st = this.beforeState;
    if (!st || !this.olderRecordings.length) return [];
    const out: NonNullable<RunsResult['beforeBugs']> = [];
    // the verdicts kept beside the recordings of that code version (not those of an earlier one)
    const olderDirs = this.olderRecordings.filter((o) => o.justBefore).map((o) => o.dir);
    for (const b of st.bugs) {
      const keys = Array.isArray(b.patternKeys) ? b.patternKeys.filter((k): k is string => typeof k === 'string') : [];
      const key = keys[0];
      const pattern = key ? st.patternByKey(key) : undefined;
      if (!pattern) continue;
      const advice = (b.advice ?? {}) as { shape?: unknown; headline?: unknown };
      // the newest Check the Fix of any of the bug's patterns (the palette's Check the Fix may have taken another
      // of them than the lead, e.g. the first ranked pattern of an analysis not yet updated after the edit)
      let fix: ReturnType<FixVerdictStore['get']>;
      for (const k of keys) {
        const f = this.fixVerdicts.get(k, olderDirs);
        if (f && (!fix || f.at > fix.at)) fix = f;
      }
      out.push({
        bug: typeof b.id === 'number' ? b.id : st.bugs.indexOf(b) + 1,
        ...(typeof advice.shape === 'string' ? { shape: advice.shape } : {}),
        ...(typeof advice.headline === 'string' ? { headline: advice.headline } : {}),
        pattern,
        ...(fix ? { fix: FixVerdictStore.view(fix) } : {}),
        ...(keys.length > 1 ? { otherKeys: keys.slice(1) } : {}),
      });
    }
    return out;
  }

  /**
   * The recordings of older code (codeVersions.ts) made with the same command as the recording in
   * `outDir` (their recording.json), of one code version: the version just before the change among
   * them (CodeVersions.justBefore — the newest and every other of the same code, as the "Before the
   * change" of Check the Fix), their runs summed; recordings of an earlier version are never mixed in.
   * The "before" of the Testing view's before/after.
   */
  private async beforeRecording(outDir: string): Promise<BeforeRecording | undefined> {
    if (!this.olderRecordings.length) return undefined;
    const command = (await readRecordingManifest(path.resolve(outDir))).manifest?.command.join('\0');
    if (command === undefined) return undefined;
    const same: OlderRecording[] = [];
    for (const o of this.olderRecordings) {
      const m = (await readRecordingManifest(o.dir)).manifest;
      if (m && m.command.join('\0') === command) same.push(o);
    }
    const version = (await this.versions.justBefore(same)).filter((o) => o.runs !== undefined && o.failed !== undefined);
    if (!version.length) return undefined;
    return {
      runs: version.reduce((n, o) => n + o.runs!, 0),
      failed: version.reduce((n, o) => n + o.failed!, 0),
      changed: [...new Set(version.flatMap((o) => o.changed))].sort(),
      recordings: version.length,
    };
  }

  /**
   * Recording folders (a recording.json or sources.json in a folder of the recordings' folder,
   * `braid.record.outDir`) that hold no trace the analysis found: recordings that failed before any
   * run finished. Listed so they can be seen and deleted; links are not followed.
   */
  private async emptyRecordings(): Promise<string[]> {
    const withTraces = new Set([...this.traceFiles, ...this.excludedTraces, ...this.olderRecordings.flatMap((o) => o.files)].map((f) => path.dirname(path.resolve(f))));
    const out: string[] = [];
    for (const folder of this.folders) {
      const root = path.resolve(folder, this.settings.record.outDir);
      if (path.relative(folder, root).startsWith('..')) continue;
      let entries;
      try {
        entries = await fsp.readdir(root, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries.slice(0, 10_000)) {
        if (!e.isDirectory()) continue;
        const dir = path.join(root, e.name);
        if (withTraces.has(dir) || this.recordings.has(dir)) continue;
        let names: string[];
        try {
          names = await fsp.readdir(dir);
        } catch {
          continue;
        }
        if (names.some((n) => /\.trace\.jsonl(\.gz)?$/.test(n))) continue;
        if (names.includes('recording.json') || names.includes('sources.json')) out.push(dir);
      }
    }
    return out.sort().reverse();
  }

  private readonly mappingDirty = new Set<string>();

  private debounceMappings(uri: string): void {
    const f = uriToPath(uri);
    // only files with heat or hovers need their lines followed
    if (!f || !(this.state?.lines.has(f) || this.mappings.has(f))) return;
    this.mappingDirty.add(uri);
    if (this.mappingTimer) clearTimeout(this.mappingTimer);
    this.mappingTimer = setTimeout(() => {
      this.mappingTimer = undefined;
      void this.updateMappings();
    }, 150);
  }

  /** The mapping of each changed open document against its file on disk; sends the heat again when one changed. */
  private async updateMappings(): Promise<void> {
    const uris = [...this.mappingDirty];
    this.mappingDirty.clear();
    let changed = false;
    for (const uri of uris) {
      const f = uriToPath(uri);
      if (!f) continue;
      const doc = this.documents.get(uri);
      let m: LineMapping = IDENTITY;
      if (doc) {
        try {
          m = lineMapping(await fsp.readFile(f, 'utf8'), doc.getText());
        } catch {
          m = IDENTITY;
        }
      }
      const was = this.mappings.get(f);
      if (m === IDENTITY) this.mappings.delete(f);
      else this.mappings.set(f, m);
      changed ||= was !== undefined || m !== IDENTITY;
    }
    if (changed) {
      this.sendLineScores();
      if (this.supportsCodeLensRefresh) this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    }
  }

  /** The heat of the analysis, its lines moved through the open documents' unsaved edits (changed lines get none). */
  private sendLineScores(): void {
    if (!this.state) return;
    const scores = this.state.lineScores();
    if (this.mappings.size) {
      for (const file of scores.files) {
        const m = this.mappings.get(uriToPath(file.uri) ?? '');
        if (!m) continue;
        file.lines = file.lines.flatMap((l) => {
          const line = m.toEditor(l.line);
          return line === undefined ? [] : [{ ...l, line }];
        });
      }
    }
    void this.connection.sendNotification(LineScoresNotification, scores);
  }

  private debounceRescan(): void {
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = setTimeout(() => {
      this.watchTimer = undefined;
      this.schedule(false);
    }, 200);
  }

  /** Runs an analysis now, or once more after the running one. */
  private schedule(force: boolean): void {
    if (!this.initialized) return;
    void this.analyze(force);
  }

  private analyze(force: boolean): Promise<void> {
    if (this.analyzing) {
      this.pending = { force: force || (this.pending?.force ?? false) };
      return this.running!.then(() => (this.running ? this.running : undefined));
    }
    this.analyzing = true;
    this.running = (async () => {
      let f = force;
      for (;;) {
        try {
          await this.analyzeOnce(f);
        } catch (err) {
          this.connection.console.error(`analysis failed: ${(err as Error)?.stack ?? err}`);
          void this.connection.window.showErrorMessage(`Braid: the analysis failed: ${(err as Error)?.message ?? err}`);
        }
        if (!this.pending) break;
        f = this.pending.force;
        this.pending = undefined;
      }
      this.analyzing = false;
    })();
    return this.running;
  }

  private async analyzeOnce(force: boolean): Promise<void> {
    const c = this.connection;
    const t0 = performance.now();
    this.finder = new TraceFinder(this.folders, this.settings.traceGlobs);
    // a trace glob that is not accepted (glob.ts) is left out: said once per glob
    for (const m of this.finder.problems) if (!this.globWarnings.has(m) && this.globWarnings.add(m)) c.console.warn(`Braid: ${m}`);
    // a trace of a recording in progress gets its outcome line only when its run ends: not read before
    const found = (await this.finder.find()).filter((f) => !this.beingRecorded(f.path));
    // runs the user excluded (Runs view, .braid/excluded-runs.json) stay out of the analysis, listed apart
    const excluded = await readExcludedRuns(this.folders);
    // recordings of older code (a file they ran changed since) are kept apart, never merged with the current code's
    const { current: files, older } = await this.versions.split(found.filter((f) => !excluded.has(path.resolve(f.path))));
    this.olderRecordings = older;
    this.excludedTraces = found.filter((f) => excluded.has(path.resolve(f.path))).map((f) => f.path).sort();
    const resolver = this.resolver!;
    let progress: WorkDoneProgressServerReporter | undefined;
    if (this.supportsProgress) {
      try {
        progress = await c.window.createWorkDoneProgress();
        progress.begin('Braid: analyzing traces', 0, `${files.length} trace files`, false);
      } catch {
        progress = undefined;
      }
    }
    this.sendStatus({ ...(this.state?.summary() ?? emptySummary()), state: 'analyzing', message: `Analyzing ${files.length} trace files…` });
    const cache = this.folders[0] ? await SummaryCache.workspaceDir(this.folders[0]) : {};
    if (cache.problem) c.console.warn(`Braid: ${cache.problem}`);
    try {
      const [res] = await Promise.all([
        this.worker.analyze(
          {
            options: this.settings.analysis,
            griffin: this.settings.griffin,
            files,
            force,
            maxPatterns: this.settings.maxPatterns,
            ...(cache.dir ? { cacheDir: cache.dir } : {}),
          },
          (done, total, file) => {
            if (total > 0) progress?.report(Math.round((done / total) * 100), `${done}/${total}${file ? ` ${path.basename(file)}` : ''}`);
          },
        ),
        resolver.prepare(),
      ]);
      this.unresolvedThisRound = [];
      const traceFiles = files.map((f) => f.path).sort();
      if (force || res.read > 0 || res.removed > 0 || traceFiles.join('\n') !== this.traceFiles.join('\n')) {
        // the explanations are computed again on the next braid/explanations request
        this.traceFiles = traceFiles;
        this.traceGen++;
        this.explanations = undefined;
        this.methodState = undefined;
      }
      // the recordings of the code version just before the change: their analysis alone is the "before" of Check the Fix
      await this.analyzeBefore(found);
      const olderDirs = new Set(this.olderRecordings.map((o) => o.dir));
      // Check the Fix's verdicts kept beside those recordings (read once; dropped when the recording changed or the pattern is gone)
      await this.fixVerdicts.sync([...olderDirs]);
      const before = this.beforeState;
      if (before) {
        const judged = new Set(before.result.runs.map((r) => path.dirname(path.resolve(r.file))));
        for (const dir of olderDirs) if (judged.has(dir)) await this.fixVerdicts.prune(dir, (key) => before.patternByKey(key) !== undefined);
      }
      this.state = new AnalysisState(res.result, res.bugs, resolver, res.totalPatterns, this.settings.views.minScore);
      // recordings seen for the first time: when the code they ran changed already, analyze again without them
      for (const dir of this.versions.learn(res.result, (f) => resolver.resolve(f))) {
        if ((await this.versions.changedFiles(dir))?.length) this.pending = { force: this.pending?.force ?? false };
      }
      const verdictProblem = await this.confirmations.load();
      if (verdictProblem) c.console.warn(`Braid: ${verdictProblem}`);
      this.confirmations.decorate(this.state.patterns);
      this.analyses++;
      if (res.griffinError) c.console.error(`GRIFFIN failed; bugs are not shown: ${res.griffinError}`);
      this.reportTraceProblems(res.result);
      if (this.unresolvedThisRound.length) {
        const n = this.unresolvedThisRound.length;
        void c.window.showWarningMessage(
          `Braid: ${n} source file${n > 1 ? 's' : ''} named in the traces ${n > 1 ? 'are' : 'is'} not in the workspace (${this.unresolvedThisRound.slice(0, 3).join(', ')}${n > 3 ? ', …' : ''}). Check "braid.sourceRoots"; details in the Braid output.`,
        );
      }
      this.publishDiagnostics();
      this.sendLineScores();
      this.sendStatus(this.state.summary('done'));
      if (this.supportsCodeLensRefresh) c.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
      // the call-graph ranking feeds the hover and code lens: computed in the background after each change
      const methodKey = JSON.stringify({ representation: this.settings.methods.graph, interThread: this.settings.methods.interThread });
      if (this.rankingMethods?.key !== methodKey) this.methodState = undefined;
      if (!this.methodState && res.result.executions.total > 0) void this.methodsOfTraces().catch(() => undefined);
      const ex = res.result.executions;
      c.console.info(
        `Analysis ${this.analyses}: ${files.length} trace files (${res.read} read, ${res.reused} cached, ${res.removed} removed), ` +
          `${ex.total} runs (${ex.failed} failed, ${ex.passed} passed), ${res.result.patterns.length} patterns, ${res.bugs.length} bugs; ` +
          `worker ${res.ms.toFixed(0)} ms, total ${(performance.now() - t0).toFixed(0)} ms`,
      );
    } finally {
      progress?.done();
    }
  }

  private reportTraceProblems(result: AnalysisResult): void {
    const c = this.connection;
    const byUri = new Map<string, LspDiagnostic[]>();
    let newErrors = 0;
    for (const d of result.diagnostics) {
      const text = `${d.file}${d.line !== undefined ? `:${d.line}` : ''}: ${d.message}`;
      if (!this.reportedTraceProblems.has(text)) {
        this.reportedTraceProblems.add(text);
        if (d.severity === 'error') {
          newErrors++;
          c.console.error(`Trace error: ${text}`);
        } else c.console.warn(`Trace ${d.severity}: ${text}`);
      }
      const uri = fileUri(path.resolve(d.file));
      let l = byUri.get(uri);
      if (!l) byUri.set(uri, (l = []));
      const line = Math.max(0, (d.line ?? 1) - 1);
      l.push({
        range: { start: { line, character: 0 }, end: { line, character: 2147483647 } },
        severity: d.severity === 'error' ? DiagnosticSeverity.Error : d.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
        source: 'braid',
        message: d.message,
      });
    }
    for (const uri of this.traceProblemUris) if (!byUri.has(uri)) void c.sendDiagnostics({ uri, diagnostics: [] });
    for (const [uri, diagnostics] of byUri) void c.sendDiagnostics({ uri, diagnostics });
    this.traceProblemUris = new Set(byUri.keys());
    if (newErrors > 0) {
      void c.window.showWarningMessage(
        `Braid: ${newErrors} problem${newErrors > 1 ? 's' : ''} reading trace files; the other traces were analyzed. See Problems or the Braid output.`,
      );
    }
  }

  private publishDiagnostics(): void {
    const c = this.connection;
    const next = new Map<string, LspDiagnostic[]>();
    if (this.settings.diagnostics.enabled && this.state) {
      for (const [fsPath, d] of diagnosticsFor(this.state, this.settings.diagnostics.maxRank)) next.set(fileUri(fsPath), d);
    }
    for (const uri of this.diagnosedUris) if (!next.has(uri)) void c.sendDiagnostics({ uri, diagnostics: [] });
    for (const [uri, diagnostics] of next) void c.sendDiagnostics({ uri, diagnostics });
    this.diagnosedUris = new Set(next.keys());
  }

  private sendStatus(s: AnalysisSummaryDto): void {
    void this.connection.sendNotification(StatusNotification, s);
  }

  private summary(): AnalysisSummaryDto {
    if (this.state) return this.state.summary(this.analyzing ? 'analyzing' : 'done');
    return { ...emptySummary(), state: this.analyzing ? 'analyzing' : 'idle' };
  }

  /** Waits for a running analysis so requests right after startup see results. */
  private async settled(): Promise<void> {
    // a configuration change being read (its analysis is scheduled once the settings are in)
    while (this.reloading) await this.reloading.catch(() => undefined);
    while (this.analyzing && this.running) await this.running;
  }

  private async patterns(p: PatternsParams): Promise<PatternsResult> {
    if (p.fresh && this.initialized) {
      // a rescan the last run scheduled (debounceRescan) happens now, and the answer waits for it
      if (this.watchTimer) clearTimeout(this.watchTimer);
      this.watchTimer = undefined;
      await this.analyze(false);
      await this.settled();
    } else if (!this.state) await this.settled();
    const s = this.state;
    if (!s) return { summary: this.summary(), total: 0, patterns: [] };
    let list = s.patterns;
    if (p.ids?.length) {
      const ids = new Set(p.ids);
      list = list.filter((x) => ids.has(x.id) || ids.has(x.kind));
    }
    if (p.file) {
      const f = p.file;
      const fsPath = uriToPath(f);
      list = list.filter((x) => x.accesses.some((a) => a.file.includes(f) || a.uri === f || (fsPath !== undefined && s.resolver.resolve(a.file) === fsPath)));
    }
    const offset = Math.max(0, p.offset ?? 0);
    const limit = p.limit === undefined ? list.length : Math.max(0, p.limit);
    const unfiltered = !p.ids?.length && !p.file;
    return { summary: this.summary(), total: unfiltered ? s.totalPatterns : list.length, patterns: list.slice(offset, offset + limit) };
  }

  private async explanationsRequest(p: ExplanationsParams): Promise<ExplanationsResult> {
    await this.settled();
    const e = await this.explanationsOfTraces();
    return e.result(typeof p.top === 'number' ? p.top : undefined);
  }

  /** The mining explanations of the current traces: computed in the worker once per trace generation. */
  private explanationsOfTraces(): Promise<ExplanationState> {
    const gen = this.traceGen;
    if (this.explaining?.gen === gen) return this.explaining.promise;
    const resolver = this.resolver!;
    const files = this.traceFiles;
    const promise = this.worker.explain({ files, options: {} }).then((m) => {
      const st = new ExplanationState(m.report, (f) => resolver.resolve(f), m.ms);
      if (this.traceGen === gen) this.explanations = st;
      this.connection.console.info(
        `Explanations: ${files.length} trace files, ${st.groups.length} groups (min support ${m.report.stats.minSupport}); ${m.ms.toFixed(0)} ms`,
      );
      return st;
    });
    promise.catch((err) => {
      if (this.explaining?.promise === promise) this.explaining = undefined;
      this.connection.console.error(`mining explanations failed: ${(err as Error)?.stack ?? err}`);
    });
    this.explaining = { gen, promise };
    return promise;
  }

  private async methodsRequest(p: MethodsParams): Promise<MethodsResult> {
    await this.settled();
    const m = await this.methodsOfTraces();
    return m.result(this.state?.methods ?? [], typeof p.top === 'number' ? p.top : undefined);
  }

  /** The call-graph method ranking of the current traces: computed in the worker once per trace generation. */
  private methodsOfTraces(): Promise<MethodState> {
    const gen = this.traceGen;
    const options = { representation: this.settings.methods.graph, interThread: this.settings.methods.interThread };
    const key = JSON.stringify(options);
    if (this.rankingMethods?.gen === gen && this.rankingMethods.key === key) return this.rankingMethods.promise;
    const resolver = this.resolver!;
    const files = this.traceFiles;
    const promise = this.worker.methods({ files, options }).then((m) => {
      const st = new MethodState(m.ranking, (f) => resolver.resolve(f), m.ms);
      if (this.traceGen === gen && this.rankingMethods?.key === key) {
        this.methodState = st;
        if (this.supportsCodeLensRefresh) this.connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
      }
      this.connection.console.info(`Call-graph method ranking: ${files.length} trace files, ${st.methods.length} methods, ${m.ranking.stats.edges} edges; ${m.ms.toFixed(0)} ms`);
      return st;
    });
    promise.catch((err) => {
      if (this.rankingMethods?.promise === promise) this.rankingMethods = undefined;
      this.connection.console.error(`call-graph method ranking failed: ${(err as Error)?.stack ?? err}`);
    });
    this.rankingMethods = { gen, key, promise };
    return promise;
  }

  private withMethodHover(hover: ReturnType<typeof hoverFor>, fsPath: string, line1: number): ReturnType<typeof hoverFor> {
    const m = this.methodState?.methodAt(fsPath, line1);
    if (!m || !this.state || m.score <= 0) return hover;
    const line = methodHoverLine(m, this.methodState!.methods.length, this.state.result.executions);
    if (!hover) return { contents: { kind: 'markdown', value: line } };
    const c = hover.contents as { kind: string; value: string };
    return { ...hover, contents: { kind: c.kind, value: `${c.value}\n\n---\n\n${line}` } } as ReturnType<typeof hoverFor>;
  }

  private debouncePlans(): void {
    if (this.planTimer) clearTimeout(this.planTimer);
    this.planTimer = setTimeout(() => {
      this.planTimer = undefined;
      this.reloadPlans();
    }, 200);
  }

  /** Reads the noise plans again and sends their trigger points (braid/triggerPointsChanged). */
  private reloadPlans(): void {
    const folders = this.folders;
    const roots = this.sourceRoots();
    this.planLoad = this.planLoad.then(async () => {
      try {
        const { plans, problems } = await loadPlans(folders);
        // the plans' own resolver: a missing source is reported below as a plan's, not as a trace's
        const resolver = new SourceResolver(folders, roots);
        if (plans.some((p) => p.triggers.length)) await resolver.prepare();
        const st = new TriggerPointState(plans, problems, (f) => resolver.resolve(f));
        this.triggerPoints = st;
        for (const pr of problems) this.connection.console.warn(`Noise plan ${pr.file}: ${pr.message}`);
        for (const u of st.unresolved) {
          this.connection.console.warn(`Noise plan ${u.plan}: the source file "${u.file}" of trigger point #${u.rank} is not in the workspace (see braid.sourceRoots); no decoration or hover for it.`);
        }
        if (plans.length) this.connection.console.info(`Noise plans: ${plans.length} (${st.resolvedCount} trigger points on workspace lines)`);
        void this.connection.sendNotification(TriggerPointsChangedNotification, st.result());
      } catch (err) {
        this.connection.console.error(`reading the noise plans failed: ${(err as Error)?.stack ?? err}`);
      }
    });
  }

  private withTriggerHover(hover: ReturnType<typeof hoverFor>, fsPath: string, line1: number): ReturnType<typeof hoverFor> {
    const text = this.triggerPoints?.hoverAt(fsPath, line1);
    if (!text) return hover;
    if (!hover) return { contents: { kind: 'markdown', value: text } };
    const c = hover.contents as { kind: string; value: string };
    return { ...hover, contents: { kind: c.kind, value: `${text}\n\n---\n\n${c.value}` } } as ReturnType<typeof hoverFor>;
  }

  private withMethodLenses(lenses: ReturnType<typeof codeLensesFor>, fsPath: string, text: string | undefined): ReturnType<typeof codeLensesFor> {
    const ms = this.methodState;
    // off by default (braid.methods.codeLens): GRIFFIN's lenses name the bug's methods (issue 30, point 5)
    if (!ms || !this.settings.methods.codeLens) return lenses;
    const extra = ms.codeLenses(fsPath, (m) => {
      const l0 = Math.max(0, m.line - 1);
      return (text !== undefined ? findMethodDeclaration(text, m.method, l0) : undefined) ?? l0;
    });
    return extra.length ? [...lenses, ...extra].sort((a, b) => a.range.start.line - b.range.start.line) : lenses;
  }

  private bugGraph(p: BugGraphParams): unknown {
    const s = this.state;
    if (!s) return null;
    const bug = s.bugs.find((b) => b.id === p?.bug) ?? (typeof p?.bug === 'number' ? s.bugs[p.bug - 1] : undefined);
    if (!bug) return null;
    return { bug: bug.id ?? p.bug, graph: bug.graph ?? null, advice: bug.advice, suspiciousMethods: bug.suspiciousMethods, patternKeys: bug.patternKeys };
  }

  private async traceEvents(p: TraceEventsParams): Promise<TraceEventsResult> {
    if (!this.state) await this.settled();
    const run = p?.run;
    if (typeof run !== 'string' || !run) throw new ResponseError(-32602, 'braid/traceEvents needs "run" (an execution id or a trace file path)');
    const s = this.state;
    const byExec = s?.result.runs.find((r) => r.execution === run) ?? this.forcedRunCache.get(run)?.run;
    let file = byExec?.file;
    if (!file) {
      const asPath = uriToPath(run) ?? (path.isAbsolute(run) ? run : undefined);
      if (asPath && (this.finder?.matches(asPath) || this.isConfirmationTrace(asPath))) file = asPath;
      else if (s?.result.runs.some((r) => r.file === run)) file = run;
    }
    if (!file) throw new ResponseError(-32602, `no run "${run}" among the analyzed traces`);
    return this.pager!.page(file, byExec?.execution ?? run, p);
  }

  /** forced failing runs of the verdicts (RunDto by execution id), read once per trace file */
  private forcedRunCache = new Map<string, { run: RunResult; dto: RunDto }>();

  /** The forced failing runs the verdicts keep, as runs for the Tracer (braid/runs `forced`). */
  private async forcedRuns(): Promise<RunDto[]> {
    const out: RunDto[] = [];
    for (const file of this.confirmations.failingTraces().slice(0, 50)) {
      if (!this.isConfirmationTrace(file)) continue;
      let hit = [...this.forcedRunCache.values()].find((x) => x.run.file === file);
      if (!hit) {
        try {
          const r = await analyzeTraceFiles([file]);
          const run = r.runs[0];
          if (!run) continue;
          hit = { run, dto: { ...toRunDto(run), uri: fileUri(path.resolve(file)) } };
          this.forcedRunCache.set(run.execution, hit);
        } catch {
          continue;
        }
      }
      out.push(hit.dto);
    }
    return out;
  }

  /** A trace of a confirmation's forced runs (.braid/confirm/…): the Tracer opens it (Reproduce) though it is not analyzed. */
  private isConfirmationTrace(file: string): boolean {
    const root = this.folders[0] && path.join(this.folders[0], '.braid', 'confirm');
    if (!root) return false;
    const rel = path.relative(root, path.resolve(file));
    return !rel.startsWith('..') && !path.isAbsolute(rel) && /\.trace\.jsonl(\.gz)?$/.test(file);
  }

  /** Trace files with an error and no analyzed run (a corrupted trace): shown in the Runs view with the error. */
  private unreadableTraces(): UnreadableTraceDto[] {
    const s = this.state;
    if (!s) return [];
    const analyzed = new Set(s.result.runs.map((r) => path.resolve(r.file)));
    const out = new Map<string, UnreadableTraceDto>();
    for (const d of s.result.diagnostics) {
      const f = path.resolve(d.file);
      if (d.severity !== 'error' || analyzed.has(f) || out.has(f) || !this.finder?.matches(f)) continue;
      out.set(f, { file: d.file, uri: fileUri(f), ...(d.line !== undefined ? { line: d.line } : {}), message: d.message });
    }
    return [...out.values()];
  }

  /** The workspace folder holding `fsPath` (the first one when none does). */
  private folderOf(fsPath: string | undefined): string | undefined {
    if (fsPath) {
      const hits = this.folders.filter((f) => !path.relative(f, fsPath).startsWith('..')).sort((a, b) => b.length - a.length);
      if (hits.length) return hits[0];
    }
    return this.folders[0];
  }

  private testCommand(p: RecordTestArgs): TestCommandResult {
    const file = typeof p?.uri === 'string' ? uriToPath(p.uri) : undefined;
    if (!file || typeof p.className !== 'string' || !p.className) throw new ResponseError(-32602, 'braid/testCommand needs "uri" (a file URI) and "className"');
    const folder = this.folderOf(file);
    if (!folder) throw new ResponseError(-32602, 'Recording a test needs an open workspace folder.');
    const framework = p.framework === 'junit4' || p.framework === 'testng' ? p.framework : 'junit5';
    try {
      if (p.framework === 'js' || (!file.endsWith('.java') && JS_SOURCE.test(file))) {
        // a node:test / mocha / jest / vitest test (jsTestCommand.ts); no titles: the whole file
        const titles = Array.isArray(p.titles) && p.titles.every((x) => typeof x === 'string') ? p.titles : [];
        const runner = p.runner === 'node-test' || p.runner === 'mocha' || p.runner === 'jest' || p.runner === 'vitest' ? p.runner : undefined;
        const plan = inferJsTestCommand(folder, { file, titles, suite: p.suite === true, runner });
        return { ...plan, commandLine: commandLine(plan.command) };
      }
      const plan = inferTestCommand(folder, { file, className: p.className, method: typeof p.method === 'string' ? p.method : undefined, framework });
      return { ...plan, commandLine: commandLine(plan.command) };
    } catch (err) {
      if (err instanceof TestCommandError) throw new ResponseError(-32602, err.message);
      throw err;
    }
  }

  private suggestCommand(p: SuggestCommandParams): SuggestCommandResult {
    const file = typeof p.uri === 'string' ? uriToPath(p.uri) : undefined;
    const folder = this.folderOf(file);
    if (!folder) return {};
    const text = p.uri ? this.documents.get(p.uri)?.getText() : undefined;
    const argv = suggestRecordCommand(folder, file && text !== undefined ? { file, text } : undefined);
    return argv ? { commandLine: commandLine(argv) } : {};
  }

  private async exportSarif(top = 50): Promise<string> {
    if (!this.state) await this.settled();
    const s = this.state;
    if (!s) throw new ResponseError(-32603, 'no analysis result yet');
    const folder = this.folders[0];
    // Paths relative to the workspace folder when the sources resolve, so SARIF viewers find them.
    const result: AnalysisResult = {
      ...s.result,
      patterns: s.result.patterns.map((p) => ({
        ...p,
        accesses: p.accesses.map((a) => {
          const f = s.resolver.resolve(a.file);
          return f && folder && !path.relative(folder, f).startsWith('..') ? { ...a, file: path.relative(folder, f).split(path.sep).join('/') } : a;
        }),
      })),
    };
    return JSON.stringify(sarifReport(result, top, folder ? fileUri(folder) : undefined), null, 2);
  }
}

function emptySummary(): AnalysisSummaryDto {
  return { state: 'idle', executions: { total: 0, failed: 0, passed: 0 }, topScore: 0, patternCount: 0, bugCount: 0 };
}
