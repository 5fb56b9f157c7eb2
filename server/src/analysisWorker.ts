/**
 * The analysis worker (worker_threads): owns the Analyzer, so reading and
 * ranking traces never blocks the language server's main thread. Keeps
 * per-trace results between rounds: a round re-reads only new or changed
 * files (by mtime and size) and drops removed ones; changed analysis options
 * start a new Analyzer. New traces are read by a pool of worker threads and
 * their per-run summaries cached on disk (<workspace>/.braid/cache), so a
 * reopened workspace reads only traces it has not seen
 * (server/src/engine/summary/).
 */
import { parentPort } from 'node:worker_threads';
import { Analyzer, patternCount } from './engine/analysis';
import { addTraces } from './engine/summary/workspaceAnalysis';
import { SummaryCache } from './engine/summary/summaryCache';
import { explain } from './lsp/griffinBridge';
import { explainByMining } from './engine/mining';
import { rankMethodsOfTraceFiles } from './engine/callgraph/localizationProcess';
import type { AnalyzeMessage, ExplainMessage, FromWorker, MethodsMessage, ToWorker } from './lsp/workerProtocol';

let analyzer: Analyzer | undefined;
let optionsKey = '';
const known = new Map<string, { mtimeMs: number; size: number }>();

function post(m: FromWorker): void {
  parentPort!.postMessage(m);
}

async function analyze(m: AnalyzeMessage): Promise<void> {
  const t0 = performance.now();
  const key = JSON.stringify(m.options);
  if (!analyzer || key !== optionsKey || m.force) {
    analyzer = new Analyzer(m.options);
    optionsKey = key;
    known.clear();
  }
  const wanted = new Map(m.files.map((f) => [f.path, f]));
  let removed = 0;
  for (const file of [...known.keys()]) {
    if (!wanted.has(file)) {
      analyzer.removeTrace(file);
      known.delete(file);
      removed++;
    }
  }
  const todo = m.files.filter((f) => {
    const k = known.get(f.path);
    return !k || k.mtimeMs !== f.mtimeMs || k.size !== f.size;
  });
  const reused = m.files.length - todo.length;
  let lastPost = 0;
  // --force re-reads every trace: the cache is not consulted
  const cache = m.cacheDir && !m.force ? await SummaryCache.open(m.cacheDir, analyzer.options) : undefined;
  const added = await addTraces(
    analyzer,
    todo.map((f) => f.path),
    {
      workers: m.workers,
      cache,
      onProgress: (done, total, file) => {
        const now = performance.now();
        if (now - lastPost > 100 || done === 0 || done === total) {
          post({ type: 'progress', id: m.id, done, total, file });
          lastPost = now;
        }
      },
    },
  );
  for (const f of todo) known.set(f.path, { mtimeMs: f.mtimeMs, size: f.size });
  post({ type: 'progress', id: m.id, done: todo.length, total: todo.length });
  const result = analyzer.rank();
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
  post({ type: 'result', id: m.id, result, totalPatterns, bugs, griffinError, read: added.read, removed, reused: reused + added.cached, ms: performance.now() - t0 });
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

let queue: Promise<void> = Promise.resolve();
parentPort?.on('message', (m: ToWorker) => {
  if (m.type === 'shutdown') {
    process.exit(0);
  }
  if (m.type === 'analyze') {
    queue = queue.then(() =>
      analyze(m).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    );
  }
  if (m.type === 'methods') {
    queue = queue.then(() =>
      rankMethodsOfTraces(m).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    );
  }
  if (m.type === 'explain') {
    queue = queue.then(() =>
      explainTraces(m).catch((err) => post({ type: 'error', id: m.id, message: (err as Error)?.stack ?? String(err) })),
    );
  }
});
