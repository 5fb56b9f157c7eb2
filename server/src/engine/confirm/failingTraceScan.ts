/**
 * One pass over a recording's traces for what forcing learns from its failing runs (issue 40): the
 * locked hold (lockedHold.ts) and the threads of the failing runs' instance (threadRoles.ts) each read
 * every event of the failing traces, so a confirmation reads each trace once for both
 * (failingRunFacts.ts) instead of once per question. Traces are read in the order given until
 * `maxFiles` failing ones were read whole; a passing trace is read too (its outcome is known at its end)
 * but only failing ones count.
 */
import { readTrace, type ReadTraceResult } from '../trace/traceReader';
import { EventKind } from '../trace/traceFormat';
import type { LocDef, TraceEvent, TraceHeader } from '../trace/traceFormat';
import type { TraceSymbols } from '../trace/traceSymbols';
import { type ForcedPattern, traceLocation } from './forcingPlan';

type Access = ForcedPattern['accesses'][number];

/** A trace's R or W event (its kind, variable name and location) is a performance of the pattern's access `a`. */
export function isPerformanceOf(a: Access, kind: EventKind, varName: string | undefined, loc: LocDef | undefined): boolean {
  if (!loc || varName !== a.variable || (a.type === 'R' ? kind !== EventKind.Read : a.type === 'W' ? kind !== EventKind.Write : kind !== EventKind.Read && kind !== EventKind.Write)) return false;
  const l = traceLocation(a);
  if (loc.line !== l.line || loc.file !== l.file || loc.method !== l.method) return false;
  return !a.call || (a.mixedCalls && !a.exactCall) || loc.call === undefined || loc.call === a.call;
}

/**
 * The pattern's first change of role, which the failing-trace readers look for: `accesses[at]` (the held
 * access, made `after`) by one thread after another thread made `accesses[at - 1]` (`before`); `at` is
 * -1 when the pattern has none (then `before` and `after` are placeholders that match nothing).
 */
export function firstChangeOfRole(p: Pick<ForcedPattern, 'accesses'>): { at: number; before: Access; after: Access; sameVariable: boolean } {
  const at = p.accesses.findIndex((a, k) => k > 0 && a.thread !== p.accesses[k - 1].thread);
  const none = { thread: 1, type: 'R', variable: '', file: '', line: 0, method: '' } as Access;
  const before = at > 0 ? p.accesses[at - 1] : none;
  const after = at > 0 ? p.accesses[at] : none;
  return { at, before, after, sameVariable: before.variable === after.variable };
}

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

/**
 * A reader of the Java agent's R and W events of each trace up to its first failure point (the instance
 * the failure followed): what threadRoles.ts, guardChain.ts and instanceCallers.ts share. A trace that is
 * not the Java agent's makes the reader inactive, with no answer (`allJava` false). Subclasses see the
 * accesses (`access`), a failing trace's end (`failingTrace`, after `failingRead` counted it) and reset
 * their per-trace state in `resetTrace`, after every trace.
 */
export abstract class FailingAccessReader implements FailingTraceReader {
  active = true;
  /** false once a trace is not the Java agent's: then there is no answer */
  protected allJava = true;
  /** failing traces read whole */
  protected failingRead = 0;
  private java = true;
  private failed = false;

  header(h: TraceHeader): void {
    this.java = !h.recorder?.name || h.recorder.name.includes('java');
  }

  event(ev: TraceEvent, symbols: TraceSymbols): void {
    if (!this.java || this.failed) return;
    if (ev.kind === EventKind.Fail) {
      this.failed = true;
      return;
    }
    if (ev.kind === EventKind.Read || ev.kind === EventKind.Write) this.access(ev, symbols);
  }

  endTrace(_result: ReadTraceResult, failing: boolean): void {
    if (!this.java) {
      this.allJava = false;
      this.active = false;
    } else if (failing) {
      this.failingRead++;
      this.failingTrace();
    }
    this.java = true;
    this.failed = false;
    this.resetTrace();
  }

  /** An R or W event before the trace's first failure point (`ev` is reused: copy what you keep). */
  protected abstract access(ev: TraceEvent, symbols: TraceSymbols): void;
  /** A failing trace was read whole (the Java agent's). */
  protected abstract failingTrace(): void;
  /** After every trace: per-trace state back to empty. */
  protected abstract resetTrace(): void;
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
