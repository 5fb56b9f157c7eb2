/**
 * What forcing learns from the recording's failing runs before it runs anything (issue 40): the
 * locked hold (lockedHold.ts: a hold inside a lock the other access needs, and where to hold instead)
 * and the threads of the failing runs' instance (threadRoles.ts), read in ONE pass over the traces
 * (failingTraceScan.ts) — a confirmation of a recording of 40 failing runs read them twice before.
 */
import type { ForcedPattern } from './forcingPlan';
import { holdOfPlan, LockedHoldReader } from './lockedHold';
import { ThreadRolesReader } from './threadRoles';
import { scanFailingTraces, type FailingTraceReader } from './failingTraceScan';

/**
 * `p` with its locked hold and its role threads when the failing traces show them (each kept as it is
 * when `p` has it already); a trace that cannot be read leaves `p` as it is.
 */
export async function withFailingRunFacts<P extends ForcedPattern>(p: P, traceFiles: readonly string[], maxFiles = 40): Promise<P & Pick<ForcedPattern, 'lockedHold' | 'roleThreads'>> {
  if (!traceFiles.length || !p.accesses?.length) return p;
  let h: ReturnType<LockedHoldReader['answer']>;
  let r: ReturnType<ThreadRolesReader['answer']>;
  try {
    const hold = p.lockedHold ? undefined : new LockedHoldReader(p);
    const roles = p.roleThreads ? undefined : new ThreadRolesReader(p);
    const readers = [hold, roles].filter((x): x is LockedHoldReader | ThreadRolesReader => !!x?.active) as FailingTraceReader[];
    if (!readers.length) return p;
    await scanFailingTraces(traceFiles, readers, maxFiles);
    h = hold?.answer();
    r = roles?.answer();
  } catch {
    return p;
  }
  if (!h && !r) return p;
  return { ...p, ...(h ? { lockedHold: holdOfPlan(h) } : {}), ...(r ? { roleThreads: r.threads } : {}) };
}
