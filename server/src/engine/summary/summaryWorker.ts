/**
 * A worker thread of the summary pool (summaryPool.ts): summarizes the trace
 * files it is sent, one at a time, and posts each summary back.
 */
import { parentPort } from 'node:worker_threads';
import { summarizeTrace } from './traceSummary';
import type { AnalysisOptions } from '../analysis';

export interface SummarizeRequest {
  seq: number;
  file: string;
  options: Partial<AnalysisOptions>;
  /** the cache's runs folder: the worker writes the summary there */
  storeDir?: string;
}

parentPort?.on('message', (m: SummarizeRequest) => {
  summarizeTrace(m.file, m.options, m.storeDir).then(
    (r) => parentPort!.postMessage({ seq: m.seq, result: r }),
    (err) => parentPort!.postMessage({ seq: m.seq, result: { file: m.file, diagnostics: [{ severity: 'error', file: m.file, message: `the trace could not be analyzed: ${(err as Error)?.message ?? err}` }] } }),
  );
});
