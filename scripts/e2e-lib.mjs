// Shared by the end-to-end test (test/e2e/) and `npm run demo -- --open`: finds (or installs)
// code-server, packages the extension into a VSIX without touching dist/, prepares a sample
// workspace with recorded traces, and starts/stops code-server on 127.0.0.1.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** JVM flags that make the many short runs start faster */
export const FAST_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
const INSTALLER = path.resolve(root, '..', 'shared', 'tools', 'install-code-server.sh');
const DEFAULT_BIN = path.join(os.homedir(), '.cache', 'code-server-e2e', 'node_modules', '.bin', 'code-server');

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) if (p && existsSync(p)) return p;
  return undefined;
}

/**
 * The code-server launcher: $BRAID_CODE_SERVER, the installer's default location, or (when
 * `install`) the result of ../shared/tools/install-code-server.sh. Returns { bin } or { reason }.
 */
export function findCodeServer({ install = true } = {}) {
  const env = process.env.BRAID_CODE_SERVER;
  if (env) return existsSync(env) ? { bin: env } : { reason: `BRAID_CODE_SERVER=${env} does not exist` };
  if (existsSync(DEFAULT_BIN) && readdirSync(path.dirname(path.dirname(path.dirname(DEFAULT_BIN)))).some((n) => n.startsWith('.complete-'))) return { bin: DEFAULT_BIN };
  if (!install) return { reason: `code-server is not installed (${DEFAULT_BIN})` };
  if (!existsSync(INSTALLER)) return { reason: `code-server is not installed and the installer ${INSTALLER} is missing` };
  const r = spawnSync('bash', [INSTALLER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60_000 });
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status === 0 && last && existsSync(last)) return { bin: last };
  return { reason: `installing code-server failed (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-5).join(' | ')}` };
}

/**
 * Packages the extension like `npm run package` (production bundles, webviews, agent jar, vsce
 * with the same flags), but in a staging folder, so dist/ (used by other tests) is not rewritten.
 */
export async function packageVsix(outFile, { stage = path.join(path.dirname(outFile), 'vsix-stage') } = {}) {
  const { build } = await import('esbuild');
  const { buildWebviews } = await import('./build-webviews.mjs');
  const agent = path.join(root, 'dist', 'braid-agent.jar');
  if (!existsSync(agent)) throw new Error('dist/braid-agent.jar is missing: run `npm run build` first (needs a JDK and libasm-java)');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'dist'), { recursive: true });
  mkdirSync(path.join(stage, 'docs'), { recursive: true });
  for (const f of ['package.json', '.vscodeignore']) cpSync(path.join(root, f), path.join(stage, f));
  cpSync(path.join(root, 'media'), path.join(stage, 'media'), { recursive: true });
  cpSync(path.join(root, 'docs', 'extension.md'), path.join(stage, 'docs', 'extension.md'));
  cpSync(agent, path.join(stage, 'dist', 'braid-agent.jar'));
  // the repeat launcher (scripts/build-agent.mjs builds it when the JUnit console launcher jar is installed)
  const launcher = path.join(root, 'dist', 'braid-launcher.jar');
  if (existsSync(launcher)) cpSync(launcher, path.join(stage, 'dist', 'braid-launcher.jar'));
  // ES modules first, as scripts/build.mjs: jsonc-parser's UMD build (the extension, the server and the CLI
  // import it) loads './impl/format' at run time, which a bundle does not hold
  const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: false, minify: true, logLevel: 'warning', absWorkingDir: root, mainFields: ['module', 'main'] };
  const entries = [
    ['server/src/cli/braid.ts', 'braid.js'],
    ['server/src/server.ts', 'server.js'],
    ['server/src/analysisWorker.ts', 'analysisWorker.js'],
    ['server/src/engine/summary/summaryWorker.ts', 'summaryWorker.js'],
    ['server/src/engine/trace/traceReaderWorker.ts', 'traceReaderWorker.js'],
    ['client/src/extension.ts', 'extension.js', ['vscode']],
    // the Node.js recorder's hook and loader (ES modules, loaded by the recorded node processes)
    ['server/src/recorder/node/hook.ts', 'braid-node-hook.mjs', [], 'esm'],
    ['server/src/recorder/node/loader.ts', 'braid-node-loader.mjs', [], 'esm'],
    ['server/src/recorder/node/nodeRepeatDriver.ts', 'braid-node-repeat.cjs', [], 'cjs'],
  ];
  await Promise.all(entries.map(([entry, out, external, format]) => build({ ...common, entryPoints: [entry], outfile: path.join(stage, 'dist', out), external: external ?? [], ...(format ? { format } : {}) })));
  await buildWebviews({ production: true, outdir: path.join(stage, 'dist', 'webview') });
  // every file the .vscodeignore lets through by exact name must exist (catches a bundle added to build.mjs but not here)
  for (const line of readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n')) {
    const m = /^!(\S+)$/.exec(line.trim());
    if (m && !/[*?{]/.test(m[1]) && !existsSync(path.join(stage, m[1]))) throw new Error(`packaging: ${m[1]} is missing from the staged extension`);
  }
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  rmSync(outFile, { force: true });
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--readme-path', 'docs/extension.md', '-o', outFile], { cwd: stage, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(outFile)) throw new Error(`vsce package failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return outFile;
}

