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

export class BraidModel implements vscode.Disposable {
  summary: AnalysisSummaryDto = { state: 'idle', executions: { total: 0, failed: 0, passed: 0 }, topScore: 0, patternCount: 0, bugCount: 0 };
  patterns: PatternDto[] = [];
  patternTotal = 0;
  runs: RunDto[] = [];
  /** trace files that could not be read, with their error (shown in the Runs view) */
  unreadable: UnreadableTraceDto[] = [];
  bugs: BugDto[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly statusEmitter = new vscode.EventEmitter<AnalysisSummaryDto>();
  readonly onDidChangeStatus = this.statusEmitter.event;
  private refreshing: Promise<void> | undefined;
  private again = false;

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
          this.patterns = p.patterns;
          this.patternTotal = p.total;
          this.runs = r.runs;
          this.unreadable = r.unreadable ?? [];
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

  patternByKey(key: string): PatternDto | undefined {
    return this.patterns.find((p) => p.key === key);
  }

  dispose(): void {
    this.emitter.dispose();
    this.statusEmitter.dispose();
  }
}
