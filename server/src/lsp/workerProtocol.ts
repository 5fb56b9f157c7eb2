/** Messages between the language server's main thread and the analysis worker. */
import type { AnalysisOptions, AnalysisResult } from '../engine/analysis';
import type { TraceFileInfo } from '../workspace/traceFinder';
import type { MiningOptions, MiningReport } from '../engine/mining';
import type { CallGraphOptions, CallGraphResult } from '../engine/callgraph/localizationProcess';
import type { GriffinSettings } from './settings';

export interface AnalyzeMessage {
  type: 'analyze';
  id: number;
  options: AnalysisOptions;
  griffin: GriffinSettings;
  files: TraceFileInfo[];
  /** patterns sent back (the best ranked); the rest are only counted */
  maxPatterns: number;
  /** re-read every trace, even unchanged ones */
  force?: boolean;
  /** summary cache folder (<workspace>/.braid/cache): traces analyzed in an earlier session are not read */
  cacheDir?: string;
  /** worker threads reading traces (default: the cores) */
  workers?: number;
  /**
   * analyze these traces apart, in an analyzer of their own (the recordings of the code before the
   * change): the workspace session, its snapshot and the next round are untouched
   */
  apart?: boolean;
}

/** mining explanations (seed 000) of these trace files */
export interface ExplainMessage {
  type: 'explain';
  id: number;
  files: string[];
  options: MiningOptions;
}

/** call-graph method ranking (seed 003) of these trace files */
export interface MethodsMessage {
  type: 'methods';
  id: number;
  files: string[];
  options: Omit<CallGraphOptions, 'readSource'>;
}

export type ToWorker = AnalyzeMessage | ExplainMessage | MethodsMessage | { type: 'shutdown' };

export interface ProgressMessage {
  type: 'progress';
  id: number;
  done: number;
  total: number;
  file?: string;
}

export interface ResultMessage {
  type: 'result';
  id: number;
  /** its patterns are the top `maxPatterns` only */
  result: AnalysisResult;
  totalPatterns: number;
  bugs: unknown[];
  griffinError?: string;
  /** trace files read in this round (new or changed) */
  read: number;
  removed: number;
  reused: number;
  ms: number;
}

export interface ErrorMessage {
  type: 'error';
  id: number;
  message: string;
}

export interface ExplanationsMessage {
  type: 'explanations';
  id: number;
  report: MiningReport;
  ms: number;
}

export interface MethodsResultMessage {
  type: 'methodsResult';
  id: number;
  ranking: CallGraphResult;
  ms: number;
}

export type FromWorker = ProgressMessage | ResultMessage | ExplanationsMessage | MethodsResultMessage | ErrorMessage;
