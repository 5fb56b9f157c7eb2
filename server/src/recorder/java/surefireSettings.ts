/**
 * Surefire's configuration on the in-JVM path of `braid test` under Maven (issue 41 item 4): the
 * runs are the JUnit console launcher (or RepeatLauncher) on the class path resolved once, not
 * surefire, so what surefire would give the test's JVM — `argLine`, `systemPropertyVariables` /
 * `systemProperties`, `environmentVariables`, `workingDirectory` — is applied here, from Maven's
 * own answer: the build step adds `help:effective-pom` (maven-help-plugin, from Central on first use)
 * when the poms configure one of them, and this module reads that effective POM (Maven's
 * interpolation done: `${project.basedir}`, properties, the parents' pluginManagement, the
 * `default-test` execution) and does what surefire does at fork time: `@{prop}` late replacement
 * from the project's properties, `${surefire.forkNumber}` / `${surefire.threadNumber}` as 1, the
 * argLine split as Plexus' CommandLineUtils splits it (quotes, no escapes), system properties as `-D`
 * after the argLine's options, a relative working directory against the module's folder.
 * Surefire settings outside that list which change a run (SUREFIRE_UNAPPLIED) are only named in a
 * note, with `--via-build-tool` as the way to have them.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** The goal that writes the effective POM, named in full (no plugin-prefix lookup), and its output property. */
export const MAVEN_EFFECTIVE_POM = 'org.apache.maven.plugins:maven-help-plugin:3.5.2:effective-pom';

/** Surefire settings the in-JVM path applies (from the effective POM). */
export const SUREFIRE_APPLIED = ['argLine', 'systemPropertyVariables', 'systemProperties', 'environmentVariables', 'workingDirectory'];

/**
 * Surefire settings that change how the selected test runs and that the in-JVM path does not apply
 * (`includes`/`excludes` do not matter: one test is selected, as `-Dtest=` does for surefire).
 */
export const SUREFIRE_UNAPPLIED = [
  'systemPropertiesFile',
  'excludedEnvironmentVariables',
  'additionalClasspathElements',
  'classpathDependencyExcludes',
  'classpathDependencyScopeExclude',
  'classesDirectory',
  'testClassesDirectory',
  'jvm',
  'properties',
  'useModulePath',
];

export class SurefireSettingsError extends Error {}

/** What surefire would give the test's JVM, ready for the console launcher's command. */
export interface SurefireRun {
  /** the argLine's JVM options, then `-Dname=value` for each system property */
  jvmOptions: string[];
  /** environment variables of the run */
  env: Record<string, string>;
  /** the run's working directory (absolute), when surefire's is not the module's folder */
  workingDirectory?: string;
  /** what was applied, for the user: `argLine …`, `system properties a, b`, `environment X`, `working directory …` */
  applied: string[];
  /** what could not be applied and why */
  notes: string[];
}

type Xml = string | { [k: string]: Xml | Xml[] } | Xml[];
type XmlObject = { [k: string]: Xml | Xml[] };

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  // the repeated elements the reader walks; a map's repeated key is an array too (the last one wins, as in Plexus)
  isArray: (_name, jpath) => /^projects\.project$|\.plugins\.plugin$|\.executions\.execution$/.test(String(jpath)),
});

const isObject = (v: unknown): v is XmlObject => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An element's text: '' for an empty element, the last of repeated ones, undefined for nested elements. */
function text(v: Xml | Xml[] | undefined): string | undefined {
  const last = Array.isArray(v) ? v[v.length - 1] : v;
  if (last === undefined) return undefined;
  return typeof last === 'string' ? last : isObject(last) && Object.keys(last).length === 0 ? '' : undefined;
}

/** Plexus' merge of a child configuration over its parent's: elements by name, recursively; the child's text wins. */
function merge(parent: XmlObject | undefined, child: XmlObject | undefined): XmlObject {
  const out: XmlObject = { ...(parent ?? {}) };
  for (const [k, v] of Object.entries(child ?? {})) out[k] = isObject(out[k]) && isObject(v) ? merge(out[k] as XmlObject, v) : v;
  return out;
}

