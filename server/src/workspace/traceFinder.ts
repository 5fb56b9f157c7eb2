/**
 * Finds the trace files of the workspace folders that match the trace globs
 * (`braid.traceGlobs`). Walks only below each glob's literal base folder
 * (e.g. `.braid/traces`), so a big workspace is not scanned for the default, and
 * never outside the workspace folder: a glob with `..` is refused (glob.ts), a base
 * folder that is a link out of the workspace is not walked, and links to folders are
 * not followed. A glob that is not accepted is left out; `problems` says why.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CompiledGlob, compileGlob, GlobError } from './glob';
import { isInsideFolder } from './insideFolder';

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
const MAX_FILES = 100_000;

export interface TraceFileInfo {
  path: string;
  mtimeMs: number;
  size: number;
}

export class TraceFinder {
  readonly globs: CompiledGlob[] = [];
  /** the globs left out, each with why (GlobError's message) */
  readonly problems: string[] = [];

  constructor(
    readonly folders: string[],
    globs: string[],
  ) {
    for (const g of globs.filter((x) => x.trim())) {
      try {
        this.globs.push(compileGlob(g));
      } catch (e) {
        if (!(e instanceof GlobError)) throw e;
        this.problems.push(e.message);
      }
    }
  }

  /** True when an absolute path is a trace of one of the folders. */
  matches(file: string): boolean {
    for (const folder of this.folders) {
      const rel = path.relative(folder, file);
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const posix = rel.split(path.sep).join('/');
      if (this.globs.some((g) => g.regex.test(posix))) return true;
    }
    return false;
  }

  async find(): Promise<TraceFileInfo[]> {
    const out = new Map<string, TraceFileInfo>();
    for (const folder of this.folders) {
      // distinct base folders; a base inside another is covered by it
      const bases = [...new Set(this.globs.map((g) => g.base))].sort();
      const roots = bases.filter((b, k) => !bases.slice(0, k).some((o) => o === '' || b === o || b.startsWith(o + '/')));
      for (const base of roots) {
        const root = path.join(folder, base);
        if (await isInsideFolder(folder, root)) await this.walk(folder, root, out);
      }
    }
    return [...out.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  private async walk(folder: string, dir: string, out: Map<string, TraceFileInfo>): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // a missing trace folder is normal
    }
    for (const e of entries) {
      if (out.size >= MAX_FILES) return;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await this.walk(folder, p, out);
      } else if (e.isFile() && this.matches(p) && !out.has(p)) {
        try {
          const st = await fs.stat(p);
          out.set(p, { path: p, mtimeMs: st.mtimeMs, size: st.size });
        } catch {
          /* vanished */
        }
      }
    }
  }
}

