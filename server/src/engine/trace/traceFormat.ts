/**
 * Trace format v1 (docs/trace-format.md): the types shared by the reader and
 * writers. One execution per file, JSON Lines.
 */

import { terminalLine } from '../outputEscaping';

export const TRACE_FORMAT_VERSION = 1;

export type Outcome = 'pass' | 'fail';

export interface TraceHeader {
  braid: 'trace';
  version: number;
  execution: string;
  outcome?: Outcome;
  program?: string;
  test?: string;
  recorder?: { name?: string; version?: string; options?: Record<string, unknown> };
  startedAt?: string;
  [extra: string]: unknown;
}

/** Event kinds, as small integers for the hot path. */
export const enum EventKind {
  Read = 0,
  Write = 1,
  Acquire = 2,
  Release = 3,
  Start = 4,
  Join = 5,
  End = 6,
  Enter = 7,
  Exit = 8,
  /** happens-before token published (task hand-off, latch count-down, …) */
  Send = 9,
  /** happens-before token received (task start, Future.get, await return, …) */
  Receive = 10,
  /** a failure point (uncaught exception, non-zero exit, assertion, output match) */
  Fail = 11,
  /** a line written to System.out / System.err */
  Out = 12,
}

export const EVENT_KIND_NAMES = ['R', 'W', 'ACQ', 'REL', 'START', 'JOIN', 'END', 'ENTER', 'EXIT', 'SND', 'RCV', 'FAIL', 'OUT'] as const;

/** `kind` of a FAIL event, as stored in TraceEvent.a. */
export const FAIL_KINDS = ['uncaught', 'exit', 'assert', 'output'] as const;
export type FailKind = (typeof FAIL_KINDS)[number];
export type EventKindName = (typeof EVENT_KIND_NAMES)[number];

export function eventKindFromName(name: string): EventKind | -1 {
  const k = EVENT_KIND_NAMES.indexOf(name as EventKindName);
  return k as EventKind | -1;
}

/**
 * One event line, decoded. The reader reuses a single instance of this
 * object for every event (flyweight) so that reading allocates nothing per
 * event; consumers copy what they keep.
 *
 * Field meaning by kind:
 * - R/W: a = var, b = loc, c = stack node (TraceSymbols.stackFrames; -1 none), d = obj (0 static), e = elem (-1 field)
 * - ACQ/REL: a = lock, b = loc, c = stack node
 * - START/JOIN: a = child thread, b = loc
 * - ENTER/EXIT: b = loc (-1 when absent)
 * - END: nothing
 * - SND/RCV: a = sync token, b = loc (-1 when absent)
 * - FAIL: a = index in FAIL_KINDS (-1 unknown/absent), b = loc (-1), c = stack (-1), value = detail text
 * - OUT: a = stream (1 out, 2 err), b = -1, value = the text
 */
export interface TraceEvent {
  i: number;
  t: number;
  kind: EventKind;
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  /** The optional value of an access; `undefined` when absent. */
  value: unknown;
}

export interface VarDef {
  id: number;
  name: string;
  class?: string;
  field?: string;
  array?: boolean;
}

export interface LocDef {
  id: number;
  file: string;
  line: number;
  method: string;
  /** a library call at this (user) line, e.g. "java.util.HashMap.put" */
  call?: string;
  /** true when the recorder classified this location as test code */
  harness?: boolean;
}

export interface ThreadDef {
  id: number;
  name: string;
}

export interface UncaughtInfo {
  thread?: number;
  exception?: string;
  message?: string;
  frames?: string[];
}

export type Severity = 'error' | 'warning' | 'info';

/** A problem found while reading or analyzing, with its place. */
export interface Diagnostic {
  severity: Severity;
  file: string;
  /** 1-based line in the trace file, when the problem has one. */
  line?: number;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  // file and message come from traces and summaries: one terminal line (outputEscaping.ts), never a workflow command
  return terminalLine(`${d.file}${d.line !== undefined ? `:${d.line}` : ''}: ${d.severity}: ${d.message}`);
}
