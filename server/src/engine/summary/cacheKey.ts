/**
 * The summary cache's names are keyed by a secret of this machine (issue 31, N3): a cached run
 * summary is `runs/<name>.json` and the workspace snapshot `workspace-<name>.braid-snapshot`, each
 * name an HMAC-SHA-256 under a key that never leaves the machine. A `.braid/cache` that came with a
 * cloned repository (made elsewhere, or crafted to list the real traces' hashes over other content)
 * holds no file under these names, so it is never read: Braid reads the traces instead.
 *
 * The key: `$BRAID_CACHE_KEY_FILE`, else `$XDG_CACHE_HOME/braid/cache.key`, else
 * `~/.cache/braid/cache.key` — 32 random bytes made on first use with mode 0600. The file is checked
 * (issue 39): a regular file (not a symbolic link — a link to a public file would make the key
 * public), of exactly 32 bytes, not readable by other users, owned by this user. When it is not one,
 * or cannot be made, there is no key and the summary cache is not used — with a message saying why
 * (a key of the process would name the cache's files anew in every process: snapshots and summaries
 * piling up without bound).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** the key's length in bytes: what Braid makes, and what it accepts */
export const CACHE_KEY_BYTES = 32;

let key: Buffer | undefined;
let keySource = '';
let keyProblem: string | undefined;

/** Where the machine's cache key lives. */
export function cacheKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BRAID_CACHE_KEY_FILE) return env.BRAID_CACHE_KEY_FILE;
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'braid', 'cache.key');
}

/** The key in `file`, or why it is not one (`missing`: there is no such file). */
function readKey(file: string): { key?: Buffer; problem?: string; missing?: boolean } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    return { problem: code === 'ELOOP' || code === 'EMLINK' ? 'is a symbolic link (the key must be a file of its own)' : `cannot be read (${code ?? 'error'})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: st.isDirectory() ? 'is a folder, not a key file' : 'is not a regular file' };
    if (st.size !== CACHE_KEY_BYTES) return { problem: `holds ${st.size} bytes, not a key of ${CACHE_KEY_BYTES} random bytes` };
    if (process.platform !== 'win32') {
      if ((st.mode & 0o077) !== 0) return { problem: `can be read by other users (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}; it must be 0600)` };
      if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return { problem: 'belongs to another user' };
    }
    const buf = Buffer.alloc(CACHE_KEY_BYTES);
    const n = readSync(fd, buf, 0, CACHE_KEY_BYTES, 0);
    return n === CACHE_KEY_BYTES ? { key: buf } : { problem: 'could not be read whole' };
  } finally {
    closeSync(fd);
  }
}

function loadKey(): Buffer | undefined {
  if (key) return key;
  // no key yet: looked for again on each call (a fixed or deleted key file counts without a restart)
  keyProblem = undefined;
  const file = cacheKeyFile();
  let r = readKey(file);
  if (r.missing) {
    const fresh = randomBytes(CACHE_KEY_BYTES);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // O_EXCL: two processes making it at once — the loser reads the winner's; O_NOFOLLOW: never through a link
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
      try {
        writeSync(fd, fresh);
      } finally {
        closeSync(fd);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        keyProblem = `the cache key file ${file} cannot be made (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the summary cache is not used`;
        return undefined;
      }
    }
    r = readKey(file);
  }
  if (!r.key) {
    keyProblem = `the cache key file ${file} ${r.problem ?? 'is missing'}; the summary cache is not used (delete the file and Braid makes a new one, or set BRAID_CACHE_KEY_FILE)`;
    return undefined;
  }
  keySource = file;
  return (key = r.key);
}

/**
 * Why there is no cache key (the summary cache is then not used), or undefined when there is one.
 * Made (or read) on the first call.
 */
export function cacheKeyProblem(): string | undefined {
  loadKey();
  return keyProblem;
}

/** The keyed name (40 hex digits) of `what` (a trace's SHA-1, or "snapshot"). */
export function cacheName(what: string): string {
  const k = loadKey();
  if (!k) throw new Error(keyProblem);
  return createHmac('sha256', k).update(what).digest('hex').slice(0, 40);
}

/** Where the key came from (its file), or '' when there is none: for logs. */
export function cacheKeySource(): string {
  loadKey();
  return keySource;
}

/** Forgets the key read (tests: another BRAID_CACHE_KEY_FILE). */
export function resetCacheKey(): void {
  key = undefined;
  keySource = '';
  keyProblem = undefined;
}
