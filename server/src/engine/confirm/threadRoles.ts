/**
 * The threads of the instance the failing runs had (issue 40, resilience4j-halfopen): forcing holds a
 * thread before its access until another thread has made the access the pattern says comes first, and
 * stops once that order was met (`times` 1). In real tests the pattern's accesses recur — the test's
 * setup on `main`, several workers, several rounds — and the first instance that meets the order need
 * not be the failing runs' one: resilience4j-halfopen's `W1 W2` on `stateReference.getAndUpdate` is met
 * by main's setup transition then one worker's (20 of 20 runs, failing as unforced), while the failure
 * needs two workers.
 *
 * Read from the recording's FAILING traces only (passing runs may have other instances): per trace, the
 * last instance before the failure of the pattern's first change of role — a performance of the access
 * after the change (`accesses[at]`) by thread B, and the latest performance before it of the access
 * before the change (`accesses[at - 1]`) by another thread A, on the same object when both are of one
 * variable — and the two threads' ROLE names: the thread name with each number replaced by `*`
 * (`pool-1-thread-3` → `pool-*-thread-*`, `slow-call-0` → `slow-call-*`, `main` kept). The plan then
 * names, per role, the threads that may take part (ForceAccess.threads; the agent matches `*` to a
 * number), in the pattern's order and in the counterfactual alike. Nothing when the failing runs'
 * instances name every thread that made the accesses (the filter would exclude nobody), when no
 * failing trace was read, or when the traces are not the Java agent's.
 *
 * Reading allocates per thread and per matching access, not per event.
 */
import type { TraceSymbols } from '../trace/traceSymbols';
import { FailingAccessReader, firstChangeOfRole, isPerformanceOf, scanFailingTraces } from './failingTraceScan';
import type { TraceEvent } from '../trace/traceFormat';
import type { ForcedPattern } from './forcingPlan';

type Access = ForcedPattern['accesses'][number];

/** A thread's role name: its name with each number replaced by `*` (`pool-1-thread-3` → `pool-*-thread-*`). */
export function roleName(threadName: string): string {
  return threadName.replace(/[0-9]+/g, '*');
}

/** What the recording's failing runs show of the pattern's first change of role. */
export interface ThreadRoles {
  /** per thread role of the pattern: the role names of the threads that made its access in the failing runs' last instance */
  threads: Partial<Record<number, string[]>>;
  /** failing traces read, and those with an instance */
  failingRead: number;
  withInstance: number;
  /** one sentence for the report: which threads the plan names and which it leaves out */
  reason: string;
}


/** `p` with the threads of its failing runs' instance (threadRoles) when they leave some thread out, else `p`; a trace that cannot be read leaves `p` as it is. */
export async function withThreadRoles<P extends ForcedPattern>(p: P, traceFiles: readonly string[]): Promise<P & Pick<ForcedPattern, 'roleThreads'>> {
  if (p.roleThreads || !traceFiles.length) return p;
  try {
    const r = await threadRoles(p, traceFiles);
    return r ? { ...p, roleThreads: r.threads } : p;
  } catch {
    return p;
  }
}

/**
 * The role names of the threads of the failing runs' last instance of the pattern's first change of
 * role, per role (see the file comment); undefined when they would leave no thread out.
 */
export async function threadRoles(p: Pick<ForcedPattern, 'accesses'>, traceFiles: readonly string[], maxFiles = 40): Promise<ThreadRoles | undefined> {
  const reader = new ThreadRolesReader(p);
  if (!reader.active) return undefined;
  await scanFailingTraces(traceFiles, [reader], maxFiles);
  return reader.answer();
}

