/**
 * Checks an `--output FILE` before any work is done, so a long analysis never ends in a raw
 * ENOENT/EISDIR: the file's folder must exist and the path must not be a folder.
 */
import { openSync, statSync } from 'node:fs';
import path from 'node:path';

/** Why `file` cannot be written as a report, or undefined when it can be tried. */
export function outputPathProblem(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file));
  let st;
  try {
    st = statSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) return `${file} is a folder; give a file name (e.g. ${path.join(file, 'report.json')})`;
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
  } catch {
    return `the folder ${dir} does not exist (create it first)`;
  }
  return undefined;
}

/** A readable message for an error from opening or writing `file` (ENOENT, EISDIR, EACCES …). */
function outputErrorMessage(flag: string, file: string, err: NodeJS.ErrnoException): string {
  const why =
    err.code === 'ENOENT'
      ? `the folder ${path.dirname(path.resolve(file))} does not exist`
      : err.code === 'EISDIR'
        ? 'it is a folder'
        : err.code === 'EACCES' || err.code === 'EPERM'
          ? 'permission denied'
          : err.code === 'ENOSPC'
            ? 'no space left on the device'
            : err.message;
  return `${flag} ${file}: cannot write there: ${why}`;
}

/** Opens `file` for writing (before anything is written); an error says which option and why. */
export function openOutputFile(flag: string, file: string): number {
  try {
    return openSync(file, 'w');
  } catch (e) {
    throw new Error(outputErrorMessage(flag, file, e as NodeJS.ErrnoException));
  }
}
