/**
 * Runs left out of the analysis (issue 30, point 3: "Exclude Run" / "Include Run" in the Runs view):
 * `<workspace folder>/.braid/excluded-runs.json`,
 *
 *     {"format":"braid-excluded-runs","version":1,"runs":[".braid/traces/x-20261127-101500/x-0003.trace.jsonl"]}
 *
 * trace paths relative to the folder, `/`-separated. The file is workspace content (a cloned
 * repository may hold one): it is read bounded (1 MiB, 100,000 paths), and only paths inside the
 * folder count (no absolute path, no `..`). It only removes traces from the analysis; it never
 * names a file to read or write.
 */
import path from 'node:path';
import { linkBelow, readRegularTextFile } from './regularFile';

export const EXCLUDED_RUNS_FILE = path.join('.braid', 'excluded-runs.json');
const MAX_BYTES = 1 << 20;
const MAX_RUNS = 100_000;

/** The folder-relative, `/`-separated paths of a file's text (bad entries skipped; a broken file: none). */
export function parseExcludedRuns(text: string): string[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return [];
  }
  const runs = v && typeof v === 'object' && Array.isArray((v as { runs?: unknown }).runs) ? ((v as { runs: unknown[] }).runs) : [];
  const out: string[] = [];
  for (const r of runs.slice(0, MAX_RUNS)) {
    if (typeof r !== 'string' || !r || r.length > 4096 || r.includes('\0')) continue;
    const posix = path.posix.normalize(r.replace(/\\/g, '/'));
    if (posix.startsWith('../') || posix === '..' || path.posix.isAbsolute(posix) || /^[A-Za-z]:/.test(posix)) continue;
    out.push(posix);
  }
  return out;
}

/** The absolute paths of the excluded traces of the workspace folders. */
export async function readExcludedRuns(folders: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const folder of folders) {
    const file = path.join(folder, EXCLUDED_RUNS_FILE);
    let text: string;
    try {
      // a regular file only, not through a link (`.braid` or the file itself), at most MAX_BYTES
      if (await linkBelow(folder, file)) continue;
      text = await readRegularTextFile(file, MAX_BYTES);
    } catch {
      continue;
    }
    for (const rel of parseExcludedRuns(text)) out.add(path.resolve(folder, ...rel.split('/')));
  }
  return out;
}

/** The file's text for these folder-relative paths (sorted, without duplicates). */
export function excludedRunsText(runs: Iterable<string>): string {
  return JSON.stringify({ format: 'braid-excluded-runs', version: 1, runs: [...new Set(runs)].sort() }, null, 1) + '\n';
}

export function isExcludedRunsFile(file: string, folders: readonly string[]): boolean {
  return folders.some((f) => path.resolve(file) === path.resolve(f, EXCLUDED_RUNS_FILE));
}
