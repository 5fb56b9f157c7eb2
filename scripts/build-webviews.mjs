// Bundles the webviews: webview/src/<view>/main.ts → dist/webview/<view>.js (+ <view>.css).
// Usage: node scripts/build-webviews.mjs [--production] [--outdir DIR]
// Also importable: `import { buildWebviews } from './build-webviews.mjs'`.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const VIEWS = ['tracer', 'unicorn', 'griffin', 'bugGraph', 'explanations', 'methods'];

export async function buildWebviews({ production = false, outdir = path.join(root, 'dist/webview'), views = VIEWS } = {}) {
  const entryPoints = views
    .filter((v) => existsSync(path.join(root, 'webview/src', v, 'main.ts')))
    .map((v) => ({ in: path.join(root, 'webview/src', v, 'main.ts'), out: v }));
  const result = await build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome114'],
    sourcemap: production ? false : 'linked',
    minify: production,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: root,
    metafile: true,
    loader: { '.css': 'css' },
  });
  return { outdir, outputs: Object.keys(result.metafile.outputs) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--outdir');
  const r = await buildWebviews({ production: args.includes('--production'), ...(i >= 0 ? { outdir: path.resolve(args[i + 1]) } : {}) });
  console.log(`webviews → ${path.relative(root, r.outdir) || r.outdir}: ${r.outputs.filter((o) => !o.endsWith('.map')).map((o) => path.basename(o)).join(', ')}`);
}
