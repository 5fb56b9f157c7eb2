/**
 * The command that runs ONE test (a test class or a test method) with the project's build tool, so
 * Braid can record many runs of just that test ("Braid: find the root cause" code lens):
 *  - Maven (pom.xml, ./mvnw when present): the test classes compiled and the test class path resolved
 *    once, in one Maven start (`mvn -q test-compile dependency:build-classpath`, into .braid/build/maven/)
 *    — this step may download what the local repository lacks on first use (plugins, dependencies), as a
 *    user's own build would — then each run is the JUnit console launcher on that class path, no Maven
 *    start per run. In a multi-module project the steps run from the reactor's top pom for the test's
 *    module and the modules it depends on (`-pl <module> -am`), so their classes come as folders. When
 *    the class path cannot be had (a TestNG test, no console launcher, the step failed) or
 *    `viaBuildTool` is set, each run is `mvn -o -q test -Dtest=Class#method` (offline: the recorded runs
 *    never download; surefire's settings apply);
 *  - Gradle (build.gradle[.kts] / settings.gradle[.kts], ./gradlew when present):
 *    `gradle test --offline --no-daemon --tests pkg.Class.method`;
 *  - neither: plain `java` with the JUnit console launcher (junit-platform-console-standalone*.jar
 *    in the project's lib/ or libs/ folder or a system folder such as Debian's /usr/share/java), after
 *    compiling the sources once with `javac` into .braid/build/classes; TestNG tests run with
 *    `org.testng.TestNG` from testng*.jar instead.
 * Also the command suggested by Record Runs (`suggestRecordCommand`): Maven/Gradle test, or the main
 * class of the open editor.
 * Pure file-system inspection; nothing here runs a process.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { JsRunner } from '../node/jsTestDiscovery';
import { declaredParameterTypes, methodSelector } from './javaParameterTypes';
import { mavenBuildKey, mavenBuildUpToDate, mavenClassPathCurrent, mavenClassPathInputs } from './mavenClassPathCache';
import { MAVEN_EFFECTIVE_POM, SUREFIRE_APPLIED, SUREFIRE_UNAPPLIED, unappliedNote } from './surefireSettings';

export type TestFramework = 'junit5' | 'junit4' | 'testng';

export interface TestTarget {
  /** the test's source file */
  file: string;
  /** fully qualified class name, e.g. bank.AccountTest */
  className: string;
  /** the test method; the whole class when absent */
  method?: string;
  /** a JUnit 5 method's parameter types as binary names (javaParameterTypes.ts), when it has parameters */
  parameterTypes?: string[];
  framework: TestFramework;
}

/** A step run once before recording, without the recorder. */
export interface PrepareStep {
  command: string[];
  cwd: string;
  /**
   * Maven: this step builds and writes the test class path into `classPathFile`; when it fails
   * (the dependency plugin cannot be resolved; a failure of the build itself, mavenBuildFailed, is a
   * failed build) or the file cannot be used (classPathProblem), the runs are `command` instead (the
   * build tool each run) and the step is dropped.
   */
  orElse?: { command: string[]; classPathFile: string };
  /**
   * Maven: the step recorded for later reruns (recording.json's `prepare`, which a fix check runs
   * again) when this one reuses the class path an earlier call wrote (mavenClassPathCache.ts): the
   * full build-and-class-path step, so that a fix that changes the poms gets its own class path
   */
  rerun?: string[];
  /**
   * Maven: this step also writes the effective POM (`effectivePom`), because the poms configure
   * surefire settings the in-JVM runs apply (surefireSettings.ts); after the step they are read from
   * it for the module in `module` (its folder) and put on the console launcher's command, its
   * environment and working directory (applySurefireSettings)
   */
  surefire?: { effectivePom: string; module: string };
  /**
   * Maven: after this step succeeds (and its class path is usable), Braid writes `stamp.file`
   * (mavenClassPathCache.ts writeMavenBuildStamp, with `stamp.build` and the step's start and end)
   * so that a later call can skip the build while nothing it reads changed
   */
  stamp?: { file: string; build: string };
  /**
   * Maven: the step need not run — nothing the build reads changed since Braid's last build of the
   * module, its outputs are there (mavenBuildUpToDate) — and this says so for the progress line;
   * the runs use the class path file as if it had run. `--fresh-class-path` always builds.
   */
  upToDate?: string;
}

