/**
 * Analysis of many runs: traces are summarized in parallel by a pool of
 * worker threads (or read in process), summaries come from the on-disk
 * cache when a trace was analyzed before, summary files from other machines
 * are merged, and everything is added to one Analyzer in input order, so the
 * ranking is exactly the one of reading every trace here, one by one.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Analyzer, AnalysisOptions, AnalysisResult, fileHash } from '../analysis';
import type { Diagnostic } from '../trace/traceFormat';
import { findTraceFiles } from '../traceDiscovery';
import { worthReaderThread } from '../trace/traceReaderThread';
import { readSummaryFile, SUMMARY_FILE_PATTERN } from './summaryFile';
import { SummaryCache } from './summaryCache';
import { defaultWorkers, SummaryPool } from './summaryPool';
import { readWorkspaceSnapshot, SnapshotTrace, snapshotPath, writeWorkspaceSnapshot } from './workspaceSnapshot';
import { summarizeTrace, TraceSummary } from './traceSummary';

export interface ParallelOptions {
  /** worker threads (default: the cores); 1 reads every trace in this thread */
  workers?: number;
  /** the summary cache (per-run summaries of traces read before) */
  cache?: SummaryCache;
  onProgress?(done: number, total: number, file?: string): void;
}

export interface AddTracesResult {
  /** traces read (not found in the cache) */
  read: number;
  /** traces whose summary came from the cache */
  cached: number;
}

/**
 * Adds trace files to `analyzer` in the given order: cached summaries, then
 * the rest summarized by the worker pool (or in process when one worker, or
 * one trace, is enough). Results are added as soon as every earlier file's
 * is, so memory holds only the summaries that arrived early.
 */
export async function addTraces(analyzer: Analyzer, files: string[], o: ParallelOptions = {}): Promise<AddTracesResult> {
  const options = analyzer.options;
  const cache = o.cache;
  const total = files.length;
  let done = 0;
  let cached = 0;
  const progress = (file?: string) => o.onProgress?.(done, total, file);
  // a slot holds a trace's summary once it is ready, or the hash of its cached summary (read when its turn comes)
  const slots: (TraceSummary | string | undefined)[] = new Array(total);
  let next = 0;
  const flushOnce = async () => {
    for (; next < total && slots[next] !== undefined; next++) {
      const k = next;
      let r = slots[k]!;
      slots[k] = undefined;
      if (typeof r === 'string') {
        const summary = await cache!.read(r);
        // a broken cached summary: the trace is read again
        r = summary ? { file: files[k], summary, diagnostics: [], hash: r } : await summarizeTrace(files[k], options, cache!.runsDir);
        if (!summary) store(r);
      }
      addOne(analyzer, files[k], r);
    }
  };
  let flushing = Promise.resolve();
  const flush = () => (flushing = flushing.then(flushOnce));
  const store = (r: TraceSummary) => {
    if (cache && r.stored && r.hash) cache.record(r.file, r.hash, r.stored);
    if (cache && r.storeProblem && !cache.problems.includes(r.storeProblem)) cache.problems.push(r.storeProblem);
  };
  const lookups = cache ? await Promise.all(files.map((f) => cache.peek(f))) : [];
  const misses: number[] = [];
  for (let k = 0; k < total; k++) {
    const l = lookups[k];
    if (l?.hit && l.hash) {
      slots[k] = l.hash;
      cached++;
    } else misses.push(k);
  }
  done = cached;
  const workers = Math.min(o.workers ?? defaultWorkers(), misses.length);
  const storeDir = cache?.runsDir;
  if (workers <= 1 && !cache) {
    // the plain path: each trace read straight into this analyzer; one big trace with 2+ workers
    // allowed is parsed in a reader thread while this thread collects (trace/traceReaderThread.ts)
    const readerThread = misses.length === 1 && (o.workers ?? defaultWorkers()) >= 2 && (await worthReaderThread(files[misses[0]]));
    for (const k of misses) {
      progress(files[k]);
      try {
        await analyzer.addTrace(files[k], { readerThread });
      } catch (err) {
        analyzer.addUnreadable(files[k], [{ severity: 'error', file: files[k], message: `the trace could not be analyzed: ${(err as Error)?.message ?? err}` }]);
      }
      done++;
    }
  } else if (workers <= 1) {
    for (const k of misses) {
      progress(files[k]);
      const r = await summarizeTrace(files[k], options, storeDir);
      store(r);
      slots[k] = r;
      done++;
      await flush();
    }
  } else {
    const pool = new SummaryPool(workers);
    try {
      progress(files[misses[0]]);
      await Promise.all(
        misses.map(async (k) => {
          let r: TraceSummary;
          try {
            r = await pool.summarize(files[k], options, storeDir);
          } catch (err) {
            r = { file: files[k], diagnostics: [{ severity: 'error', file: files[k], message: `the trace could not be analyzed: ${(err as Error)?.message ?? err}` }] };
          }
          store(r);
          slots[k] = r;
          done++;
          progress(files[k]);
          await flush();
        }),
      );
    } finally {
      await pool.close();
    }
  }
  await flush();
  if (cache) await cache.save();
  progress();
  return { read: total - cached, cached };
}

