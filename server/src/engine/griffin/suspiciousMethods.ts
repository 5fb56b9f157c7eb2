/**
 * Suspicious methods (thesis §5.3.3): per thread of a pattern cluster, the
 * method at the top of the common call stack of that thread's accesses — the
 * method likely to hold the atomic region (atomicity violation) or the place
 * where the wrong order happens (order violation). Figure 9: accesses 1 and 3
 * share main() > Vector(), access 2 is under run() > addAll(), so the
 * suspicious methods are Vector() and addAll().
 *
 * Test code (testCode.ts: `loc.harness`, `src/test/...`, `--test-code`
 * globs) is never named while code under test is on the lane's stacks:
 *   1. the top of the common call stack, when it is code under test (thesis);
 *   2. otherwise the deepest code-under-test method common to all the lane's
 *      access stacks (the common call stack of the stacks with their test
 *      frames left out);
 *   3. otherwise the code-under-test method on the most access stacks (ties:
 *      the deepest, then the one of the best-ranked pattern);
 *   4. otherwise (only test code on the stacks) the thesis' method.
 * Without a classifier (or with no test code on the stacks) this is exactly
 * the thesis' rule.
 */
import type { CoverageMatrix, Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame, sameMethod } from './commonCallStack';
import { laneOf, PatternMember } from './clusterSuspiciousPatterns';
import type { TestCodeClassifier } from '../testCode';
import { isLibraryCode } from '../libraryCode';
import { outOfCallback } from './outOfCallbacks';
import { outOfDependency } from './outOfDependencies';
import { outOfCallbackMadeHelper, outOfOwnHelper } from './outOfOwnHelpers';
import { outOfStructureClasses } from './outOfStructureClasses';
import { asyncWindowOwner } from './asyncWindowOwner';
import { outOfAtomicCalls } from './outOfAtomicCalls';
import { throughSyntheticAccessor } from './throughSyntheticAccessors';

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
  /** which rule picked it (1 = the thesis' top of the common call stack) */
  rule: 1 | 2 | 3 | 4;
}

/** Per lane (index 0 = lane 1), the stacks of the cluster's accesses on that lane, best pattern first. */
export function laneStacks(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[]): [Frame[][], Frame[][]] {
  const stacks: [Frame[][], Frame[][]] = [[], []];
  for (const mem of members) m.pattern(mem.row).accesses.forEach((a, k) => stacks[laneOf(m, mem, k) - 1].push(a.stack));
  return stacks;
}

/** Per lane (index 0 = lane 1), the task (thread) name of each of the cluster's accesses on that lane, when the trace names it. */
function laneTaskNames(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[]): [(string | undefined)[], (string | undefined)[]] {
  const out: [(string | undefined)[], (string | undefined)[]] = [[], []];
  for (const mem of members) m.pattern(mem.row).accesses.forEach((a, k) => out[laneOf(m, mem, k) - 1].push(a.threadName));
  return out;
}

/** Per lane (index 0 = lane 1), the variables and the access types (R, W) of the cluster's accesses on that lane. */
function laneVariables(m: CoverageMatrix, members: readonly Pick<PatternMember, 'row' | 'flip'>[]): [Set<string>, Set<string>][] {
  const out: [Set<string>, Set<string>][] = [
    [new Set(), new Set()],
    [new Set(), new Set()],
  ];
  for (const mem of members)
    m.pattern(mem.row).accesses.forEach((a, k) => {
      const lane = out[laneOf(m, mem, k) - 1];
      lane[0].add(a.variable);
      lane[1].add(a.type);
    });
  return out;
}

