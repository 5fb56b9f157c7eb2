/**
 * Out of a class' own helpers (issue 38; docs/griffin.md "Suspicious methods"): a lane whose accesses
 * all sit in one method that only stores (or only loads) a library object the class holds — an
 * `AtomicReference`, a collection, named by the recorder by its type — reached through other methods of
 * the same class, is a private helper (rxjava2's `BehaviorProcessor.setCurrent`, called by `terminate`,
 * called by `onComplete`). The interleaving happens in the class' method that the outside called: the
 * lane names the outermost frame of that class in the run of the class' frames that ends in the helper.
 * The helper's field has no class of its own in the trace, so issue 27's accessor rule (the raced field's
 * class) does not apply to it; a helper called directly by another class stays (that rule's case).
 * Not when the other lane names the same method (a store racing with itself) or the entry is not code
 * under test (`canName`).
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame, sameMethod } from './commonCallStack';
import { isLibraryCode } from '../libraryCode';
import type { SuspiciousMethod } from './suspiciousMethods';

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

/** A variable the recorder names by the library type of the object (`java.util.concurrent.atomic.AtomicReference`). */
function isLibraryObject(variable: string): boolean {
  return isLibraryCode('', variable) && !variable.includes('#');
}

export function outOfOwnHelper(
  sm: SuspiciousMethod,
  other: SuspiciousMethod | undefined,
  stacks: readonly (readonly Frame[])[],
  variables: ReadonlySet<string>,
  types: ReadonlySet<string>,
  canName: (f: CommonFrame) => boolean,
): SuspiciousMethod {
  if (types.size !== 1 || variables.size === 0 || ![...variables].every(isLibraryObject)) return sm;
  if (other && sameMethod(sm, other)) return sm;
  const cls = classOf(sm.method);
  if (!cls) return sm;
  const common = commonCallStack(stacks);
  const k = common.findIndex((f) => sameMethod(f, sm));
  // the helper: every access of the lane runs in it (it is the top of every stack)
  if (k <= 0 || !stacks.every((s) => s.length - 1 === k)) return sm;
  let j = k;
  while (j > 0 && classOf(common[j - 1].method) === cls) j--;
  if (j === k || j === 0 || !canName(common[j])) return sm;
  const f = common[j];
  return { ...sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
}