export interface TestPlan {
  /** Java: the build tool or launcher; JavaScript/TypeScript: the test runner (jsTestCommand.ts) */
  tool: 'maven' | 'gradle' | 'junit-console' | 'testng' | JsRunner;
  /** steps run once before recording, without the recorder (compiling the sources, resolving the class path) */
  prepare: PrepareStep[];
  /** the command recorded N times */
  command: string[];
  /** working directory of the command (the module folder holding pom.xml / build.gradle) */
  cwd: string;
  /** execution name, e.g. AccountTest.transfer */
  name: string;
  /** packages to record by default: the test class's package */
  include: string[];
  /** what the user should know about the plan (surefire settings the in-JVM runs do not apply) */
  notes?: string[];
}

export class TestCommandError extends Error {}

/** Folders searched for the JUnit console launcher, JUnit 4 and TestNG jars after the project's lib/ and libs/. */
export const SYSTEM_JAVA_LIBS = ['/usr/share/java'];
/** Where the plain-java plan puts the compiled classes (relative to the workspace folder). */
export const BUILD_DIR = path.join('.braid', 'build', 'classes');
/** Where the Maven plan writes the resolved test class path of a module (relative to the workspace folder). */
export const MAVEN_CLASSPATH_DIR = path.join('.braid', 'build', 'maven');
/** The dependency plugin's goal, named in full so that no plugin-prefix lookup (metadata) is needed offline. */
export const MAVEN_BUILD_CLASSPATH = 'org.apache.maven.plugins:maven-dependency-plugin:build-classpath';

const MAVEN_FILES = ['pom.xml'];
const GRADLE_FILES = ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];

