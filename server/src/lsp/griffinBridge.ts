/**
 * GRIFFIN (bug clustering) as the analysis worker calls it.
 */
import type { Analyzer, AnalysisResult } from '../engine/analysis';
import { explainBugs } from '../engine/griffin/griffin';
import type { GriffinSettings } from './settings';

export const griffinAvailable = true;

/** GRIFFIN with the `braid.griffin.*` settings; test code comes from the analysis' test-code globs when it has them. */
export function explain(analyzer: Analyzer, result: AnalysisResult, params: Partial<GriffinSettings>): unknown[] {
  if (result.executions.failed === 0) return [];
  return explainBugs(analyzer, result, params);
}
