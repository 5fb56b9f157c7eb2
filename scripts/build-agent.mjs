// Builds the Java recorder agent dist/braid-agent.jar (issues 4, 12). Two ways, chosen automatically:
//   1. Debian's ASM (libasm-java: asm.jar, asm-commons.jar, asm-tree.jar in /usr/share/java) when
//      present: javac against it, relocate ASM into dev.braid.shaded.asm (build tool
//      server/java-agent/tools/.../Relocate.java) and ship it inside the jar;
//   2. otherwise the ASM copy inside the JDK (JDK 17–23 carry it in java.base as
//      jdk.internal.org.objectweb.asm): the sources are compiled against it with --add-exports
//      (their org.objectweb.asm imports rewritten), nothing is shipped, and the agent exports those
//      packages to itself at start-up (Instrumentation.redefineModule, see Premain).
// So a machine with only Node 20 and a JDK builds the agent.
// String concatenation is compiled to StringBuilder calls (-XDstringConcat=inline): the default
// invokedynamic form costs tens of milliseconds of start-up at its first use in every recorded JVM.
// Also builds dist/braid-launcher.jar (server/java-agent/launcher: Braid's RepeatLauncher, many runs of a
// JUnit test in one JVM, docs/recorder.md) against the JUnit console launcher's jar
// (junit-platform-console-standalone.jar in /usr/share/java, or the file BRAID_JUNIT_CONSOLE names),
// which is not bundled: it is on the test's class path at run time. Without that jar the launcher is
// not built and `braid test` keeps one JVM per run.
// Skips quickly when the jar is newer than every input. Options: --force (always rebuild).
// Environment: BRAID_ASM_DIR overrides /usr/share/java (an empty folder hides Debian's ASM, which
// selects way 2); JAVA_HOME selects the JDK.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
const launcherSrcDir = path.join(agentDir, 'launcher');
const launcherJar = path.join(root, 'dist/braid-launcher.jar');
const junitConsole = process.env.BRAID_JUNIT_CONSOLE || '/usr/share/java/junit-platform-console-standalone.jar';

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
for (const t of ['javac', 'jar', 'java', 'javap']) {
  const r = spawnSync(tool(t), ['-version'], { stdio: 'ignore' });
  if (r.error) fail(`'${t}' was not found (JDK 11 or newer is needed to build the Java agent). Install a JDK or set JAVA_HOME.`);
}
const JDK_ASM = 'jdk.internal.org.objectweb.asm';
const JDK_ASM_PACKAGES = [JDK_ASM, `${JDK_ASM}.commons`];
/** Methods of the JDK's ClassVisitor, or null when the JDK has no internal ASM (JDK 24+). */
function jdkClassVisitorMethods() {
  const r = spawnSync(tool('javap'), [`${JDK_ASM}.ClassVisitor`, `${JDK_ASM}.commons.AdviceAdapter`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}
const debianAsm = asmJars.every((j) => existsSync(j));
let jdkMethods = null;
if (!debianAsm) {
  jdkMethods = jdkClassVisitorMethods();
  if (jdkMethods === null) {
    fail(`ASM was not found: ${asmJars.filter((j) => !existsSync(j)).join(', ')} missing, and this JDK has no internal ASM (${JDK_ASM}, JDK 17–23 have it). ` +
      'Install ASM (Debian/Ubuntu: sudo apt-get install libasm-java), set BRAID_ASM_DIR to a folder with asm.jar, asm-commons.jar and asm-tree.jar, or build with a JDK 17–23 (JAVA_HOME).');
  }
}
const mode = debianAsm ? `debian ${asmDir}` : 'jdk-internal';
const modeStamp = path.join(buildDir, 'asm-mode.txt');

// ---- up to date? ----
const sources = listFiles(srcDir, '.java');
const tools = listFiles(toolsDir, '.java');
if (sources.length === 0) fail(`no Java sources under ${srcDir}`);
const inputs = [...sources, ...tools, ...(debianAsm ? asmJars : []), fileURLToPath(import.meta.url)];
const sameMode = existsSync(modeStamp) && readFileSync(modeStamp, 'utf8') === mode;
const launcherSources = listFiles(launcherSrcDir, '.java');
const canBuildLauncher = launcherSources.length > 0 && existsSync(junitConsole);
const newerThan = (jar, files) => existsSync(jar) && files.every((f) => statSync(f).mtimeMs < statSync(jar).mtimeMs);
const launcherUpToDate = !canBuildLauncher || newerThan(launcherJar, [...launcherSources, fileURLToPath(import.meta.url)]);
if (!force && sameMode && existsSync(outJar) && launcherUpToDate) {
  if (inputs.every((f) => statSync(f).mtimeMs < statSync(outJar).mtimeMs)) {
    console.log('build-agent: dist/braid-agent.jar is up to date');
    process.exit(0);
  }
}

/** dist/braid-launcher.jar: the RepeatLauncher, compiled against the JUnit console launcher (not bundled). */
function buildLauncher() {
  if (!launcherSources.length) return;
  if (!canBuildLauncher) {
    console.log(`build-agent: ${junitConsole} not found (Debian: apt-get install junit5; or set BRAID_JUNIT_CONSOLE): dist/braid-launcher.jar not built, braid test runs one JVM per run`);
    return;
  }
  if (!force && launcherUpToDate) return;
  const out = path.join(buildDir, 'launcher');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  run(tool('javac'), ['--release', '11', '-nowarn', '-encoding', 'UTF-8', '-cp', junitConsole, '-d', out, ...launcherSources]);
  rmSync(launcherJar, { force: true });
  run(tool('jar'), ['cf', launcherJar, '-C', out, '.']);
  console.log(`build-agent: built dist/braid-launcher.jar (against ${junitConsole})`);
}

if (!force && sameMode && existsSync(outJar) && inputs.every((f) => statSync(f).mtimeMs < statSync(outJar).mtimeMs)) {
  // only the launcher is out of date
  buildLauncher();
  process.exit(0);
}

// ---- compile, relocate, package ----
const started = Date.now();
rmSync(buildDir, { recursive: true, force: true });
const classesDir = path.join(buildDir, 'classes');
const toolClassesDir = path.join(buildDir, 'tools');
const relocatedDir = path.join(buildDir, 'relocated');
for (const d of [classesDir, toolClassesDir, relocatedDir, path.dirname(outJar)]) mkdirSync(d, { recursive: true });
if (debianAsm) {
  const cp = asmJars.join(path.delimiter);
  run(tool('javac'), ['--release', '11', '-nowarn', '-XDstringConcat=inline', '-encoding', 'UTF-8', '-cp', cp, '-d', classesDir, ...sources]);
  run(tool('javac'), ['--release', '11', '-nowarn', '-encoding', 'UTF-8', '-cp', cp, '-d', toolClassesDir, ...tools]);
  run(tool('java'), ['-cp', [toolClassesDir, cp].join(path.delimiter), 'dev.braid.build.Relocate', relocatedDir, classesDir, ...asmJars]);
} else {
  // The JDK's own ASM: same sources with the package renamed (JDK 17's copy names one method
  // visitPermittedSubclassExperimental); --add-exports cannot be combined with --release.
  const experimental = /visitPermittedSubclassExperimental/.test(jdkMethods);
  const copyDir = path.join(buildDir, 'src-jdk-asm');
  const copied = sources.map((f) => {
    let text = readFileSync(f, 'utf8').replace(/(?<![\w.])org\.objectweb\.asm\.(?=[A-Za-z*])/g, `${JDK_ASM}.`);
    if (experimental) text = text.replace(/\bvisitPermittedSubclass\(/g, 'visitPermittedSubclassExperimental(');
    const to = path.join(copyDir, path.relative(srcDir, f));
    mkdirSync(path.dirname(to), { recursive: true });
    writeFileSync(to, text);
    return to;
  });
  const exportsArgs = JDK_ASM_PACKAGES.flatMap((p) => ['--add-exports', `java.base/${p}=ALL-UNNAMED`]);
  run(tool('javac'), ['-source', '11', '-target', '11', '-Xlint:-options', '-nowarn', '-XDstringConcat=inline', '-encoding', 'UTF-8', ...exportsArgs, '-d', relocatedDir, ...copied]);
}

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
writeFileSync(modeStamp, mode);
buildLauncher();
console.log(`build-agent: built dist/braid-agent.jar (${Math.round(statSync(outJar).size / 1024)} KiB, ${debianAsm ? `ASM from ${asmDir}` : "the JDK's internal ASM"}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
