/**
 * Suspicious methods (thesis §5.3.3): per thread of a pattern cluster, the
 * method at the top of the common call stack of that thread's accesses — the
 * method likely to hold the atomic region (atomicity violation) or the place
 * where the wrong order happens (order violation). Figure 9: accesses 1 and 3
 * share main() > Vector(), access 2 is under run() > addAll(), so the
 * suspicious methods are Vector() and addAll().
 */
import type { CoverageMatrix } from './coverageMatrix';
import type { CommonFrame } from './commonCallStack';
import { laneCommonStacks, PatternMember } from './clusterSuspiciousPatterns';
import { isLibraryCode } from '../libraryCode';

export interface SuspiciousMethod {
  /** lane (thread role) of the bug */
  thread: 1 | 2;
  method: string;
  file: string;
  /** the first line of the method reached by the accesses (the call or access line) */
  line: number;
  /** every line of this method on the accesses' stacks, ascending: the region involved */
  lines: number[];
  /** frames from the bottom of the stack up to this method */
  commonStack: { file: string; line: number; method: string }[];
}

export function suspiciousMethods(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[]): SuspiciousMethod[] {
  const common = laneCommonStacks(m, members);
  const out: SuspiciousMethod[] = [];
  common.forEach((frames: CommonFrame[], k) => {
    // the top frame in the user's code: a race inside ArrayList.add names the user's method that calls it
    let top = frames[frames.length - 1];
    if (!top) return;
    for (let j = frames.length - 1; j >= 0; j--) {
      if (!isLibraryCode(frames[j].file, frames[j].method)) {
        top = frames[j];
        break;
      }
    }
    out.push({
      thread: (k + 1) as 1 | 2,
      method: top.method,
      file: top.file,
      line: top.line,
      lines: top.lines,
      commonStack: frames.map((f) => ({ file: f.file, line: f.line, method: f.method })),
    });
  });
  return out;
}
