/**
 * The JDK packages and classes the Java agent never instruments, even when `--include` names them
 * (the agent's own `ClassFilter.JDK_DENY`: classes the recorder itself uses, whose instrumentation
 * would recurse or deadlock). Every name under `com.sun.` and `sun.` counts as the JDK's — also a
 * library that lives there (Jersey 1.x's `com.sun.jersey`, the JAXB and JavaMail reference
 * implementations): an include naming one records nothing of it, which `braid record` says in a note
 * instead of leaving the user with runs that never fail. test/unit/jdkDenied.test.ts keeps this list
 * equal to the agent's.
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

/** The entry of the deny list an include entry (a package or class, dotted) falls under, if any. */
export function deniedBy(include: string): string | undefined {
  for (const d of JDK_DENIED) if (include === d || (include.startsWith(d) && (include[d.length] === '.' || include[d.length] === '$'))) return d;
  return undefined;
}

/** A note for each include entry the agent will not record, or []. */
export function deniedIncludeNotes(include: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of include) {
    const d = deniedBy(e);
    if (d)
      out.push(
        `--include ${e}: classes under ${d}.* are never recorded — the Java agent treats them as the JDK's own (classes it uses itself), also when a library lives there; its accesses stay out of the traces`,
      );
  }
  return out;
}
