/**
 * Commands beyond `analyze`, registered here so each lives in its own
 * module: `record` (the Java recorder runner) and, as `__report`, the
 * GRIFFIN sections that extend `analyze` output.
 */
import type { AnalysisResult } from '../engine/analysis';

export interface ExtraCommand {
  usage: string;
  run(argv: string[]): Promise<number>;
}

export interface ReportExtension {
  usage: string;
  run(argv: string[]): Promise<number>;
  extend(result: AnalysisResult): Promise<Record<string, unknown> | undefined>;
  text(extra: Record<string, unknown> | undefined): string;
}

export const extraCommands: Record<string, ExtraCommand> & { __report?: ReportExtension } = {};
