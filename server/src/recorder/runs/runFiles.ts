/**
 * The files of one recorded run, however it ran (a process of its own, runOnce.ts; a repetition in a
 * Node.js process of repetitions, node/nodeRepetitions.ts): its final traces, its in-progress
 * `.part` traces, and a Node.js run's worker-thread parts, which are merged into their process'
 * trace when the run ends (node/workerTraces.ts). One place for both paths, so that a run's files are
 * removed and merged the same way whichever path recorded it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { inProgressPath, inProgressTraceFiles } from './inProgressTraces';
import { siblingFiles } from './siblingFiles';
import { writeFailure } from './writeFailure';
import type { TraceOutcome } from './traceFinalizer';
import { mergeWorkerTraces, removeWorkerTraces } from '../node/workerTraces';

/** Trace files of a run: the main one and those of further JVMs or processes (`<name>~<pid>.trace.jsonl`). */
export async function runTraceFiles(tracePath: string): Promise<string[]> {
  const base = path.basename(tracePath, '.trace.jsonl');
  return siblingFiles(path.dirname(tracePath), (n) => n === `${base}.trace.jsonl` || (n.startsWith(`${base}~`) && n.endsWith('.trace.jsonl')));
}

/**
 * Removes every file of the run whose trace is `tracePath` (final traces, `.part` traces, worker-thread
 * parts). Each file is tried; the first error (not a missing file) is thrown after all were tried.
 */
export async function removeRunFiles(tracePath: string): Promise<void> {
  let first: unknown;
  const attempt = async (f: () => Promise<unknown>) => {
    try {
      await f();
    } catch (e) {
      first ??= e;
    }
  };
  for (const f of await runTraceFiles(tracePath)) await attempt(() => fs.rm(f, { force: true }));
  for (const f of await inProgressTraceFiles(inProgressPath(tracePath))) await attempt(() => fs.rm(f, { force: true }));
  await attempt(() => removeWorkerTraces(inProgressPath(tracePath)));
  if (first !== undefined) throw first;
}

/**
 * Merges a Node.js run's worker-thread traces into its process' in-progress trace. A file that cannot
 * be written (a full disk) is thrown, to stop the recording (writeFailure.ts); any other failure of the
 * merge makes the run a failed one of this recording: its files are removed and the outcome returned
 * (`recorder-blocked`). Undefined when the merge went through.
 */
export async function mergeRunWorkerTraces(tracePath: string): Promise<TraceOutcome | undefined> {
  try {
    await mergeWorkerTraces(inProgressPath(tracePath));
    return undefined;
  } catch (e) {
    if (writeFailure(String((e as NodeJS.ErrnoException)?.path ?? tracePath), e)) throw e;
    await removeRunFiles(tracePath).catch(() => {});
    return { outcome: 'fail', reason: 'recorder-blocked', detail: `the recorder could not merge the worker threads' traces (${(e as Error).message}); the run's traces are removed` };
  }
}
