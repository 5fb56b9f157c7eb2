/**
 * Reading Braid's own files in a workspace (`.braid/…`: verdicts, the recording manifest, the
 * summary cache) as the untrusted data they are (issue 39): only a regular file is read — never
 * through a symbolic link, never a FIFO or a device (`/dev/zero` as a verdict file stalled the
 * server), never more than a size cap — and an error says what is wrong with the file without
 * quoting any of its content (a parse error quoting the first characters of a linked file put a
 * token into a CI log).
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';

/** O_NOFOLLOW where the platform has it; O_NONBLOCK so that opening a FIFO does not wait for a writer. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Why a file was not read; `code` is the errno code when there is one (ENOENT: no such file). */
export class FileReadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

const mib = (n: number) => (n >= 2 ** 20 ? `${+(n / 2 ** 20).toFixed(1)} MiB` : `${n} bytes`);

/**
 * The content of `file` when it is a regular file (not a symbolic link) of at most `maxBytes`
 * bytes. Throws a FileReadError naming the reason (missing, a symbolic link, not a regular file,
 * too large, unreadable), never its content.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer> {
  let h: fs.FileHandle;
  try {
    h = await fs.open(file, OPEN_FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new FileReadError('a symbolic link; not read (Braid reads its own files only when they are regular files)', code);
    if (code === 'ENOENT') throw new FileReadError('no such file', code);
    throw new FileReadError(`cannot be read (${code ?? 'error'})`, code);
  }
  try {
    const st = await h.stat();
    if (!st.isFile()) throw new FileReadError('not a regular file; not read');
    if (st.size > maxBytes) throw new FileReadError(`larger than ${mib(maxBytes)}; not read`);
    // the file may grow while it is read: never more than the cap
    const buf = Buffer.alloc(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await h.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > maxBytes) throw new FileReadError(`larger than ${mib(maxBytes)}; not read`);
    return buf.subarray(0, n);
  } catch (e) {
    if (e instanceof FileReadError) throw e;
    throw new FileReadError(`cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`, (e as NodeJS.ErrnoException).code);
  } finally {
    await h.close();
  }
}

/** readRegularFile as UTF-8 text. */
export async function readRegularTextFile(file: string, maxBytes: number): Promise<string> {
  return (await readRegularFile(file, maxBytes)).toString('utf8');
}

/**
 * The first component of `target` below `base` that is a symbolic link (its path), or undefined
 * when none is (components that do not exist yet are not links). `base` itself is not checked: it
 * is the workspace folder or a folder the user named.
 */
export async function linkBelow(base: string, target: string): Promise<string | undefined> {
  const rel = path.relative(path.resolve(base), path.resolve(target));
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  let at = path.resolve(base);
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    let st;
    try {
      st = await fs.lstat(at);
    } catch {
      return undefined; // not there yet: nothing below it is either
    }
    if (st.isSymbolicLink()) return at;
  }
  return undefined;
}