/** Installs a VSIX into an extensions folder of code-server. */
export function installExtension(bin, vsix, extensionsDir, configFile) {
  const r = spawnSync(bin, ['--config', configFile, '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) throw new Error(`installing ${vsix} into code-server failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
}

function javaFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) javaFiles(p, out);
    else if (name.endsWith('.java')) out.push(p);
  }
  return out;
}

/** The command that runs the sample inside the workspace (what a user types into Record Runs). */
export function sampleCommand(main) {
  return ['java', ...FAST_JVM, '-cp', 'out', main];
}

/**
 * A workspace with one sample program (sources at the root, classes in out/) and traces recorded by
 * `braid record` (the CLI in dist/) in .braid/traces/<name>/; records again until some run failed.
 * Returns { dir, main, pkg, runs, failed, passed }.
 */
export function prepareWorkspace({ dir, sample = 'vectorcopy.VectorCopy', runs = 24, jobs = 4, noise = 0.1, include, recordSettings = {}, copyTraces, log = () => {} }) {
  const pkg = sample.split('.')[0];
  const cli = path.join(root, 'dist', 'braid.js');
  if (!existsSync(cli)) throw new Error('dist/braid.js is missing: run `npm run build` first');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(root, 'test', 'fixtures', 'java', pkg), path.join(dir, pkg), { recursive: true });
  const javac = spawnSync('javac', ['-g', '-d', path.join(dir, 'out'), ...javaFiles(path.join(dir, pkg))], { encoding: 'utf8' });
  if (javac.error) throw new Error(`javac not found: ${javac.error.message} (apt-get install default-jdk-headless)`);
  if (javac.status !== 0) throw new Error(`javac failed:\n${javac.stdout}${javac.stderr}`);
  mkdirSync(path.join(dir, '.vscode'), { recursive: true });
  writeFileSync(
    path.join(dir, '.vscode', 'settings.json'),
    JSON.stringify({ 'braid.record.include': include ?? [pkg], 'braid.record.runs': 10, 'braid.record.jobs': 2, 'braid.record.noise': noise, ...recordSettings }, null, 2) + '\n',
  );
  if (copyTraces) {
    // traces recorded elsewhere (npm run demo): copied as they are
    cpSync(copyTraces, path.join(dir, '.braid', 'traces', 'recorded'), { recursive: true });
    const outcomes = readdirSync(copyTraces)
      .filter((f) => f.endsWith('.trace.jsonl'))
      .map((f) => /"outcome":"(\w+)"/.exec(readFileSync(path.join(copyTraces, f), 'utf8').slice(-400))?.[1]);
    return { dir, main: sample, pkg, runs: outcomes.length, failed: outcomes.filter((o) => o === 'fail').length, passed: outcomes.filter((o) => o === 'pass').length };
  }
  let total = { runs: 0, failed: 0, passed: 0 };
  for (let attempt = 1; attempt <= 3 && total.failed === 0; attempt++) {
    const out = path.join(dir, '.braid', 'traces', attempt === 1 ? 'recorded' : `recorded-${attempt}`);
    log(`recording ${runs} runs of ${sample} into ${path.relative(dir, out)}`);
    const r = spawnSync(process.execPath, [cli, 'record', '--runs', String(runs), '--noise', String(noise), '--jobs', String(jobs), '--seed', String(attempt * 1000), '--include', ...(include ?? [pkg]), '--out', out, ...(attempt > 1 ? ['--name', `${sample}-${attempt}`] : []), '--', ...sampleCommand(sample)], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 5 * 60_000,
    });
    const text = `${r.stdout}${r.stderr}`;
    const m = /recorded (\d+) run\(s\) in [\d.]+ s: (\d+) passed, (\d+) failed/.exec(text);
    if (r.status !== 0 || !m) throw new Error(`braid record failed (exit ${r.status}):\n${text.slice(-3000)}`);
    total = { runs: total.runs + Number(m[1]), failed: total.failed + Number(m[3]), passed: total.passed + Number(m[2]) };
  }
  if (total.failed === 0) throw new Error(`no failing run in ${total.runs} recorded runs of ${sample}`);
  if (total.passed === 0) {
    const logFile = readdirSync(path.join(dir, '.braid', 'traces', 'recorded')).find((f) => f.endsWith('.log'));
    const text = logFile ? readFileSync(path.join(dir, '.braid', 'traces', 'recorded', logFile), 'utf8').slice(-2000) : '(no log)';
    throw new Error(`every one of the ${total.runs} recorded runs of ${sample} failed (is the recorder agent broken?); output of ${logFile}:\n${text}`);
  }
  return { dir, main: sample, pkg, ...total };
}

