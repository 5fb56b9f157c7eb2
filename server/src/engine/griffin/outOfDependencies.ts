/**
 * Out of dependencies (issue 38; docs/griffin.md "Suspicious methods"): in a Node.js recording the
 * race may sit inside a package that the package under test uses (cache-manager's `wrap` coalescing
 * calls through promise-coalesce's `coalesceAsync`). The fix goes into the package whose use of the
 * dependency is wrong, not into the dependency. The package under test is read from the recording, not
 * from any ground truth: the package of the outermost frame of code under test on each of the lane's
 * stacks (the code the test called; `''` for the project's own files, outside node_modules). When all
 * of the lane's stacks agree on it and the lane's method is in another package, the lane names the
 * deepest frame of its common call stack that is in the package under test.
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';

/** The npm package a file belongs to: `…/node_modules/@s/p/x.js` → `@s/p`; a file outside node_modules → `''`. */
export function npmPackageOf(file: string): string {
  const f = file.replace(/\\/g, '/');
  const k = f.lastIndexOf('node_modules/');
  if (k < 0) return '';
  const rest = f.slice(k + 'node_modules/'.length).split('/');
  return rest[0].startsWith('@') && rest.length > 1 ? `${rest[0]}/${rest[1]}` : rest[0];
}

/**
 * The package under test of a lane: the package of the outermost frame of code under test on each
 * stack, when every stack agrees; undefined otherwise (or when no stack has such a frame).
 */
export function packageUnderTest(stacks: readonly (readonly Frame[])[], isCodeUnderTest: (f: Frame) => boolean): string | undefined {
  let pkg: string | undefined;
  for (const s of stacks) {
    const outer = s.find(isCodeUnderTest);
    if (!outer) return undefined;
    const p = npmPackageOf(outer.file);
    if (pkg !== undefined && p !== pkg) return undefined;
    pkg = p;
  }
  return pkg;
}

export function outOfDependency(sm: SuspiciousMethod, stacks: readonly (readonly Frame[])[], isCodeUnderTest: (f: Frame) => boolean): SuspiciousMethod {
  if (!/(^|[\\/])node_modules[\\/]/.test(sm.file)) return sm;
  const pkg = packageUnderTest(stacks, isCodeUnderTest);
  if (pkg === undefined || npmPackageOf(sm.file) === pkg) return sm;
  const common = commonCallStack(stacks);
  const k = common.findIndex((f) => f.method === sm.method && f.file === sm.file);
  if (k <= 0) return sm;
  for (let j = k - 1; j >= 0; j--) {
    const f = common[j];
    if (npmPackageOf(f.file) === pkg && isCodeUnderTest({ file: f.file, line: f.line, method: f.method })) return named(sm, common, j);
  }
  return sm;
}

function named(sm: SuspiciousMethod, common: CommonFrame[], j: number): SuspiciousMethod {
  const f = common[j];
  return { ...sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
}
