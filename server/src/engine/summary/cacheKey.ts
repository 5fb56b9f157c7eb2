/**
 * The summary cache's names are keyed by a secret of this machine (issue 31, N3): a cached run
 * summary is `runs/<name>.json` and the workspace snapshot `workspace-<name>.braid-snapshot`, each
 * name an HMAC-SHA-256 under a key that never leaves the machine. A `.braid/cache` that came with a
 * cloned repository (made elsewhere, or crafted to list the real traces' hashes over other content)
 * holds no file under these names, so it is never read: Braid reads the traces instead.
 *
 * The key: `$BRAID_CACHE_KEY_FILE`, else `$XDG_CACHE_HOME/braid/cache.key`, else
 * `~/.cache/braid/cache.key` — 32 random bytes made on first use with mode 0600. Where it cannot be
 * read or made, a random key of this process is used (the cache still works within the process,
 * and nothing made elsewhere is trusted).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let key: Buffer | undefined;
let keySource = '';

/** Where the machine's cache key lives. */
export function cacheKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BRAID_CACHE_KEY_FILE) return env.BRAID_CACHE_KEY_FILE;
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'braid', 'cache.key');
}

/** The key in `file` when it holds one (≥ 32 bytes), else undefined. */
function readKey(file: string): Buffer | undefined {
  try {
    const k = readFileSync(file);
    return k.length >= 32 ? k.subarray(0, 32) : undefined;
  } catch {
    return undefined;
  }
}

function loadKey(): Buffer {
  if (key) return key;
  const file = cacheKeyFile();
  let k = readKey(file);
  if (!k) {
    const fresh = randomBytes(32);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // 'wx': two processes making it at once — the loser reads the winner's
      writeFileSync(file, fresh, { flag: 'wx', mode: 0o600 });
      chmodSync(file, 0o600);
      k = fresh;
    } catch {
      k = readKey(file);
    }
    if (!k) {
      // no usable key file: this process's own key
      keySource = 'this process';
      return (key = fresh);
    }
  }
  keySource = file;
  return (key = k);
}

/** The keyed name (40 hex digits) of `what` (a trace's SHA-1, or "snapshot"). */
export function cacheName(what: string): string {
  return createHmac('sha256', loadKey()).update(what).digest('hex').slice(0, 40);
}

/** Where the key came from (a file path, or "this process"): for logs. */
export function cacheKeySource(): string {
  loadKey();
  return keySource;
}
