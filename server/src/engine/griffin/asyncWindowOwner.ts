/**
 * The function that owns the window (issue 38; docs/griffin.md "Suspicious methods"): in a Node.js
 * recording a task's stack starts with the stack of the code that created it — a continuation keeps its
 * `await`'s stack, a callback the stack that registered it (docs/recorder-node.md). When both racing
 * tasks' stacks go through one function of the code under test, that function started both: an async
 * operation whose continuation makes one access, and the other task (a listener, an abort path, a second
 * step) that makes the other. The window between them is that function's — lru-cache's
 * `#backgroundFetch` starts the fetch and registers the abort listener, and the fetch's continuation
 * finds the entry the abort deleted meanwhile; the fix goes there, not into `set` or `#delete` that
 * each task calls. Both lanes name the deepest frame of code under test (`canName`: not test code, not
 * the program's entry, not library code) of the package under test common to all of the two lanes'
 * stacks, when every access is
 * in a JavaScript or TypeScript file. Threads (Java) share no frames of the code that started them, so
 * the rule never applies to them.
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame, sameMethod } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';
import { isJsSourceFile } from '../jsSourceFile';
import { npmPackageOf, packageUnderTest } from './outOfDependencies';

export function asyncWindowOwner(
  methods: readonly [SuspiciousMethod, SuspiciousMethod],
  stacks: readonly [readonly (readonly Frame[])[], readonly (readonly Frame[])[]],
  canName: (f: CommonFrame) => boolean,
  taskNames?: readonly [readonly (string | undefined)[], readonly (string | undefined)[]],
): [SuspiciousMethod, SuspiciousMethod] {
  const unchanged: [SuspiciousMethod, SuspiciousMethod] = [methods[0], methods[1]];
  const all = [...stacks[0], ...stacks[1]];
  if (!stacks[0].length || !stacks[1].length || !all.every((s) => s.length > 0 && isJsSourceFile(s[s.length - 1].file))) return unchanged;
  const common = commonCallStack(all);
  // in the package under test (outOfDependencies.ts): a dependency both tasks go through (promise-coalesce's
  // coalesceAsync under cache-manager's wrap) is not where the package's fix goes
  const pkg = packageUnderTest(all, (f) => canName({ ...f, lines: [f.line] }));
  let j = common.length - 1;
  while (j >= 0 && !(canName(common[j]) && (pkg === undefined || npmPackageOf(common[j].file) === pkg))) j--;
  if (j < 0) return unchanged;
  const f = common[j];
  if (sameMethod(methods[0], f) && sameMethod(methods[1], f)) return unchanged;
  // a lane whose accesses are all the function's own statements, made in a task that is not the
  // function's own async task (the recorder's `async <function> #N`): the function ran synchronously in
  // another task, and its statements end before any callback it registers can run — the other task was
  // started by another call of it, so no window of one call lies between them (pg-pool's `release`
  // pushing an idle item in the driver's task while another client's idle timer, set by an earlier
  // `release`, removes). Each lane keeps its method. Unknown task names keep the rule.
  if (taskNames && [0, 1].some((k) => stacks[k].every((s) => sameMethod(s[s.length - 1], f)) && taskNames[k].length > 0 && taskNames[k].every((n) => n !== undefined && !n.startsWith(`async ${f.method} #`)))) return unchanged;
  const commonStack = common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method }));
  return [
    { ...methods[0], method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack },
    { ...methods[1], method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack },
  ];
}
