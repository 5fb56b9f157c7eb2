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
  /** the thread's name (the Java agent writes it since session 16) */
  name?: string;
  exception?: string;
  message?: string;
  frames?: string[];
}

/** One wait of a forcing report: how often its holds were met, timed out, ended for a lock, or skipped. */
export interface ForcingWaitReport {
  at: number;
  for: number;
  met: number;
  timedOut: number;
  lock: number;
  skipped: number;
  /** an optional wait (not needed for ok) */
  optional?: boolean;
}

/**
 * The agent's `{"forcing":{…}}` line (docs/trace-format.md): what a forcing plan (docs/noise.md
 * "Forcing plans") achieved in the run. `ok`: every wait was met at least once; otherwise `reason`
 * says which wait was not and why.
 */
export interface ForcingReport {
  ok: boolean;
  order?: 'pattern' | 'opposite';
  reason?: string;
  /** the plan's informative `force.pattern`, copied */
  pattern?: Record<string, unknown>;
  waits: ForcingWaitReport[];
}

/** The report of a `forcing` line's value, or undefined when it does not have the documented shape. */
export function parseForcingReport(v: unknown): ForcingReport | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const f = v as Record<string, unknown>;
  if (typeof f.ok !== 'boolean' || !Array.isArray(f.waits)) return undefined;
  if (f.order !== undefined && f.order !== 'pattern' && f.order !== 'opposite') return undefined;
  if (f.reason !== undefined && typeof f.reason !== 'string') return undefined;
  if (f.pattern !== undefined && (typeof f.pattern !== 'object' || f.pattern === null || Array.isArray(f.pattern))) return undefined;
  const count = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  const waits: ForcingWaitReport[] = [];
  for (const w of f.waits as unknown[]) {
    if (typeof w !== 'object' || w === null || Array.isArray(w)) return undefined;
    const r = w as Record<string, unknown>;
    if (!(['at', 'for', 'met', 'timedOut', 'lock', 'skipped'] as const).every((k) => count(r[k]))) return undefined;
    waits.push({ at: r.at as number, for: r.for as number, met: r.met as number, timedOut: r.timedOut as number, lock: r.lock as number, skipped: r.skipped as number, ...(r.optional === true ? { optional: true } : {}) });
  }
  return {
    ok: f.ok,
    ...(f.order !== undefined ? { order: f.order as ForcingReport['order'] } : {}),
    ...(f.reason !== undefined ? { reason: f.reason as string } : {}),
    ...(f.pattern !== undefined ? { pattern: f.pattern as Record<string, unknown> } : {}),
    waits,
  };
}

/**
 * One report for a run recorded by several JVMs (each writes its own line): counts added per wait,
 * `ok` when every wait was met in some JVM, the reasons of the JVMs that were not ok.
 */
export function mergeForcingReports(reports: readonly ForcingReport[]): ForcingReport | undefined {
  if (reports.length <= 1) return reports[0];
  const waits = reports[0].waits.map((w) => ({ ...w }));
  for (const r of reports.slice(1)) {
    r.waits.forEach((w, k) => {
      const to = waits[k];
      if (!to) waits.push({ ...w });
      else for (const key of ['met', 'timedOut', 'lock', 'skipped'] as const) to[key] += w[key];
    });
  }
  const ok = waits.every((w) => w.met > 0 || w.optional === true);
  const reasons = [...new Set(reports.filter((r) => !r.ok && r.reason).map((r) => r.reason as string))];
  const first = reports[0];
  return {
    ok,
    ...(first.order ? { order: first.order } : {}),
    ...(!ok && reasons.length ? { reason: reasons.join('; ') } : {}),
    ...(first.pattern ? { pattern: first.pattern } : {}),
    waits,
  };
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
