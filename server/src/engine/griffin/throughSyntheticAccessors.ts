/**
 * Through synthetic accessors (issue 38; docs/griffin.md "Suspicious methods"): javac before Java 11
 * reaches a private member of a nested class' outer class through a generated static method,
 * `Outer.access$300` — a library built for Java 8 has many. No one can fix such a method (it is not in
 * the source); it only forwards to the private method it was made for, so a lane named by one names
 * the method it calls instead: the next frame of every stack of the lane that goes through it (the
 * same method on each, since an accessor calls one method; otherwise the accessor stays), with that
 * method's lines. httpcore-stalepool's lease waiter named `AbstractConnPool.access$300`, the step from
 * the lease future's `get` into `getPoolEntryBlocking`, where the fix went.
 */
import type { Frame } from './coverageMatrix';
import { sameMethod } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';

const ACCESSOR = /(^|\.)access\$\d+$/;

/** javac's synthetic accessor (`a.b.Outer.access$300`). */
export function isSyntheticAccessor(method: string): boolean {
  return ACCESSOR.test(method);
}

export function throughSyntheticAccessor(sm: SuspiciousMethod, stacks: readonly (readonly Frame[])[]): SuspiciousMethod {
  let cur = sm;
  // an accessor may forward to another class' accessor (a nested class of a nested class): one step each
  for (let step = 0; step < 4 && isSyntheticAccessor(cur.method); step++) {
    let next: Frame | undefined;
    const lines = new Set<number>();
    let prefix: { file: string; line: number; method: string }[] | undefined;
    for (const s of stacks) {
      const k = s.findIndex((f) => sameMethod(f, cur));
      if (k < 0) continue;
      const callee = s[k + 1];
      // an access made in the accessor itself (a field read through `access$000`): nothing to move to
      if (!callee) return cur;
      if (next && !sameMethod(next, callee)) return cur;
      next ??= callee;
      lines.add(callee.line);
      prefix ??= s.slice(0, k + 2).map((f) => ({ file: f.file, line: f.line, method: f.method }));
    }
    if (!next || !prefix) return cur;
    const sorted = [...lines].sort((a, b) => a - b);
    cur = { ...cur, method: next.method, file: next.file, line: sorted[0], lines: sorted, commonStack: prefix };
  }
  return cur;
}
