/**
 * The analysis worker (worker_threads): owns the Analyzer, so reading and
 * ranking traces never blocks the language server's main thread. Keeps
 * per-trace results between rounds: a round re-reads only new or changed
 * files (by mtime and size) and drops removed ones; changed analysis options
 * start a new Analyzer. New traces are read by a pool of worker threads and
 * their per-run summaries cached on disk (<workspace>/.braid/cache), so a
 * reopened workspace reads only traces it has not seen
 * (server/src/engine/summary/). After a round the whole analysis is kept as
 * a workspace snapshot in the cache (written once the worker is idle), and
 * the first round of a session starts from it: reopening loads one file, then
 * reads only new or changed traces (summary/workspaceSession.ts).
 */
import { parentPort } from 'node:worker_threads';
import { Analyzer, patternCount } from './engine/analysis';
import { SummaryCache } from './engine/summary/summaryCache';
import { addTraces } from './engine/summary/workspaceAnalysis';
import { WorkspaceSession } from './engine/summary/workspaceSession';
import type { Diagnostic } from './engine/trace/traceFormat';
import { explain } from './lsp/griffinBridge';
import { explainByMining } from './engine/mining';
import { rankMethodsOfTraceFiles } from './engine/callgraph/localizationProcess';
import type { AnalyzeMessage, ExplainMessage, FromWorker, MethodsMessage, ToWorker } from './lsp/workerProtocol';

const session = new WorkspaceSession();

function post(m: FromWorker): void {
  parentPort!.postMessage(m);
}

async function analyze(m: AnalyzeMessage): Promise<void> {
  const t0 = performance.now();
  let lastPost = 0;
  const round = await session.update({
    options: m.options,
    files: m.files,
    force: m.force,
    cacheDir: m.cacheDir,
    workers: m.workers,
    onProgress: (done, total, file) => {
      const now = performance.now();
      if (now - lastPost > 100 || done === 0 || done === total) {
        post({ type: 'progress', id: m.id, done, total, file });
        lastPost = now;
      }
    },
  });
  const analyzer = session.analyzer!;
  post({ type: 'progress', id: m.id, done: round.changed, total: round.changed });
  if (snapshotProblem) round.problems.push(snapshotProblem);
  snapshotProblem = undefined;
  postResult(m, analyzer, round, t0);
}

/**
 * These traces alone, in an analyzer of their own (the recordings of the code before the change,
 * codeVersions.ts): read through the per-run summary cache; the session is left as it is.
 */
async function analyzeApart(m: AnalyzeMessage): Promise<void> {
  const t0 = performance.now();
  const analyzer = new Analyzer(m.options);
  const problems: Diagnostic[] = [];
  const cache =
    m.cacheDir && !m.force
      ? await SummaryCache.open(m.cacheDir, analyzer.options).catch((err: Error) => {
          problems.push({ severity: 'warning', file: m.cacheDir!, message: err.message });
          return undefined;
        })
      : undefined;
  const added = await addTraces(analyzer, m.files.map((f) => f.path), { workers: m.workers, cache });
  postResult(m, analyzer, { read: added.read, removed: 0, reused: added.cached, problems }, t0);
}

/** Ranks, clusters (GRIFFIN) and sends the best patterns of an analyzer. */
function postResult(m: AnalyzeMessage, analyzer: Analyzer, round: { read: number; removed: number; reused: number; problems: Diagnostic[] }, t0: number): void {
  const result = analyzer.rank();
  result.diagnostics.unshift(...round.problems);
  let bugs: unknown[] = [];
  let griffinError: string | undefined;
  try {
    bugs = explain(analyzer, result, m.griffin);
  } catch (err) {
    griffinError = (err as Error)?.stack ?? String(err);
  }
  // Only the top patterns cross to the main thread (structured clone of 750k patterns takes ~20 s).
  // (the ranking is compact: only these are described; it stays behind, not enumerable)
  const totalPatterns = patternCount(result);
  result.patterns = result.ranking ? result.ranking.describeRange(0, m.maxPatterns) : result.patterns.slice(0, m.maxPatterns);
  post({ type: 'result', id: m.id, result, totalPatterns, bugs, griffinError, read: round.read, removed: round.removed, reused: round.reused, ms: performance.now() - t0 });
}

async function explainTraces(m: ExplainMessage): Promise<void> {
  const t0 = performance.now();
  const report = await explainByMining(m.files, m.options);
  post({ type: 'explanations', id: m.id, report, ms: performance.now() - t0 });
}

async function rankMethodsOfTraces(m: MethodsMessage): Promise<void> {
  const t0 = performance.now();
  const ranking = await rankMethodsOfTraceFiles(m.files, m.options);
  // only the best edges cross to the main thread
  ranking.edges = ranking.edges.slice(0, 200);
  post({ type: 'methodsResult', id: m.id, ranking, ms: performance.now() - t0 });
}

/** messages received and not finished */
let busy = 0;
let snapshotTimer: NodeJS.Timeout | undefined;
/** why the last snapshot could not be written (told with the next result) */
let snapshotProblem: Diagnostic | undefined;
const SNAPSHOT_DELAY_MS = 300;

/** Writes the workspace snapshot once no message came for a moment (a burst of rounds writes once). */
function scheduleSnapshot(): void {
  if (snapshotTimer) clearTimeout(snapshotTimer);
  snapshotTimer = undefined;
  if (!session.snapshotPending || busy > 0) return;
  snapshotTimer = setTimeout(() => {
    snapshotTimer = undefined;
    if (busy > 0) return;
    busy++;
    queue = queue
      .then(() => session.writeSnapshot())
      .catch((err) => {
        snapshotProblem = { severity: 'warning', file: '.braid/cache', message: `the workspace snapshot could not be written: ${(err as Error).message} (the next session reads the traces' cached summaries instead)` };
      })
      .then(() => {
        busy--;
      });
  }, SNAPSHOT_DELAY_MS);
}

let queue: Promise<void> = Promise.resolve();
parentPort?.on('message', (m: ToWorker) => {
  if (m.type !== 'shutdown') {
    busy++;
    if (snapshotTimer) clearTimeout(snapshotTimer);
    snapshotTimer = undefined;
  }
  const done = () => {
    busy--;
    scheduleSnapshot();
  };
  if (m.type === 'shutdown') {
    process.exit(0);
  }
  if (m.type === 'analyze') {
    queue = queue.then(() =>
      (m.apart ? analyzeApart(m) : analyze(m)).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    ).then(done);
  }
  if (m.type === 'methods') {
    queue = queue.then(() =>
      rankMethodsOfTraces(m).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    ).then(done);
  }
  if (m.type === 'explain') {
    queue = queue.then(() =>
      explainTraces(m).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    ).then(done);
  }
});
