/**
 * Writing a file so that a reader never sees half of it, and so that nothing planted beside it can
 * redirect the write (issue 39): the text goes to a temporary file in the same folder, made with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a name no one can guess (`.<name>.<24 random hex digits>.tmp`),
 * then renamed over the file. A symbolic link planted at the temporary name cannot exist (the name
 * is random, and O_EXCL refuses any existing entry), and the rename replaces a link at the file's
 * own name instead of writing through it. Used by every file Braid rewrites in place: verdicts,
 * noise plans, run summaries, the summary cache's index and the workspace snapshot.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';

/** O_NOFOLLOW where the platform has it (not on Windows, where links are not made by unprivileged users). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** The temporary name `writeFileAtomic` uses for `file`: in its folder, unpredictable. */
export function temporaryNameFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(12).toString('hex')}.tmp`);
}

/**
 * Writes `data` (a string as UTF-8, or buffers in order) to `file` through an exclusive temporary
 * file, then renames it into place. The temporary file is removed when anything fails. `mode`: the
 * new file's permissions (default 0o644, less the umask).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[], mode = 0o644): Promise<void> {
  const tmp = temporaryNameFor(file);
  const h = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, mode);
  try {
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) await h.writeFile(data);
      else await h.writev(data as Uint8Array[]);
    } finally {
      await h.close();
    }
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw e;
  }
}
