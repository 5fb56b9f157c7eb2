/**
 * One run's events as the Tracer pages them (braid/traceEvents, lsp/protocol.ts), the MCP server's
 * run explanation reads them (mcp/runExplanation.ts) and the engine's pager produces them
 * (engine/trace/traceEventPager.ts). Shared types only: no runtime dependencies — lsp/protocol.ts
 * re-exports them.
 */

export interface TraceEventsParams {
  /** execution id or trace file path */
  run: string;
  offset: number;
  limit: number;
  /** only these thread ids */
  threads?: number[];
  /** substring of the variable name */
  variable?: string;
  /** free-text search over variable, file, method */
  search?: string;
  /** only accesses (R/W), not locks/threads/method events */
  accessesOnly?: boolean;
}
export interface TraceEventDto {
  i: number;
  thread: number;
  threadName: string;
  kind: 'R' | 'W' | 'ACQ' | 'REL' | 'START' | 'JOIN' | 'END' | 'ENTER' | 'EXIT' | 'SND' | 'RCV' | 'FAIL' | 'OUT';
  variable?: string;
  file?: string;
  line?: number;
  method?: string;
  uri?: string;
  value?: unknown;
  /** object id, lock id or child thread id */
  target?: number;
}
export interface TraceEventsResult {
  run: string;
  /** total events matching the filters */
  total: number;
  offset: number;
  events: TraceEventDto[];
  threads: { id: number; name: string }[];
}