/** User settings that keep a fresh VS Code quiet and deterministic. */
export const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.ignoreRecommendations': true,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'update.mode': 'none',
  'git.enabled': false,
  'git.openRepositoryInParentFolders': 'never',
  'security.workspace.trust.startupPrompt': 'always',
  'editor.hover.delay': 300,
  'editor.minimap.enabled': false,
  'workbench.reduceMotion': 'on',
  'window.restoreWindows': 'none',
};

/**
 * Starts code-server (--auth none, a free port on 127.0.0.1, fresh user data) in its own process
 * group. Returns { url, folderUrl, pid, logFile, stop() }; stop() ends the whole group.
 */
export async function startCodeServer({ bin, folder, dataDir, extensionsDir, configFile, logFile, port = 0, userSettings = USER_SETTINGS, timeoutMs = 60_000 }) {
  mkdirSync(path.join(dataDir, 'User'), { recursive: true });
  writeFileSync(path.join(dataDir, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  if (!existsSync(configFile)) writeFileSync(configFile, 'auth: none\ncert: false\n');
  const args = ['--config', configFile, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', '--user-data-dir', dataDir, '--extensions-dir', extensionsDir, folder];
  const env = { ...process.env };
  // NODE_TEST_CONTEXT: set when a node:test file starts code-server; a recorded `node --test` would take itself for a child of that runner
  for (const k of Object.keys(env)) if (k.startsWith('VSCODE_') || k === 'JAVA_TOOL_OPTIONS' || k === 'NODE_OPTIONS' || k === 'NODE_TEST_CONTEXT') delete env[k];
  const child = spawn(bin, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
  const logStream = createWriteStream(logFile);
  let output = '';
  let exited = false;
  const onData = (d) => {
    output += d.toString();
    logStream.write(d);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => ((exited = true), resolve({ code, signal }))));
  const stop = async () => {
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }, 5000);
      await exit;
      clearTimeout(t);
    }
    // the extension host and language server share the group; make sure none is left
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* group empty */
    }
    await new Promise((r) => logStream.end(r));
  };
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start within ${timeoutMs} ms; log: ${logFile}\n${output.slice(-2000)}`)), timeoutMs);
    const check = () => {
      const m = /HTTP server listening on (http:\/\/[^\s/]+)\//.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exit.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (code ${code}, signal ${signal}) before listening; log: ${logFile}\n${output.slice(-2000)}`));
    });
  }).catch(async (e) => {
    await stop();
    throw e;
  });
  return { url, folderUrl: `${url}/?folder=${encodeURIComponent(folder)}`, pid: child.pid, logFile, stop, output: () => output };
}
