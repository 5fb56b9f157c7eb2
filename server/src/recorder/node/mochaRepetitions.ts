/**
 * Which mocha commands run their runs as repetitions in one Node process (issue 42 item 5;
 * docs/recorder-node.md "Repetitions in one process", nodeRepetitions.ts): `mocha …`, `npx [--no] --
 * mocha …` — the lens' command for one mocha test is `npx --no -- mocha [-r loader] <spec> --grep <pattern>`.
 * Each repetition is a worker thread of the driver (nodeRepeatDriver.ts) that runs mocha's own CLI
 * code in it (`lib/cli/cli.js`'s `main`, as mocha's bin does in its own process when no Node option
 * is given) with the options mocha's bin loads: the command's, `MOCHA_OPTIONS`, the configuration file
 * (`.mocharc.*`) and package.json's `"mocha"` — so `spec`, `require` (a TypeScript loader such as
 * `tsx/cjs` or `ts-node/register`, a setup file, root hooks), `timeout`, `ui`, `grep`, a reporter, …
 * apply in each repetition as in a mocha process, and each worker has its own copy of mocha and of
 * what it requires.
 *
 * The options are read by mocha's own loader, `lib/cli/options`'s `loadOptions` (public in mocha 10
 * and 11), and the spec files by its `lib/cli/collect-files`, in a Node process started in the
 * working folder with the recording's environment (a `.mocharc.js` is the user's code: it runs there,
 * as in a mocha process, not in Braid's), once per recording. What one repetition cannot honour is
 * refused, with the reason, and runs one process per run: Node options (mocha's bin starts a Node
 * process of its own for them: `--node-option`/`-n`, `--inspect`, `--enable-source-maps`, …),
 * `--parallel` (mocha's worker processes), `--watch`, and the options that print and exit (`--help`,
 * `--version`, `--list-*`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadsAsCommonJs } from './moduleFormat';

/** mocha's configuration files (https://mochajs.org/#configuring-mocha-nodejs), which mocha looks for from its working folder up. */
const MOCHA_CONFIG = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.json', '.mocharc.jsonc', '.mocharc.yaml', '.mocharc.yml'];

/** A mocha command that runs as repetitions. */
export interface MochaRepeatCommand {
  /** mocha's package folder, as Node resolves `mocha` from the working folder */
  dir: string;
  /** the options mocha's bin loaded (`loadOptions`: the command, MOCHA_OPTIONS, the configuration), which its CLI's main runs with */
  args: Record<string, unknown>;
  /** the spec files mocha runs (absolute), in its order */
  files: string[];
  /** every spec file is CommonJS for Node */
  commonJs: boolean;
  /** the configuration file mocha read, if any */
  config?: string;
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

/** mocha's arguments in `command` (after `mocha`, `npx [--no] -- mocha`); `{ because }` for an npx option; undefined: not a mocha command. */
export function mochaArgsOf(command: readonly string[]): string[] | { because: string } | undefined {
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
  return command.slice(i);
}

/** What the process in the working folder says (mochaOptionsScript). */
interface Loaded {
  opts?: Record<string, unknown>;
  nodeFlags?: string[];
  files?: string[];
  unmatched?: string[];
  error?: string;
}

/**
 * Run by `node -e` in the working folder: mocha's `loadOptions` on the command's arguments (as its
 * bin: MOCHA_OPTIONS, the configuration file, package.json's "mocha", its defaults), which of them are
 * Node options (its `isNodeFlag`), and the spec files its `collect-files` finds for them (the run
 * command's default spec `test` when none is named). Prints one JSON line.
 */
const mochaOptionsScript = String.raw`
const path = require('node:path');
const [dir, argv] = process.argv.slice(1);
const m = (f) => require(path.join(dir, 'lib', 'cli', f));
const out = {};
try {
  const opts = m('options.js').loadOptions(JSON.parse(argv));
  const { isNodeFlag } = m('node-flags.js');
  out.opts = opts;
  out.nodeFlags = Object.keys(opts).filter((k) => k !== '_' && isNodeFlag(k));
  const spec = Array.isArray(opts._) && opts._.length ? opts._.map(String) : ['test'];
  try {
    const c = m('collect-files.js')({ ignore: opts.ignore || [], extension: opts.extension || [], file: opts.file || [], recursive: !!opts.recursive, sort: !!opts.sort, spec });
    out.files = Array.isArray(c) ? c : c.files;
    out.unmatched = Array.isArray(c) ? [] : [...(c.unmatchedFiles || [])].map((u) => String(u.pattern || u.absolutePath || u));
  } catch (e) {
    out.unmatched = [String((e && e.message) || e)];
  }
} catch (e) {
  out.error = String((e && e.message) || e).split('\n')[0];
}
process.stdout.write(JSON.stringify(out) + '\n');
`;

/** mocha options that print something and exit (mocha's one-and-done options). */
const PRINTS_AND_EXITS = ['help', 'h', 'version', 'V', 'list-interfaces', 'list-reporters'];

/**
 * mocha's options for `args` in `cwd` as its bin loads them, read in a Node process there (`node`
 * from PATH, `env` the recording's), and the spec files they name.
 */
function loadMochaOptions(node: string, dir: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Loaded> {
  return new Promise((resolve) => {
    execFile(node, ['-e', mochaOptionsScript, dir, JSON.stringify(args)], { cwd, env, timeout: 60_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as Loaded);
      } catch {
        resolve({ error: (stderr.trim().split('\n').find((l) => /\S/.test(l)) ?? error?.message ?? 'no output').slice(0, 300) });
      }
    });
  });
}