/** The nearest folder from `file`'s folder up to `root` (inclusive) holding one of `names`. */
function nearest(root: string, file: string, names: string[]): string | undefined {
  const top = path.resolve(root);
  let dir = path.resolve(path.dirname(file));
  if (path.relative(top, dir).startsWith('..')) dir = top;
  for (;;) {
    if (names.some((n) => existsSync(path.join(dir, n)))) return dir;
    if (dir === top) return undefined;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The `<module>` entries of a pom.xml text (comments removed). */
function pomModules(text: string): string[] {
  const t = text.replace(/<!--[\s\S]*?-->/g, '');
  const out: string[] = [];
  for (const m of t.matchAll(/<module>\s*([^<]+?)\s*<\/module>/g)) out.push(m[1]);
  return out;
}

/**
 * The reactor a Maven module belongs to: the top-most folder (up to `root`) whose pom.xml lists,
 * through a chain of `<module>` entries, the module folder `dir`, and the module's path from it; or
 * undefined when `dir`'s pom is not a module of an enclosing pom.
 */
export function mavenReactor(root: string, dir: string): { top: string; module: string } | undefined {
  const stop = path.resolve(root);
  let child = path.resolve(dir);
  let top: string | undefined;
  for (let d = path.dirname(child); ; d = path.dirname(d)) {
    if (path.relative(stop, d).startsWith('..')) break;
    let text: string | undefined;
    try {
      text = readFileSync(path.join(d, 'pom.xml'), 'utf8');
    } catch {
      text = undefined;
    }
    if (text === undefined || !pomModules(text).some((m) => path.resolve(d, m) === child)) {
      if (text !== undefined || top) break;
    } else {
      top = d;
      child = d;
    }
    if (d === stop || path.dirname(d) === d) break;
  }
  return top ? { top, module: path.relative(top, path.resolve(dir)).split(path.sep).join('/') } : undefined;
}

/**
 * Whether the output of a failed Maven build-and-class-path step says the build itself failed (a
 * compile error, a dependency or parent that cannot be had, an unreadable pom) — each run through
 * Maven would fail the same way — rather than only the class path goal (the dependency plugin could
 * not be resolved), after which each run can still go through Maven.
 */
export function mavenBuildFailed(output: string): boolean {
  return /COMPILATION ERROR|Failed to execute goal \S*:maven-(compiler|resources)-plugin|Could not resolve dependencies for project|Non-resolvable (parent|import) POM|The build could not read/.test(output);
}

/**
 * The surefire settings (SUREFIRE_APPLIED, SUREFIRE_UNAPPLIED: surefireSettings.ts) configured in the
 * pom.xml of `dir` or of a folder above it up to `root` (its parents, by the usual layout), each with
 * the pom that has it; an `argLine` property counts as surefire's argLine (its default).
 */
export function surefireSettingsIn(root: string, dir: string): string[] {
  const out: string[] = [];
  const top = path.resolve(root);
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    let text: string | undefined;
    try {
      text = readFileSync(path.join(d, 'pom.xml'), 'utf8').replace(/<!--[\s\S]*?-->/g, '');
    } catch {
      text = undefined;
    }
    if (text) {
      const rel = path.relative(top, path.join(d, 'pom.xml')) || 'pom.xml';
      const surefire = [...text.matchAll(/<artifactId>\s*maven-surefire-plugin\s*<\/artifactId>([\s\S]*?)<\/plugin>/g)].map((m) => m[1]).join('\n');
      const properties = [...text.matchAll(/<properties>([\s\S]*?)<\/properties>/g)].map((m) => m[1]).join('\n');
      for (const name of [...SUREFIRE_APPLIED, ...SUREFIRE_UNAPPLIED]) {
        if (new RegExp(`<${name}[\\s>/]`).test(surefire) || (name === 'argLine' && /<argLine[\s>/]/.test(properties))) out.push(`${name} (${rel})`);
      }
    }
    if (d === top || path.dirname(d) === d || path.relative(top, d).startsWith('..')) break;
  }
  return out;
}

/** `./mvnw` / `./gradlew` when the project has the wrapper (searched up to the root), else the tool. */
function wrapper(root: string, dir: string, script: string, tool: string): string {
  const top = path.resolve(root);
  for (let d = dir; ; d = path.dirname(d)) {
    const w = path.join(d, script);
    if (existsSync(w) && process.platform !== 'win32') return w;
    if (d === top || path.dirname(d) === d) break;
  }
  return tool;
}

function simpleName(className: string): string {
  return className.slice(className.lastIndexOf('.') + 1);
}

function packageOf(className: string): string | undefined {
  const k = className.lastIndexOf('.');
  return k > 0 ? className.slice(0, k) : undefined;
}

function executionName(t: TestTarget): string {
  return `${simpleName(t.className).replace(/\$/g, '.')}${t.method ? `.${t.method}` : ''}`;
}

/** The first jar in `dirs` whose name matches `re` (names sorted, so `x.jar` comes before `x-1.2.jar`). */
export function findJar(dirs: string[], re: RegExp): string | undefined {
  for (const d of dirs) {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      continue;
    }
    const hit = names.find((n) => re.test(n));
    if (hit) return path.join(d, hit);
  }
  return undefined;
}

function jarsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.jar'))
      .sort()
      .map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}

/** The .java files under the source folders of a plain project (src/main/java and src/test/java, else src and test, else the folder). */
export function javaSources(folder: string): string[] {
  const maven = ['src/main/java', 'src/test/java'].map((d) => path.join(folder, d)).filter((d) => existsSync(d));
  const plain = ['src', 'test', 'tests'].map((d) => path.join(folder, d)).filter((d) => existsSync(d));
  const roots = maven.length ? maven : plain.length ? plain : [folder];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === 'target' || e.name === 'build' || e.name === 'out') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.java')) out.push(p);
    }
  };
  for (const r of roots) walk(r);
  return out.sort();
}

export interface InferOptions {
  /** folders searched for jars after the project's lib/ and libs/ (default SYSTEM_JAVA_LIBS) */
  javaLibs?: string[];
  /** Maven: run the build tool each run (surefire) instead of the console launcher on the class path resolved once */
  viaBuildTool?: boolean;
  /** Maven: resolve the test class path again even when the one an earlier call wrote is current */
  freshClassPath?: boolean;
}

/**
 * Why the class path file a Maven plan's step wrote cannot be passed to the console launcher
 * (an argument file: `@file`, split at white space), or undefined when it can.
 */
