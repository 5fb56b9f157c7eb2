/**
 * The runner's side of the Node.js recorder (docs/recorder-node.md): which commands it records,
 * where its hook is, and the options and environment a run gets. Used by recordRuns.ts/runOnce.ts;
 * the hook itself (hook.ts, runtime.ts, transform.ts) is a bundle of its own that runs inside the
 * user's process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { NoisePlan } from '../../engine/noise/noisePlan';
import { pathToFileURL } from 'node:url';
import type { NodeRecorderOptions } from './runtime';
import { JS_SOURCE_FILE } from '../../engine/jsSourceFile';
import { runtimeDependencies } from './runtimeDependencies';
import { npmWorkspace, type NpmWorkspace } from './workspacePackages';

/** Programs that run JavaScript on Node.js: `node`, package managers and test runners. */
const NODE_TOOLS = new Set(['node', 'nodejs', 'npm', 'npx', 'pnpm', 'yarn', 'tsx', 'ts-node', 'mocha', 'jest', 'vitest', 'ava', 'tap']);

/**
 * The recorder a command gets (the rule of docs/recorder-node.md): `node` when the program is
 * Node.js or a Node tool (node, npm, npx, pnpm, yarn, tsx, ts-node, mocha, jest, vitest, ava,
 * tap) or a JS/TS file run directly, or when every include glob names JS/TS files (`src/**\/*.js`);
 * otherwise `java`.
 */
export function recorderFor(command: readonly string[], include: readonly string[]): 'node' | 'java' {
  const program = path.basename(command[0] ?? '').replace(/\.(exe|cmd|bat)$/i, '');
  if (NODE_TOOLS.has(program) || JS_SOURCE_FILE.test(program)) return 'node';
  if (include.length > 0 && include.every((g) => JS_SOURCE_FILE.test(g))) return 'node';
  return 'java';
}

/**
 * The recorder of runs that Braid starts itself (Confirm by Forcing, Check the Fix: their RecordOptions):
 * the given one, else the rule of `braid record` (recorderFor). A JS/TS command's forced runs need the
 * Node.js recorder, which runs the plan's force section in the process (forcing.ts).
 */
export function runsRecorder(o: { recorder?: 'java' | 'node'; command: readonly string[]; include: readonly string[] }): { recorder?: 'node' } {
  return (o.recorder ?? recorderFor(o.command, o.include)) === 'node' ? { recorder: 'node' } : {};
}

/** Name of a Node command's executions: the script (`node app.js` → `app`) or the tool and its first word (`npm-test`). */
export function deriveNodeName(command: readonly string[]): string {
  const program = path.basename(command[0] ?? 'node').replace(/\.(exe|cmd|bat)$/i, '');
  if (program === 'node' || program === 'nodejs' || program === 'tsx' || program === 'ts-node') {
    const withValue = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-e', '--eval', '--test-reporter', '--test-name-pattern', '--conditions', '-C']);
    for (let i = 1; i < command.length; i++) {
      const a = command[i];
      if (withValue.has(a)) {
        i++;
        continue;
      }
      if (a === '--test') return 'node-test';
      if (a.startsWith('-')) continue;
      return path.basename(a).replace(JS_SOURCE_FILE, '');
    }
    return program;
  }
  if (JS_SOURCE_FILE.test(program)) return program.replace(JS_SOURCE_FILE, '');
  const word = command.slice(1).find((a) => !a.startsWith('-'));
  return word ? `${program}-${path.basename(word).replace(JS_SOURCE_FILE, '')}` : program;
}

export function nodeHookCandidates(): string[] {
  const list: string[] = [];
  if (process.env.BRAID_NODE_HOOK) list.push(process.env.BRAID_NODE_HOOK);
  list.push(path.join(__dirname, 'braid-node-hook.mjs'));
  // server/src/recorder/node → repository root
  list.push(path.resolve(__dirname, '..', '..', '..', '..', 'dist', 'braid-node-hook.mjs'));
  return list;
}

