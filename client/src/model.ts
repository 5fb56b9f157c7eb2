/**
 * The client's copy of the server's results (patterns, runs, bugs, status),
 * refreshed when the server reports a finished analysis; the tree views,
 * status bar and webviews read it.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  AnalysisSummaryDto,
  BugsRequest,
  BugsResult,
  PatternDto,
  PatternsRequest,
  PatternsResult,
  RunDto,
  RunsRequest,
  RunsResult,
  type OlderRecordingDto,
  StatusNotification,
  UnreadableTraceDto,
} from '../../server/src/lsp/protocol';

export interface BugMethodDto {
  thread: number;
  method: string;
  file: string;
  line: number;
  lines?: number[];
  uri?: string;
  /** the methods holding the lane's accesses (added by the server): the suspicious method's contents */
  accessing?: string[];
  /** the lane's thread name (added by the server) */
  threadName?: string;
}

export interface BugDto {
  id: number;
  kind?: string;
  score?: number;
  failingRuns: string[];
  patterns: number[];
  patternKeys: string[];
  suspiciousMethods: BugMethodDto[];
  /** GRIFFIN fix advice (fixAdvice.ts); headline and shape are missing in results of older versions */
  advice?: { kind?: string; shape?: string; headline?: string; summary?: string; interleaving?: string; steps?: string[] };
  /** GRIFFIN evidence (docs/griffin.md) */
  evidence?: { failingRuns: number; totalFailing: number; fraction: number; pValue: number; weak: boolean };
  /** what its failing runs reported (the assertion or exception and where), most frequent first (issue 30) */
  failures?: { reason: string; message?: string; location?: { file: string; line: number; method?: string }; runs: number }[];
}

/** What the Runs view shows of a recording's manifest (server/src/recorder/runs/recordingManifest.ts). */
export interface RecordingInfo {
  command?: string[];
  noise?: number;
  plan?: string;
  startedAt?: string;
}

/** The folder of a trace file (its recording). */
export function recordingFolder(file: string): string {
  const k = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return k > 0 ? file.slice(0, k) : '.';
}

export function parseRecordingInfo(text: string): RecordingInfo {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (!v || typeof v !== 'object') return {};
  const info: RecordingInfo = {};
  if (Array.isArray(v.command) && v.command.length && v.command.every((x) => typeof x === 'string')) info.command = (v.command as string[]).slice(0, 200);
  if (typeof v.noise === 'number' && Number.isFinite(v.noise)) info.noise = v.noise;
  const plan = v.plan as Record<string, unknown> | undefined;
  if (plan && typeof plan === 'object' && typeof plan.name === 'string') info.plan = plan.name.slice(0, 200);
  if (typeof v.startedAt === 'string') info.startedAt = v.startedAt.slice(0, 40);
  return info;
}

export class BraidModel implements vscode.Disposable {
  summary: AnalysisSummaryDto = { state: 'idle', executions: { total: 0, failed: 0, passed: 0 }, topScore: 0, patternCount: 0, bugCount: 0 };
  patterns: PatternDto[] = [];
  patternTotal = 0;
  runs: RunDto[] = [];
  /** trace files that could not be read, with their error (shown in the Runs view) */
  unreadable: UnreadableTraceDto[] = [];
  /** trace files left out of the analysis by the user (Exclude Run) */
  excluded: { file: string; uri: string }[] = [];
  /** recordings of the code before the last change (issue 43): listed apart, not analyzed */
  older: OlderRecordingDto[] = [];
  /** the bugs of the code before the change, with their lead patterns (Check the Fix after the edit) */
  beforeBugs: NonNullable<RunsResult['beforeBugs']> = [];
  /** recording folders without any run (the recording failed): listed to be deleted */
  empty: { dir: string; uri: string }[] = [];
  /** per trace folder: what its recording.json says (command, noise or plan, start), for the Runs view's groups */
  recordings = new Map<string, RecordingInfo>();
  bugs: BugDto[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly statusEmitter = new vscode.EventEmitter<AnalysisSummaryDto>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  private refreshing: Promise<void> | undefined;
  private again = false;
  /** the last results the views were given (JSON), to tell an analysis that changed nothing */
  private stamp = '';

  constructor(
    private readonly client: LanguageClient,
    private readonly log: vscode.LogOutputChannel,
  ) {
    client.onNotification(StatusNotification, (s: AnalysisSummaryDto) => {
      this.summary = s;
      this.statusEmitter.fire(s);
      if (s.state === 'done') void this.refresh();
    });
  }

  request<R>(method: string, params?: unknown): Promise<R> {
    return this.client.sendRequest<R>(method, params);
  }

  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          const max = vscode.workspace.getConfiguration('braid').get<number>('views.maxPatterns', 500);
          const [p, r, b] = await Promise.all([
            this.client.sendRequest<PatternsResult>(PatternsRequest, { offset: 0, limit: max }),
            this.client.sendRequest<RunsResult>(RunsRequest),
            this.client.sendRequest<BugsResult>(BugsRequest),
          ]);
          this.summary = p.summary;
          // An analysis that changed nothing (a trace written again, a second status after a
          // recording) keeps the objects the views hold and fires no change: a tree re-rendered for
          // nothing loses the click a user is making on it.
          const stamp = JSON.stringify([p.patterns, p.total, r, b]);
          if (stamp === this.stamp) {
            this.statusEmitter.fire(this.summary);
            continue;
          }
          this.stamp = stamp;
          this.patterns = p.patterns;
          this.patternTotal = p.total;
          this.runs = r.runs;
          this.unreadable = r.unreadable ?? [];
          this.excluded = r.excluded ?? [];
          this.older = r.older ?? [];
          this.beforeBugs = r.beforeBugs ?? [];
          this.empty = r.empty ?? [];
          await this.loadRecordings();
          this.bugs = (b.bugs as BugDto[]).filter((x) => x && typeof x === 'object');
          this.statusEmitter.fire(this.summary);
          this.emitter.fire();
        } catch (err) {
          this.log.warn(`could not fetch results: ${(err as Error).message ?? err}`);
        }
      } while (this.again);
      this.refreshing = undefined;
    })();
    return this.refreshing;
  }

  /** Reads the recording.json of each trace folder not read yet (bounded; every field checked: workspace content). */
  private async loadRecordings(): Promise<void> {
    const dirs = new Set([...this.runs.map((r) => recordingFolder(r.file)), ...this.older.map((o) => o.dir), ...this.empty.map((e) => e.dir)]);
    for (const dir of dirs) {
      if (this.recordings.has(dir)) continue;
      let info: RecordingInfo = {};
      try {
        const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(`${dir}/recording.json`));
        if (bytes.byteLength <= 64 * 1024) info = parseRecordingInfo(new TextDecoder().decode(bytes));
      } catch {
        // no manifest (imported traces, older recordings): the group is named from its runs
      }
      this.recordings.set(dir, info);
    }
  }

  patternByKey(key: string): PatternDto | undefined {
    // a bug of the code before the change is still checked (Check the Fix) after the edit
    return this.patterns.find((p) => p.key === key) ?? this.beforeBugs.find((b) => b.pattern.key === key)?.pattern;
  }

  dispose(): void {
    this.emitter.dispose();
    this.statusEmitter.dispose();
  }
}
