/**
 * Entry of Braid's Node.js recorder, loaded into the user's process with
 * `NODE_OPTIONS=--import <dist/braid-node-hook.mjs>` by `braid record` (docs/recorder-node.md).
 * Reads the options file named by BRAID_NODE_OPTIONS, installs the runtime (`globalThis.__braid`),
 * instruments CommonJS files (`Module.prototype._compile`) and ES modules (loader hooks,
 * `module.register`), jitters timers, and reports uncaught exceptions and non-zero exits as
 * failures. Bundled on its own (scripts/build.mjs): it never loads the server bundle.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
import { BraidRuntime, NodeRecorderOptions } from './runtime';
import { fileMatcher, relativeName } from './match';
import { instrument } from './transform';

function start(): void {
  const file = process.env.BRAID_NODE_OPTIONS;
  const g = globalThis as unknown as { __braid?: BraidRuntime };
  if (!file || !isMainThread || g.__braid) return;
  let o: NodeRecorderOptions;
  try {
    o = JSON.parse(readFileSync(file, 'utf8')) as NodeRecorderOptions;
  } catch (e) {
    process.stderr.write(`Braid recorder: cannot read its options ${file}: ${(e as Error).message}\n`);
    return;
  }
  const rt = new BraidRuntime(o);
  g.__braid = rt;
  const filter = { root: o.root, include: o.include, exclude: o.exclude };
  const matches = fileMatcher(filter);

  // CommonJS: the source of every user file required
  const Module = createRequire(path.join(o.root, 'braid-hook.js'))('node:module') as { prototype: { _compile(content: string, filename: string): unknown } };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content: string, filename: string) {
    if (typeof content === 'string' && matches(filename)) {
      try {
        content = instrument(content, { file: relativeName(o.root, filename), module: false }).code;
      } catch (e) {
        process.stderr.write(`Braid recorder: ${relativeName(o.root, filename)} is not instrumented: ${(e as Error).message}\n`);
      }
    }
    return compile.call(this, content, filename);
  };
  // ES modules: loader hooks on the loader thread
  try {
    register(pathToFileURL(o.loader ?? path.join(path.dirname(process.env.BRAID_NODE_HOOK ?? ''), 'braid-node-loader.mjs')).href, { data: filter });
  } catch (e) {
    process.stderr.write(`Braid recorder: ES modules are not instrumented: ${(e as Error).message}\n`);
  }

  // timer jitter (noise): a timer fires up to 3 ms late with probability p
  if (o.noise > 0) {
    const original = globalThis.setTimeout;
    const jittered = function (this: unknown, cb: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) {
      const j = rt.jitter();
      return (original as (...a: unknown[]) => unknown).call(this, cb, j ? (Number(ms) || 0) + j : ms, ...args);
    };
    Object.defineProperties(jittered, Object.getOwnPropertyDescriptors(original));
    globalThis.setTimeout = jittered as unknown as typeof setTimeout;
  }

  if (rt.recording) rt.installHooks();
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const e = err as { name?: string; message?: string } | undefined;
    rt.failure('uncaught', `${origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception'}: ${e?.name ?? 'Error'}: ${e?.message ?? String(err)}`, err);
  });
  process.on('exit', (code) => {
    if (code !== 0) rt.failure('exit', `exit code ${code}`);
    rt.close();
  });
  process.once('SIGTERM', () => {
    rt.close();
    process.kill(process.pid, 'SIGTERM');
  });
}

start();
