/**
 * The npm (or yarn) workspace a command runs in (docs/recorder-node.md "Which files"): a test in
 * `packages/a` of a monorepo imports `packages/b` through a `node_modules` symlink, and Node loads b's
 * files from their real path, outside a's folder. The Node.js recorder records the files of every
 * package of the workspace as project code (not as a node_modules package) and names a file outside
 * the working folder relative to the workspace's root (`packages/b/src/store.js`), where the editor
 * finds it. The workspace is the nearest folder above the working folder whose package.json has
 * `workspaces` (an array of globs, or `{ "packages": [...] }`); its packages are the folders holding a
 * package.json that the globs match (`!glob` leaves folders out), found by a bounded walk that skips
 * node_modules and dot folders. Read from the manifests alone, so every run of a recording instruments
 * the same files.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';

export interface NpmWorkspace {
  /** the workspace's root folder (its package.json names the workspaces), real path */
  root: string;
  /** the workspace packages' folders, real paths */
  packages: string[];
}

/** How deep below the root a workspace package may be, and how many folders the walk reads at most. */
const MAX_DEPTH = 6;
const MAX_FOLDERS = 20_000;

function readJson(file: string): unknown {
  try {
    if (!existsSync(file) || statSync(file).size > 4 << 20) return undefined;
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The workspace globs of a package.json's `workspaces` field (npm, yarn: an array, or `{ packages }`), or undefined. */
export function workspaceGlobs(manifest: unknown): string[] | undefined {
  if (!manifest || typeof manifest !== 'object') return undefined;
  let w = (manifest as { workspaces?: unknown }).workspaces;
  if (w && typeof w === 'object' && !Array.isArray(w)) w = (w as { packages?: unknown }).packages;
  if (!Array.isArray(w)) return undefined;
  const globs = w.filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 300 && !g.includes('\0'));
  return globs.length ? globs : undefined;
}

/** The workspace `dir` (the working folder) is inside, when a folder above it declares workspaces; undefined otherwise. */
export function npmWorkspace(dir: string): NpmWorkspace | undefined {
  let d = path.dirname(path.resolve(dir));
  for (;;) {
    const globs = workspaceGlobs(readJson(path.join(d, 'package.json')));
    if (globs) {
      const root = realOrSelf(d);
      return { root, packages: workspacePackageDirs(root, globs) };
    }
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/** The folders under `root` holding a package.json that `globs` match (negated globs exclude), real paths, sorted. */
export function workspacePackageDirs(root: string, globs: readonly string[]): string[] {
  const clean = (g: string) => g.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  const include = globs.filter((g) => !g.startsWith('!')).map(clean);
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1)));
  if (!include.length) return [];
  const isIncluded = picomatch(include, { dot: false });
  const isExcluded = exclude.length ? picomatch(exclude) : () => false;
  const out: string[] = [];
  let folders = 0;
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > MAX_DEPTH || folders >= MAX_FOLDERS) return;
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name === 'node_modules' || e.name.startsWith('.')) continue;
      if (++folders > MAX_FOLDERS) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = path.join(abs, e.name);
      if (isIncluded(r) && !isExcluded(r) && existsSync(path.join(p, 'package.json'))) out.push(realOrSelf(p));
      walk(p, r, depth + 1);
    }
  };
  walk(root, '', 1);
  return [...new Set(out)].sort();
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