/** The `<name>value</name>` entries of a map element (`systemPropertyVariables`, `environmentVariables`). */
function mapEntries(v: Xml | Xml[] | undefined, where: string): [string, string][] {
  if (v === undefined || v === '') return [];
  if (!isObject(v)) throw new SurefireSettingsError(`${where}: expected <name>value</name> entries`);
  const out: [string, string][] = [];
  for (const [k, val] of Object.entries(v)) {
    const t = text(val);
    if (t === undefined) throw new SurefireSettingsError(`${where}: <${k}> holds elements, not a value`);
    out.push([k, t]);
  }
  return out;
}

/** `systemProperties` (a java.util.Properties): `<property><name>…</name><value>…</value></property>` entries, or a map. */
function propertiesEntries(v: Xml | Xml[] | undefined, where: string): [string, string][] {
  if (isObject(v) && v.property !== undefined) {
    const list = Array.isArray(v.property) ? v.property : [v.property];
    return list.map((p, i) => {
      const name = isObject(p) ? text(p.name) : undefined;
      if (!name) throw new SurefireSettingsError(`${where}: <property> ${i + 1} has no <name>`);
      return [name, (isObject(p) ? text(p.value) : undefined) ?? ''];
    });
  }
  return mapEntries(v, where);
}

/**
 * The words of an argLine as surefire passes them to the JVM: line breaks become spaces, then
 * Plexus' CommandLineUtils.translateCommandline — words split at spaces, '…' and "…" quote (the
 * quotes removed), no backslash escapes. Tabs split words too (XML indentation).
 */
export function splitArgLine(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quoted = false;
  let quote: '"' | "'" | undefined;
  for (const ch of line.replace(/[\r\n]/g, ' ')) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      quoted = true;
    } else if (ch === ' ' || ch === '\t') {
      if (quoted || current) words.push(current);
      current = '';
      quoted = false;
    } else current += ch;
  }
  if (quote) throw new SurefireSettingsError(`unbalanced quotes in argLine: ${line}`);
  if (quoted || current) words.push(current);
  return words;
}

/** Surefire's per-fork placeholders, for its one fork. */
const forkPlaceholders = (s: string) => s.replace(/\$\{surefire\.(forkNumber|threadNumber)\}/g, '1');

/** The effective POM's project for the module in `moduleDir` (its build directory is inside the module's folder). */
function projectFor(doc: XmlObject, moduleDir: string, file: string): XmlObject {
  const projects: Xml[] = isObject(doc.projects) ? ((doc.projects.project as Xml[] | undefined) ?? []) : isObject(doc.project) ? [doc.project] : [];
  if (!projects.length) throw new SurefireSettingsError(`${file} holds no <project>: not an effective POM`);
  if (projects.length === 1 && !isObject(doc.projects)) return projects[0] as XmlObject;
  const dir = path.resolve(moduleDir);
  const hit = projects.find((p) => {
    const build = isObject(p) && isObject(p.build) ? p.build : undefined;
    const out = build ? text(build.directory) : undefined;
    return out !== undefined && path.dirname(path.resolve(out)) === dir;
  });
  if (!hit) throw new SurefireSettingsError(`${file} has no project whose build folder is in ${dir}`);
  return hit as XmlObject;
}

/** Surefire's configuration for the test phase: the plugin's, with the `default-test` execution's over it. */
function surefireConfiguration(project: XmlObject): XmlObject | undefined {
  const build = isObject(project.build) ? project.build : undefined;
  const plugins = build && isObject(build.plugins) ? ((build.plugins.plugin as Xml[] | undefined) ?? []) : [];
  const plugin = plugins.find((p) => isObject(p) && text(p.artifactId) === 'maven-surefire-plugin' && (text(p.groupId) ?? 'org.apache.maven.plugins') === 'org.apache.maven.plugins');
  if (!isObject(plugin)) return undefined;
  const executions = isObject(plugin.executions) ? ((plugin.executions.execution as Xml[] | undefined) ?? []) : [];
  const test = executions.find((e) => isObject(e) && text(e.id) === 'default-test');
  const own = isObject(plugin.configuration) ? plugin.configuration : undefined;
  return merge(own, isObject(test) && isObject(test.configuration) ? test.configuration : undefined);
}