/** The hook bundle (dist/braid-node-hook.mjs, next to its loader). */
export function findNodeHook(): string {
  const candidates = nodeHookCandidates();
  for (const c of candidates) if (existsSync(c)) return path.resolve(c);
  throw new Error(`the Braid Node.js recorder (braid-node-hook.mjs) was not found; looked in:\n  ${candidates.join('\n  ')}\nBuild it with \`npm run build\`.`);
}

/** The file in a forced group's trace folder where its runs learn the boundaries before the plan's accesses (forcing.ts). */
export const FORCE_LEARN_FILE = 'node-boundaries.learned';

/**
 * Where a forced run learns: in the confirmation's folder when the plan and the traces are in it
 * (`<confirmation>/plans/x.json`, `<confirmation>/<group>/…`: every group of the confirmation, and its
 * `-more` runs, share what they learned), else in the traces' folder (`braid record --plan`).
 */
export function forceLearnFile(trace: string, planFile: string | undefined): string {
  const traces = path.dirname(path.resolve(trace));
  if (planFile !== undefined) {
    const plans = path.dirname(path.resolve(planFile));
    if (path.basename(plans) === 'plans' && path.dirname(plans) === path.dirname(traces)) return path.join(path.dirname(plans), FORCE_LEARN_FILE);
  }
  return path.join(traces, FORCE_LEARN_FILE);
}

/** The hook's options for one run (written to the file BRAID_NODE_OPTIONS names). */
export function nodeRecorderOptions(
  hook: string,
  run: { out: string; execution: string; seed: string },
  o: { noise: number; noiseAt?: 'accesses' | 'sync' | 'all'; include: string[]; exclude: string[]; cwd: string; name: string; record?: boolean; plan?: { plan: NoisePlan; file?: string }; pointsFile?: string; pct?: { depth: number; steps: number } },
): NodeRecorderOptions {
  // a hold before a lock acquisition (noisePlan.ts ForceWait.beforeLock) is a Java agent's: JavaScript has no locks to hold before
  const locked = o.plan?.plan.force?.waits.findIndex((w) => w.beforeLock !== undefined) ?? -1;
  if (locked >= 0) throw new Error(`the plan's force.waits[${locked}].beforeLock (a hold before a lock acquisition) is for the Java agent only: the Node.js recorder has no lock to hold the task before`);
  return {
    loader: path.join(path.dirname(hook), 'braid-node-loader.mjs'),
    out: run.out,
    execution: run.execution,
    noise: o.noise,
    // --noise-at all: wide noise (runtime.ts); the repetitions' driver gets it with each run instead
    ...(o.noiseAt === 'all' ? { noiseAt: 'all' as const } : {}),
    seed: run.seed,
    include: o.include,
    exclude: o.exclude,
    // without include globs, the project's runtime dependencies are recorded too (issue 38)
    ...(o.include.length === 0 ? { packages: runtimeDependencies(o.cwd) } : {}),
    // and the packages of the npm workspace the working folder is in (a monorepo's packages/b, imported through a symlink)
    ...workspaceOption(o.include, o.cwd),
    root: o.cwd,
    program: o.name,
    ...(o.record === false ? { record: false } : {}),
    ...(o.plan ? { plan: { noise: o.plan.plan.noise, points: o.plan.plan.points.map((p) => ({ id: p.id, probability: p.probability, ...(p.noise ? { noise: p.noise } : {}), ...(p.threads ? { threads: p.threads } : {}) })) } } : {}),
    // a forcing plan (braid confirm, Check the Fix): the waits run in the process (forcing.ts)
    ...(o.plan?.plan.force ? { force: o.plan.plan.force } : {}),
    // its runs learn where each access of the plan was last holdable (forcing.ts "boundaries")
    ...(o.plan?.plan.force && run.out ? { forceLearn: forceLearnFile(run.out, o.plan.file) } : {}),
    // and the awaits of the files outside the include list are suspension points of forcing (boundaries.ts), unless BRAID_NODE_FORCE_OUTSIDE=0
    ...(o.plan?.plan.force && process.env.BRAID_NODE_FORCE_OUTSIDE === '0' ? { forceOutside: false } : {}),
    // and a learned place holds at the passes (its 1st, 2nd, … in a run) the access followed, unless BRAID_NODE_LEARN_PASS=0
    ...(o.plan?.plan.force && process.env.BRAID_NODE_LEARN_PASS === '0' ? { forceByPass: false } : {}),
    // and another task's access meets a wait only when it does not happen before the held point, unless BRAID_NODE_FORCE_HB=0
    ...(o.plan?.plan.force && process.env.BRAID_NODE_FORCE_HB === '0' ? { forceHb: false } : {}),
    ...(o.pointsFile ? { points: o.pointsFile } : {}),
    // --noise-mode pct: PCT for the event loop (runtime.ts, docs/noise.md)
    ...(o.pct && !o.plan ? { pct: o.pct } : {}),
    ...workerTraceCap(),
  };
}