function addOne(analyzer: Analyzer, file: string, r: TraceSummary): void {
  if (!r.summary) {
    analyzer.addUnreadable(file, r.diagnostics);
    return;
  }
  try {
    analyzer.addSummary(r.summary, () => file);
  } catch (err) {
    analyzer.addUnreadable(file, [{ severity: 'error', file, message: `cached summary not usable: ${(err as Error).message}` }]);
  }
}

/** Summary files (*.braid-summary.json) named or under folders, in name order. */
async function findSummaryFiles(input: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(dir: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // findTraceFiles reports unreadable folders
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.git')) await walk(p);
      } else if (e.isFile() && SUMMARY_FILE_PATTERN.test(e.name)) out.push(p);
    }
  }
  let st;
  try {
    st = await fs.stat(input);
  } catch {
    return out;
  }
  if (st.isDirectory()) await walk(input);
  else if (SUMMARY_FILE_PATTERN.test(input)) out.push(input);
  return out;
}

export interface AnalyzeInputsOptions extends Omit<ParallelOptions, 'cache'> {
  /** root of the summary cache (e.g. .braid/cache); none: no cache */
  cacheDir?: string;
}

/**
 * `braid analyze` and `braid summarize`: trace files, summary files and
 * folders of either. Summaries are added first (in the order given, a
 * folder's in name order), then the traces (as `findTraceFiles` lists them). Returns the analyzer (for
 * summaries and GRIFFIN) and the discovery diagnostics.
 */
export async function analyzeInputs(
  inputs: string[],
  options: Partial<AnalysisOptions> = {},
  o: AnalyzeInputsOptions = {},
): Promise<{ analyzer: Analyzer; diagnostics: Diagnostic[]; traces: number; summaries: number }> {
  const analyzer = new Analyzer(options);
  const diagnostics: Diagnostic[] = [];
  let cache: SummaryCache | undefined;
  try {
    cache = o.cacheDir ? await SummaryCache.open(o.cacheDir, analyzer.options) : undefined;
  } catch (err) {
    diagnostics.push({ severity: 'warning', file: o.cacheDir!, message: (err as Error).message });
  }
  let summaries = 0;
  for (const input of inputs) {
    if (SUMMARY_FILE_PATTERN.test(input)) {
      try {
        await fs.stat(input);
      } catch {
        diagnostics.push({ severity: 'error', file: input, message: 'no such file' });
        continue;
      }
    }
    for (const s of await findSummaryFiles(input)) {
      summaries++;
      try {
        analyzer.addSummary(await readSummaryFile(s));
      } catch (err) {
        diagnostics.push({ severity: 'error', file: s, message: `${(err as Error).message}; the summary is skipped` });
      }
    }
  }
  const found = await findTraceFiles(
    inputs.filter((i) => !SUMMARY_FILE_PATTERN.test(i)),
    SUMMARY_FILE_PATTERN,
  );
  diagnostics.push(...found.diagnostics);
  const traces = found.files.length;
  if (cache && summaries === 0) {
    // traces only: the workspace snapshot is the cache (per-run summaries only from a worker pool)
    const r = await addTracesWithSnapshot(analyzer, found.files, cache, o);
    diagnostics.push(...r.problems);
    for (const p of cache.problems) diagnostics.push({ severity: 'warning', file: cache.dir, message: p });
    return { analyzer: r.analyzer, diagnostics, traces, summaries };
  }
  await addTraces(analyzer, found.files, { workers: o.workers, cache, onProgress: o.onProgress });
  if (cache) for (const p of cache.problems) diagnostics.push({ severity: 'warning', file: cache.dir, message: p });
  return { analyzer, diagnostics, traces, summaries };
}

