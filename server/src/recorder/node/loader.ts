/**
 * ESM loader hooks of Braid's Node.js recorder (registered by hook.ts with `module.register`; they
 * run on Node's loader thread): ES modules of the user's files are instrumented (transform.ts).
 * CommonJS files are left to the CommonJS hook in hook.ts. A TypeScript file is instrumented as
 * the user's loader (tsx, ts-node) hands it on: its CommonJS output in hook.ts, its ES-module output
 * (`"type": "module"`, `.mts`) here — the loader's hooks were registered first, so they run after these.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileMatcher, FileFilter, relativeName } from './match';
import { instrument } from './transform';
import { instrumentBoundaries } from './boundaries';

let filter: FileFilter = { root: process.cwd(), include: [], exclude: [] };
let matches = fileMatcher(filter);
/** the main thread's entry script (a file: URL), when it has one */
let entry: string | undefined;
/** a forcing run: the files outside the include list get their awaits as suspension points (boundaries.ts) */
let boundaries = false;
/** Braid's own folder (the loader's): never given boundaries */
let own = '\0';

export async function initialize(data: (FileFilter & { entry?: string; boundaries?: string }) | undefined): Promise<void> {
  if (data) {
    filter = data;
    matches = fileMatcher(filter);
    entry = data.entry;
    boundaries = typeof data.boundaries === 'string';
    if (boundaries) own = data.boundaries!;
  }
}

/**
 * A CommonJS TypeScript entry script (`node -r ts-node/register app.ts`, `node --test` running a test
 * file so): Node runs the entry with its CommonJS loader, where the `-r` loader's require hook compiles
 * it — but with an `--import` (Braid's hook) it runs the entry with its ES-module loader, which knows
 * no `.ts`. The entry is handed back to the CommonJS loader (format commonjs, no source), as Node would
 * have loaded it without Braid; any other file keeps Node's error.
 */
const TS_EXTENSION = /\.(?:ts|cts|tsx)$/i;

interface LoadResult {
  format?: string | null;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}

export async function load(url: string, context: { format?: string | null }, nextLoad: (url: string, context: unknown) => Promise<LoadResult>): Promise<LoadResult> {
  if (!url.startsWith('file:')) return nextLoad(url, context);
  // a TypeScript file comes back as JavaScript from the user's loader registered before these hooks
  // (tsx, ts-node/esm: `"type": "module"`, `.mts`), with an inline source map back to the .ts lines
  let r: LoadResult;
  try {
    r = await nextLoad(url, context);
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_UNKNOWN_FILE_EXTENSION' && url === entry && TS_EXTENSION.test(new URL(url).pathname)) {
      return { format: 'commonjs', source: null, shortCircuit: true };
    }
    throw e;
  }
  if (r.format !== 'module' || r.source == null) return r;
  const file = fileURLToPath(url);
  if (!matches(file)) {
    if (!boundaries || file.startsWith(own + path.sep)) return r;
    try {
      const text = typeof r.source === 'string' ? r.source : Buffer.from(r.source as Uint8Array).toString('utf8');
      const b = instrumentBoundaries(text, { file: relativeName(filter.root, file, filter.workspace?.root), module: true });
      return b === undefined ? r : { ...r, source: b.code };
    } catch {
      return r;
    }
  }
  const text = typeof r.source === 'string' ? r.source : Buffer.from(r.source as Uint8Array).toString('utf8');
  try {
    return { ...r, source: instrument(text, { file: relativeName(filter.root, file, filter.workspace?.root), module: true }).code };
  } catch (e) {
    process.stderr.write(`Braid recorder: ${relativeName(filter.root, file, filter.workspace?.root)} is not instrumented: ${(e as Error).message}\n`);
    return r;
  }
}
