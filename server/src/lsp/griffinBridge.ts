/**
 * GRIFFIN (bug clustering) as the analysis worker calls it.
 */
import type { Analyzer, AnalysisResult } from '../engine/analysis';
import { explainBugs } from '../engine/griffin/griffin';
import { TestCodeClassifier } from '../engine/testCode';
import type { GriffinSettings } from './settings';

export const griffinAvailable = true;

export function explain(analyzer: Analyzer, result: AnalysisResult, params: Partial<GriffinSettings> & { testCode?: string[] }): unknown[] {
  if (result.executions.failed === 0) return [];
  const { testCode, ...griffin } = params;
  return explainBugs(analyzer, result, { ...griffin, testCode: new TestCodeClassifier(testCode ?? []) });
}
