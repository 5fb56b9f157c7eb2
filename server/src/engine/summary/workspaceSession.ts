/**
 * A workspace's analysis kept between rounds (the language server's analysis worker): each
 * round reads only trace files that are new or changed (by size and mtime) and drops removed
 * ones. With a cache folder, the first round of a session starts from the workspace snapshot
 * (workspaceSnapshot.ts) when there is one, and `writeSnapshot` keeps it up to date (new
 * traces are then read straight into the analyzer: the snapshot replaces the per-run summary
 * cache, which only a pool of worker threads still fills). A
 * snapshot that cannot be used is told as a warning and every trace is read (through the
 * per-run summary cache).
 */
import { Analyzer, AnalysisOptions } from '../analysis';
import type { Diagnostic } from '../trace/traceFormat';
import { SummaryCache } from './summaryCache';
import { cacheKeyProblem } from './cacheKey';
import { addTraces } from './workspaceAnalysis';
import { defaultWorkers } from './summaryPool';
import { readWorkspaceSnapshot, snapshotPath, writeWorkspaceSnapshot } from './workspaceSnapshot';

export interface SessionFile {
  path: string;
  mtimeMs: number;
  size: number;
}

export interface RoundRequest {
  options: AnalysisOptions | Partial<AnalysisOptions>;
  /** the workspace's trace files now, in the order they are to be added */
  files: SessionFile[];
  /** re-read every trace (no cache, no snapshot) */
  force?: boolean;
  /** the summary cache root (<workspace>/.braid/cache) */
  cacheDir?: string;
  workers?: number;
  onProgress?(done: number, total: number, file?: string): void;
}

export interface RoundResult {
  /** traces read (not from the cache) */
  read: number;
  removed: number;
  /** traces kept from the last round, the snapshot or the summary cache */
  reused: number;
  /** traces new or changed since the last round (read, or found in the summary cache) */
  changed: number;
  /** traces the session started with from the workspace snapshot (first round only) */
  fromSnapshot: number;
  /** warnings about the cache (an unusable snapshot) */
  problems: Diagnostic[];
}

export class WorkspaceSession {
  analyzer: Analyzer | undefined;
  /** trace files in the analyzer, as they were when read */
  readonly known = new Map<string, { mtimeMs: number; size: number }>();
  private optionsKey = '';
  /** the cache root whose snapshot is out of date */
  private snapshotDue: string | undefined;

  /** One round: the analyzer then holds exactly `r.files`. */
  async update(r: RoundRequest): Promise<RoundResult> {
    const problems: Diagnostic[] = [];
    const key = JSON.stringify(r.options);
    let fromSnapshot = 0;
    if (!this.analyzer || key !== this.optionsKey || r.force) {
      this.analyzer = new Analyzer(r.options);
      this.optionsKey = key;
      this.known.clear();
      // a new session (or new options): start from the workspace snapshot when the cache has one
      if (r.cacheDir && !r.force) {
        let file = r.cacheDir;
        try {
          file = snapshotPath((await SummaryCache.open(r.cacheDir, this.analyzer.options)).dir);
          const snap = await readWorkspaceSnapshot(file, r.options);
          this.analyzer = snap.analyzer;
          for (const t of snap.traces) this.known.set(t.file, { mtimeMs: t.mtimeMs, size: t.size });
          fromSnapshot = snap.traces.length;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ severity: 'warning', file, message: (err as Error).message });
        }
      }
    }
    const analyzer = this.analyzer;
    const wanted = new Set(r.files.map((f) => f.path));
    let removed = 0;
    for (const file of [...this.known.keys()]) {
      if (!wanted.has(file)) {
        analyzer.removeTrace(file);
        this.known.delete(file);
        removed++;
      }
    }
    const todo = r.files.filter((f) => {
      const k = this.known.get(f.path);
      return !k || k.mtimeMs !== f.mtimeMs || k.size !== f.size;
    });
    const reused = r.files.length - todo.length;
    // The snapshot is the session's cache: in one thread new traces are read straight into the
    // analyzer (re-interning a per-run summary costs more than reading its trace). A pool of
    // worker threads sends summaries anyway, and keeps them in the per-run summary cache.
    // --force re-reads every trace: no cache is consulted.
    const pool = (r.workers ?? defaultWorkers()) > 1;
    const cache =
      r.cacheDir && !r.force && pool
        ? await SummaryCache.open(r.cacheDir, analyzer.options).catch((err: Error) => {
            if (!problems.some((p) => p.message === err.message)) problems.push({ severity: 'warning', file: r.cacheDir!, message: err.message });
            return undefined;
          })
        : undefined;
    const added = await addTraces(
      analyzer,
      todo.map((f) => f.path),
      { workers: r.workers, cache, onProgress: r.onProgress },
    );
    for (const f of todo) this.known.set(f.path, { mtimeMs: f.mtimeMs, size: f.size });
    if (r.cacheDir && (todo.length > 0 || removed > 0 || r.force) && !cacheKeyProblem()) this.snapshotDue = r.cacheDir;
    return { read: added.read, changed: todo.length, removed, reused: reused + added.cached, fromSnapshot, problems };
  }

  /** The snapshot is out of date (a round changed the analysis since it was written). */
  get snapshotPending(): boolean {
    return this.snapshotDue !== undefined && this.analyzer !== undefined;
  }

  /** Writes the workspace snapshot when a round changed the analysis; throws when it cannot. */
  async writeSnapshot(): Promise<void> {
    const dir = this.snapshotDue;
    const analyzer = this.analyzer;
    if (!dir || !analyzer) return;
    this.snapshotDue = undefined;
    const cache = await SummaryCache.open(dir, analyzer.options);
    await writeWorkspaceSnapshot(
      snapshotPath(cache.dir),
      analyzer,
      [...this.known].map(([file, k]) => ({ file, size: k.size, mtimeMs: k.mtimeMs })),
    );
  }
}
