/**
 * Which mocha commands run their runs as repetitions in one Node process (issue 42 item 5;
 * docs/recorder-node.md "Repetitions in one process", nodeRepetitions.ts): the lens' command for one
 * mocha test, `npx --no -- mocha <one spec file> --grep <pattern>` (also `mocha …`, `npx mocha …`).
 * Each repetition is a worker thread of the driver (nodeRepeatDriver.ts) that runs the spec with
 * mocha's programmatic API — a fresh `Mocha` (and a fresh copy of mocha itself: the worker's own
 * module graph), the spec required (CommonJS) or imported (an ES module), `run()`, the exit code
 * the failures' count as mocha's CLI sets it. What the programmatic API does not do as the CLI does
 * is refused, with the reason, and runs one process per run: a mocha configuration file
 * (`.mocharc.*`, package.json's `"mocha"`: only the CLI reads it), any other mocha option
 * (`--require`, `--node-option`, a reporter, …), several spec files, a TypeScript spec (its loader
 * comes through `--require` or the configuration). Pure inspection; nothing here runs a process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { JS_SOURCE_FILE } from '../../engine/jsSourceFile';

/** mocha's configuration files (https://mochajs.org/#configuring-mocha-nodejs), which mocha looks for from its working folder up. */
const MOCHA_CONFIG = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.json', '.mocharc.jsonc', '.mocharc.yaml', '.mocharc.yml'];

/** A mocha command that runs as repetitions: the spec file (absolute), the `--grep` pattern, mocha's main module. */
export interface MochaRepeatCommand {
  file: string;
  grep?: string;
  /** mocha's entry module as Node resolves `mocha` from the working folder */
  mocha: string;
}

const base = (p: string | undefined) => path.basename(p ?? '').replace(/\.(?:exe|cmd)$/i, '');

/** The mocha configuration mocha's CLI would read in `cwd` (a file from `cwd` up, or the nearest package.json's `"mocha"`), if any. */
export function mochaConfigOf(cwd: string): string | undefined {
  let pkgSeen = false;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    for (const f of MOCHA_CONFIG) if (existsSync(path.join(dir, f))) return path.join(dir, f);
    const pkg = path.join(dir, 'package.json');
    if (!pkgSeen && existsSync(pkg)) {
      pkgSeen = true;
      try {
        const v = JSON.parse(readFileSync(pkg, 'utf8')) as { mocha?: unknown } | null;
        if (v && typeof v === 'object' && v.mocha !== undefined) return `${pkg} ("mocha")`;
      } catch {
        // not JSON: mocha's CLI would fail on it too, as one process per run
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * `command` as a mocha command of repetitions in `cwd`; `{ because }` when it is a mocha command that
 * runs one process per run; undefined when it is not a mocha command.
 */
export function mochaRepeatCommandFor(command: readonly string[], cwd: string): MochaRepeatCommand | { because: string } | undefined {
  let i = 0;
  const program = base(command[0]);
  if (program === 'npx') {
    i = 1;
    for (; i < command.length && command[i].startsWith('-'); i++) {
      if (command[i] === '--') {
        i++;
        break;
      }
      if (command[i] !== '--no' && command[i] !== '--no-install') return base(command.find((w, k) => k > i && !w.startsWith('-'))) === 'mocha' ? { because: `the npx option ${command[i]}` } : undefined;
    }
    if (base(command[i]) !== 'mocha') return undefined;
    i++;
  } else if (program === 'mocha' || program === '_mocha') i = 1;
  else return undefined;
  let file: string | undefined;
  let grep: string | undefined;
  for (; i < command.length; i++) {
    const a = command[i];
    if (!a.startsWith('-')) {
      if (file !== undefined) return { because: 'the mocha command names more than one spec file' };
      file = a;
      continue;
    }
    if (a === '--grep' || a === '-g') {
      grep = command[++i];
      if (grep === undefined) return { because: `${a} has no value` };
    } else if (a.startsWith('--grep=')) grep = a.slice('--grep='.length);
    else return { because: `the mocha option ${a} (only one spec file and --grep are run in each repetition's thread, with mocha's programmatic API)` };
  }
  if (file === undefined) return { because: 'the mocha command names no spec file (its spec comes from its configuration)' };
  const config = mochaConfigOf(cwd);
  if (config) return { because: `mocha's configuration ${config} (read by mocha's CLI only, not by the programmatic API each repetition runs)` };
  const abs = path.resolve(cwd, file);
  if (!JS_SOURCE_FILE.test(abs) || !existsSync(abs)) return { because: `the spec file ${file} is not a JavaScript or TypeScript file there` };
  if (/\.[mc]?tsx?$/.test(abs)) return { because: `${file} is TypeScript: mocha loads it through a --require loader or its configuration, which only its CLI applies` };
  let mocha: string;
  try {
    mocha = createRequire(path.join(path.resolve(cwd), 'braid-mocha.js')).resolve('mocha');
  } catch {
    return { because: `mocha is not installed in ${cwd}` };
  }
  return { file: abs, ...(grep !== undefined ? { grep } : {}), mocha };
}