export interface SuspiciousMethodOptions {
  /** move out of helper accessors to the method performing the compound operation (evidence clustering; off = the thesis) */
  outOfHelpers?: boolean;
  /**
   * with outOfHelpers: when both lanes are inside one data structure's class (different methods of it),
   * walk out through its own delegating methods to the first caller of another class (default true;
   * false = one frame, issue 27's rule)
   */
  outOfStructures?: boolean;
  /**
   * with outOfHelpers: a Node.js lane inside a dependency of the package under test names the deepest
   * frame of the package under test on its common call stack (issue 38, outOfDependencies.ts; default true)
   */
  outOfDependencies?: boolean;
  /**
   * with outOfHelpers: a lane named by a lambda names its enclosing method on the stack, or the method
   * of another class that runs it (issue 38, outOfCallbacks.ts; default true)
   */
  outOfCallbacks?: boolean;
  /**
   * with outOfHelpers: a lane inside a helper that only stores (or loads) a library object its class holds,
   * reached through the class' own methods, names the class' method the outside called (issue 38,
   * outOfOwnHelpers.ts; default true)
   */
  outOfOwnHelpers?: boolean;
  /**
   * with outOfHelpers: a lane inside one method of a class, all writes or all reads, called by a callback
   * nested in another method of that class, names the callback (issue 38, outOfOwnHelpers.ts; default true)
   */
  callbackMakerHelpers?: boolean;
  /**
   * with outOfHelpers: two lanes inside different classes of one structure (a list and its iterator) name
   * the class both lanes go through (issue 38, outOfStructureClasses.ts; default true)
   */
  outOfStructureClasses?: boolean;
  /**
   * with outOfHelpers: both lanes the same method whose accesses are all writes through a
   * java.util.concurrent object (an atomic's getAndUpdate racing with itself) name the caller below the
   * method's class, which composes the decision (issue 38, outOfAtomicCalls.ts; default true)
   */
  outOfAtomicCalls?: boolean;
  /**
   * with outOfHelpers: a lane named by javac's synthetic accessor (`Outer.access$300`) names the method
   * it forwards to (issue 38, throughSyntheticAccessors.ts; default true)
   */
  throughAccessors?: boolean;
  /**
   * with outOfHelpers: two Node.js tasks whose stacks go through one function of the code under test
   * name that function, the owner of the window (issue 38, asyncWindowOwner.ts; default true)
   */
  asyncWindowOwner?: boolean;
  /**
   * with outOfHelpers: an accessor is not left for a caller that is a timer's, an event's or a promise's
   * anonymous callback (`setTimeout callback in release`; issue 38; default true)
   */
  notIntoTaskCallbacks?: boolean;
  /**
   * with asyncWindowOwner: no window owner when one lane's accesses are all made in that function itself,
   * in a task that is not the function's own async task (issue 38; default true; false = the rule as
   * first written)
   */
  ownerMakesNoAccess?: boolean;
}

export function suspiciousMethods(
  m: CoverageMatrix,
  members: readonly Pick<PatternMember, 'row' | 'flip'>[],
  testCode?: TestCodeClassifier,
  options: SuspiciousMethodOptions = {},
): SuspiciousMethod[] {
  const out: SuspiciousMethod[] = [];
  const stacks = laneStacks(m, members);
  stacks.forEach((laneStack, k) => {
    const sm = laneMethod(laneStack, testCode);
    if (sm) out.push({ thread: (k + 1) as 1 | 2, ...sm });
  });
  if (options.outOfHelpers === true && out.length === 2) {
    const vars = laneVariables(m, members);
    const through = (sm: SuspiciousMethod) => (options.throughAccessors !== false ? throughSyntheticAccessor(sm, stacks[sm.thread - 1]) : sm);
    for (let k = 0; k < out.length; k++) out[k] = through(out[k]);
    let moved = out.map((sm, k) => outOfHelper(sm, out[1 - k], stacks[sm.thread - 1], vars[sm.thread - 1][0], vars[sm.thread - 1][1], testCode, options));
    const canName = (laneStack: Frame[][]) => {
      const isTest = testFrame(laneStack, testCode);
      return (f: { file: string; method: string; line: number }) => !isTest(f) && !isLibraryCode(f.file, f.method) && !isEntryPoint(f.method);
    };
    if (options.outOfStructureClasses !== false && moved[0].thread === 1 && moved[1].thread === 2)
      moved = outOfStructureClasses(
        [
          { sm: moved[0], stacks: stacks[0], variables: vars[0][0], types: vars[0][1] },
          { sm: moved[1], stacks: stacks[1], variables: vars[1][0], types: vars[1][1] },
        ],
        canName([...stacks[0], ...stacks[1]]),
      );
    if (options.outOfAtomicCalls !== false && moved[0].thread === 1 && moved[1].thread === 2)
      moved = outOfAtomicCalls(
        [
          { sm: moved[0], stacks: stacks[0], variables: vars[0][0], types: vars[0][1] },
          { sm: moved[1], stacks: stacks[1], variables: vars[1][0], types: vars[1][1] },
        ],
        canName([...stacks[0], ...stacks[1]]),
      );
    const named = moved.map((sm, k) => {
      const laneStack = stacks[sm.thread - 1];
      const isTest = testFrame(laneStack, testCode);
      const underTest = (f: { file: string; method: string; line: number }) => !isTest(f) && !isLibraryCode(f.file, f.method);
      if (options.outOfOwnHelpers !== false) sm = outOfOwnHelper(sm, moved[1 - k], laneStack, vars[sm.thread - 1][0], vars[sm.thread - 1][1], (f) => underTest(f) && !isEntryPoint(f.method));
      if (options.callbackMakerHelpers !== false) sm = outOfCallbackMadeHelper(sm, moved[1 - k], laneStack, vars[sm.thread - 1][1], (f) => underTest(f) && !isEntryPoint(f.method));
      if (options.outOfDependencies !== false) sm = outOfDependency(sm, laneStack, underTest);
      if (options.outOfCallbacks !== false) sm = outOfCallback(sm, laneStack, (f) => underTest(f) && !isEntryPoint(f.method));
      return through(sm);
    });
    if (options.asyncWindowOwner !== false && named[0].thread === 1 && named[1].thread === 2) return asyncWindowOwner([named[0], named[1]], stacks, canName([...stacks[0], ...stacks[1]]), options.ownerMakesNoAccess !== false ? laneTaskNames(m, members) : undefined);
    return named;
  }
  return out;
}

