/**
 * One trace → its run summary, analyzed with a registry of its own, so the
 * summary describes each pattern by its first occurrence in this run
 * whatever was read before (the same description a fresh analysis gives).
 * Used by the worker threads and, for one trace, in process.
 */
import { Analyzer, AnalysisOptions, fileHash } from '../analysis';
import type { Diagnostic } from '../trace/traceFormat';
import type { SummaryFile } from './summaryFile';

export interface TraceSummary {
  file: string;
  /** undefined when the trace could not be analyzed (see diagnostics) */
  summary?: SummaryFile;
  /** problems of an unreadable trace (a readable trace's are in its summary) */
  diagnostics: Diagnostic[];
  /** SHA-1 of the trace's bytes */
  hash?: string;
}

export async function summarizeTrace(file: string, options: Partial<AnalysisOptions>): Promise<TraceSummary> {
  const analyzer = new Analyzer(options);
  let run;
  try {
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
  return { file, summary: analyzer.toSummary([file]), diagnostics: [], hash };
}