/**
 * What surefire would give the JVM of the test in `moduleDir`, from the effective POM text
 * (`file` names it in errors). Throws SurefireSettingsError when the text cannot be read so.
 */
export function surefireRunFrom(xml: string, file: string, moduleDir: string): SurefireRun {
  let doc: XmlObject;
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new SurefireSettingsError(`${file} is not XML: ${valid.err.msg} (line ${valid.err.line})`);
  try {
    doc = parser.parse(xml) as XmlObject;
  } catch (e) {
    throw new SurefireSettingsError(`${file} is not XML: ${(e as Error).message}`);
  }
  const project = projectFor(doc, moduleDir, file);
  const properties = new Map(isObject(project.properties) ? mapEntries(project.properties, `${file}: <properties>`) : []);
  const config = surefireConfiguration(project) ?? {};
  const where = (name: string) => `${file}: maven-surefire-plugin's <${name}>`;
  const run: SurefireRun = { jvmOptions: [], env: {}, applied: [], notes: [] };
  if (text(config.skipTests) === 'true' || text(config.skip) === 'true') run.notes.push('surefire skips the tests here (skipTests/skip); the runs do not');
  // argLine: the parameter's own value, else the argLine property (its default expression)
  const argLine = config.argLine !== undefined ? text(config.argLine) : (properties.get('argLine') ?? '');
  if (argLine === undefined) throw new SurefireSettingsError(`${where('argLine')} holds elements, not a value`);
  if (argLine.trim()) {
    const unknown = new Set<string>();
    const late = forkPlaceholders(argLine).replace(/@\{([^}]*)\}/g, (all, key: string) => {
      const v = properties.get(key);
      if (v === undefined) unknown.add(all);
      return v ?? '';
    });
    const words = splitArgLine(late);
    const coverage = words.filter(isCoverageAgent);
    const kept = words.filter((w) => !isCoverageAgent(w));
    run.jvmOptions.push(...kept);
    if (kept.length) run.applied.push(`argLine ${kept.join(' ')}`);
    if (coverage.length) run.notes.push(coverageNote(coverage, jacocoPluginVersion(project), moduleDir));
    if (unknown.size) {
      run.notes.push(
        `argLine's ${[...unknown].join(', ')} ${unknown.size === 1 ? 'has' : 'have'} no value before Maven runs (a plugin such as jacoco:prepare-agent sets ${unknown.size === 1 ? 'it' : 'them'} during the build): left out of the runs; use --via-build-tool to have ${unknown.size === 1 ? 'it' : 'them'}`,
      );
    }
  }
  // system properties: systemProperties, then systemPropertyVariables over them (surefire's order)
  const props = new Map<string, string>();
  for (const [k, v] of propertiesEntries(config.systemProperties, where('systemProperties'))) props.set(k, forkPlaceholders(v));
  for (const [k, v] of mapEntries(config.systemPropertyVariables, where('systemPropertyVariables'))) props.set(k, forkPlaceholders(v));
  for (const [k, v] of props) run.jvmOptions.push(`-D${k}=${v}`);
  if (props.size) run.applied.push(`system properties ${[...props.keys()].join(', ')}`);
  for (const [k, v] of mapEntries(config.environmentVariables, where('environmentVariables'))) run.env[k] = v;
  if (Object.keys(run.env).length) run.applied.push(`environment ${Object.keys(run.env).join(', ')}`);
  const wd = config.workingDirectory !== undefined ? text(config.workingDirectory) : undefined;
  if (wd === undefined && config.workingDirectory !== undefined) throw new SurefireSettingsError(`${where('workingDirectory')} holds elements, not a folder`);
  if (wd) {
    const abs = path.resolve(moduleDir, forkPlaceholders(wd));
    if (abs !== path.resolve(moduleDir)) {
      run.workingDirectory = abs;
      run.applied.push(`working directory ${abs}`);
    }
  }
  const unapplied = SUREFIRE_UNAPPLIED.filter((n) => config[n] !== undefined && text(config[n]) !== '');
  if (unapplied.length) run.notes.push(unappliedNote(unapplied));
  return run;
}

