/**
 * Where a recording manifest's command may run, and how it is shown (issue 39: a manifest beside
 * committed traces is data, not instructions). `braid confirm` and `braid analyze --confirm` run a
 * manifest's command only in a folder inside the traces' workspace, and print it (and every other
 * field they take from the manifest) before the first run; the editor shows the same in its dialog.
 */
import path from 'node:path';
import { readRecordingManifest, RecordingManifest } from './recordingManifest';
import { isInsideFolder } from '../../workspace/insideFolder';

export { isInsideFolder };

/**
 * The workspace of a trace folder: the folder holding the nearest `.braid` folder above it (Braid
 * records into `<workspace>/.braid/traces/<recording>`), or else the folder holding the trace folder
 * (`braid record --out DIR` from the folder above DIR).
 */
export function tracesWorkspace(traceDir: string): string {
  const dir = path.resolve(traceDir);
  for (let d = dir; ; ) {
    if (path.basename(d) === '.braid') return path.dirname(d);
    const up = path.dirname(d);
    if (up === d) break;
    d = up;
  }
  return path.dirname(dir);
}

/**
 * The manifest of the traces being confirmed: that of the folder holding most of them (the editor
 * passes the runs with the pattern, failing first), ties broken by the folder's path. Never the
 * folder with the greatest `startedAt`, a field a committed manifest can set to "9999…".
 */
export async function manifestOfTraces(traces: readonly string[]): Promise<{ manifest?: RecordingManifest; file?: string; problem?: string }> {
  const count = new Map<string, number>();
  for (const t of traces) count.set(path.dirname(t), (count.get(path.dirname(t)) ?? 0) + 1);
  const best = [...count].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))[0];
  return best ? readRecordingManifest(best[0]) : {};
}
