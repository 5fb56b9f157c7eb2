/**
 * Traces being recorded carry a `.part` suffix (`run-0003.trace.jsonl.part`,
 * and `run-0003.trace.jsonl.part~<pid>` for further JVMs of the run), so that
 * neither `braid analyze` nor the editor reads a trace still being written;
 * the runner renames each to its final name (`run-0003.trace.jsonl`,
 * `run-0003~<pid>.trace.jsonl`) after appending the outcome line. A `.part`
 * file left behind is an incomplete trace (the recorder was killed).
 */
import path from 'node:path';
import { siblingFiles } from './siblingFiles';

export const IN_PROGRESS_SUFFIX = '.part';

/** The name the agent writes to while the run is recorded. */
export function inProgressPath(tracePath: string): string {
  return tracePath + IN_PROGRESS_SUFFIX;
}

/** The final name of an in-progress trace file (`X.trace.jsonl.part[~pid]` → `X[~pid].trace.jsonl`). */
export function finalTracePath(partFile: string): string {
  const dir = path.dirname(partFile);
  const m = /^(.*)\.trace\.jsonl\.part(~\d+)?$/.exec(path.basename(partFile));
  if (!m) throw new Error(`not an in-progress trace name: ${partFile}`);
  return path.join(dir, `${m[1]}${m[2] ?? ''}.trace.jsonl`);
}

/** The in-progress trace files of a run: the main one and those of further JVMs. */
export async function inProgressTraceFiles(partPath: string): Promise<string[]> {
  const base = path.basename(partPath);
  return siblingFiles(path.dirname(partPath), (n) => n === base || (n.startsWith(`${base}~`) && /^\d+$/.test(n.slice(base.length + 1))));
}
