// Builds the esbuild bundles (CLI, and later language server, client, webviews)
// and, when a JDK is present, the Java recorder agent.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
  // ES modules first: jsonc-parser's UMD build (its "main") loads './impl/format' at run time, which a
  // bundle does not hold — the server and the CLI read tsconfig.json with it (recorder/node/jsTestCommand.ts)
  mainFields: ['module', 'main'],
};

const entries = [
  { in: 'server/src/cli/braid.ts', out: 'dist/braid.js' },
  // `braid mine` alone: bin/braid.js loads this small bundle for it (fast start, issue 14)
  { in: 'server/src/cli/mineMain.ts', out: 'dist/braid-mine.js' },
  { in: 'server/src/server.ts', out: 'dist/server.js', optional: true },
  { in: 'server/src/analysisWorker.ts', out: 'dist/analysisWorker.js', optional: true },
  { in: 'server/src/engine/summary/summaryWorker.ts', out: 'dist/summaryWorker.js' },
  // the reader thread of one big trace (trace/traceReaderThread.ts)
  { in: 'server/src/engine/trace/traceReaderWorker.ts', out: 'dist/traceReaderWorker.js' },
  // the Node.js recorder (docs/recorder-node.md): runs inside the user's process (NODE_OPTIONS=--import), ES modules
  { in: 'server/src/recorder/node/hook.ts', out: 'dist/braid-node-hook.mjs', format: 'esm' },
  { in: 'server/src/recorder/node/loader.ts', out: 'dist/braid-node-loader.mjs', format: 'esm' },
  // many runs of one JS/TS test in one process, each in a worker thread of its own (nodeRepetitions.ts)
  { in: 'server/src/recorder/node/nodeRepeatDriver.ts', out: 'dist/braid-node-repeat.cjs', format: 'cjs' },
];
for (const e of entries) {
  if (e.optional && !existsSync(path.join(root, e.in))) continue;
  await build({ ...common, entryPoints: [e.in], outfile: e.out, ...(e.format ? { format: e.format } : {}) });
}
if (existsSync(path.join(root, 'client/src/extension.ts'))) {
  await build({ ...common, entryPoints: ['client/src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] });
}

// Webviews (Tracer, UNICORN, GRIFFIN, bug graph) → dist/webview/
if (existsSync(path.join(root, 'scripts/build-webviews.mjs'))) {
  const { buildWebviews } = await import('./build-webviews.mjs');
  await buildWebviews({ production });
}

// Java agent (issue 4): built with javac when the build script exists.
const agentScript = path.join(root, 'scripts/build-agent.mjs');
if (existsSync(agentScript) && !process.argv.includes('--no-agent')) {
  const r = spawnSync(process.execPath, [agentScript], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
