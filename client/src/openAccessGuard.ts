/**
 * The check behind `braid.openAccess` (run by hover links and tree items):
 * a trace is untrusted, so the command opens only `file:` URIs of existing
 * files inside a workspace folder, after following symbolic links. Pure Node
 * (no vscode import) so that it is unit-tested.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute path to open, or undefined when `uriText` is not a file inside one of `folders`. */
export async function workspaceFileOfUri(uriText: unknown, folders: readonly string[]): Promise<string | undefined> {
  if (typeof uriText !== 'string' || !uriText.startsWith('file:')) return undefined;
  let file: string;
  try {
    const u = new URL(uriText);
    if (u.search || (u.host && u.host !== 'localhost')) return undefined;
    file = path.normalize(fileURLToPath(u));
  } catch {
    return undefined;
  }
  if (file.includes('\0')) return undefined;
  let real: string;
  try {
    real = await fs.realpath(file);
    if (!(await fs.stat(real)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  for (const folder of folders) {
    let root: string;
    try {
      root = await fs.realpath(folder);
    } catch {
      continue;
    }
    const rel = path.relative(root, real);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return file;
  }
  return undefined;
}
