/**
 * The mining explanations as the language server sends them (braid/explanations, lsp/protocol.ts:
 * groups of patterns, their events and dependencies) and as the engine folds them into distinct
 * explanations (engine/mining/distinctExplanations.ts). Shared types only: no runtime dependencies,
 * importable from the engine, server, client and webview bundles — the engine imports them from
 * here, never from lsp/; lsp/protocol.ts re-exports them.
 */

export interface ExplainedEventDto {
  thread: string;
  kind: string;
  /** variable (accesses) or statement */
  target: string;
  file?: string;
  line?: number;
  method?: string;
  label: string;
  uri?: string;
}

export interface ExplanationDependencyDto {
  kind: 'flow' | 'anti' | 'output';
  from: ExplainedEventDto;
  to: ExplainedEventDto;
  variable: string;
}

export interface ExplanationPatternDto {
  /** one entry per macro (consecutive events of one thread); `context`: no dependency with another macro */
  macros: { thread: string; events: ExplainedEventDto[]; context?: boolean }[];
  failing: number;
  passing: number;
  relSupport: number;
  dependencies: ExplanationDependencyDto[];
}

export interface ExplanationLineDto {
  file: string;
  line: number;
  uri?: string;
}

export interface ExplanationGroupDto {
  rank: number;
  order: number;
  relSupport: number;
  failingSupport: number;
  passingSupport: number;
  causal: boolean;
  dependencies: ExplanationDependencyDto[];
  patterns: ExplanationPatternDto[];
  lines: ExplanationLineDto[];
  dependencyLines: ExplanationLineDto[];
}
