// `npm run demo` (after `npm run build`): records 100 runs of a sample program with noise into
// .braid/demo/, then analyzes them with the CLI and prints the ranked patterns.
// Usage: node scripts/demo.mjs [--sample tablelog.TableLog] [--runs 100] [--open [--port 8080]]
// --open then starts code-server with the extension and the recorded sample (scripts/open-demo.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const k = args.indexOf(name);
  return k >= 0 && args[k + 1] ? args[k + 1] : fallback;
};
const sample = option('--sample', 'vectorcopy.VectorCopy');
const runs = option('--runs', '100');
const cli = path.join(root, 'dist', 'braid.js');
const demoDir = path.join(root, '.braid', 'demo');
const classes = path.join(demoDir, 'classes');
const traces = path.join(demoDir, 'traces');

function fail(message) {
  console.error(`demo: ${message}`);
  process.exit(1);
}
function run(cmd, cmdArgs, what) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (r.error) fail(`${what}: cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${what} failed (exit ${r.status})`);
}

if (!existsSync(cli)) fail('dist/braid.js is missing; run `npm run build` first');
if (!existsSync(path.join(root, 'dist', 'braid-agent.jar'))) fail('dist/braid-agent.jar is missing; run `npm run build` (needs a JDK)');

// Compile the sample programs.
const fixtures = path.join(root, 'test', 'fixtures', 'java');
const sources = [];
(function walk(d) {
  for (const n of readdirSync(d)) {
    const p = path.join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (n.endsWith('.java')) sources.push(p);
  }
})(fixtures);
rmSync(demoDir, { recursive: true, force: true });
mkdirSync(classes, { recursive: true });
run('javac', ['-g', '-d', classes, ...sources], 'compiling the sample programs');

const pkg = sample.split('.')[0];
const include = pkg === 'unsafelist' ? [pkg, 'java.util.ArrayList'] : [pkg];
console.log(`\n== Recording ${runs} runs of ${sample} with noise 0.1 ==`);
run(process.execPath, [cli, 'record', '--runs', runs, '--noise', '0.1', '--jobs', 'auto', '--seed', '1', '--include', ...include,
  '--out', traces, '--', 'java', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', classes, sample], 'braid record');

console.log(`\n== Analysis (braid analyze) ==`);
run(process.execPath, [cli, 'analyze', traces, '--top', '8'], 'braid analyze');

if (args.includes('--open')) {
  // a real VS Code in the browser (code-server) with the extension and this recording (docs/e2e.md)
  const { openDemo } = await import('./open-demo.mjs');
  await openDemo({ sample, traces, include, port: Number(option('--port', '0')) }).catch((e) => fail(`--open: ${e.message}`));
}