/**
 * A coverage agent among the argLine's words: `-javaagent:` with jacoco's agent jar
 * (`org.jacoco.agent-<version>-runtime.jar`, which `jacoco:prepare-agent` puts into `argLine`, or
 * the distribution's `jacocoagent.jar`).
 */
export function isCoverageAgent(word: string): boolean {
  const m = /^-javaagent:([^=]+)/.exec(word);
  return !!m && /jacoco[^/\\]*\.jar$/i.test(m[1]);
}

/** The version of jacoco-maven-plugin in the project's build, if it has the plugin. */
function jacocoPluginVersion(project: XmlObject): string | undefined {
  const build = isObject(project.build) ? project.build : undefined;
  const plugins = build && isObject(build.plugins) ? ((build.plugins.plugin as Xml[] | undefined) ?? []) : [];
  const plugin = plugins.find((p) => isObject(p) && text(p.artifactId) === 'jacoco-maven-plugin');
  return isObject(plugin) ? (text(plugin.version) ?? '') : undefined;
}

/**
 * The note for a coverage agent left out of the runs (issue 38): the recorded runs measure no
 * coverage, the agent rewrites the very classes Braid's recorder instruments, and a jacoco older
 * than the JDK (before 0.8.7 on JDK 17) cannot instrument the JDK's classes, so with it every run
 * ended before the test started, with nothing said but that every run failed.
 */
function coverageNote(agents: string[], pluginVersion: string | undefined, moduleDir: string): string {
  const from = pluginVersion !== undefined
    ? `set by jacoco-maven-plugin${pluginVersion ? ` ${pluginVersion}` : ''}'s prepare-agent in the build of ${path.join(moduleDir, 'pom.xml')}`
    : `written in the argLine of ${path.join(moduleDir, 'pom.xml')} or its parents`;
  return `surefire's argLine gives the test JVM jacoco's coverage agent (${agents.join(' ')}; ${from}): left out of the recorded runs — they measure no coverage, the agent would rewrite the classes the recorder instruments, and a jacoco older than the JDK (before 0.8.7 on JDK 17) ends every run before the test starts; mvn test still measures coverage`;
}

/** The note for surefire settings the in-JVM runs do not apply. */
export function unappliedNote(settings: string[]): string {
  const one = settings.length === 1;
  return `surefire's ${settings.join(', ')} ${one ? 'is' : 'are'} not applied to the runs (the console launcher runs the test, not surefire); if the test needs ${one ? 'it' : 'them'}, use --via-build-tool (mvn each run, slower)`;
}

/** surefireRunFrom on the effective POM file `file`. */
export function readSurefireRun(file: string, moduleDir: string): SurefireRun {
  let xml: string;
  try {
    xml = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SurefireSettingsError(`the effective POM ${file} was not written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return surefireRunFrom(xml, file, moduleDir);
}

/** The console launcher command with surefire's JVM options after `java` (next to where the agent goes). */
export function withJvmOptions(command: readonly string[], jvmOptions: readonly string[]): string[] {
  return [command[0], ...jvmOptions, ...command.slice(1)];
}

/** A console launcher run: its command, working directory and extra environment. */
export interface LauncherRun {
  command: string[];
  cwd: string;
  env?: Record<string, string>;
}

/**
 * The run with surefire's settings of the build step's effective POM (PrepareStep.surefire): the
 * JVM options after `java`, the environment added, the working directory (created, as surefire
 * does). Throws SurefireSettingsError saying what could not be read.
 */
export function applySurefireSettings(run: LauncherRun, step: { effectivePom: string; module: string }): { run: LauncherRun; settings: SurefireRun } {
  const settings = readSurefireRun(step.effectivePom, step.module);
  if (settings.workingDirectory) {
    try {
      mkdirSync(settings.workingDirectory, { recursive: true });
    } catch (e) {
      throw new SurefireSettingsError(`surefire's workingDirectory ${settings.workingDirectory} cannot be created (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  const env = { ...(run.env ?? {}), ...settings.env };
  return {
    run: {
      command: settings.jvmOptions.length ? withJvmOptions(run.command, settings.jvmOptions) : [...run.command],
      cwd: settings.workingDirectory ?? run.cwd,
      ...(Object.keys(env).length ? { env } : {}),
    },
    settings,
  };
}
