/**
 * GRIFFIN (bug clustering) as the analysis worker calls it.
 */
import type { Analyzer, AnalysisResult } from '../engine/analysis';
import { explainBugs } from '../engine/griffin/griffin';

export const griffinAvailable = true;

export function explain(analyzer: Analyzer, result: AnalysisResult, params: { t: number; s: number }): unknown[] {
  if (result.executions.failed === 0) return [];
  return explainBugs(analyzer, result, { t: params.t, s: params.s });
}
