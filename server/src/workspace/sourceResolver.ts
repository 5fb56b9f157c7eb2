/**
 * Resolves the source paths written in traces (as the compiler knows them,
 * usually relative to a source root, e.g. `bank/Account.java`) to workspace
 * files: absolute paths as they are, then `<folder>/<sourceRoot>/<path>` for
 * each configured source root, then a unique-suffix match among the
 * workspace's files with the same name. Each unresolvable path is reported
 * once (through `onUnresolved`).
 *
 * Traces are untrusted: a path only resolves to a file inside a workspace
 * folder or a configured source root (after following symbolic links), so
 * `/etc/passwd` or `../../.ssh/id_rsa` in a trace never opens anything.
 */
import { existsSync, promises as fs, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.braid', 'target', 'build', 'out', 'dist', '.gradle', '.idea']);
const MAX_INDEXED = 200_000;

export class SourceResolver {
  private readonly cache = new Map<string, string | null>();
  private readonly reported = new Set<string>();
  private byName: Map<string, string[]> | undefined;
  private indexing: Promise<void> | undefined;
  private containers: string[] | undefined;

  constructor(
    readonly folders: string[],
    readonly sourceRoots: string[],
    private readonly onUnresolved: (tracePath: string, tried: string[]) => void = () => {},
  ) {}

  /** Builds the by-file-name index used for suffix matches. */
  async prepare(): Promise<void> {
    if (this.byName) return;
    this.indexing ??= this.index();
    await this.indexing;
  }

  private async index(): Promise<void> {
    const byName = new Map<string, string[]>();
    let count = 0;
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (count >= MAX_INDEXED) return;
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(path.join(dir, e.name));
        } else if (e.isFile()) {
          count++;
          let l = byName.get(e.name);
          if (!l) byName.set(e.name, (l = []));
          l.push(path.join(dir, e.name));
        }
      }
    };
    for (const f of this.folders) await walk(f);
    this.byName = byName;
  }

  /** Forgets the file index (files were created or deleted). */
  invalidate(): void {
    this.byName = undefined;
    this.indexing = undefined;
    for (const [k, v] of this.cache) if (v === null) this.cache.delete(k);
  }

  /** Absolute workspace path of a trace source path, or undefined. */
  resolve(tracePath: string): string | undefined {
    if (!tracePath) return undefined;
    const cached = this.cache.get(tracePath);
    if (cached !== undefined) return cached ?? undefined;
    const tried: string[] = [];
    const found = this.lookup(tracePath, tried);
    this.cache.set(tracePath, found ?? null);
    if (!found && !this.reported.has(tracePath)) {
      this.reported.add(tracePath);
      this.onUnresolved(tracePath, tried);
    }
    return found;
  }

  /** True when `p` (an absolute path) is a file inside a workspace folder or source root, links followed. */
  contains(p: string): boolean {
    this.containers ??= [...new Set(this.folders.flatMap((f) => [f, ...this.sourceRoots.map((r) => path.resolve(f, r))]).map(realOrSelf))];
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      return false;
    }
    return this.containers.some((c) => real === c || real.startsWith(c.endsWith(path.sep) ? c : c + path.sep));
  }

  private lookup(tracePath: string, tried: string[]): string | undefined {
    const norm = tracePath.replace(/\\/g, '/');
    if (norm.includes('\0')) return undefined;
    if (path.isAbsolute(norm)) {
      tried.push(norm);
      if (isFile(norm) && this.contains(norm)) return path.normalize(norm);
    }
    const rel = norm.replace(/^\/+/, '');
    for (const folder of this.folders) {
      for (const root of this.sourceRoots) {
        const p = path.resolve(folder, root, rel);
        tried.push(p);
        if (isFile(p) && this.contains(p)) return p;
      }
    }
    const candidates = this.byName?.get(path.posix.basename(rel)) ?? [];
    const suffix = '/' + rel;
    const matching = candidates.filter((c) => c.split(path.sep).join('/').endsWith(suffix));
    // a unique match only (docs/extension.md braid.sourceRoots): with several, set braid.sourceRoots
    if (matching.length === 1) return matching[0];
    if (matching.length > 1) return undefined;
    // a bare file name (no folders) matching exactly one workspace file
    if (!rel.includes('/') && candidates.length === 1) return candidates[0];
    return undefined;
  }
}

/**
 * The source roots usable in an untrusted workspace (Restricted Mode): those that lead, in every
 * workspace folder and with symbolic links followed, to a folder inside a workspace folder. A
 * workspace's own settings could otherwise name `/` and let trace paths reach any file of the
 * machine. `ignored` lists the others (the server logs them; they count again once trusted).
 */
export function confineSourceRoots(folders: string[], roots: string[]): { roots: string[]; ignored: string[] } {
  const inside = folders.map(realOrSelf);
  const within = (p: string) => inside.some((f) => p === f || p.startsWith(f.endsWith(path.sep) ? f : f + path.sep));
  const kept: string[] = [];
  const ignored: string[] = [];
  for (const r of roots) (folders.length && folders.every((f) => within(realOrSelf(path.resolve(f, r)))) ? kept : ignored).push(r);
  return { roots: kept, ignored };
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}
