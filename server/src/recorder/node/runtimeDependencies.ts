/**
 * The packages the Node.js recorder records without being named (issue 38, docs/recorder-node.md
 * "Which files"): the runtime dependencies of the project the command runs in — `dependencies`,
 * `optionalDependencies` and `peerDependencies` of the nearest package.json at or above the working
 * folder, never `devDependencies` (test runners, loaders, build tools). A race inside a package the
 * program uses is found without the user knowing which package to name; a package is one of them or
 * not by its manifest alone, so every run of a recording instruments the same files.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A valid npm package name (scoped or not), so a manifest cannot smuggle a path into the filter. */
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

/** The nearest package.json at or above `dir` (undefined: none). */
export function nearestPackageJson(dir: string): string | undefined {
  let d = path.resolve(dir);
  for (;;) {
    const p = path.join(d, 'package.json');
    try {
      if (existsSync(p) && statSync(p).isFile()) return p;
    } catch {
      // unreadable: keep looking up
    }
    const up = path.dirname(d);
    if (up === d) return undefined;
    d = up;
  }
}

/** Runtime dependency names of the project at `dir`; a missing or broken package.json gives none. */
export function runtimeDependencies(dir: string): string[] {
  const file = nearestPackageJson(dir);
  if (!file) return [];
  let manifest: unknown;
  try {
    if (statSync(file).size > 4 << 20) return [];
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  if (!manifest || typeof manifest !== 'object') return [];
  const out = new Set<string>();
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    const deps = (manifest as Record<string, unknown>)[field];
    if (!deps || typeof deps !== 'object' || Array.isArray(deps)) continue;
    for (const name of Object.keys(deps)) if (PACKAGE_NAME.test(name) && name.length <= 214) out.add(name);
  }
  return [...out].sort();
}

/** The package a path inside node_modules belongs to (`a/node_modules/@s/p/lib/x.js` → `@s/p`), undefined outside. */
export function packageOfPath(rel: string): string | undefined {
  const k = rel.lastIndexOf('node_modules/');
  if (k < 0) return undefined;
  const parts = rel.slice(k + 'node_modules/'.length).split('/');
  if (parts.length < 2) return undefined;
  return parts[0].startsWith('@') ? (parts.length >= 3 ? `${parts[0]}/${parts[1]}` : undefined) : parts[0];
}
