/**
 * One trace → its run summary, analyzed with a registry of its own, so the
 * summary describes each pattern by its first occurrence in this run
 * whatever was read before (the same description a fresh analysis gives).
 * Used by the worker threads and, for one trace, in process.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Analyzer, AnalysisOptions, fileHash } from '../analysis';
import type { Diagnostic } from '../trace/traceFormat';
import { SummaryFile, writeSummaryFile } from './summaryFile';
import { cacheName } from './cacheKey';

export interface TraceSummary {
  file: string;
  /** undefined when the trace could not be analyzed (see diagnostics) */
  summary?: SummaryFile;
  /** problems of an unreadable trace (a readable trace's are in its summary) */
  diagnostics: Diagnostic[];
  /** SHA-1 of the trace's bytes */
  hash?: string;
  /** the summary was written to the cache as <storeDir>/<cacheName(hash)>.json; the trace's size and mtime when it was read */
  stored?: { size: number; mtimeMs: number };
  /** why the summary could not be written to the cache */
  storeProblem?: string;
}

/**
 * Summarizes one trace; with `storeDir` (the cache's runs folder) also
 * writes the summary there as <cacheName(SHA-1)>.json (cacheKey.ts), so the caller only records it
 * in the cache's index (the writing happens in the worker threads).
 */
export async function summarizeTrace(file: string, options: Partial<AnalysisOptions>, storeDir?: string): Promise<TraceSummary> {
  const analyzer = new Analyzer(options);
  let run;
  let before;
  try {
    before = storeDir ? await fs.stat(file) : undefined;
    run = await analyzer.addTrace(file);
  } catch (err) {
    return { file, diagnostics: [{ severity: 'error', file, message: `the trace could not be analyzed: ${(err as Error)?.message ?? err}` }] };
  }
  if (!run) return { file, diagnostics: analyzer.diagnostics() };
  let hash: string | undefined;
  try {
    hash = await fileHash(file);
    analyzer.setTraceHash(file, hash);
  } catch {
    // the file went away after it was read: summarized without a hash
  }
  const summary = analyzer.toSummary([file]);
  const out: TraceSummary = { file, summary, diagnostics: [], hash };
  if (storeDir && hash && before) {
    try {
      const after = await fs.stat(file);
      if (after.size === before.size && after.mtimeMs === before.mtimeMs) {
        await fs.mkdir(storeDir, { recursive: true });
        await writeSummaryFile(path.join(storeDir, `${cacheName(hash)}.json`), summary);
        out.stored = { size: before.size, mtimeMs: before.mtimeMs };
      }
    } catch (err) {
      out.storeProblem = `cannot write the summary cache ${storeDir}: ${(err as Error).message}`;
    }
  }
  return out;
}
