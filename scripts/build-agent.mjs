// Builds the Java recorder agent dist/braid-agent.jar (issue 4):
//   javac the agent sources against ASM from /usr/share/java (Debian libasm-java),
//   relocate ASM into dev.braid.shaded.asm (build tool server/java-agent/tools/.../Relocate.java),
//   and package everything with the agent manifest.
// Skips quickly when the jar is newer than every input. Options: --force (always rebuild).
// Environment: BRAID_ASM_DIR overrides /usr/share/java; JAVA_HOME selects the JDK.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const agentDir = path.join(root, 'server/java-agent');
const srcDir = path.join(agentDir, 'src');
const toolsDir = path.join(agentDir, 'tools');
const buildDir = path.join(agentDir, 'build');
const outJar = path.join(root, 'dist/braid-agent.jar');
const asmDir = process.env.BRAID_ASM_DIR || '/usr/share/java';
const asmJars = ['asm.jar', 'asm-commons.jar', 'asm-tree.jar'].map((j) => path.join(asmDir, j));
const force = process.argv.includes('--force');

function fail(message) {
  console.error(`build-agent: ${message}`);
  process.exit(1);
}

function tool(name) {
  const home = process.env.JAVA_HOME;
  if (home && existsSync(path.join(home, 'bin', name))) return path.join(home, 'bin', name);
  return name;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.error) fail(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.slice(0, 3).join(' ')} ... failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function listFiles(dir, ext, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) listFiles(p, ext, out);
    else if (p.endsWith(ext)) out.push(p);
  }
  return out;
}

// ---- prerequisites ----
for (const jar of asmJars) {
  if (!existsSync(jar)) {
    fail(`${jar} is missing. Install ASM (Debian/Ubuntu: sudo apt-get install libasm-java) or set BRAID_ASM_DIR to a folder with asm.jar, asm-commons.jar and asm-tree.jar.`);
  }
}
for (const t of ['javac', 'jar', 'java']) {
  const r = spawnSync(tool(t), ['-version'], { stdio: 'ignore' });
  if (r.error) fail(`'${t}' was not found (JDK 11 or newer is needed to build the Java agent). Install a JDK or set JAVA_HOME.`);
}

// ---- up to date? ----
const sources = listFiles(srcDir, '.java');
const tools = listFiles(toolsDir, '.java');
if (sources.length === 0) fail(`no Java sources under ${srcDir}`);
const inputs = [...sources, ...tools, ...asmJars, fileURLToPath(import.meta.url)];
if (!force && existsSync(outJar)) {
  const jarTime = statSync(outJar).mtimeMs;
  if (inputs.every((f) => statSync(f).mtimeMs < jarTime)) {
    console.log('build-agent: dist/braid-agent.jar is up to date');
    process.exit(0);
  }
}

// ---- compile, relocate, package ----
const started = Date.now();
rmSync(buildDir, { recursive: true, force: true });
const classesDir = path.join(buildDir, 'classes');
const toolClassesDir = path.join(buildDir, 'tools');
const relocatedDir = path.join(buildDir, 'relocated');
for (const d of [classesDir, toolClassesDir, relocatedDir, path.dirname(outJar)]) mkdirSync(d, { recursive: true });
const cp = asmJars.join(path.delimiter);

run(tool('javac'), ['--release', '11', '-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', classesDir, ...sources]);
run(tool('javac'), ['--release', '11', '-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', toolClassesDir, ...tools]);
run(tool('java'), ['-cp', [toolClassesDir, cp].join(path.delimiter), 'dev.braid.build.Relocate', relocatedDir, classesDir, ...asmJars]);

const manifest = path.join(buildDir, 'MANIFEST.MF');
writeFileSync(
  manifest,
  [
    'Manifest-Version: 1.0',
    'Premain-Class: dev.braid.agent.Premain',
    'Agent-Class: dev.braid.agent.Premain',
    'Can-Redefine-Classes: true',
    'Can-Retransform-Classes: true',
    'Implementation-Title: braid-java-agent',
    'Implementation-Version: 0.1.0',
    '',
  ].join('\n'),
);
rmSync(outJar, { force: true });
run(tool('jar'), ['cfm', outJar, manifest, '-C', relocatedDir, '.']);
console.log(`build-agent: built dist/braid-agent.jar (${Math.round(statSync(outJar).size / 1024)} KiB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
