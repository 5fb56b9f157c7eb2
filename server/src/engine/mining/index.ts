/**
 * Explanations by closed sequential pattern mining — the engine API for the CLI and the language
 * server (docs/mining.md).
 *
 *   explainByMining(files, options)      seed 000: abstraction, closed patterns, dependencies, rel_supp
 *   explainByContrastFiles(files, opts)  seed 002: closed patterns of failing minus passing traces
 *   explainSpinModel(model, opts)        seed 002 on SPIN counterexamples and simulations
 *   mineSequences / SequenceDb / parseSpmf   the miner itself (BIDE+ / PrefixSpan)
 */
import { Diagnostic } from '../trace/traceFormat';
import { AbstractionOptions, AbstractionResult, explainByAbstraction } from './abstractionExplainer';
import { ContrastOptions, ContrastResult, explainByContrast } from './contrastExplainer';
import { spinDataset, SpinDatasetOptions } from './spin';
import { LoadOptions, loadTraceSet } from './traceSet';

export * from './closedMiner';
export * from './sequenceDb';
export * from './traceSet';
export * from './macros';
export * from './dependencies';
export * from './abstractionExplainer';
export * from './contrastExplainer';
export * from './spin';

export type MiningOptions = AbstractionOptions & LoadOptions;

export interface MiningReport extends AbstractionResult {
  diagnostics: Diagnostic[];
}

/** Seed 000 on trace files/folders (format v1): ranked explanation groups. */
export async function explainByMining(files: string[], options: MiningOptions = {}): Promise<MiningReport> {
  const set = await loadTraceSet(files, options);
  return { ...explainByAbstraction(set, options), diagnostics: set.diagnostics };
}

export interface ContrastReport extends ContrastResult {
  diagnostics: Diagnostic[];
}

/** Seed 002 on trace files/folders: anomaly groups, shortest first. */
export async function explainByContrastFiles(files: string[], options: ContrastOptions & LoadOptions = {}): Promise<ContrastReport> {
  const set = await loadTraceSet(files, options);
  return { ...explainByContrast(set, options), diagnostics: set.diagnostics };
}

/** Seed 002 on a Promela model: SPIN's error trails and failing simulations vs passing simulations. */
export async function explainSpinModel(model: string, options: { dataset?: SpinDatasetOptions; contrast?: ContrastOptions } = {}): Promise<ContrastResult> {
  const set = await spinDataset(model, options.dataset);
  return explainByContrast(set, options.contrast);
}