/** Test code, asked of a frame of the lane's stacks or of their common call stack (the recorder's mark rides on the stacks' frames). */
function testFrame(stacks: Frame[][], testCode: TestCodeClassifier | undefined): (f: { file: string; method: string; line: number }) => boolean {
  return (f) => (testCode ? testCode.isTestCode({ ...f, harness: stacks.some((s) => s.some((x) => x.harness && sameMethod(x, f))) }) : false);
}

/** A program's `main` or one of its lambdas: the driver, never where a fix goes. */
function isEntryPoint(method: string): boolean {
  return /(^|\.)main$/.test(method) || /\.lambda\$main\$\d+$/.test(method);
}

/** The class part of a qualified method or field name: `a.b.Outer$Inner.name` → `a.b.Outer$Inner`. */
function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

/**
 * Out of helper accessors (issue 27; docs/griffin.md "Suspicious methods"): a lane's method that is
 * an accessor of the raced field's own class (or, for a resource with no class — a file, a
 * collection of the Node.js recorder — any method) — every access of the lane sits in it, and they are all
 * reads or all writes, so it performs no compound operation — is not where a fix goes: the fix goes to its caller, the method
 * that combines the accessor with other steps (a pool's `create` calling `setCreateCount` on its
 * internal deque). Moves one frame down the lane's common call stack when the method is such an accessor, its
 * caller is code under test of another class, and the other lane does not name the method itself (a
 * read-modify-write in `Account.deposit` racing with another `deposit` stays in `deposit`).
 */
function outOfHelper(sm: SuspiciousMethod, other: SuspiciousMethod, stacks: Frame[][], vars: Set<string>, types: Set<string>, testCode: TestCodeClassifier | undefined, options: SuspiciousMethodOptions): SuspiciousMethod {
  const common = commonCallStack(stacks);
  let k = common.findIndex((f) => f.method === sm.method && f.file === sm.file);
  if (k < 0) return sm;
  let cur = sm;
  const fieldClasses = new Set([...vars].map(classOf));
  // a resource with no owning class (a file path, a Map or an array of the Node.js recorder): any
  // method that only reads it, or only writes it, is its accessor (a storage's load or save)
  const resource = [...vars].every((v) => classOf(v) === '');
  // the recorder's test-code mark rides on the stacks' frames, not on the common call stack's: ask both
  const isTest = (f: { file: string; method: string; line: number }) =>
    testCode ? testCode.isTestCode({ ...f, harness: stacks.some((s) => s.some((x) => x.harness && sameMethod(x, f))) }) : false;
  while (k > 0) {
    const top = common[k];
    // an accessor: the lane's accesses all run in this method (it is the top frame of each) and are all
    // reads or all writes (a getter or a setter, of one field or several): no read-modify-write in it
    const atTop = stacks.every((s) => s.length - 1 === k);
    if (!atTop || types.size !== 1) break;
    if (!resource && !fieldClasses.has(classOf(top.method))) break;
    if (sameMethod(top, other)) break;
    let j = k - 1;
    // out of a structure (issue 38): a data structure's own public methods delegate to the accessor
    // (a deque's addFirst → offerFirst → linkFirst); when the other lane is inside the same structure
    // too (a different method of its class: pollFirst → unlinkFirst), each call is the structure's own
    // operation and the bug is in how another class combines them — the pool's returnObject and
    // close. Walk down through the structure's frames to the first frame of another class.
    if (options.outOfStructures !== false && classOf(top.method) !== '' && componentOf(other) === componentOf(top) && !sameMethod(top, other))
      while (j > 0 && classOf(common[j].method) === classOf(top.method)) j--;
    const caller = common[j];
    if (classOf(caller.method) === classOf(top.method) || isTest(caller) || isEntryPoint(caller.method) || isLibraryCode(caller.file, caller.method)) break;
    // a timer's, an event's or a promise's anonymous callback (the Node.js recorder's `setTimeout callback
    // in release`) only runs the method when something fires: it combines no steps with it (issue 38)
    if (options.notIntoTaskCallbacks !== false && isTaskCallback(caller.method)) break;
    cur = { ...cur, method: caller.method, file: caller.file, line: caller.line, lines: caller.lines, commonStack: common.slice(0, j + 1).map((f) => ({ file: f.file, line: f.line, method: f.method })) };
    k = j;
  }
  return cur;
}

