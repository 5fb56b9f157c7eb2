/**
 * explain_run (and reproduce's interleaving): one recorded run's events just before its failure
 * point, as short lines — "#812 clerk-1 W bank.Bank.balance @ Bank.java:13 bank.Bank.deposit" —
 * read with the Tracer's pager (engine/trace/traceEventPager.ts: unfiltered, an event's position is its index),
 * method entries and exits left out, every recorded string one bounded line (recordedText.ts).
 */
import path from 'node:path';
import type { RunResult } from '../engine/analysis';
import { TraceEventPager } from '../engine/trace/traceEventPager';
import type { TraceEventDto } from '../protocol/traceEvents';
import { recordedText } from './recordedText';

/** Events read before the failure point, of which the last `around` (not ENTER/EXIT) are shown. */
const WINDOW = 400;
/** Events shown after the failure point. */
const AFTER = 3;

export interface RunExplanation {
  run: string;
  outcome: string;
  failure?: string;
  failureAt?: string;
  failPoint?: number;
  threads: string[];
  events: string[];
  totalEvents: number;
}

export function failureText(r: Pick<RunResult, 'failure' | 'outcomeDetail' | 'outcomeReason'>): { failure?: string; failureAt?: string } {
  const f = r.failure;
  const message = f?.message ?? r.outcomeDetail ?? f?.reason ?? r.outcomeReason;
  const loc = f?.location;
  return {
    ...(message ? { failure: recordedText(message, 300) } : {}),
    ...(loc ? { failureAt: `${recordedText(path.basename(loc.file), 80)}:${loc.line}${loc.method ? ` ${recordedText(loc.method, 120)}` : ''}` } : {}),
  };
}

function eventLine(e: TraceEventDto, threads: Map<number, string>): string {
  const who = recordedText(threads.get(e.thread) ?? e.threadName ?? `T${e.thread}`, 30);
  const what = e.variable !== undefined ? ` ${recordedText(e.variable, 80)}` : e.target !== undefined ? ` #${e.target}` : '';
  const at = e.file ? ` @ ${recordedText(path.basename(e.file), 60)}:${e.line ?? '?'}` : '';
  const method = e.method ? ` ${recordedText(e.method, 80)}` : '';
  const value = e.value !== undefined ? ` = ${recordedText(e.value, 40)}` : '';
  return `#${e.i} ${who} ${e.kind}${what}${value}${at}${method}`;
}

/**
 * The events of `trace` around `failPoint` (or its last events when it has none). With `variables`
 * (a pattern's), only the accesses of those variables and the failure itself: the interleaving the
 * pattern names, which a loop between it and the failure would push out of a plain window.
 */
export async function explainTrace(
  trace: string,
  run: Pick<RunResult, 'execution' | 'outcome' | 'failPoint' | 'failure' | 'outcomeDetail' | 'outcomeReason'>,
  around = 20,
  variables?: ReadonlySet<string>,
): Promise<RunExplanation> {
  const pager = new TraceEventPager(() => undefined);
  const head = await pager.page(trace, run.execution, { run: run.execution, offset: 0, limit: 0 });
  const total = head.total;
  const end = run.failPoint !== undefined ? Math.min(run.failPoint, total - 1) : total - 1;
  const from = Math.max(0, end - WINDOW);
  const page = await pager.page(trace, run.execution, { run: run.execution, offset: from, limit: end - from + 1 + AFTER });
  const threads = new Map(page.threads.map((t) => [t.id, t.name]));
  const shown = page.events.filter((e) => e.kind !== 'ENTER' && e.kind !== 'EXIT' && (!variables || (e.variable !== undefined && variables.has(e.variable)) || e.i === run.failPoint));
  const before = shown.filter((e) => e.i <= end).slice(-around);
  const after = shown.filter((e) => e.i > end).slice(0, AFTER);
  return {
    run: recordedText(run.execution, 120),
    outcome: run.outcome,
    ...failureText(run),
    ...(run.failPoint !== undefined ? { failPoint: run.failPoint } : {}),
    threads: page.threads.slice(0, 20).map((t) => `${t.id} ${recordedText(t.name, 40)}`),
    events: [...before, ...after].map((e) => eventLine(e, threads) + (run.failPoint !== undefined && e.i === run.failPoint ? '   <- failure point' : '')),
    totalEvents: total,
  };
}
