/**
 * Executions as sequences of static events, the input of both mining pipelines.
 *
 * A static event is seed 000's event id ⟨tid, ℓ, type, addr⟩: the same thread (by name, so it
 * matches across runs), the same kind, the same variable (static identity, `var` name) and the
 * same source line. Per occurrence, each execution also keeps the dynamic location
 * (var, obj, elem) of accesses, from which the data dependencies are computed.
 */
import { EventKind, Diagnostic, Outcome } from '../trace/traceFormat';
import { readTrace } from '../trace/traceReader';
import { findTraceFiles } from '../traceDiscovery';

export type StaticKind = 'R' | 'W' | 'ACQ' | 'REL' | 'START' | 'JOIN' | 'ACTION';

export interface StaticEvent {
  id: number;
  thread: string;
  kind: StaticKind;
  /** variable (R/W), lock or child (sync), or the statement text (SPIN actions) */
  target: string;
  file?: string;
  line?: number;
  method?: string;
}

/** `W clerk-1 bank.Account.balance Bank.java:13` */
export function eventLabel(e: StaticEvent): string {
  const where = e.file !== undefined ? ` ${e.file}:${e.line}` : '';
  return e.kind === 'ACTION' ? `${e.thread}.${e.target}${where}` : `${e.kind} ${e.thread} ${e.target}${where}`;
}

export class EventTable {
  readonly events: StaticEvent[] = [];
  private readonly byKey = new Map<string, number>();

  intern(thread: string, kind: StaticKind, target: string, file?: string, line?: number, method?: string): number {
    const key = `${thread}\u0000${kind}\u0000${target}\u0000${file ?? ''}\u0000${line ?? ''}`;
    let id = this.byKey.get(key);
    if (id === undefined) {
      id = this.events.length;
      this.events.push({ id, thread, kind, target, file, line, method });
      this.byKey.set(key, id);
    }
    return id;
  }
}

export interface Execution {
  /** execution id (trace header), unique in the set */
  id: string;
  file?: string;
  outcome: Outcome;
  /** static event id per occurrence */
  events: Int32Array;
  /** dynamic location id per occurrence (-1: not a memory access) */
  locs: Int32Array;
}

export interface TraceSet {
  table: EventTable;
  executions: Execution[];
  diagnostics: Diagnostic[];
}

export function emptyTraceSet(): TraceSet {
  return { table: new EventTable(), executions: [], diagnostics: [] };
}

export interface LoadOptions {
  /** also keep lock acquire/release and thread start/join as events (default false: R/W only, as in seed 000) */
  includeSync?: boolean;
}

/** Reads trace files and folders (format v1) into a TraceSet; unreadable files become diagnostics. */
export async function loadTraceSet(inputs: string[], options: LoadOptions = {}, into: TraceSet = emptyTraceSet()): Promise<TraceSet> {
  const { files, diagnostics } = await findTraceFiles(inputs);
  into.diagnostics.push(...diagnostics);
  const dyn = new Map<string, number>();
  for (const file of files) {
    dyn.clear();
    const events: number[] = [];
    const locs: number[] = [];
    const res = await readTrace(file, {
      event(ev, sym) {
        const k = ev.kind;
        const isAccess = k === EventKind.Read || k === EventKind.Write;
        const isSync = k === EventKind.Acquire || k === EventKind.Release || k === EventKind.Start || k === EventKind.Join;
        if (!isAccess && !(isSync && options.includeSync)) return;
        const thread = sym.threads.get(ev.t)?.name ?? `T${ev.t}`;
        const loc = ev.b >= 0 ? sym.locs.get(ev.b) : undefined;
        let target: string;
        let kind: StaticKind;
        if (isAccess) {
          kind = k === EventKind.Read ? 'R' : 'W';
          target = sym.vars.get(ev.a)?.name ?? `var${ev.a}`;
        } else {
          kind = k === EventKind.Acquire ? 'ACQ' : k === EventKind.Release ? 'REL' : k === EventKind.Start ? 'START' : 'JOIN';
          target = k === EventKind.Start || k === EventKind.Join ? (sym.threads.get(ev.a)?.name ?? `T${ev.a}`) : `lock`;
        }
        events.push(into.table.intern(thread, kind, target, loc?.file, loc?.line, loc?.method));
        if (isAccess) {
          const key = `${ev.a}:${ev.d}:${ev.e}`;
          let id = dyn.get(key);
          if (id === undefined) dyn.set(key, (id = dyn.size));
          locs.push(id);
        } else locs.push(-1);
      },
    });
    into.diagnostics.push(...res.diagnostics);
    if (!res.ok || !res.outcome) continue;
    into.executions.push({
      id: res.header?.execution ?? file,
      file,
      outcome: res.outcome,
      events: Int32Array.from(events),
      locs: Int32Array.from(locs),
    });
  }
  return into;
}

/**
 * Builds a TraceSet from the test notation of test/helpers/traceBuilder ('W1 x S3' = thread 1
 * writes x at line 3 of Fixture.java), without files.
 */
export function traceSetFromNotation(traces: { execution: string; outcome: Outcome; events: string[] }[], file = 'Fixture.java'): TraceSet {
  const set = emptyTraceSet();
  for (const t of traces) {
    const events: number[] = [];
    const locs: number[] = [];
    const dyn = new Map<string, number>();
    for (const e of t.events) {
      const m = /^([RW])(\d+)\s+(\S+)\s+S(\d+)(?:\s+@obj=(\d+))?(?:\s+@elem=(\d+))?/.exec(e.trim());
      if (!m) throw new Error(`bad event notation: ${e}`);
      events.push(set.table.intern(`T${m[2]}`, m[1] as 'R' | 'W', m[3], file, Number(m[4]), `Fixture.m${m[4]}`));
      const key = `${m[3]}:${m[5] ?? 0}:${m[6] ?? -1}`;
      if (!dyn.has(key)) dyn.set(key, dyn.size);
      locs.push(dyn.get(key)!);
    }
    set.executions.push({ id: t.execution, outcome: t.outcome, events: Int32Array.from(events), locs: Int32Array.from(locs) });
  }
  return set;
}
