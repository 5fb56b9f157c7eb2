package dev.braid.agent;

import java.util.List;

/**
 * Decides which classes are instrumented. Names are dotted ({@code bank.Account}); an entry matches a
 * class equal to it, a class in that package (or below) or a nested class ({@code Outer$Inner}).
 * JDK classes (JdkClasses: by class loader and the run-time image's modules, not by name) are
 * instrumented only when an include entry names them explicitly, and never those of JDK_DENY.
 */
public final class ClassFilter {
  /**
   * JDK classes the recorder itself uses; instrumenting them would recurse or deadlock. Applies to JDK
   * classes only: a library of the class path under com.sun. (Jersey 1.x) is application code.
   */
  private static final String[] JDK_DENY = {
    "java.lang", "java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.atomic",
    "java.util.concurrent.locks", "java.util.Arrays", "java.io", "java.nio", "java.security", "java.lang.invoke",
    "java.util.jar", "java.util.zip", "jdk", "sun", "com.sun"
  };
  /** Build tools and test frameworks that run in the same JVMs; skipped unless included. */
  private static final String[] TOOL_PREFIXES = {
    "dev.braid", "org.apache.maven", "org.codehaus.plexus", "org.eclipse.sisu", "com.google.inject",
    "org.gradle", "org.junit", "junit", "org.opentest4j", "org.apiguardian", "org.testng", "kotlin",
    "scala", "groovy", "org.groovy", "org.slf4j", "ch.qos.logback", "org.apache.logging", "net.bytebuddy",
    "org.mockito", "org.objenesis", "org.hamcrest", "org.assertj", "org.objectweb.asm", "worker.org.gradle",
    "com.intellij", "org.jetbrains"
  };

  private final List<String> include;
  private final List<String> exclude;

  public ClassFilter(List<String> include, List<String> exclude) {
    this.include = include;
    this.exclude = exclude;
  }

  public static boolean matches(String className, String entry) {
    return className.equals(entry)
        || (className.startsWith(entry)
            && (className.charAt(entry.length()) == '.' || className.charAt(entry.length()) == '$'));
  }

  private static boolean anyMatch(String className, List<String> entries) {
    for (String e : entries) if (matches(className, e)) return true;
    return false;
  }

  private static boolean anyMatch(String className, String[] entries) {
    for (String e : entries) if (matches(className, e)) return true;
    return false;
  }

  /** True for the JDK classes the recorder itself uses, which are never instrumented. */
  public static boolean isJdkDenied(String className) {
    return anyMatch(className, JDK_DENY);
  }

  /** True when the JDK class may be instrumented at all (explicit include and not denied). */
  public boolean isIncludedJdk(String className) {
    return anyMatch(className, include) && !anyMatch(className, exclude) && !isJdkDenied(className);
  }

  /**
   * @param jdk the class is the JDK's ({@link JdkClasses#isJdk(String, ClassLoader, Module)}: decided by
   *     its class loader, not its name)
   */
  public boolean isInstrumented(String className, boolean jdk) {
    if (className.startsWith("dev.braid.")) return false;
    if (jdk) return isIncludedJdk(className);
    if (anyMatch(className, exclude)) return false;
    if (anyMatch(className, include)) return true;
    if (!include.isEmpty()) return false;
    return !anyMatch(className, TOOL_PREFIXES);
  }

  public boolean hasJdkIncludes() {
    for (String e : include) if (JdkClasses.namesJdk(e)) return true;
    return false;
  }
}
