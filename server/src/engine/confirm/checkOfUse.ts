/**
 * The check of a use (issue 40, log4j2-markerparents): an order pattern `W1 → R2` whose read is a
 * use guarded by a check of the same variable (`if (parents == null) return …; copy(parents)`)
 * happens only in a run where the reader's check saw the state before the write. Forced as the
 * two accesses alone, the reader is held at the use only when its check already passed — a reader
 * that checks before the writer has set the field returns at the check every time, and the use is
 * never reached ("no thread reached :237"). The check is in the ranking when the traces show it: a
 * check then a use `R1 W2 R1` (the same thread's earlier read of the variable at another place, the
 * other thread's write between) whose write and use are the order pattern's, seen in failing runs.
 * The forced group then holds the check as that pattern's plan does (forcingPlan.ts, a check then
 * a use); the opposite order stays the order pattern's own.
 */
import type { PatternAccess } from '../analysis';
import type { ForcedPattern } from './forcingPlan';

type Access = ForcedPattern['accesses'][number];

/** The same access: type, variable, place and call. */
function sameAccess(a: Access, b: Access): boolean {
  return a.type === b.type && a.variable === b.variable && a.file === b.file && a.line === b.line && a.method === b.method && (a.call ?? '') === (b.call ?? '');
}

/** A ranked pattern as the check's candidates need it. */
export type CheckCandidate = Pick<ForcedPattern, 'accesses' | 'key'> & { failed: number; kind?: string };

/**
 * The check of `p`'s use, when `p` is an order pattern `W → R` of two threads on one variable and the
 * ranking has a check then a use `R W R` with `p`'s write and read (the use), the check at another
 * place, seen in at least one failing run — the one in the most failing runs; undefined otherwise.
 */
export function checkOfUse(p: Pick<ForcedPattern, 'accesses'>, ranking: readonly CheckCandidate[]): Pick<PatternAccess, 'type' | 'variable' | 'file' | 'line' | 'method' | 'library' | 'call' | 'mixedCalls'> | undefined {
  if (p.accesses.length !== 2) return undefined;
  const [w, r] = p.accesses;
  if (w.type !== 'W' || r.type !== 'R' || w.thread === r.thread || w.variable !== r.variable) return undefined;
  let best: { check: Access; failed: number } | undefined;
  for (const q of ranking) {
    if (q.failed <= 0 || q.accesses.length !== 3) continue;
    const [c, qw, qr] = q.accesses;
    if (c.type !== 'R' || c.thread !== qr.thread || qw.thread === c.thread) continue;
    if (!sameAccess(qw, w) || !sameAccess(qr, r) || c.variable !== r.variable) continue;
    if (c.file === r.file && c.line === r.line && c.method === r.method) continue;
    if (!best || q.failed > best.failed) best = { check: c, failed: q.failed };
  }
  if (!best) return undefined;
  const { thread: _thread, ...check } = best.check;
  return check;
}

/** `p` with the check of its use (checkOfUse) when the ranking shows one, else `p` itself. */
export function withCheckOfUse<P extends ForcedPattern>(p: P, ranking: readonly CheckCandidate[]): P & Pick<ForcedPattern, 'check'> {
  if (p.check) return p;
  const check = checkOfUse(p, ranking);
  return check ? { ...p, check } : p;
}
