/**
 * What forcing learns from the recording's failing runs before it runs anything (issue 40): the
 * locked hold (lockedHold.ts: a hold inside a lock the other access needs, and where to hold instead),
 * the threads of the failing runs' instance (threadRoles.ts), the held thread's check before its
 * access (guardChain.ts) and the callers of the instance (instanceCallers.ts), read in ONE pass over the traces
 * (failingTraceScan.ts) — a confirmation of a recording of 40 failing runs read them twice before.
 */
import type { ForcedPattern } from './forcingPlan';
import { holdOfPlan, LockedHoldReader } from './lockedHold';
import { ThreadRolesReader } from './threadRoles';
import { GuardChainReader } from './guardChain';
import { InstanceCallersReader } from './instanceCallers';
import { scanFailingTraces, type FailingTraceReader } from './failingTraceScan';

/**
 * `p` with its locked hold, its role threads and its guard when the failing traces show them (each kept as it is
 * when `p` has it already); a trace that cannot be read leaves `p` as it is.
 */
export async function withFailingRunFacts<P extends ForcedPattern>(p: P, traceFiles: readonly string[], maxFiles = 40): Promise<P & Pick<ForcedPattern, 'lockedHold' | 'roleThreads' | 'guard' | 'callers'>> {
  if (!traceFiles.length || !p.accesses?.length) return p;
  let h: ReturnType<LockedHoldReader['answer']>;
  let r: ReturnType<ThreadRolesReader['answer']>;
  let g: ReturnType<GuardChainReader['answer']>;
  let c: ReturnType<InstanceCallersReader['answer']>;
  try {
    const hold = p.lockedHold ? undefined : new LockedHoldReader(p);
    const roles = p.roleThreads ? undefined : new ThreadRolesReader(p);
    const guard = p.guard ? undefined : new GuardChainReader(p);
    const callers = p.callers ? undefined : new InstanceCallersReader(p);
    const readers = [hold, roles, guard, callers].filter((x) => !!x?.active) as FailingTraceReader[];
    if (!readers.length) return p;
    await scanFailingTraces(traceFiles, readers, maxFiles);
    h = hold?.answer();
    r = roles?.answer();
    g = guard?.answer();
    c = callers?.answer();
  } catch {
    return p;
  }
  if (!h && !r && !g && !c) return p;
  return {
    ...p,
    ...(h ? { lockedHold: holdOfPlan(h) } : {}),
    ...(r ? { roleThreads: r.threads } : {}),
    ...(g ? { guard: g.guard } : {}),
    ...(c ? { callers: [...c.callers].map(([at, sites]) => ({ at, sites })) } : {}),
  };
}
