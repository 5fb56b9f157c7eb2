/**
 * One pass over a recording's traces for what forcing learns from its failing runs (issue 40): the
 * locked hold (lockedHold.ts) and the threads of the failing runs' instance (threadRoles.ts) each read
 * every event of the failing traces, so a confirmation reads each trace once for both
 * (failingRunFacts.ts) instead of once per question. Traces are read in the order given until
 * `maxFiles` failing ones were read whole; a passing trace is read too (its outcome is known at its end)
 * but only failing ones count.
 */
import { readTrace, type ReadTraceResult } from '../trace/traceReader';
import type { TraceEvent, TraceHeader } from '../trace/traceFormat';
import type { TraceSymbols } from '../trace/traceSymbols';

/** One question's share of the pass: fed each trace's events, told when a trace ends. */
export interface FailingTraceReader {
  /** false once the reader needs nothing more (its answer is known): it is fed no further trace */
  readonly active: boolean;
  header?(header: TraceHeader): void;
  /** `ev` is reused by the reader: copy what you keep */
  event(ev: TraceEvent, symbols: TraceSymbols): void;
  /** after each trace: `failing` when it was read whole and its run failed (those count towards the cap); per-trace state is reset here */
  endTrace(result: ReadTraceResult, failing: boolean): void;
}

/** Feeds `readers` the traces `files` in one read each, until `maxFiles` failing traces were read or no reader is active. */
export async function scanFailingTraces(files: readonly string[], readers: readonly FailingTraceReader[], maxFiles = 40): Promise<void> {
  let failingRead = 0;
  for (const file of files) {
    if (failingRead >= maxFiles) break;
    const live = readers.filter((r) => r.active);
    if (!live.length) break;
    const result = await readTrace(file, {
      header(h) {
        for (const r of live) r.header?.(h);
      },
      event(ev, symbols) {
        for (let k = 0; k < live.length; k++) live[k].event(ev, symbols);
      },
    });
    const failing = result.ok && result.outcome === 'fail';
    for (const r of live) r.endTrace(result, failing);
    if (failing) failingRead++;
  }
}
