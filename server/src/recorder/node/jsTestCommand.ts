/**
 * The command that runs ONE JavaScript/TypeScript test (or one describe block, or a whole test
 * file) found by jsTestDiscovery, so Braid can record many runs of just that test with the Node.js
 * recorder (chosen for `node`/`npx` commands, recorder/node/nodeRunner.ts). The runner is the one
 * the file imports (`node:test`, `vitest`, `@jest/globals`, `mocha`), else the one the nearest
 * package.json's `scripts.test` names, else the first of vitest, jest, mocha in its dependencies,
 * else node:test:
 *  - vitest: `npx --no -- vitest run <file> -t <pattern>`
 *  - jest:   `npx --no -- jest --runTestsByPath <file> -t <pattern>`
 *  - mocha:  `npx --no -- mocha [the test script's -r/-n loaders] <file> --grep <pattern>`; a
 *    TypeScript spec needs a loader there or in mocha's own configuration
 *  - node:test: `node [preloads] --test --test-name-pattern=<pattern> <file>`; the preloads are
 *    those of a plain `node … --test` in scripts.test (`--import X`, `--require X`), else for a
 *    TypeScript file the project's loader (typeScriptLoader): `--import tsx`, or ts-node as
 *    `--loader ts-node/esm` (ES modules) or `-r ts-node/register` (CommonJS).
 * `npx --no` never installs, and `--` keeps the runner's options from npx (npm 11 takes `-t` as its
 * own otherwise); a runner missing from node_modules is an error that says so, as is a TypeScript
 * file under node:test with no loader. The pattern is the test's name as a regular
 * expression with every special character escaped, passed as one argument (no shell).
 * Pure file-system inspection; nothing here runs a process.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import path from 'node:path';
import { JS_SOURCE, TS_SOURCE, testFileStem, type JsRunner } from './jsTestDiscovery';
import { TestCommandError, type TestPlan } from '../java/testCommand';
import { sanitizeName } from '../runs/recordOptions';

export interface JsTestTarget {
  /** the test file */
  file: string;
  /** the enclosing describe names and the test's own, outermost first; empty: the whole file */
  titles: string[];
  /** `titles` names a describe block: all its tests */
  suite?: boolean;
  /** the runner the file imports, when it names one (jsTestDiscovery.importedRunner) */
  runner?: JsRunner;
}

interface PackageJson {
  type?: unknown;
  /** mocha's configuration in package.json */
  mocha?: unknown;
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  peerDependencies?: Record<string, unknown>;
}

/** `s` as a regular expression matching exactly `s` (every special character escaped). */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The name pattern selecting the target in `runner`, or undefined for the whole file.
 * jest and mocha match the full name (the suites and the test joined by spaces): `^S T$`, a suite
 * `^S ` (its tests). vitest joins with a space (before vitest 5) or ` > `: both are accepted.
 * node:test (Node 20) matches each test's own name, and a suite's name selects its tests: `^T$`
 * (a test of the same name in another suite of the file runs too).
 */
export function namePattern(runner: JsRunner, titles: readonly string[], suite = false): string | undefined {
  if (!titles.length) return undefined;
  if (runner === 'node-test') return `^${escapeRegExp(titles[titles.length - 1])}$`;
  const sep = runner === 'vitest' ? '(?: | > )' : ' ';
  const full = titles.map(escapeRegExp).join(sep);
  return suite ? `^${full}${sep}` : `^${full}$`;
}

/** The folders holding a package.json from `file`'s folder up to `root` (inclusive), nearest first. */
function packageDirs(root: string, file: string): string[] {
  const top = path.resolve(root);
  let dir = path.resolve(path.dirname(file));
  if (path.relative(top, dir).startsWith('..')) dir = top;
  const out: string[] = [];
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) out.push(dir);
    if (dir === top) return out;
    const up = path.dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

function readPackage(dir: string): PackageJson {
  try {
    const v = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return v && typeof v === 'object' ? (v as PackageJson) : {};
  } catch {
    return {};
  }
}

