// Runs every test/**/*.test.ts with node's built-in test runner (TypeScript via tsx).
// Usage: node scripts/test.mjs [substring...]   (only the test files whose path contains one)
//
// Shared build outputs are made once here, before the test processes start, so no two test
// processes (--test-concurrency=2) rebuild a folder the other is reading:
//   - the Java agent (dist/braid-agent.jar) and the Java fixtures' classes, for the recorder,
//     mining-Java and e2e tests → BRAID_TEST_CLASSES;
//   - the webview bundles, for the webview tests → BRAID_TEST_WEBVIEW_BUNDLES.
// A test file run on its own (node --import tsx --test file) builds into a per-process temp dir.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
function walk(dir, out, ext = '.test.ts') {
  for (const name of readdirSync(dir)) {
    if (name === 'fixtures' || name === 'node_modules') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out, ext);
    else if (name.endsWith(ext)) out.push(path.relative(root, p));
  }
  return out;
}
let files = walk(path.join(root, 'test'), []).sort();
if (only.length) files = files.filter((f) => only.some((o) => f.includes(o)));

function fail(message) {
  console.error(`test: ${message}`);
  process.exit(1);
}

const env = { ...process.env };

// Java: agent jar + fixture classes (compiled to a temp dir, then moved into place)
// the test files that record Java programs: they use the recorder harness
const usesJava = (f) => f.startsWith(path.join('test', 'recorder')) || f.startsWith(path.join('test', 'e2e')) || readFileSync(path.join(root, f), 'utf8').includes('recorderHarness');
if (files.some(usesJava)) {
  const agent = spawnSync(process.execPath, [path.join(root, 'scripts/build-agent.mjs')], { cwd: root, stdio: 'inherit' });
  if (agent.status !== 0) fail('building the Java agent failed (needs a JDK and the Debian package libasm-java)');
  const fixtures = path.join(root, 'test/fixtures/java');
  const sources = [];
  (function javaFiles(dir) {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) javaFiles(p);
      else if (name.endsWith('.java')) sources.push(p);
    }
  })(fixtures);
  const classes = path.join(root, 'test-output/recorder/classes');
  const tmp = `${classes}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const javac = spawnSync('javac', ['-g', '-d', tmp, ...sources], { encoding: 'utf8' });
  if (javac.error) fail(`javac not found (install a JDK, e.g. the Debian package default-jdk-headless): ${javac.error.message}`);
  if (javac.status !== 0) fail(`javac of test/fixtures/java failed:\n${javac.stdout}${javac.stderr}`);
  rmSync(classes, { recursive: true, force: true });
  renameSync(tmp, classes);
  env.BRAID_TEST_CLASSES = classes;
}

// Webview bundles
if (files.some((f) => f.startsWith(path.join('test', 'webview')))) {
  const { buildWebviews } = await import(pathToFileURL(path.join(root, 'scripts/build-webviews.mjs')).href);
  const outdir = path.join(root, 'test-output/webview/dist');
  rmSync(outdir, { recursive: true, force: true });
  await buildWebviews({ outdir });
  env.BRAID_TEST_WEBVIEW_BUNDLES = outdir;
}

if (!existsSync(path.join(root, 'dist/braid.js')) && files.some((f) => f.includes('cli.test')))
  fail('dist/braid.js is missing: run `npm run build` first (npm test does)');

const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  cwd: root,
  env,
});
process.exit(r.status ?? 1);
