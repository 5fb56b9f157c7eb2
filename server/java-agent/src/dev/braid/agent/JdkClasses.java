package dev.braid.agent;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.util.HashSet;
import java.util.Set;

/**
 * Which classes are the JDK's own (issue 38): a class defined by the boot or the platform class
 * loader, or a class of a module of the Java run-time image (the JDK's tool modules such as
 * jdk.compiler are defined to the application class loader); and every {@code java.*} class whatever
 * loader defines it (defensive: the JVM lets no other loader define one). Not the package name: a
 * library that lives under {@code com.sun.}, {@code javax.}, {@code sun.} or {@code jdk.} (Jersey
 * 1.x's {@code com.sun.jersey}, the JAXB and JavaMail implementations, a {@code javax.cache}
 * implementation) is loaded from the class path by the application's loader and is application code.
 * The agent option {@code jdkByName=true} restores the name test the agent used before (every class
 * under java., javax., jdk., sun., com.sun. is the JDK's).
 *
 * <p>Where the loader is known (the class file transformer, a loaded class) it decides. Where only a
 * name is (the owner of a field or method an instruction refers to, which may not be loaded yet): the
 * class is the JDK's when its package is a package of a module of the run-time image. A stack frame:
 * when its module is one of those modules. The JDK's generated classes count too: proxies (dynamic
 * modules jdk.proxyN) and Java 17's reflection accessors (jdk.internal.reflect.Generated*, defined
 * by a loader of their own in an unnamed module). Classes appended to the boot class path count as the
 * JDK's (the boot loader defines them).
 */
public final class JdkClasses {
  private JdkClasses() {}

  private static final String[] NAME_PREFIXES = {"java.", "javax.", "jdk.", "sun.", "com.sun."};
  private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();
  /** Names of the modules of the run-time image. */
  private static final Set<String> MODULES = new HashSet<>();
  /** Packages of those modules, in internal form (java/util). */
  private static final Set<String> PACKAGES = new HashSet<>();
  /** Agent option jdkByName: the name test of the agent before issue 38. */
  private static volatile boolean byName;

  static {
    try {
      for (ModuleReference r : ModuleFinder.ofSystem().findAll()) {
        ModuleDescriptor d = r.descriptor();
        MODULES.add(d.name());
        for (String p : d.packages()) PACKAGES.add(p.replace('.', '/'));
      }
    } catch (RuntimeException | Error e) {
      // no run-time image (an exploded build): the boot layer's modules
      for (Module m : ModuleLayer.boot().modules()) {
        ClassLoader l = m.getClassLoader();
        if (l != null && l != PLATFORM) continue;
        MODULES.add(m.getName());
        for (String p : m.getPackages()) PACKAGES.add(p.replace('.', '/'));
      }
    }
  }

  /** Agent option jdkByName=true: every class under java., javax., jdk., sun., com.sun. is the JDK's. */
  public static void setByName(boolean on) {
    byName = on;
  }

  public static boolean byName() {
    return byName;
  }

  private static boolean hasJdkNamePrefix(String dotted) {
    for (String p : NAME_PREFIXES) if (dotted.startsWith(p)) return true;
    return false;
  }

  /** A class being defined (dotted name) by {@code loader} in {@code module} (null when unknown). */
  public static boolean isJdk(String dotted, ClassLoader loader, Module module) {
    if (byName) return hasJdkNamePrefix(dotted);
    if (dotted.startsWith("java.") || loader == null || loader == PLATFORM) return true;
    if (module != null && module.isNamed()) return isJdkModule(module.getName());
    // an unnamed module: a class the JDK generates into a loader of its own in one of its packages
    // (Java 17's jdk.internal.reflect.GeneratedMethodAccessor1) is the JDK's; a library's is not
    return isJdkName(dotted);
  }

  /**
   * A module of the run-time image, or a dynamic module the JDK makes for proxy classes
   * ({@code jdk.proxy1.$Proxy0}: Proxy.newProxyInstance, annotation instances).
   */
  private static boolean isJdkModule(String name) {
    return MODULES.contains(name) || name.startsWith("jdk.proxy");
  }

  /** A loaded class. */
  public static boolean isJdk(Class<?> c) {
    return isJdk(c.getName(), c.getClassLoader(), c.getModule());
  }

  /** A class known by its dotted name only: {@code java.*}, or its package is one of the run-time image's. */
  public static boolean isJdkName(String dotted) {
    if (byName) return hasJdkNamePrefix(dotted);
    if (dotted.startsWith("java.") || dotted.startsWith("jdk.proxy")) return true;
    int dot = dotted.lastIndexOf('.');
    return dot > 0 && PACKAGES.contains(dotted.substring(0, dot).replace('.', '/'));
  }

  /** A class known by its internal name only ({@code java/util/HashMap}). */
  public static boolean isJdkInternalName(String internalName) {
    if (byName) return hasJdkNamePrefix(internalName.replace('/', '.'));
    if (internalName.startsWith("java/") || internalName.startsWith("jdk/proxy")) return true;
    int slash = internalName.lastIndexOf('/');
    return slash > 0 && PACKAGES.contains(internalName.substring(0, slash));
  }

  /**
   * An include entry (a package or a class, dotted) that names JDK classes the agent may instrument:
   * {@code java.*}, a package of the run-time image, a class in one, or a package prefix of one
   * ({@code org} holds the JDK's org.w3c.dom); not when all it names is on the deny list
   * ({@code com}: the JDK has only com.sun.* there).
   */
  public static boolean namesJdk(String entry) {
    if (byName) return hasJdkNamePrefix(entry);
    if (ClassFilter.isJdkDenied(entry)) return false;
    if (entry.startsWith("java.") || entry.equals("java")) return true;
    String e = entry.replace('.', '/');
    int slash = e.lastIndexOf('/');
    if (PACKAGES.contains(e) || (slash > 0 && PACKAGES.contains(e.substring(0, slash)))) return true;
    String prefix = e + "/";
    for (String p : PACKAGES) if (p.startsWith(prefix) && !ClassFilter.isJdkDenied(p.replace('/', '.'))) return true;
    return false;
  }

  /** A stack frame of a JDK class: its module is one of the run-time image's (allocates nothing). */
  public static boolean isJdkFrame(StackTraceElement f) {
    String c = f.getClassName();
    if (byName) return hasJdkNamePrefix(c);
    if (c.startsWith("java.")) return true;
    String m = f.getModuleName();
    return m != null && isJdkModule(m);
  }
}
