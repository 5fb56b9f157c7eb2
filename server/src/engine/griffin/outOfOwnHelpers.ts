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
  if (variables.size === 0 || ![...variables].every(isLibraryObject)) return sm;
  const h = laneHelper(sm, other, stacks, types);
  if (!h) return sm;
  const { common, k, cls } = h;
  let j = k;
  while (j > 0 && classOf(common[j - 1].method) === cls) j--;
  if (j === k || j === 0 || !canName(common[j])) return sm;
  return namedAt(sm, common, j);
}

/**
 * The lane's helper, if it has one: the method `sm` names is of a class, every access of the lane runs
 * in it (it is the top of every stack, at `k` of their common part, below a caller), the lane's accesses
 * are of one type, and the other lane does not name the same method.
 */
function laneHelper(sm: SuspiciousMethod, other: SuspiciousMethod | undefined, stacks: readonly (readonly Frame[])[], types: ReadonlySet<string>): { common: CommonFrame[]; k: number; cls: string } | undefined {
  if (types.size !== 1) return undefined;
  if (other && sameMethod(sm, other)) return undefined;
  const cls = classOf(sm.method);
  if (!cls) return undefined;
  const common = commonCallStack(stacks);
  const k = common.findIndex((f) => sameMethod(f, sm));
  if (k <= 0 || !stacks.every((s) => s.length - 1 === k)) return undefined;
  return { common, k, cls };
}

/** `sm` naming the frame `j` of the common stack, with the common stack down to it. */
function namedAt(sm: SuspiciousMethod, common: readonly CommonFrame[], j: number): SuspiciousMethod {
  const f = common[j];
  return { ...sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
}

/** `saveDatabasecallback in Loki.saveDatabaseInternal` → `Loki.saveDatabaseInternal` (a function made in another, as the Node.js recorder names it). */
function makerOf(method: string): string | undefined {
  const k = method.lastIndexOf(' in ');
  return k < 0 ? undefined : method.slice(k + 4);
}

/**
 * Out of a helper called by a callback its own class made (issue 38; docs/griffin.md "Suspicious methods",
 * option `callbackMakerHelpers`): a lane whose accesses all sit in one method of a class, all writes or all
 * reads, called by a callback nested in another method of the same class (`saveDatabasecallback in
 * Loki.saveDatabaseInternal` calling `Loki.autosaveClearFlags`), names that callback: the helper only
 * stores (or loads); the callback's maker decided when it runs (after an asynchronous operation
 * completed) — the rule "The write the reader saw" names such a write so, and this one names it for any
 * lane. Not when the other lane names the same method, or the callback is not code under test.
 */
export function outOfCallbackMadeHelper(
  sm: SuspiciousMethod,
  other: SuspiciousMethod | undefined,
  stacks: readonly (readonly Frame[])[],
  types: ReadonlySet<string>,
  canName: (f: CommonFrame) => boolean,
): SuspiciousMethod {
  const h = laneHelper(sm, other, stacks, types);
  if (!h) return sm;
  const { common, k, cls } = h;
  const caller = common[k - 1];
  const maker = makerOf(caller.method);
  if (maker === undefined || classOf(maker) !== cls || !canName(caller)) return sm;
  return namedAt(sm, common, k - 1);
}