/**
 * An anonymous callback as the Node.js recorder names it, after what runs it and the function it was
 * passed in: `setTimeout callback in release`, `then callback of load in Pool.acquire`.
 */
export function isTaskCallback(method: string): boolean {
  return /^\S+ callback( of \S+)? in \S+$/.test(method);
}

/** The class of a method, or for a function outside any class (the Node.js recorder's `coalesceAsync`) its file. */
function componentOf(m: { method: string; file: string }): string {
  return classOf(m.method) || `file:${m.file}`;
}

type LaneMethod = Omit<SuspiciousMethod, 'thread'>;

function laneMethod(stacks: Frame[][], testCode?: TestCodeClassifier): LaneMethod | undefined {
  if (!stacks.length) return undefined;
  const common = commonCallStack(stacks);
  const thesis = fromCommon(common, 1);
  const isTest = (f: Frame) => (testCode ? testCode.isTestCode(f) : false);
  const top = common[common.length - 1];
  if (!testCode || (top && !isTest({ file: top.file, method: top.method, line: top.line, harness: stacks.some((s) => s.some((f) => f.harness && sameMethod(f, top))) }))) return thesis;
  // rule 2: the common call stack of the stacks without their test (and library) frames
  const cut = stacks.map((s) => s.filter((f) => !isTest(f) && !isLibraryCode(f.file, f.method)));
  if (cut.every((s) => s.length === 0)) return thesis && { ...thesis, rule: 4 };
  const commonCut = cut.some((s) => s.length === 0) ? [] : commonCallStack(cut);
  if (commonCut.length) {
    const pick = commonCut[commonCut.length - 1];
    return { method: pick.method, file: pick.file, line: pick.line, lines: pick.lines, commonStack: stackUpTo(stacks, pick), rule: 2 };
  }
  // rule 3: the code-under-test method on the most stacks; ties: deepest, then first seen
  const seen = new Map<string, { f: Frame; count: number; depth: number; first: number }>();
  cut.forEach((s, si) => {
    const mine = new Set<string>();
    s.forEach((f, depth) => {
      const key = `${f.file}\u0000${f.method}`;
      let e = seen.get(key);
      if (!e) seen.set(key, (e = { f, count: 0, depth, first: si }));
      if (!mine.has(key)) {
        mine.add(key);
        e.count++;
        e.depth = Math.max(e.depth, depth);
      }
    });
  });
  const best = [...seen.values()].sort((a, b) => b.count - a.count || b.depth - a.depth || a.first - b.first)[0];
  const lines = [...new Set(stacks.flatMap((s) => s.filter((f) => sameMethod(f, best.f)).map((f) => f.line)))].sort((a, b) => a - b);
  return { method: best.f.method, file: best.f.file, line: lines[0], lines, commonStack: stackUpTo(stacks, best.f), rule: 3 };
}

function fromCommon(common: CommonFrame[], rule: 1 | 4): LaneMethod | undefined {
  // the top frame in the user's code: a race inside ArrayList.add names the user's method that calls it
  let k = common.length - 1;
  while (k > 0 && isLibraryCode(common[k].file, common[k].method)) k--;
  const top = common[k];
  if (!top) return undefined;
  return { method: top.method, file: top.file, line: top.line, lines: top.lines, commonStack: common.slice(0, k + 1).map((f) => ({ file: f.file, line: f.line, method: f.method })), rule };
}

/** The frames of the first stack holding `f`, from the bottom up to it. */
function stackUpTo(stacks: Frame[][], f: { file: string; method: string }): { file: string; line: number; method: string }[] {
  for (const s of stacks) {
    const k = s.findIndex((x) => sameMethod(x, f));
    if (k >= 0) return s.slice(0, k + 1).map((x) => ({ file: x.file, line: x.line, method: x.method }));
  }
  return [];
}
