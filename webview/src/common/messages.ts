/**
 * Messages between the webviews and the extension host (client/src/webviews/panels.ts).
 * Documented in docs/views.md. The host validates everything a webview sends.
 */
import type { TraceEventsParams, TraceEventsResult } from '../../../server/src/lsp/protocol';

export type RequestMethod = 'patterns' | 'runs' | 'bugs' | 'bugGraph' | 'explanations' | 'methods';
export type ViewKind = 'tracer' | 'unicorn' | 'griffin' | 'bugGraph' | 'explanations' | 'methods';

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'request'; requestId: number; method: RequestMethod; params?: unknown }
  | { type: 'fetchEvents'; requestId: number; params: TraceEventsParams }
  | { type: 'openLocation'; file: string; line: number; uri?: string }
  | { type: 'openTracer'; run?: string; patternKey?: string }
  | { type: 'openBugGraph'; bug: number }
  | { type: 'confirmPattern'; patternKey: string; reproduce: boolean }
  | { type: 'saveSvg'; svg: string; name: string };

export type HostToWebview =
  | { type: 'response'; requestId: number; result?: unknown; error?: string }
  | { type: 'events'; requestId: number; result?: TraceEventsResult; error?: string }
  /** analysis results changed: re-request */
  | { type: 'changed' }
  /** Tracer: show this run, optionally highlighting a pattern's accesses */
  | { type: 'showRun'; run?: string; highlightPatternKey?: string }
  /** Bug graph: show this bug */
  | { type: 'showBug'; bug: number };
