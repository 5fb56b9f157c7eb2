/** Messages between the language server's main thread and the analysis worker. */
import type { AnalysisOptions, AnalysisResult } from '../engine/analysis';
import type { TraceFileInfo } from '../workspace/traceFinder';
import type { MiningOptions, MiningReport } from '../engine/mining';
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
}

/** mining explanations (seed 000) of these trace files */
export interface ExplainMessage {
  type: 'explain';
  id: number;
  files: string[];
  options: MiningOptions;
}

export type ToWorker = AnalyzeMessage | ExplainMessage | { type: 'shutdown' };

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

export type FromWorker = ProgressMessage | ResultMessage | ExplanationsMessage | ErrorMessage;