/**
 * `command` as a mocha command of repetitions in `cwd`; `{ because }` when it is a mocha command that
 * runs one process per run; undefined when it is not a mocha command. `env`: the recording's
 * environment (MOCHA_OPTIONS).
 */
export async function mochaRepeatCommandFor(command: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<MochaRepeatCommand | { because: string } | undefined> {
  const args = mochaArgsOf(command);
  if (!args || !Array.isArray(args)) return args;
  let dir: string;
  try {
    dir = path.dirname(createRequire(path.join(path.resolve(cwd), 'braid-mocha.js')).resolve('mocha/package.json'));
  } catch {
    return { because: `mocha is not installed in ${cwd}` };
  }
  const loaded = await loadMochaOptions('node', dir, args, cwd, env);
  if (loaded.error !== undefined || !loaded.opts) return { because: `mocha's options cannot be read in one process: ${loaded.error ?? 'no answer'}` };
  const opts = loaded.opts;
  const said = PRINTS_AND_EXITS.filter((k) => k in opts);
  if (said.length) return { because: `the mocha option --${said[0]} prints and exits` };
  const node = [...(loaded.nodeFlags ?? []), ...(opts['node-option'] !== undefined ? ['node-option'] : []), ...((opts._ as unknown[] | undefined)?.includes('inspect') ? ['inspect'] : [])];
  if (node.length) return { because: `the Node option${node.length > 1 ? 's' : ''} ${node.map((k) => `--${k}`).join(', ')} (mocha starts a Node process of its own for ${node.length > 1 ? 'them' : 'it'}; a repetition is a thread of one process)` };
  if (opts.parallel === true) return { because: 'mocha --parallel runs the spec files in worker processes of its own' };
  if (opts.watch === true) return { because: 'mocha --watch reruns the tests when files change' };
  if (loaded.unmatched?.length) return { because: `mocha finds no spec file for ${loaded.unmatched.join(', ')}` };
  const files = loaded.files ?? [];
  if (!files.length) return { because: 'mocha finds no spec file' };
  return { dir, args: opts, files, commonJs: files.every(loadsAsCommonJs), ...(mochaConfigOf(cwd) ? { config: mochaConfigOf(cwd) } : {}) };
}