/**
 * `braid analyze --cache`: starts from the cache's workspace snapshot when it holds the first
 * traces of `files` (same names, unchanged: size and mtime, or else content hash), reads the
 * rest, and writes the snapshot again when anything was read. Otherwise every trace is read
 * (an unusable snapshot is a warning). Traces are added in `files`' order either way, so the
 * result is exactly that of reading every trace.
 */
async function addTracesWithSnapshot(
  fresh: Analyzer,
  files: string[],
  cache: SummaryCache,
  o: AnalyzeInputsOptions,
): Promise<{ analyzer: Analyzer; problems: Diagnostic[] }> {
  const problems: Diagnostic[] = [];
  const stats = await Promise.all(files.map((f) => fs.stat(f).then((st) => ({ size: st.size, mtimeMs: st.mtimeMs }), () => undefined)));
  const file = snapshotPath(cache.dir);
  let analyzer = fresh;
  let start = 0;
  let covered: SnapshotTrace[] = [];
  try {
    const snap = await readWorkspaceSnapshot(file, fresh.options);
    const same = async (t: SnapshotTrace, k: number) => {
      const st = stats[k];
      if (t.file !== files[k] || !st) return false;
      if (t.size === st.size && t.mtimeMs === st.mtimeMs) return true;
      return t.hash !== undefined && st.size === t.size && (await fileHash(files[k]).catch(() => '')) === t.hash;
    };
    let ok = snap.traces.length <= files.length;
    for (let k = 0; ok && k < snap.traces.length; k++) ok = await same(snap.traces[k], k);
    if (ok) {
      analyzer = snap.analyzer;
      analyzer.tieOrder = fresh.tieOrder;
      analyzer.isLibrary = fresh.isLibrary;
      start = snap.traces.length;
      covered = snap.traces.map((t, k) => ({ ...t, ...stats[k]! }));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push({ severity: 'warning', file, message: (err as Error).message });
  }
  const rest = files.slice(start);
  const pool = (o.workers ?? defaultWorkers()) > 1;
  await addTraces(analyzer, rest, { workers: o.workers, cache: pool ? cache : undefined, onProgress: o.onProgress });
  if (rest.length > 0 || start === 0) {
    const traces = [...covered, ...rest.map((f, k) => ({ file: f, size: stats[start + k]?.size ?? -1, mtimeMs: stats[start + k]?.mtimeMs ?? -1 }))];
    try {
      await writeWorkspaceSnapshot(file, analyzer, traces);
    } catch (err) {
      problems.push({ severity: 'warning', file, message: `the workspace snapshot could not be written: ${(err as Error).message}` });
    }
  }
  return { analyzer, problems };
}

/** analyzeInputs, ranked: the result of `braid analyze`. */
export async function analyzeInputsRanked(inputs: string[], options: Partial<AnalysisOptions> = {}, o: AnalyzeInputsOptions = {}): Promise<{ analyzer: Analyzer; result: AnalysisResult }> {
  const { analyzer, diagnostics, traces, summaries } = await analyzeInputs(inputs, options, o);
  const result = analyzer.rank();
  result.diagnostics.unshift(...diagnostics);
  if (traces === 0 && summaries === 0 && diagnostics.length === 0) {
    result.diagnostics.push({ severity: 'error', file: inputs.join(' '), message: 'no trace files (*.trace.jsonl, *.trace.jsonl.gz) found, nor summaries (*.braid-summary.json)' });
  }
  return { analyzer, result };
}
