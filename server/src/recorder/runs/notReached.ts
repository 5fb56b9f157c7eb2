/**
 * Runs that never reached the program (issue 30, point 3): the main class was not found, the
 * command is missing, the JVM did not start, or no included class was loaded. Such a run recorded
 * no event, so it says nothing about the program: it is not a failure, its trace is not kept (the
 * analysis would count it as a run without any pattern), and a recording whose first runs all end
 * like this stops with the reason and the program's own output (docs/recorder.md). So does a run in
 * which the JUnit test did not run (java/testDidNotRun.ts: no test matched, discovery failed,
 * skipped): it is not a failing run.
 */
import { promises as fs } from 'node:fs';
import type { RecordOptions } from './recordOptions';
import { jsLoadFailure, LoadFailure } from '../node/loadFailure';
import { consoleLauncherNotRun, consoleLauncherSelectors, isConsoleLauncherCommand } from '../java/testDidNotRun';

export interface NotReached {
  /** why, in plain words (`main class com.acme.NoSuchMain not found`) */
  reason: string;
  /**
   * the program started but its test did not run (java/testDidNotRun.ts: no test matched the
   * selector, its discovery failed, it was skipped): `reason` names the selector
   */
  testDidNotRun?: boolean;
  /** what to do about it */
  hint: string;
  /** the start of the run's output (stdout and stderr), at most 4 KB */
  output: string;
}

/** What to do when the test did not run. */
const NOT_RUN_HINT = 'check the test selector (class and method name, a @Test annotation, @Disabled) and that the test classes are compiled; a run in which no test ran is not counted';

/** Bytes of a run's log read to classify it. */
const LOG_HEAD = 64 * 1024;
const OUTPUT_SHOWN = 4096;

