/**
 * The JDK packages and classes the Java agent never instruments, even when `--include` names them
 * (the agent's own `ClassFilter.JDK_DENY`: classes the recorder itself uses, whose instrumentation
 * would recurse or deadlock). The list applies to the JDK's classes only: the agent decides what is
 * the JDK's by class loader and the run-time image's modules (JdkClasses.java, issue 38), so a library
 * of the class path under `com.sun.` (Jersey 1.x's `com.sun.jersey`, the JAXB and JavaMail
 * implementations) is recorded like any other. test/unit/jdkDenied.test.ts keeps this list equal to
 * the agent's.
 */
export const JDK_DENIED = [
  'java.lang',
  'java.util.concurrent.ConcurrentHashMap',
  'java.util.concurrent.atomic',
  'java.util.concurrent.locks',
  'java.util.Arrays',
  'java.io',
  'java.nio',
  'java.security',
  'java.lang.invoke',
  'java.util.jar',
  'java.util.zip',
  'jdk',
  'sun',
  'com.sun',
] as const;

/**
 * Where the JDK (17 to 25) has packages under the deny list's `com.sun`: a package here or below it is
 * the JDK's; anything else under `com.sun.` is a library's (`com.sun.jersey`, `com.sun.xml.bind`,
 * `com.sun.mail`, `com.sun.tools.xjc`). Every `java.`, `jdk.` and `sun.` package counts as the JDK's.
 * test/unit/jdkDenied.test.ts checks that the JDK the tests run on has no other package under
 * `com.sun.`.
 */
export const JDK_COM_SUN_ROOTS = [
  'com.sun.accessibility',
  'com.sun.beans',
  'com.sun.crypto',
  'com.sun.imageio',
  'com.sun.jarsigner',
  'com.sun.java.accessibility',
  'com.sun.java.swing',
  'com.sun.java_cup',
  'com.sun.jdi',
  'com.sun.jmx',
  'com.sun.jndi',
  'com.sun.management',
  'com.sun.media.sound',
  'com.sun.naming',
  'com.sun.net.httpserver',
  'com.sun.nio',
  'com.sun.org',
  'com.sun.rowset',
  'com.sun.security',
  'com.sun.source',
  'com.sun.swing',
  'com.sun.tools.attach',
  'com.sun.tools.classfile',
  'com.sun.tools.doclint',
  'com.sun.tools.example',
  'com.sun.tools.javac',
  'com.sun.tools.javap',
  'com.sun.tools.jconsole',
  'com.sun.tools.jdeprscan',
  'com.sun.tools.jdeps',
  'com.sun.tools.jdi',
  'com.sun.tools.jnativescan',
  'com.sun.tools.script',
  'com.sun.tools.sjavac',
  'com.sun.xml.internal',
] as const;

/** `name` is `entry` or inside it (a package below it, a class in it, a nested class). */
function under(name: string, entry: string): boolean {
  return name === entry || (name.startsWith(entry) && (name[entry.length] === '.' || name[entry.length] === '$'));
}

/** The include entry (a package or class, dotted) names classes of the JDK under `com.sun.`. */
function namesJdkComSun(include: string): boolean {
  return JDK_COM_SUN_ROOTS.some((r) => under(include, r) || under(r, include));
}

/**
 * The entry of the deny list under which an include entry (a package or class, dotted) names JDK
 * classes, if any. `com.sun.jersey` names none (a library); `com.sun` names the JDK's com.sun.net,
 * com.sun.tools.javac, … (and the libraries under it, which are recorded).
 */
export function deniedBy(include: string): string | undefined {
  for (const d of JDK_DENIED) {
    if (!under(include, d)) continue;
    if (d === 'com.sun' && !namesJdkComSun(include)) continue;
    return d;
  }
  return undefined;
}

/** A note for each include entry the agent will not record, or []. */
export function deniedIncludeNotes(include: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of include) {
    const d = deniedBy(e);
    if (d)
      out.push(
        d.startsWith('java.')
          ? `--include ${e}: the JDK's classes under ${d}.* are never recorded — the Java agent uses them itself (instrumenting them would recurse or deadlock); their accesses stay out of the traces`
          : `--include ${e}: the JDK's own classes under ${d}.* are never recorded — the Java agent uses them itself; a library of the class path there is recorded (the agent tells the JDK's classes by their class loader)`,
      );
  }
  return out;
}
