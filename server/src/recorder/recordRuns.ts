/**
 * Programmatic API of the recorder (used by `braid record` and the language server): runs the
 * command N times, up to `jobs` at once, and reports each finished run.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { findAgentJar } from './agentJar';
import { RecordOptions, shardRange } from './recordOptions';
import { RunResult, runOnce, RunSpec } from './runOnce';
import { lockTraceFolder } from './recordingLock';

export interface RecordProgress {
  type: 'run';
  run: RunResult;
  done: number;
  total: number;
  passed: number;
  failed: number;
}

export interface RecordSummary {
  outDir: string;
  total: number;
  passed: number;
  failed: number;
  /** runs whose JVMs recorded no event (check --include) */
  empty: number;
  interrupted: boolean;
  runs: RunResult[];
  traces: string[];
  durationMs: number;
}

export function runSpec(o: RecordOptions, index: number): RunSpec {
  const width = Math.max(4, String(o.runs - 1).length);
  const execution = `${o.name}-${String(index).padStart(width, '0')}`;
  return {
    index,
    execution,
    seed: String(o.seed + index),
    tracePath: path.join(o.outDir, `${execution}.trace.jsonl`),
    logPath: path.join(o.outDir, `${execution}.log`),
  };
}

export async function recordRuns(
  o: RecordOptions,
  onProgress?: (p: RecordProgress) => void,
  signal?: AbortSignal,
): Promise<RecordSummary> {
  const jar = findAgentJar(o.agentJar);
  try {
    await fs.mkdir(o.outDir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `the trace folder ${o.outDir} cannot be made: it (or a folder above it) is a file`
        : `the trace folder ${o.outDir} cannot be made: ${(e as Error).message}`,
    );
  }
  const unlock = await lockTraceFolder(o.outDir);
  try {
    return await recordLocked(o, jar, onProgress, signal);
  } finally {
    await unlock();
  }
}

async function recordLocked(o: RecordOptions, jar: string, onProgress?: (p: RecordProgress) => void, signal?: AbortSignal): Promise<RecordSummary> {
  const started = Date.now();
  const runs: RunResult[] = [];
  // a shard records its part of the runs, with the indices (ids, seeds) they have in the whole recording
  const { from, to } = shardRange(o);
  const count = to - from;
  let next = from;
  let passed = 0;
  let failed = 0;
  let firstError: Error | undefined;

  async function worker(): Promise<void> {
    while (!signal?.aborted && !firstError && next < to) {
      const index = next++;
      let result: RunResult;
      try {
        result = await runOnce(runSpec(o, index), o, jar, signal);
      } catch (e) {
        firstError ??= e as Error;
        return;
      }
      if (result.aborted) continue;
      runs.push(result);
      if (result.outcome === 'pass') passed++;
      else failed++;
      onProgress?.({ type: 'run', run: result, done: runs.length, total: count, passed, failed });
    }
  }

  const jobs = Math.max(1, Math.min(o.jobs, count));
  await Promise.all(Array.from({ length: jobs }, () => worker()));
  if (firstError && runs.length === 0) throw firstError;
  runs.sort((a, b) => a.index - b.index);
  return {
    outDir: o.outDir,
    total: runs.length,
    passed,
    failed,
    empty: runs.filter((r) => r.empty).length,
    interrupted: Boolean(signal?.aborted) || Boolean(firstError),
    runs,
    traces: runs.flatMap((r) => r.traces),
    durationMs: Date.now() - started,
  };
}
