/**
 * Out of callbacks (issue 38; docs/griffin.md "Suspicious methods"): a lane whose method is a lambda
 * (javac's synthetic `Class.lambda$enclosing$N`) names a body nobody can find by that name. The fix goes
 * to the method that decides when the callback runs:
 *   - the lambda's enclosing method when it is on the lane's stack (`Foo.get` calling its own
 *     `lambda$get$0`): the code the user wrote around the lambda;
 *   - otherwise the first frame of another class below the lambda's class (a listener registered in a
 *     constructor and run by `MeterRegistry.getOrCreateMeter`, through the listener class' own helpers
 *     such as a `lock(…, callback)`): the method that runs the callback at the wrong moment.
 * Only code under test is named (`canName`: not test code, not the program's `main` or its lambdas,
 * not library code); otherwise the lambda stays (a thread's body run by `Thread.run`, an executor's
 * task: the lambda is then the thread's code).
 */
import type { Frame } from './coverageMatrix';
import { commonCallStack, CommonFrame } from './commonCallStack';
import type { SuspiciousMethod } from './suspiciousMethods';

const LAMBDA = /^(.*)\.lambda\$([^$]*)\$\d+$/;

/** `a.B.lambda$get$0` → { cls: 'a.B', enclosing: 'get' }; `lambda$new$1` → `<init>`, `lambda$static$0` → `<clinit>`; not a lambda → undefined. */
export function lambdaOf(method: string): { cls: string; enclosing: string } | undefined {
  const m = LAMBDA.exec(method);
  if (!m) return undefined;
  const enclosing = m[2] === 'new' ? '<init>' : m[2] === 'static' ? '<clinit>' : m[2];
  return { cls: m[1], enclosing };
}

function classOf(qualified: string): string {
  const k = qualified.lastIndexOf('.');
  return k < 0 ? '' : qualified.slice(0, k);
}

function simpleName(qualified: string): string {
  return qualified.slice(qualified.lastIndexOf('.') + 1);
}

export function outOfCallback(sm: SuspiciousMethod, stacks: readonly (readonly Frame[])[], canName: (f: CommonFrame) => boolean): SuspiciousMethod {
  const lambda = lambdaOf(sm.method);
  if (!lambda) return sm;
  const common = commonCallStack(stacks);
  const k = common.findIndex((f) => f.method === sm.method && f.file === sm.file);
  if (k <= 0) return sm;
  // enclosing methods of the lambdas passed so far (a nested lambda's enclosing is javac's `null`)
  const enclosing = new Set([lambda.enclosing]);
  const isEnclosing = (f: CommonFrame) => classOf(f.method) === lambda.cls && enclosing.has(simpleName(f.method));
  let j = k - 1;
  for (; j >= 0 && classOf(common[j].method) === lambda.cls; j--) {
    if (isEnclosing(common[j])) return canName(common[j]) ? named(sm, common, j) : sm;
    const inner = lambdaOf(common[j].method);
    if (inner) enclosing.add(inner.enclosing);
  }
  if (j < 0) return sm;
  // a lambda handed to another class' method (`store.compute(k, x -> …)` in `Cache.get`): its enclosing method further down
  for (let e = j - 1; e >= 0; e--) if (isEnclosing(common[e])) return canName(common[e]) ? named(sm, common, e) : sm;
  return canName(common[j]) ? named(sm, common, j) : sm;
}

function named(sm: SuspiciousMethod, common: CommonFrame[], j: number): SuspiciousMethod {
  const f = common[j];
  return { ...sm, method: f.method, file: f.file, line: f.line, lines: f.lines, commonStack: common.slice(0, j + 1).map((x) => ({ file: x.file, line: x.line, method: x.method })) };
}
