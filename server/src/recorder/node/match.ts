/**
 * Which files the Node.js recorder instruments (docs/recorder-node.md): the user's JS/TS files
 * under the working folder, or those the include globs name; never what an exclude glob names;
 * `node_modules` only when an include glob names it, or — without include globs — the files of the
 * project's runtime dependencies (`packages`, runtimeDependencies.ts). Globs are matched against the path relative
 * to the working folder (`/` separated): `*` and `?` within a name, `**` across folders; a glob
 * also matches every file under a folder it matches (`src` = `src/**`), and a glob without `/`
 * matches at any depth (`app.js` = `** /app.js`).
 */
import path from 'node:path';
import { isJsSourceFile } from '../../engine/jsSourceFile';
import { packageOfPath } from './runtimeDependencies';

export interface FileFilter {
  root: string;
  include: string[];
  exclude: string[];
  /** packages whose files under node_modules are recorded when no include glob is given (the project's runtime dependencies) */
  packages?: string[];
  /** the npm workspace the working folder is in (workspacePackages.ts): its packages' files are project code when no include glob is given */
  workspace?: { root: string; packages: string[] };
}


export function globRegExp(glob: string): RegExp {
  let g = glob.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  const anyDepth = !g.includes('/');
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*' && g[i + 1] === '*') {
      i++;
      if (g[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  g = re;
  return new RegExp(`^${anyDepth ? '(?:.*/)?' : ''}${g}(?:/.*)?$`);
}

export function fileMatcher(f: FileFilter): (absFile: string) => boolean {
  const include = f.include.map(globRegExp);
  const exclude = f.exclude.map(globRegExp);
  const namesNodeModules = f.include.some((g) => g.includes('node_modules'));
  const packages = new Set(f.include.length === 0 ? (f.packages ?? []) : []);
  const self = /(^|\/)braid-node-(hook|loader)\.mjs$/;
  const workspace = f.include.length === 0 ? (f.workspace?.packages ?? []).map((d) => (d.endsWith(path.sep) ? d : d + path.sep)) : [];
  /** a file of a workspace package (not of its own node_modules) */
  const inWorkspacePackage = (abs: string) => workspace.some((d) => abs.startsWith(d) && !/(^|[\\/])node_modules[\\/]/.test(abs.slice(d.length)));
  return (abs: string) => {
    if (!isJsSourceFile(abs) || self.test(abs)) return false;
    let rel = path.relative(f.root, abs).split(path.sep).join('/');
    if (path.isAbsolute(rel)) rel = abs.split(path.sep).join('/');
    const outside = rel.startsWith('../');
    const inModules = /(^|\/)node_modules\//.test(rel);
    const dependency = inModules && packages.size > 0 && packages.has(packageOfPath(rel) ?? '');
    if (!namesNodeModules && inModules && !dependency) return false;
    if (exclude.some((r) => r.test(rel) || r.test(abs))) return false;
    if (dependency) return true;
    if (outside && workspace.length && inWorkspacePackage(abs)) return true;
    if (include.length === 0) return !outside;
    return include.some((r) => r.test(rel) || r.test(abs));
  };
}

/**
 * The name a trace gives a file: relative to the working folder `root`; a file outside it but inside
 * the npm workspace's root `workspaceRoot` (a workspace package's) relative to that root
 * (`packages/b/src/store.js`); else absolute.
 */
export function relativeName(root: string, abs: string, workspaceRoot?: string): string {
  const inside = (base: string) => {
    const rel = path.relative(base, abs);
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
  };
  return (inside(root) ?? (workspaceRoot ? inside(workspaceRoot) : undefined) ?? abs).split(path.sep).join('/');
}
