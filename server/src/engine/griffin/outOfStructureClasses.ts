/**
 * Out of a structure's classes (issue 38; docs/griffin.md "Suspicious methods"): a data structure is
 * often more than one class — a list and its iterator, a deque wrapping the list and the deque's own
 * iterator (generic-pool: `Pool.clear` loops over `_availableObjects` through `DequeIterator.next` →
 * `DoublyLinkedListIterator.next` → `_isCursorDetached`, which reads the list's `tail`, while a create's
 * continuation adds to it through `Deque.push` → `DoublyLinkedList.insertEnd` → `insertAfter`). Each lane
 * then ends in a different class, so issue 38's "out of a structure" (both lanes inside one class) does
 * not see that the two threads meet inside one structure, and the lanes name the list's and the
 * iterator's helpers. The fix goes where another class combines the structure's operations — the class
 * both lanes go through (the pool).
 *
 * Applies when, on both lanes, every access runs in the lane's method (an accessor: all reads or all
 * writes) and that method's class (for a function outside any class, its file) is nowhere on the other
 * lane's common call stack. Each lane walks down its common call stack through such classes to the first
 * frame of a class that is on the other lane's stack too; both walks must end in the same class, which
 * declares none of the raced fields (then it is the structure itself, not its owner), and the frames they
 * end on must be code under test (`canName`: not test code, not the program's `main`, not library code).
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame, sameMethod } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

/** The class of a method, or for a function outside any class (the Node.js recorder's) its file. */
function componentOf(m: { method: string; file: string }): string {
  return classOf(m.method) || `file:${m.file}`;
}

export interface StructureLane {
  sm: SuspiciousMethod;
  stacks: readonly (readonly Frame[])[];
  /** the lane's raced variables */
  variables: ReadonlySet<string>;
  /** the lane's access types (R, W) */
  types: ReadonlySet<string>;
}

/** Both lanes moved to the class they go through, or the lanes' methods unchanged. */
export function outOfStructureClasses(lanes: readonly [StructureLane, StructureLane], canName: (f: CommonFrame) => boolean): [SuspiciousMethod, SuspiciousMethod] {
  const unchanged: [SuspiciousMethod, SuspiciousMethod] = [lanes[0].sm, lanes[1].sm];
  const commons = lanes.map((l) => commonCallStack(l.stacks));
  const components = commons.map((c) => new Set(c.map(componentOf)));
  if (sameMethod(lanes[0].sm, lanes[1].sm)) return unchanged;
  const fieldClasses = new Set(lanes.flatMap((l) => [...l.variables].map(classOf)).filter((c) => c !== ''));
  const walked: CommonFrame[][] = [];
  const ends: number[] = [];
  for (let k = 0; k < 2; k++) {
    const { sm, stacks, types } = lanes[k];
    const common = commons[k];
    const other = components[1 - k];
    if (types.size !== 1 || other.has(componentOf(sm))) return unchanged;
    const top = common.findIndex((f) => sameMethod(f, sm));
    // an accessor: every access of the lane runs in its method (the top of each of its stacks)
    if (top <= 0 || !stacks.every((s) => s.length - 1 === top)) return unchanged;
    let j = top - 1;
    while (j >= 0 && !other.has(componentOf(common[j]))) j--;
    if (j < 0 || !canName(common[j])) return unchanged;
    walked.push(common);
    ends.push(j);
  }
  const owner = componentOf(walked[0][ends[0]]);
  if (owner !== componentOf(walked[1][ends[1]]) || fieldClasses.has(owner)) return unchanged;
  return [named(lanes[0].sm, walked[0], ends[0]), named(lanes[1].sm, walked[1], ends[1])];
}

function named(sm: SuspiciousMethod, common: CommonFrame[], j: number): SuspiciousMethod {
  const f = common[j];
  return { ...sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
}
