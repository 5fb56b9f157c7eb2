/**
 * The jars of a test's class path that hold code under test (issue 41, point 3; docs/recorder.md
 * "Fresh static state"): a jar any of whose classes the recording's include list names (and its
 * exclude list does not) — `--include com.codahale.metrics` names metrics-core-3.2.0.jar. Each in-JVM
 * repetition loads these jars afresh together with the project's class folders (repeatedRuns.ts), so
 * the library's static state (a static default, a static cache) starts fresh in every run, as in a JVM
 * of its own. Never a jar of the test framework or of Braid (JUnit runs the repetitions: its classes
 * must be the shared ones), never a jar that cannot be read (it stays shared). Without an include list
 * no jar is chosen: the code under test is then the project's own classes.
 */
import { statSync } from 'node:fs';
import { jarEntryNames } from './jarEntries';

/**
 * Packages whose classes keep a jar shared whatever the include list says: the test framework that
 * runs the repetitions (the JUnit Platform, Jupiter, vintage, JUnit 4, TestNG, their API jars) and
 * Braid itself.
 */
const SHARED_PACKAGES = ['org.junit', 'junit', 'org.opentest4j', 'org.apiguardian', 'org.testng', 'dev.braid'];

/** ClassFilter.matches of the agent: the class itself, a class of the package (or below), a nested class. */
export function namesClass(className: string, entry: string): boolean {
  if (!className.startsWith(entry)) return false;
  if (className.length === entry.length) return true;
  const c = className.charCodeAt(entry.length);
  return c === 46 /* . */ || c === 36 /* $ */;
}

/** The dotted class name of a jar entry (`a/b/C.class`, a multi-release `META-INF/versions/11/a/b/C.class`), or undefined. */
export function entryClassName(entry: string): string | undefined {
  if (!entry.endsWith('.class')) return undefined;
  const name = entry.replace(/^META-INF\/versions\/\d+\//, '').slice(0, -6);
  if (name.startsWith('META-INF/') || name.endsWith('module-info') || name.endsWith('package-info')) return undefined;
  return name.replace(/\//g, '.');
}

export type JarRole = 'under-test' | 'framework' | 'other' | 'unreadable';

/** What the jar holds, from its class names: code under test (`include` minus `exclude`), the test framework, or neither. */
export function jarRole(classNames: Iterable<string>, include: readonly string[], exclude: readonly string[]): JarRole {
  let underTest = false;
  for (const c of classNames) {
    if (SHARED_PACKAGES.some((p) => namesClass(c, p))) return 'framework';
    if (!underTest && include.some((e) => namesClass(c, e)) && !exclude.some((e) => namesClass(c, e))) underTest = true;
  }
  return underTest ? 'under-test' : 'other';
}

const roles = new Map<string, { stamp: string; role: JarRole; include: string }>();

/** The role of the jar file `jar` (remembered per file, size and modification time, and include list). */
export async function jarFileRole(jar: string, include: readonly string[], exclude: readonly string[]): Promise<JarRole> {
  let stamp: string;
  try {
    const st = statSync(jar);
    if (!st.isFile()) return 'unreadable';
    stamp = `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'unreadable';
  }
  const key = `${include.join(',')}|${exclude.join(',')}`;
  const known = roles.get(jar);
  if (known && known.stamp === stamp && known.include === key) return known.role;
  let role: JarRole;
  try {
    role = jarRole(classNamesOf(await jarEntryNames(jar)), include, exclude);
  } catch {
    role = 'unreadable';
  }
  if (roles.size > 4096) roles.clear();
  roles.set(jar, { stamp, role, include: key });
  return role;
}

function* classNamesOf(entries: readonly string[]): Iterable<string> {
  for (const e of entries) {
    const c = entryClassName(e);
    if (c !== undefined) yield c;
  }
}

/** The jars among `jars` that hold code under test, in class path order (none without an include list). */
export async function libraryJarsUnderTest(jars: readonly string[], include: readonly string[], exclude: readonly string[]): Promise<string[]> {
  if (!include.length) return [];
  const roles = await Promise.all(jars.map((j) => jarFileRole(j, include, exclude)));
  return jars.filter((_, k) => roles[k] === 'under-test');
}
