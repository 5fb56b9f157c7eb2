/**
 * The code a recording ran (issue 43, point 1): `<trace folder>/sources.json`, written by the editor
 * when a recording starts, holds the SHA-256 of every source file of the workspace folder,
 *
 *     {"format":"braid-sources","version":1,"files":{"src/main/java/bank/Account.java":"9f86d0…"}}
 *
 * (paths relative to the folder, `/`-separated). A recording is "of the current code" while every
 * source file its accesses point to still has the hash it had when it was recorded
 * (codeVersions.ts). The walk skips hidden folders, `node_modules` and build output, and stops at
 * MAX_FILES files or MAX_BYTES in all (the files past the budget are not stamped, so an edit to them
 * cannot be seen). The file is workspace content when read: bounded, every entry checked.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularTextFile } from '../workspace/regularFile';

export const CODE_STAMP = 'sources.json';
const SOURCE_EXT = /\.(java|kt|kts|scala|groovy|js|mjs|cjs|jsx|ts|mts|cts|tsx)$/;
const SKIP_DIRS = new Set(['node_modules', 'target', 'build', 'out', 'bin', 'dist']);
export const MAX_FILES = 20_000;
export const MAX_BYTES = 256 << 20;
const MAX_STAMP_BYTES = 8 << 20;
const HASH = /^[0-9a-f]{64}$/;

export interface CodeStamp {
  /** folder-relative `/`-separated path → SHA-256 (hex) of its content */
  files: Map<string, string>;
}

export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The source files of a folder with their hashes (bounded walk, links not followed). */
export async function stampOf(folder: string): Promise<CodeStamp> {
  const files = new Map<string, string>();
  let bytes = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (files.size >= MAX_FILES || bytes >= MAX_BYTES) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
        await walk(path.join(dir, e.name), r);
      } else if (e.isFile() && SOURCE_EXT.test(e.name)) {
        try {
          const b = await fs.readFile(path.join(dir, e.name));
          bytes += b.length;
          files.set(r, contentHash(b));
        } catch {
          // unreadable: not stamped
        }
      }
    }
  };
  await walk(folder, '');
  return { files };
}

export function codeStampText(stamp: CodeStamp): string {
  return JSON.stringify({ format: 'braid-sources', version: 1, files: Object.fromEntries([...stamp.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }) + '\n';
}

/** Writes the stamp of `folder` into the trace folder `outDir` (created when missing); a failure only loses the stamp. */
export async function writeCodeStamp(folder: string, outDir: string): Promise<string | undefined> {
  try {
    const stamp = await stampOf(folder);
    await fs.mkdir(outDir, { recursive: true });
    await fs.writeFile(path.join(outDir, CODE_STAMP), codeStampText(stamp), { flag: 'wx' });
    return undefined;
  } catch (err) {
    return `could not write ${path.join(outDir, CODE_STAMP)}: ${(err as Error).message}`;
  }
}

/** A stamp's text checked entry by entry: the stamp, or a sentence naming what is wrong. */
export function parseCodeStamp(text: string): CodeStamp | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  const m = v as { format?: unknown; version?: unknown; files?: unknown };
  if (!m || typeof m !== 'object' || m.format !== 'braid-sources' || m.version !== 1) return 'not a Braid sources stamp (format "braid-sources", version 1)';
  if (!m.files || typeof m.files !== 'object' || Array.isArray(m.files)) return 'files: must be an object of path → SHA-256';
  const files = new Map<string, string>();
  for (const [rel, h] of Object.entries(m.files as Record<string, unknown>)) {
    if (files.size >= MAX_FILES) break;
    const posix = path.posix.normalize(rel);
    if (!rel || rel.includes('\0') || posix.startsWith('../') || posix === '..' || path.posix.isAbsolute(posix) || /^[A-Za-z]:/.test(posix)) return `files: ${JSON.stringify(rel.slice(0, 200))} is not a path inside the workspace folder`;
    if (typeof h !== 'string' || !HASH.test(h)) return `files: the hash of ${JSON.stringify(rel.slice(0, 200))} must be 64 hex digits`;
    files.set(posix, h);
  }
  return { files };
}

/** The stamp of a trace folder: undefined when it has none (recorded before stamps, or elsewhere), a sentence when it is broken. */
export async function readCodeStamp(traceDir: string): Promise<CodeStamp | string | undefined> {
  let text: string;
  try {
    text = await readRegularTextFile(path.join(traceDir, CODE_STAMP), MAX_STAMP_BYTES);
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return undefined;
    return `${path.join(traceDir, CODE_STAMP)}: ${(err as Error).message}`;
  }
  const s = parseCodeStamp(text);
  return typeof s === 'string' ? `${path.join(traceDir, CODE_STAMP)}: ${s}` : s;
}
