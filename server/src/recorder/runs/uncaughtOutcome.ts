/**
 * A run failed by an uncaught exception (issue 40, item 5): the agent's `uncaught` line makes the run
 * fail, also when the program — a JUnit test — reported success: an exception thrown in a worker
 * thread the test never joins on is not seen by JUnit, which reports the test green. The run's
 * detail then says so, so that a failing run no test report shows is never a mystery.
 */
import type { UncaughtLine } from './traceFinalizer';

export const UNREPORTED = 'not reported by the program: it passed (exit code 0) — an exception in a worker thread that JUnit does not see';

/** The failing run's detail: the exception, its thread, and whether the program itself reported success. */
export function uncaughtDetail(u: UncaughtLine, programPassed: boolean): string {
  const thread = typeof u.name === 'string' && u.name !== '' ? `"${u.name}"${u.thread !== undefined ? ` (${u.thread})` : ''}` : `${u.thread ?? '?'}`;
  const what = `${u.exception ?? 'exception'}${u.message && u.message !== 'null' ? `: ${u.message}` : ''} in thread ${thread}`;
  return programPassed ? `${what}; ${UNREPORTED}` : what;
}