/** Whether `pkg` is installed where Node resolves it from `dir`: node_modules/<pkg> in `dir` or a folder above. */
export function installedFrom(dir: string, pkg: string): boolean {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'node_modules', pkg, 'package.json'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** The runner a test script names (the first named: `vitest run`, `jest`, `mocha`, `node --test`), if any. */
export function runnerOfScript(script: string): JsRunner | undefined {
  const hits: [number, JsRunner][] = [];
  for (const [re, r] of [
    [/\bvitest\b/, 'vitest'],
    [/\bjest\b/, 'jest'],
    [/\bmocha\b/, 'mocha'],
    [/\bnode\b[^|&;]*\s--test\b/, 'node-test'],
  ] as const) {
    const m = re.exec(script);
    if (m) hits.push([m.index, r]);
  }
  return hits.sort((a, b) => a[0] - b[0])[0]?.[1];
}

/** The runner of a project: its scripts.test, else the first of vitest, jest, mocha among its dependencies (nearest package.json first). */
export function detectRunner(packages: readonly PackageJson[]): JsRunner {
  for (const p of packages) {
    const script = p.scripts?.test;
    const r = typeof script === 'string' ? runnerOfScript(script) : undefined;
    if (r) return r;
  }
  for (const p of packages) {
    const deps = { ...p.peerDependencies, ...p.dependencies, ...p.devDependencies };
    for (const r of ['vitest', 'jest', 'mocha'] as const) if (r in deps) return r;
  }
  return 'node-test';
}

/**
 * The preload options of a plain `node … --test …` test script (`--import X`, `--import=X`,
 * `--require X`, `-r X`, `--loader X`, `--experimental-loader X`): a project that runs its tests
 * through a loader or a setup file gets the same. None when the script is not one plain node command.
 */
export function scriptPreloads(script: string): string[] {
  if (/[|&;<>'"`$\\()]/.test(script)) return [];
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'node' || !words.includes('--test')) return [];
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    const eq = /^(--import|--require|--loader|--experimental-loader)=(.+)$/.exec(w);
    if (eq) out.push(w);
    else if (['--import', '--require', '-r', '--loader', '--experimental-loader'].includes(w) && words[i + 1]) out.push(w, words[++i]);
  }
  return out;
}

/** The package a bare module specifier names (`ts-node/esm` → `ts-node`, `@swc-node/register` → itself); undefined for a path, a URL or a builtin. */
export function barePackage(spec: string): string | undefined {
  if (/^(?:[./]|[a-z][\w+.-]*:)/i.test(spec) || path.isAbsolute(spec)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The preload options that run a TypeScript test file under node:test when the test script names
 * none: the loader the project's package.json files list (tsx, then ts-node), else the one installed
 * (tsx, then ts-node). tsx: `--import tsx`. ts-node: `--loader ts-node/esm` when the file is an ES
 * module for Node (`.mts`, or `.ts` in a `"type": "module"` package) or tsconfig.json asks ts-node for
 * ES modules (`"ts-node": { "esm": true }`), else `-r ts-node/register` (CommonJS). `rel` names the
 * file in the error when neither is installed.
 */
export function typeScriptLoader(cwd: string, packages: readonly PackageJson[], abs: string, rel: string): string[] {
  const listed = (pkg: string) => packages.some((p) => [p.dependencies, p.devDependencies, p.peerDependencies].some((d) => !!d && typeof d === 'object' && pkg in d));
  const loaders = ['tsx', 'ts-node'] as const;
  const loader = loaders.find((l) => listed(l) && installedFrom(cwd, l)) ?? loaders.find((l) => installedFrom(cwd, l));
  if (!loader) {
    const declared = loaders.find(listed);
    throw new TestCommandError(
      declared
        ? `cannot run the TypeScript test ${rel} with node:test: package.json lists ${declared}, but it is not installed in ${cwd} (no node_modules/${declared}; run npm install)`
        : `cannot run the TypeScript test ${rel} with node:test: tsx is not installed in ${cwd}, nor ts-node (npm install --save-dev tsx), ` +
            'and no `node --import <loader> --test` in the test script of package.json names another TypeScript loader.',
    );
  }
  if (loader === 'tsx') return ['--import', 'tsx'];
  return tsNodeEsm(cwd, packages, abs) ? ['--loader', 'ts-node/esm'] : ['-r', 'ts-node/register'];
}

/** Whether ts-node must load `abs` as an ES module: `.mts`, `.ts` in a "type": "module" package (not `.cts`), or tsconfig.json's `"ts-node": { "esm": true }`. */
function tsNodeEsm(cwd: string, packages: readonly PackageJson[], abs: string): boolean {
  if (/\.mts$/i.test(abs)) return true;
  if (/\.cts$/i.test(abs)) return false;
  if (packages[0]?.type === 'module') return true;
  let config: unknown;
  try {
    const errors: ParseError[] = [];
    config = parseJsonc(readFileSync(path.join(cwd, 'tsconfig.json'), 'utf8'), errors, { allowTrailingComma: true });
  } catch {
    return false;
  }
  const tsNode = config && typeof config === 'object' ? (config as { 'ts-node'?: { esm?: unknown } })['ts-node'] : undefined;
  return !!tsNode && typeof tsNode === 'object' && tsNode.esm === true;
}

/** mocha's configuration files (https://mochajs.org/#configuring-mocha-nodejs): the runner reads them itself. */
const MOCHA_CONFIG = ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.json', '.mocharc.jsonc', '.mocharc.yaml', '.mocharc.yml'];

/**
 * The loader options of a plain `mocha …` test script (`--require X`, `-r X`, `--require=X`,
 * `--node-option X`, `-n X`): the lens' mocha command gets the same, so `mocha -r ts-node/register`
 * in package.json still compiles the TypeScript spec. None when the script is not one plain mocha command.
 */
export function mochaScriptLoaders(script: string): string[] {
  if (/[|&;<>'"`$\\()]/.test(script)) return [];
  const words = script.trim().split(/\s+/);
  if (words[0] !== 'mocha') return [];
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (/^(--require|--node-option)=.+$/.test(w)) out.push(w);
    else if (['--require', '-r', '--node-option', '-n'].includes(w) && words[i + 1]) out.push(w, words[++i]);
  }
  return out;
}

/**
 * The options the lens' mocha command carries over from the test script (mochaScriptLoaders); a loader
 * they name from node_modules must be installed. A TypeScript spec with no loader there and no mocha
 * configuration (.mocharc.*, package.json's "mocha") cannot run: an error saying so, where and what to add.
 */
function mochaLoaders(cwd: string, packages: readonly PackageJson[], abs: string, rel: string): string[] {
  const script = packages.map((p) => p.scripts?.test).find((x): x is string => typeof x === 'string' && runnerOfScript(x) === 'mocha');
  const options = script ? mochaScriptLoaders(script) : [];
  for (let i = 0; i < options.length; i++) {
    const w = options[i];
    const value = w.includes('=') ? w.slice(w.indexOf('=') + 1) : options[++i];
    const spec = /^(--node-option|-n)\b/.test(w) ? /^(?:import|require|loader|experimental-loader)=(.+)$/.exec(value)?.[1] : value;
    const pkg = spec ? barePackage(spec) : undefined;
    if (pkg && !installedFrom(cwd, pkg)) {
      throw new TestCommandError(`cannot run the mocha test ${rel}: the test script of package.json loads ${spec}, but ${pkg} is not installed in ${cwd} (no node_modules/${pkg}; run npm install)`);
    }
  }
  if (TS_SOURCE.test(abs) && !options.length && !MOCHA_CONFIG.some((f) => existsSync(path.join(cwd, f))) && !packages[0]?.mocha) {
    throw new TestCommandError(
      `cannot run the TypeScript test ${rel} with mocha: no TypeScript loader is configured for mocha in ${cwd} ` +
        '(add one to .mocharc.json, e.g. "require": "ts-node/register" or "node-option": ["import=tsx"], or to the test script: mocha -r ts-node/register)',
    );
  }
  return options;
}

/** `file` relative to `cwd`, with forward slashes, never starting with `-`. */
function relativeArg(cwd: string, file: string): string {
  const rel = path.relative(cwd, file).split(path.sep).join('/');
  return rel.startsWith('-') ? `./${rel}` : rel;
}

const NPX_RUNNERS = { vitest: 'vitest', jest: 'jest', mocha: 'mocha' } as const;

/** The command that runs just `target` in the workspace folder `root`; throws TestCommandError saying what is missing. */
export function inferJsTestCommand(root: string, target: JsTestTarget): TestPlan {
  if (!JS_SOURCE.test(target.file)) throw new TestCommandError(`not a JavaScript or TypeScript file: ${target.file}`);
  const dirs = packageDirs(root, target.file);
  const cwd = dirs[0] ?? path.resolve(root);
  const packages = dirs.map(readPackage);
  const runner = target.runner ?? detectRunner(packages);
  const file = relativeArg(cwd, path.resolve(target.file));
  const pattern = namePattern(runner, target.titles, target.suite);
  const stem = testFileStem(target.file);
  // `inventory.two-orders-reserved`: the Runs view shows the file (client/src/runLabel.ts), the id names the test
  const words = (x: string) => x.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  const name = sanitizeName(target.titles.length ? `${words(stem) || 'test'}.${words(target.titles[target.titles.length - 1]) || 'test'}` : words(stem) || 'test');
  const plan = (command: string[]): TestPlan => ({ tool: runner, prepare: [], command, cwd, name, include: [] });
  if (runner !== 'node-test') {
    const bin = NPX_RUNNERS[runner];
    if (!installedFrom(cwd, bin)) {
      throw new TestCommandError(`cannot run the ${bin} test ${file}: ${bin} is not installed in ${cwd} (no node_modules/${bin}; run npm install). Braid does not download it.`);
    }
    // `--`: npx (npm 11) would otherwise take the runner's options (-t, --grep) as its own
    if (runner === 'vitest') return plan(['npx', '--no', '--', 'vitest', 'run', file, ...(pattern ? ['-t', pattern] : [])]);
    if (runner === 'jest') return plan(['npx', '--no', '--', 'jest', '--runTestsByPath', file, ...(pattern ? ['-t', pattern] : [])]);
    return plan(['npx', '--no', '--', 'mocha', ...mochaLoaders(cwd, packages, target.file, file), file, ...(pattern ? ['--grep', pattern] : [])]);
  }
  const script = packages.map((p) => p.scripts?.test).find((s): s is string => typeof s === 'string' && runnerOfScript(s) === 'node-test');
  let preloads = script ? scriptPreloads(script) : [];
  // a loader the script names from node_modules (`--import tsx`, `-r ts-node/register`) must be there
  const specs = preloads.flatMap((w, i) => (/^--[\w-]+=/.test(w) ? [w.replace(/^--[\w-]+=/, '')] : w.startsWith('-') ? [preloads[i + 1]] : []));
  for (const spec of specs) {
    const pkg = barePackage(spec);
    if (pkg && !installedFrom(cwd, pkg)) {
      throw new TestCommandError(`cannot run the test ${file}: the test script of package.json loads ${spec}, but ${pkg} is not installed in ${cwd} (no node_modules/${pkg}; run npm install)`);
    }
  }
  if (TS_SOURCE.test(target.file) && !preloads.length) preloads = typeScriptLoader(cwd, packages, target.file, file);
  return plan(['node', ...preloads, '--test', ...(pattern ? [`--test-name-pattern=${pattern}`] : []), file]);
}