function workspaceOption(include: string[], cwd: string): { workspace?: NpmWorkspace } {
  if (include.length) return {};
  const w = npmWorkspace(cwd);
  return w && w.packages.length ? { workspace: w } : {};
}

/**
 * `BRAID_NODE_WORKER_TRACE_BYTES`: the cap of a worker thread's trace (docs/recorder-node.md,
 * "Limits"; default MAX_WORKER_TRACE_BYTES, 256 MiB). Throws when it is not a whole number of bytes.
 */
function workerTraceCap(env: NodeJS.ProcessEnv = process.env): { maxWorkerTraceBytes?: number } {
  const v = env.BRAID_NODE_WORKER_TRACE_BYTES;
  if (v === undefined || v === '') return {};
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new Error(`BRAID_NODE_WORKER_TRACE_BYTES must be a whole number of bytes (the cap of a worker thread's trace), not ${JSON.stringify(v.slice(0, 40))}`);
  return { maxWorkerTraceBytes: n };
}

/**
 * `node --import tsx app.ts`: a loader given on node's command line registers after Braid's hook
 * (NODE_OPTIONS is read first), and the loader registered last runs first — Braid's would see the
 * loader's input (TypeScript) instead of its output. The preload options before the script
 * (`--import`, `--require`/`-r`, `--loader`, `--experimental-loader`) move into NODE_OPTIONS, ahead of
 * the hook, in their order; a value with white space or quotes stays where it is.
 */
export function movePreloadsToNodeOptions(command: readonly string[]): { command: string[]; preload: string[] } {
  const program = path.basename(command[0] ?? '').replace(/\.(exe)$/i, '');
  if (program !== 'node' && program !== 'nodejs') return { command: [...command], preload: [] };
  const out = [command[0]];
  const preload: string[] = [];
  for (let i = 1; i < command.length; i++) {
    const a = command[i];
    if (!a.startsWith('-')) {
      // the script (or an option's value): what follows is the program's
      out.push(...command.slice(i));
      break;
    }
    const m = /^(--import|--require|-r|--loader|--experimental-loader)(?:=(.*))?$/.exec(a);
    if (!m) {
      out.push(a);
      continue;
    }
    const inline = m[2] !== undefined;
    const value = inline ? m[2] : command[i + 1];
    if (!inline) i++;
    if (value !== undefined && /^[^\s"'\\]+$/.test(value)) preload.push(`${m[1] === '-r' ? '--require' : m[1]}=${value}`);
    else out.push(...(inline || value === undefined ? [a] : [a, value]));
  }
  return { command: out, preload };
}

/** NODE_OPTIONS with Braid's hook added to what the environment had. */
export function nodeOptionsWithHook(hook: string, inherited: string | undefined): string {
  // a file URL has no spaces or quotes: no quoting needed in NODE_OPTIONS
  return [inherited, `--import=${pathToFileURL(hook).href}`].filter(Boolean).join(' ');
}