export function classPathProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (e) {
    return `the class path file ${file} was not written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (!text) return `the class path file ${file} is empty`;
  if (/\s|["'#]/.test(text)) return `the test class path has a path with a space, a quote or a # (${file}), which an argument file cannot pass`;
  return undefined;
}

/** The command that runs just `target` in the workspace folder `root`; throws TestCommandError saying what is missing. */
export function inferTestCommand(root: string, given: TestTarget, o: InferOptions = {}): TestPlan {
  // a JUnit 5 method with parameters (a @ParameterizedTest): JUnit's method selector needs their types
  const declared = given.method !== undefined && given.framework === 'junit5' && !given.parameterTypes ? declaredParameterTypes(given.file, given.className, given.method) : undefined;
  const target: TestTarget = declared?.length ? { ...given, parameterTypes: declared } : given;
  const name = executionName(target);
  const pkg = packageOf(target.className);
  const include = pkg ? [pkg] : [simpleName(target.className)];
  const maven = nearest(root, target.file, MAVEN_FILES);
  const gradle = nearest(root, target.file, GRADLE_FILES);
  // the nearer build file wins (a Gradle module inside a Maven tree, or the reverse)
  if (maven && (!gradle || maven.length >= gradle.length)) {
    const cls = simpleName(target.className);
    const test = target.method ? `${cls}#${target.method}` : cls;
    const mvn = wrapper(root, maven, 'mvnw', 'mvn');
    // a module of a reactor: from the top pom, the module and what it depends on (their classes as folders)
    const reactor = mavenReactor(root, maven);
    const inReactor = reactor ? ['-f', path.join(reactor.top, 'pom.xml'), '-pl', reactor.module, '-am'] : [];
    const stepCwd = reactor ? reactor.top : maven;
    const eachRun = [mvn, '-o', '-q', ...inReactor, 'test', `-Dtest=${test}`, '-Dsurefire.failIfNoSpecifiedTests=false', '-DfailIfNoTests=false'];
    const perRunPlan: TestPlan = { tool: 'maven', prepare: [], command: eachRun, cwd: stepCwd, name, include };
    // the JUnit Platform console launcher runs JUnit 5 and (through its vintage engine) JUnit 4 tests, not TestNG
    if (o.viaBuildTool || target.framework === 'testng') return perRunPlan;
    const projectLibs = [path.join(root, 'lib'), path.join(root, 'libs')];
    const launcher = findJar([...projectLibs, ...(o.javaLibs ?? SYSTEM_JAVA_LIBS)], /^junit-platform-console-standalone.*\.jar$/);
    if (!launcher) return perRunPlan;
    const module = path.relative(path.resolve(root), maven).split(path.sep).join('_') || 'root';
    const classPathFile = path.join(path.resolve(root), MAVEN_CLASSPATH_DIR, `${module}.test-classpath`);
    const select = target.method ? ['--select-method', methodSelector(target.className, target.method, target.parameterTypes)] : ['--select-class', target.className];
    // in a reactor every module of the build writes the file: the test's module, built last, writes it last
    // (its dependencies resolve to their target/classes because they are compiled in the same Maven session)
    const classPathGoals = [MAVEN_BUILD_CLASSPATH, '-Dmdep.includeScope=test', `-Dmdep.outputFile=${classPathFile}`];
    // surefire's settings: those the runs apply come from Maven's effective POM, written by the same Maven start; the others are named
    const configured = surefireSettingsIn(root, maven);
    const applied = configured.filter((s) => SUREFIRE_APPLIED.includes(s.slice(0, s.indexOf(' '))));
    const ignored = configured.filter((s) => !applied.includes(s));
    const effectivePom = path.join(path.resolve(root), MAVEN_CLASSPATH_DIR, `${module}.effective-pom.xml`);
    // a class path (and effective POM) written by an earlier call, still current: only compile (mavenClassPathCache.ts)
    const inputs = mavenClassPathInputs(root, stepCwd);
    const reuse = !o.freshClassPath && mavenClassPathCurrent(classPathFile, inputs, applied.length ? [effectivePom] : []);
    const pomGoals = applied.length && !reuse ? [MAVEN_EFFECTIVE_POM, `-Doutput=${effectivePom}`] : [];
    // nothing the build reads changed since Braid's last build of the module (its stamp), the test's class there: no Maven start at all
    const stamp = { file: path.join(path.resolve(root), MAVEN_CLASSPATH_DIR, `${module}.build-stamp`), build: mavenBuildKey([mvn, ...inReactor, 'test-compile']) };
    const testClass = path.join(maven, 'target', 'test-classes', ...target.className.split('.')) + '.class';
    const builtAt = reuse ? mavenBuildUpToDate(stamp.file, stamp.build, stepCwd, inputs, [testClass], classPathFile) : undefined;
    const upToDate = builtAt && `no file under ${stepCwd} changed since Braid's build at ${builtAt.toTimeString().slice(0, 8)}, its output is there (--fresh-class-path builds anyway)`;
    return {
      ...(ignored.length ? { notes: [unappliedNote(ignored)] } : {}),
      tool: 'maven',
      // one Maven start: compiled and the class path written (a failure that is the build's own — mavenBuildFailed — is a failed build)
      prepare: [
        {
          command: [mvn, '-q', ...inReactor, 'test-compile', ...(reuse ? [] : classPathGoals), ...pomGoals],
          ...(reuse ? { rerun: [mvn, '-q', ...inReactor, 'test-compile', ...classPathGoals, ...(applied.length ? [MAVEN_EFFECTIVE_POM, `-Doutput=${effectivePom}`] : [])] } : {}),
          cwd: stepCwd,
          orElse: { command: eachRun, classPathFile },
          ...(applied.length ? { surefire: { effectivePom, module: maven } } : {}),
          stamp,
          ...(upToDate ? { upToDate } : {}),
        },
      ],
      // Maven's default output folders; the dependencies through the launcher's own @file expansion (picocli)
      command: [
        'java', '-jar', launcher, '--disable-banner', '--disable-ansi-colors', '--details=summary', '--fail-if-no-tests',
        '--class-path', path.join(maven, 'target', 'test-classes'), '--class-path', path.join(maven, 'target', 'classes'), '--class-path', `@${classPathFile}`,
        ...select,
      ],
      cwd: maven,
      name,
      include,
    };
  }
  if (gradle) {
    const filter = target.method ? `${target.className}.${target.method}` : target.className;
    return {
      tool: 'gradle',
      prepare: [],
      command: [wrapper(root, gradle, 'gradlew', 'gradle'), 'test', '--offline', '--no-daemon', '--quiet', '--tests', filter],
      cwd: gradle,
      name,
      include,
    };
  }
  // plain java: compile once, then run the test with the JUnit console launcher (or TestNG)
  const projectLibs = [path.join(root, 'lib'), path.join(root, 'libs')];
  const libs = [...projectLibs, ...(o.javaLibs ?? SYSTEM_JAVA_LIBS)];
  const sources = javaSources(root);
  if (!sources.length) throw new TestCommandError(`no .java files under ${root}`);
  const out = path.join(root, BUILD_DIR);
  const projectJars = projectLibs.flatMap(jarsIn);
  if (target.framework === 'testng') {
    const testng = findJar(libs, /^testng.*\.jar$/);
    if (!testng) {
      throw new TestCommandError(
        `cannot run the TestNG test ${target.className}: no pom.xml or build.gradle in ${root}, and no testng*.jar in ${libs.join(', ')} (put it in lib/ or install Debian's testng package)`,
      );
    }
    const extra = ['jcommander', 'slf4j-api'].map((n) => findJar(libs, new RegExp(`^${n}.*\\.jar$`))).filter((j): j is string => !!j);
    const cp = [out, ...projectJars, testng, ...extra].join(path.delimiter);
    const select = target.method ? ['-testclass', target.className, '-methods', `${target.className}.${target.method}`] : ['-testclass', target.className];
    return {
      tool: 'testng',
      prepare: [{ command: ['javac', '-g', '-nowarn', '-d', out, '-cp', cp, ...sources], cwd: root }],
      command: ['java', '-cp', cp, 'org.testng.TestNG', '-usedefaultlisteners', 'false', ...select],
      cwd: root,
      name,
      include,
    };
  }
  const launcher = findJar(libs, /^junit-platform-console-standalone.*\.jar$/);
  if (!launcher) {
    throw new TestCommandError(
      `cannot run the test ${target.className}: no pom.xml or build.gradle in ${root}, and no JUnit console launcher (junit-platform-console-standalone*.jar) in ${libs.join(', ')}. ` +
        'Put it in lib/, or install Debian\'s junit5 package.',
    );
  }
  const junit4 = target.framework === 'junit4' ? [findJar(libs, /^junit4?(-4[\d.]*)?\.jar$/), findJar(libs, /^hamcrest-core.*\.jar$/)].filter((j): j is string => !!j) : [];
  if (target.framework === 'junit4' && junit4.length === 0) {
    throw new TestCommandError(`cannot run the JUnit 4 test ${target.className}: no junit4.jar or junit-4*.jar in ${libs.join(', ')} (put it in lib/ or install Debian's junit4 package)`);
  }
  const libJars = projectJars.filter((j) => j !== launcher);
  const compileCp = [launcher, ...libJars, ...junit4].join(path.delimiter);
  const runCp = [out, ...libJars, ...junit4].join(path.delimiter);
  const select = target.method ? ['--select-method', methodSelector(target.className, target.method, target.parameterTypes)] : ['--select-class', target.className];
  return {
    tool: 'junit-console',
    prepare: [{ command: ['javac', '-g', '-nowarn', '-d', out, '-cp', compileCp, ...sources], cwd: root }],
    command: ['java', '-jar', launcher, '--disable-banner', '--disable-ansi-colors', '--details=summary', '--fail-if-no-tests', '--class-path', runCp, ...select],
    cwd: root,
    name,
    include,
  };
}