/** threadRoles' share of a pass over the failing traces (failingTraceScan.ts). */
export class ThreadRolesReader extends FailingAccessReader {
  private readonly before: Access;
  private readonly after: Access;
  private readonly sameVariable: boolean;
  private readonly chosen: Map<number, Set<string>>;
  /** every role name that made one of the two accesses in the failing runs read: what a filter could leave out */
  private readonly seen: Map<number, Set<string>>;
  private withInstance = 0;
  // per trace
  /** per object (or 0 when the two accesses are of different variables): the latest performances of `before`, by thread */
  private latest = new Map<number, Map<number, number>>();
  private last: { a: number; b: number } | undefined;
  private names = new Map<number, string>();
  private performers: Map<number, Set<number>>;
  private seq = 0;

  constructor(p: Pick<ForcedPattern, 'accesses'>) {
    super();
    // a pattern without a change of role (or without accesses) asks nothing: placeholders, never read
    const at = firstChangeOfRole(p);
    this.active = at.at >= 0;
    ({ before: this.before, after: this.after, sameVariable: this.sameVariable } = at);
    this.chosen = this.byRole(() => new Set<string>());
    this.seen = this.byRole(() => new Set<string>());
    this.performers = this.byRole(() => new Set<number>());
  }

  private byRole<T>(make: () => T): Map<number, T> {
    return new Map([
      [this.before.thread, make()],
      [this.after.thread, make()],
    ]);
  }

  protected access(ev: TraceEvent, symbols: TraceSymbols): void {
    const { before, after } = this;
    const varName = symbols.vars.get(ev.a)?.name;
    const loc = symbols.locs.get(ev.b);
    const isAfter = isPerformanceOf(after, ev.kind, varName, loc);
    const isBefore = isPerformanceOf(before, ev.kind, varName, loc);
    if (!isAfter && !isBefore) return;
    if (!this.names.has(ev.t)) this.names.set(ev.t, symbols.threads.get(ev.t)?.name ?? `thread ${ev.t}`);
    const obj = this.sameVariable ? ev.d : 0;
    if (isAfter) {
      this.performers.get(after.thread)!.add(ev.t);
      const by = this.latest.get(obj);
      let best = -1;
      let bestSeq = -1;
      if (by) for (const [t, s] of by) if (t !== ev.t && s > bestSeq) (best = t), (bestSeq = s);
      if (best >= 0) this.last = { a: best, b: ev.t };
    }
    if (isBefore) {
      this.performers.get(before.thread)!.add(ev.t);
      let by = this.latest.get(obj);
      if (!by) this.latest.set(obj, (by = new Map()));
      by.set(ev.t, ++this.seq);
    }
  }

  protected failingTrace(): void {
    const role = (t: number) => roleName(this.names.get(t) ?? `thread ${t}`);
    for (const [r, ts] of this.performers) for (const t of ts) this.seen.get(r)!.add(role(t));
    if (this.last) {
      this.withInstance++;
      this.chosen.get(this.before.thread)!.add(role(this.last.a));
      this.chosen.get(this.after.thread)!.add(role(this.last.b));
    }
  }

  protected resetTrace(): void {
    this.latest = new Map();
    this.last = undefined;
    this.names = new Map();
    this.performers = this.byRole(() => new Set<number>());
    this.seq = 0;
  }

  /** The threads of the failing runs' instance, per role, when they leave some thread out (see threadRoles). */
  answer(): ThreadRoles | undefined {
    const { before, after, chosen, seen, withInstance, failingRead } = this;
    if (!this.allJava || !withInstance) return undefined;
    const left = new Set<string>();
    for (const [role, names] of seen) for (const n of names) if (!chosen.get(role)!.has(n)) left.add(n);
    if (!left.size) return undefined;
    const threads: Partial<Record<number, string[]>> = {};
    for (const [role, names] of chosen) threads[role] = [...names].sort();
    const list = (xs: Iterable<string>) => [...xs].sort().join(', ');
    return {
      threads,
      failingRead,
      withInstance,
      reason: `forced between the threads of the failing runs' instance (thread ${before.thread}: ${list(chosen.get(before.thread)!)}; thread ${after.thread}: ${list(chosen.get(after.thread)!)}; ${withInstance} of ${failingRead} failing runs read), not ${list(left)}`,
    };
  }
}
