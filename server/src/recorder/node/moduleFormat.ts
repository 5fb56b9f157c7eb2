/**
 * Whether Node loads a JS/TS file as CommonJS or as an ES module, as its file name and nearest
 * package.json say (https://nodejs.org/api/packages.html#determining-module-system) — what the
 * repetitions of one process need to know before they load it (nodeRepetitions.ts, mochaRepetitions.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Whether Node loads `file` as CommonJS: `.cjs`/`.cts`, or `.js`/`.ts`/`.jsx`/`.tsx` whose nearest package.json is not `"type": "module"`. */
export function loadsAsCommonJs(file: string): boolean {
  if (/\.c[jt]s$/.test(file)) return true;
  if (/\.m[jt]s$/.test(file)) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type !== 'module';
      } catch {
        return true;
      }
    }
    if (path.dirname(dir) === dir) return true;
  }
}
