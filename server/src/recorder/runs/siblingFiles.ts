/**
 * The files of one folder whose names a rule accepts, sorted by name: how a run's traces are found
 * beside each other (runFiles.ts: its final traces; inProgressTraces.ts: its `.part` traces), whatever
 * the names' rule. A folder that cannot be read has none.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function siblingFiles(dir: string, isMine: (name: string) => boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter(isMine)
    .sort()
    .map((n) => path.join(dir, n));
}
