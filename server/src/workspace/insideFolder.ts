/** Whether a folder is inside another once links are followed (the walk of trace globs, a recording's working directory). */
import { promises as fs } from 'node:fs';
import path from 'node:path';

async function real(p: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/** True when `dir` is `root` or below it, after following symbolic links (a link out of `root` is outside). */
export async function isInsideFolder(root: string, dir: string): Promise<boolean> {
  const rel = path.relative(await real(root), await real(dir));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
