/**
 * The recordings an MCP client can see: the folders of `<root>/.braid/traces` of each root (newest
 * first), as list_recordings lists them and as MCP resources `braid://recording/<root>/<name>`
 * (root = the root's position on the command line), whose text is the recording's summary:
 * manifest fields and the ranked causes (analysisDigest.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRecordingManifest } from '../recorder/runs/recordingManifest';
import { commandLine } from '../recorder/java/testCommand';
import { recordedText } from './recordedText';

export const RECORDING_URI_TEMPLATE = 'braid://recording/{root}/{name}';

export function recordingResourceUri(rootIndex: number, handle: string): string {
  return `braid://recording/${rootIndex}/${encodeURIComponent(handle)}`;
}

/** Parses a recording resource URI: the root's index and the recording's handle. */
export function parseRecordingUri(uri: string): { root: number; handle: string } | undefined {
  const m = /^braid:\/\/recording\/(\d+)\/([^/]+)$/.exec(uri);
  if (!m) return undefined;
  try {
    return { root: Number(m[1]), handle: decodeURIComponent(m[2]) };
  } catch {
    return undefined;
  }
}

export interface RecordingEntry {
  recording: string;
  resource: string;
  root: string;
  folder: string;
  traces: number;
  command?: string;
  startedAt?: string;
  canRun: boolean;
  mtimeMs: number;
}

const TRACE = /\.trace\.jsonl(\.gz)?$/;

/** The recordings of the roots, newest first. */
export async function listRecordings(roots: readonly string[]): Promise<RecordingEntry[]> {
  const out: RecordingEntry[] = [];
  for (let k = 0; k < roots.length; k++) {
    const base = path.join(roots[k], '.braid', 'traces');
    let names: string[];
    try {
      // a linked .braid/traces is not followed (recordings live in the root)
      if ((await fs.lstat(base)).isSymbolicLink() || (await fs.lstat(path.dirname(base))).isSymbolicLink()) continue;
      names = await fs.readdir(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const folder = path.join(base, name);
      const st = await fs.lstat(folder).catch(() => undefined);
      if (!st?.isDirectory()) continue;
      const files = await fs.readdir(folder).catch(() => [] as string[]);
      const traces = files.filter((f) => TRACE.test(f)).length;
      const m = files.includes('recording.json') ? await readRecordingManifest(folder) : undefined;
      out.push({
        recording: name,
        resource: recordingResourceUri(k, name),
        root: roots[k],
        folder,
        traces,
        ...(m?.manifest ? { command: recordedText(commandLine(m.manifest.command), 300), startedAt: recordedText(m.manifest.startedAt, 40) } : {}),
        canRun: Boolean(m?.manifest),
        mtimeMs: st.mtimeMs,
      });
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.recording < b.recording ? -1 : 1));
}
