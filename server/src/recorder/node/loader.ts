/**
 * ESM loader hooks of Braid's Node.js recorder (registered by hook.ts with `module.register`; they
 * run on Node's loader thread): ES modules of the user's files are instrumented (transform.ts).
 * CommonJS files are left to the CommonJS hook in hook.ts. A TypeScript file is instrumented as
 * the user's loader (tsx, ts-node) hands it on: its CommonJS output in hook.ts, its ES-module output
 * (`"type": "module"`, `.mts`) here — the loader's hooks were registered first, so they run after these.
 */
import { fileURLToPath } from 'node:url';
import { fileMatcher, FileFilter, relativeName } from './match';
import { instrument } from './transform';

let filter: FileFilter = { root: process.cwd(), include: [], exclude: [] };
let matches = fileMatcher(filter);

export async function initialize(data: FileFilter | undefined): Promise<void> {
  if (data) {
    filter = data;
    matches = fileMatcher(filter);
  }
}

interface LoadResult {
  format?: string | null;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}

export async function load(url: string, context: { format?: string | null }, nextLoad: (url: string, context: unknown) => Promise<LoadResult>): Promise<LoadResult> {
  if (!url.startsWith('file:')) return nextLoad(url, context);
  // a TypeScript file comes back as JavaScript from the user's loader registered before these hooks
  // (tsx, ts-node/esm: `"type": "module"`, `.mts`), with an inline source map back to the .ts lines
  const r = await nextLoad(url, context);
  if (r.format !== 'module' || r.source == null) return r;
  const file = fileURLToPath(url);
  if (!matches(file)) return r;
  const text = typeof r.source === 'string' ? r.source : Buffer.from(r.source as Uint8Array).toString('utf8');
  try {
    return { ...r, source: instrument(text, { file: relativeName(filter.root, file), module: true }).code };
  } catch (e) {
    process.stderr.write(`Braid recorder: ${relativeName(filter.root, file)} is not instrumented: ${(e as Error).message}\n`);
    return r;
  }
}