async function logHead(logPath: string): Promise<string> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(logPath, 'r');
    const buf = Buffer.alloc(LOG_HEAD);
    const { bytesRead } = await handle.read(buf, 0, LOG_HEAD, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch {
    return '';
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Why a run that recorded no event never reached the program, from its exit code and output; the
 * include list names what was expected to load.
 */
export function classifyNotReached(output: string, exitCode: number | null, include: readonly string[], recorder: 'java' | 'node' = 'java', cwd = process.cwd()): Omit<NotReached, 'output'> {
  const included = include.length ? ` (--include ${include.join(' ')})` : '';
  let m: RegExpExecArray | null;
  if (recorder === 'node') {
    // the Node.js recorder (docs/recorder-node.md): files, not classes
    const load = jsLoadFailure(output, cwd);
    if (load) return cannotLoad(load);
    if ((m = /Cannot find module '([^']+)'/.exec(output)) || (m = /ERR_MODULE_NOT_FOUND[\s\S]*?Cannot find (?:module|package) '([^']+)'/.exec(output)))
      return { reason: `module ${m[1]} not found`, hint: 'check the script path and that the dependencies are installed (npm install)' };
    if (exitCode === 127 || /command not found|: not found/.test(output)) return { reason: 'command not found', hint: 'check the program name and the PATH' };
    return {
      reason: `no file of the program was instrumented${included}: the command ran${exitCode ? ` (exit code ${exitCode})` : ''} but recorded no shared access`,
      hint: include.length
        ? 'set the include globs to the files of the code under test (e.g. --include "src/**/*.ts"; node_modules only when named), and check that the command runs Node.js'
        : 'check that the command runs your JavaScript or TypeScript files under the working folder (node_modules is not instrumented unless --include names it)',
    };
  }
  if ((m = /Could not find or load main class (\S+)/.exec(output)))
    return { reason: `main class ${m[1]} not found`, hint: 'check the class name and the class path (-cp): are the classes compiled?' };
  if ((m = /Unable to access jarfile (.+)/.exec(output))) return { reason: `jar file ${m[1].trim()} not found`, hint: 'check the path of the jar' };
  if (/ClassNotFoundException|NoClassDefFoundError/.test(output) && exitCode !== 0 && /Error: Could not|Exception in thread "main"/.test(output))
    return { reason: 'a class of the program was not found', hint: 'check the class path (-cp) and that the classes are compiled' };
  if (/Error: Could not create the Java Virtual Machine|Error occurred during initialization of VM|Unrecognized option/.test(output))
    return { reason: 'the JVM did not start', hint: 'check the java options of the command' };
  if (exitCode === 127 || /command not found|: not found|No such file or directory/.test(output)) return { reason: 'command not found', hint: 'check the program name and the PATH' };
  if (exitCode === 126) return { reason: 'the command cannot be executed', hint: 'check that the program is executable' };
  return {
    reason: `no included class was instrumented${included}: the command ran${exitCode ? ` (exit code ${exitCode})` : ''} but loaded none of them`,
    hint: include.length ? 'set the include list to the packages of the code under test (braid.record.include, --include), and check that the command runs a JVM' : 'check that the command runs a Java program (a JVM)',
  };
}

/** A JS/TS program that cannot load (node/loadFailure.ts): the error, file and line first. */
function cannotLoad(load: LoadFailure): Omit<NotReached, 'output'> {
  return { reason: `the program cannot load: ${load.message}`, hint: `fix ${load.file ? `${load.file}${load.line ? ` line ${load.line}` : ''}` : 'the error'} and record again; no run was counted` };
}

/**
 * The run never reached the program (recorded no event), or undefined. A JS/TS run that recorded
 * events (the test runner's own code) but failed because a file of the program cannot load — a
 * transform, syntax or module-not-found error (node/loadFailure.ts) — never reached it either.
 */
export async function notReachedRun(
  run: { empty: boolean; aborted: boolean; exitCode: number | null; logPath: string; reason: string; notRun?: string },
  o: Pick<RecordOptions, 'include' | 'record' | 'recorder'> & { cwd?: string; command?: readonly string[] },
): Promise<NotReached | undefined> {
  if (run.aborted) return undefined;
  const shown = (output: string) => (output.length > OUTPUT_SHOWN ? output.slice(0, OUTPUT_SHOWN) + '\n…' : output);
  // the test did not run (java/testDidNotRun.ts): the RepeatLauncher's reason, or the console launcher's own output
  if (run.notRun) return { reason: run.notRun, testDidNotRun: true, hint: NOT_RUN_HINT, output: shown(await logHead(run.logPath)) };
  if (o.recorder !== 'node' && run.exitCode && run.reason === 'exit-code' && o.command && isConsoleLauncherCommand(o.command)) {
    const output = await logHead(run.logPath);
    const why = consoleLauncherNotRun(output, run.exitCode, consoleLauncherSelectors(o.command));
    if (why) return { reason: why, testDidNotRun: true, hint: NOT_RUN_HINT, output: shown(output) };
  }
  if (o.record === false) return undefined;
  // a run stopped by its time limit or a signal did reach something (it ran): a hang is a finding
  if (run.reason === 'timeout' || run.reason === 'recorder-blocked' || run.reason === 'killed') return undefined;
  if (!run.empty) {
    if (o.recorder !== 'node' || !run.exitCode) return undefined;
    const output = await logHead(run.logPath);
    const load = jsLoadFailure(output, o.cwd ?? process.cwd());
    return load ? { ...cannotLoad(load), output: shown(output) } : undefined;
  }
  const output = await logHead(run.logPath);
  return { ...classifyNotReached(output, run.exitCode, o.include, o.recorder === 'node' ? 'node' : 'java', o.cwd ?? process.cwd()), output: shown(output) };
}

/** The dropped runs by execution id, for a warning: `runs a-0003, a-0007` (at most 5, then how many more). */
export function droppedRuns(executions: readonly string[]): string {
  const shown = executions.slice(0, 5).join(', ');
  return `${executions.length === 1 ? 'run' : 'runs'} ${shown}${executions.length > 5 ? ` and ${executions.length - 5} more` : ''}`;
}
