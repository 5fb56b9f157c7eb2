/**
 * Out of an atomic call racing with itself (issue 38; docs/griffin.md "Suspicious methods"): when both
 * lanes name the same method and every access of both is a write through a java.util.concurrent object
 * (an atomic's read-modify-write such as `AtomicReference.getAndUpdate`, a concurrent collection's
 * call), each lane is one atomic operation: it cannot race by itself. What races is the decision to make
 * it, composed by a caller — resilience4j's `HalfOpenState.checkIfThresholdsExceeded` decides to open
 * the circuit and calls `transitionToOpenState` → `stateTransition` → `getAndUpdate`; two threads both
 * decide, the second transition throws. Each lane names the first frame below the run of the atomic
 * method's own class (the class' methods only wrap the call) that is code under test (`canName`);
 * when there is none the lanes keep their method. A lane that also reads (a `get` and then a `set`)
 * composes the check itself and stays.
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame, sameMethod } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';

export interface AtomicLane {
  sm: SuspiciousMethod;
  stacks: readonly (readonly Frame[])[];
  variables: ReadonlySet<string>;
  types: ReadonlySet<string>;
}

/** A variable the Java agent names by a java.util.concurrent type (an atomic, a concurrent collection). */
export function isConcurrentObject(variable: string): boolean {
  return variable.startsWith('java.util.concurrent.') && !variable.includes('#');
}

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

export function outOfAtomicCalls(lanes: readonly [AtomicLane, AtomicLane], canName: (f: CommonFrame) => boolean): [SuspiciousMethod, SuspiciousMethod] {
  const unchanged: [SuspiciousMethod, SuspiciousMethod] = [lanes[0].sm, lanes[1].sm];
  if (!sameMethod(lanes[0].sm, lanes[1].sm)) return unchanged;
  const atomicOnly = (l: AtomicLane) => l.types.size === 1 && l.types.has('W') && l.variables.size > 0 && [...l.variables].every(isConcurrentObject);
  if (!atomicOnly(lanes[0]) || !atomicOnly(lanes[1])) return unchanged;
  const cls = classOf(lanes[0].sm.method);
  const moved = lanes.map((l) => {
    const common = commonCallStack(l.stacks);
    const k = common.findIndex((f) => sameMethod(f, l.sm));
    if (k <= 0) return undefined;
    let j = k;
    while (j > 0 && classOf(common[j].method) === cls) j--;
    if (classOf(common[j].method) === cls || !canName(common[j])) return undefined;
    const f = common[j];
    return { ...l.sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
  });
  return moved[0] && moved[1] ? [moved[0], moved[1]] : unchanged;
}