/** Quotes a command for display / the Record Runs box (splitCommandLine in the client reads it back). */
export function commandLine(argv: string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./#-]+$/.test(a) ? a : `"${a.replace(/(["\\])/g, '\\$1')}"`)).join(' ');
}

/** The main class declared in a Java source text (`package` + the type holding `static void main`), if any. */
export function mainClassOf(text: string, file: string): string | undefined {
  if (!/\bstatic\s+(?:final\s+)?void\s+main\s*\(/.test(text) && !/\bpublic\s+static\s+void\s+main\b/.test(text)) return undefined;
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  const cls = path.basename(file).replace(/\.java$/, '');
  return pkg ? `${pkg}.${cls}` : cls;
}

const CLASS_DIRS = ['out', 'bin', 'classes', path.join('target', 'classes'), path.join('build', 'classes', 'java', 'main'), BUILD_DIR];

/**
 * The command Record Runs suggests: the project's tests with Maven or Gradle, else the main class
 * of the open editor (from its compiled classes when they are found, else Java's source-file mode).
 * `editor` is the open Java file and its text. Undefined when there is nothing to suggest.
 */
export function suggestRecordCommand(root: string, editor?: { file: string; text: string }): string[] | undefined {
  const start = editor?.file ?? path.join(root, 'x');
  const main = editor && editor.file.endsWith('.java') ? mainClassOf(editor.text, editor.file) : undefined;
  if (main) {
    const rel = main.replace(/\./g, path.sep) + '.class';
    const dir = CLASS_DIRS.find((d) => existsSync(path.join(root, d, rel)) && statSync(path.join(root, d, rel)).isFile());
    if (dir) return ['java', '-cp', dir.split(path.sep).join('/'), main];
    return ['java', path.relative(root, editor!.file).split(path.sep).join('/')];
  }
  const maven = nearest(root, start, MAVEN_FILES);
  const gradle = nearest(root, start, GRADLE_FILES);
  const shown = (tool: string) => (path.isAbsolute(tool) ? `./${path.relative(root, tool).split(path.sep).join('/')}` : tool);
  if (maven && (!gradle || maven.length >= gradle.length)) return [shown(wrapper(root, maven, 'mvnw', 'mvn')), '-o', '-q', 'test', ...(maven !== path.resolve(root) ? ['-f', path.relative(root, maven)] : [])];
  if (gradle) return [shown(wrapper(root, gradle, 'gradlew', 'gradle')), 'test', '--offline', '--no-daemon', ...(gradle !== path.resolve(root) ? ['-p', path.relative(root, gradle)] : [])];
  return undefined;
}
