/**
 * Per-run summaries cached on disk (`.braid/cache/`), so reopening a
 * workspace or adding one trace reads only new traces.
 *
 *   <root>/<engine>-<options hash>/index.json   trace path → size, mtime, SHA-1
 *   <root>/<engine>-<options hash>/runs/<name>.json   the run's summary; <name> = HMAC of the trace's
 *                                                      SHA-1 under this machine's key (cacheKey.ts)
 *
 * A trace whose size and mtime match its index entry is not read at all; one
 * whose size or mtime changed is hashed, and its summary is reused when the
 * content is the same. The folder name carries the engine version and the
 * collection options, so a new engine or other options never see old summaries.
 */
import { promises as fs } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileHash } from '../analysis';
import { CollectionOptions, collectionOptions, ENGINE_VERSION, readSummaryFile, SUMMARY_VERSION, SummaryFile } from './summaryFile';
import { cacheKeyProblem, cacheName } from './cacheKey';
import { writeFileAtomic } from '../../workspace/atomicWrite';
import { linkBelow, readRegularTextFile } from '../../workspace/regularFile';

/** a larger index is not read (every trace is read instead): 100,000 entries stay well below */
const MAX_INDEX_BYTES = 64 * 2 ** 20;

interface IndexEntry {
  size: number;
  mtimeMs: number;
  hash: string;
}

export interface CacheLookup {
  /** a summary of the trace's content is cached */
  hit?: boolean;
  /** the trace's SHA-1 when known */
  hash?: string;
}

export class SummaryCache {
  private index = new Map<string, IndexEntry>();
  private dirty = false;
  /** problems writing the cache (the analysis goes on without it) */
  readonly problems: string[] = [];

  private constructor(readonly dir: string) {}

  /** The cache for these options under `root` (e.g. <workspace>/.braid/cache). Throws when this machine has no usable cache key (cacheKey.ts). */
  static async open(root: string, options: CollectionOptions): Promise<SummaryCache> {
    // without this machine's key there is no cache (names keyed by a process' key would pile up)
    const keyProblem = cacheKeyProblem();
    if (keyProblem) throw new Error(keyProblem);
    const o = collectionOptions(options);
    const tag = createHash('sha1').update(JSON.stringify([ENGINE_VERSION, SUMMARY_VERSION, o])).digest('hex').slice(0, 12);
    const cache = new SummaryCache(path.join(root, `${ENGINE_VERSION}-${tag}`));
    // the cache's own folders are never links (a cloned repository's `.braid/cache/<tag>/runs` → a
    // folder elsewhere would have summaries written there): a link at their names is removed, not followed
    for (const d of [cache.dir, cache.runsDir]) {
      if ((await fs.lstat(d).catch(() => undefined))?.isSymbolicLink()) await fs.unlink(d);
    }
    try {
      const raw = JSON.parse(await readRegularTextFile(path.join(cache.dir, 'index.json'), MAX_INDEX_BYTES)) as Record<string, IndexEntry>;
      for (const [k, e] of Object.entries(raw)) if (e && typeof e.hash === 'string' && /^[0-9a-f]{40}$/.test(e.hash)) cache.index.set(k, e);
    } catch {
      // no index yet (or a broken one): every trace is read
    }
    return cache;
  }

  /**
   * The summary cache folder of a workspace folder (`<folder>/.braid/cache`), or why there is none:
   * `.braid` or `.braid/cache` is a symbolic link (a cloned repository's link would have the cache
   * written outside the workspace, also in Restricted Mode).
   */
  static async workspaceDir(folder: string): Promise<{ dir?: string; problem?: string }> {
    const dir = path.join(folder, '.braid', 'cache');
    const link = await linkBelow(folder, dir);
    return link ? { problem: `the summary cache is not used: ${link} is a symbolic link (Braid writes its cache only inside the workspace folder)` } : { dir };
  }

  private summaryPath(hash: string): string {
    return path.join(this.dir, 'runs', `${cacheName(hash)}.json`);
  }

  /**
   * Whether `file`'s content was summarized before (its SHA-1 then), without
   * reading the summary: a trace whose size and mtime match the index is not
   * read either; one whose size or mtime changed is hashed.
   */
  async peek(file: string): Promise<CacheLookup> {
    const key = path.resolve(file);
    let st;
    try {
      st = await fs.stat(file);
    } catch {
      return {};
    }
    const e = this.index.get(key);
    if (!e) return {};
    const same = e.size === st.size && e.mtimeMs === st.mtimeMs;
    let hash = e.hash;
    if (!same) {
      try {
        hash = await fileHash(file);
      } catch {
        return {};
      }
    }
    try {
      await fs.access(this.summaryPath(hash));
    } catch {
      return { hash };
    }
    if (!same) {
      this.index.set(key, { size: st.size, mtimeMs: st.mtimeMs, hash });
      this.dirty = true;
    }
    return { hit: true, hash };
  }

  /** The cached summary <hash>.json (undefined when it is missing or broken). */
  async read(hash: string): Promise<SummaryFile | undefined> {
    try {
      const summary = await readSummaryFile(this.summaryPath(hash));
      return summary.runs.length === 1 ? summary : undefined;
    } catch {
      return undefined;
    }
  }

  /** Where summaries are written (by summarizeTrace, in the worker threads): <runsDir>/<cacheName(SHA-1)>.json. */
  get runsDir(): string {
    return path.join(this.dir, 'runs');
  }

  /** Records in the index that `file` (as it was when read: size, mtime) has the summary <hash>.json. */
  record(file: string, hash: string, stat: { size: number; mtimeMs: number }): void {
    this.index.set(path.resolve(file), { size: stat.size, mtimeMs: stat.mtimeMs, hash });
    this.dirty = true;
  }

  /** Writes the index when it changed. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    try {
      await fs.mkdir(this.dir, { recursive: true });
      await writeFileAtomic(path.join(this.dir, 'index.json'), JSON.stringify(Object.fromEntries(this.index)));
      this.dirty = false;
    } catch (err) {
      this.problems.push(`cannot write the summary cache index in ${this.dir}: ${(err as Error).message}`);
    }
  }
}
