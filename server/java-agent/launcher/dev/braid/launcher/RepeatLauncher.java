package dev.braid.launcher;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one JUnit Platform test selection (JUnit 5; JUnit 4 through the vintage engine) many times in
 * one JVM, each repetition a separate recorded run (docs/recorder.md, "Repetitions in one JVM").
 * Built into dist/braid-launcher.jar by scripts/build-agent.mjs against the JUnit console launcher's
 * jar, which is on the class path at run time (not bundled).
 *
 * <p>Arguments: {@code --select-method pkg.Class#method} and/or {@code --select-class pkg.Class}
 * (repeatable); {@code --fresh-classes ENTRY:ENTRY…}, the project's own class folders (main and test) and
 * the jars of the libraries under test (those holding included classes: repeatedRuns.ts), which are then
 * not on the JVM's class path: each repetition loads them in a new {@link FreshClassLoader} (the JDK,
 * JUnit and the other jars stay shared), so their static state starts fresh in every repetition. A failure that shows the project's code cannot live in such a loader (it loads the
 * project's classes through the system class loader, a native library bound to the first loader, the
 * same class seen through two loaders) ends the JVM with {@code "isolation"} in the report: the runner
 * then records that run again, and the following ones, one JVM each. Driven by Braid's runner (server/src/recorder/repeatedRuns.ts) through stdin, one
 * line per repetition: {@code run<TAB>trace file<TAB>execution id<TAB>noise seed}; any other line or
 * the end of stdin ends the JVM. Each repetition begins a trace segment in the agent
 * (dev.braid.agent.runtime.Rt.beginSegment), runs the selection, ends the segment, then reports on
 * stdout and stderr one line {@code @@braid-repetition@@{json}}: outcome ({@code pass}, {@code fail}, or
 * {@code norun} with {@code notRun}: why no test ran — nothing matched, discovery failed, skipped), tests run and failed, the
 * first failure's message and frames, and whether the JVM ends here — threads the repetition left
 * running (non-daemon, still alive 250 ms after it) or a failure that poisons the JVM (a linkage
 * error such as a failed static initializer, OutOfMemoryError, InternalError).
 */
public final class RepeatLauncher {
  static final String MARK = "@@braid-repetition@@";
  private static final long GRACE_MILLIS = 250;

  private RepeatLauncher() {}

  public static void main(String[] args) throws Exception {
    /** "m" + Class#method or "c" + Class, in order */
    List<String> selections = new ArrayList<>();
    URL[] fresh = null;
    for (int k = 0; k < args.length; k++) {
      String a = args[k];
      String v = k + 1 < args.length ? args[k + 1] : null;
      if ((a.equals("--select-method") || a.equals("-m")) && v != null) {
        selections.add("m" + v);
        k++;
      } else if ((a.equals("--select-class") || a.equals("-c")) && v != null) {
        selections.add("c" + v);
        k++;
      } else if (a.startsWith("--select-method=")) {
        selections.add("m" + a.substring(16));
      } else if (a.startsWith("--select-class=")) {
        selections.add("c" + a.substring(15));
      } else if (a.equals("--fresh-classes") && v != null) {
        fresh = classPathUrls(v);
        k++;
      } else {
        System.err.println("braid RepeatLauncher: unknown argument " + a);
        System.exit(2);
      }
    }
    if (selections.isEmpty()) {
      System.err.println("braid RepeatLauncher: no test selected (--select-method Class#method or --select-class Class)");
      System.exit(2);
    }
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    // the tests read nothing (stdin carries the runner's commands)
    System.setIn(new ByteArrayInputStream(new byte[0]));
    Method begin = null;
    Method end = null;
    try {
      Class<?> rt = Class.forName("dev.braid.agent.runtime.Rt", false, null);
      begin = rt.getMethod("beginSegment", String.class, String.class, String.class);
      end = rt.getMethod("endSegment");
    } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
      // no agent: the repetitions run unrecorded
    }
    Set<Thread> baseline = new HashSet<>(liveThreads());
    Launcher launcher = LauncherFactory.create();
    ClassLoader shared = RepeatLauncher.class.getClassLoader();
    LauncherDiscoveryRequest sharedRequest = fresh == null ? request(selections, null) : null;
    Thread me = Thread.currentThread();
    String line;
    while ((line = commands.readLine()) != null) {
      String[] p = line.split("\t", -1);
      if (p.length < 4 || !p[0].equals("run")) break;
      boolean recording = begin != null && Boolean.TRUE.equals(begin.invoke(null, p[1], p[2], p[3]));
      Listener listener = new Listener();
      Throwable launchError = null;
      Throwable discoveryError = null;
      boolean noTest = false;
      FreshClassLoader loader = fresh == null ? null : new FreshClassLoader(fresh, shared);
      long started = System.nanoTime();
      try {
        LauncherDiscoveryRequest request = sharedRequest;
        if (loader != null) {
          // the test's classes, and every thread it starts, see the repetition's own loader
          me.setContextClassLoader(loader);
          request = request(selections, loader);
        }
        // discovery on its own: a selector that matches nothing or a class that fails discovery is not a failing run
        TestPlan plan = null;
        try {
          plan = launcher.discover(request);
        } catch (Throwable t) {
          discoveryError = t;
        }
        if (plan != null && !plan.containsTests()) noTest = true;
        else if (plan != null) launcher.execute(plan, listener);
      } catch (Throwable t) {
        launchError = t;
      } finally {
        if (loader != null) me.setContextClassLoader(shared);
      }
      long millis = (System.nanoTime() - started) / 1_000_000L;
      System.out.flush();
      System.err.flush();
      if (recording) end.invoke(null);
      List<Thread> left = leftRunning(baseline);
      Throwable failure = listener.failure != null ? listener.failure : launchError;
      String isolation = loader == null ? null : isolationProblem(failure, loader);
      String scope = isolation == null ? null : isolationScope(failure, loader);
      String poison = isolation != null ? null : poison(failure, launchError, loader != null);
      String notRun = notRun(selections, discoveryError, noTest, listener, launchError);
      boolean fail = listener.failed > 0 || launchError != null;
      StringBuilder j = new StringBuilder(256);
      j.append("{\"execution\":").append(quote(p[2]));
      j.append(",\"outcome\":\"").append(notRun != null ? "norun" : fail ? "fail" : "pass").append('"');
      j.append(",\"tests\":").append(listener.tests).append(",\"failed\":").append(listener.failed);
      j.append(",\"skipped\":").append(listener.skipped).append(",\"ms\":").append(millis);
      if (notRun != null) {
        j.append(",\"notRun\":").append(quote(cut(notRun, 2000)));
      } else if (failure != null) {
        j.append(",\"message\":").append(quote(cut(String.valueOf(failure), 2000)));
        if (listener.failedTest != null) j.append(",\"test\":").append(quote(listener.failedTest));
        j.append(",\"frames\":[");
        StackTraceElement[] st = failure.getStackTrace();
        for (int k = 0; k < st.length && k < 40; k++) {
          if (k > 0) j.append(',');
          j.append(quote(st[k].toString()));
        }
        j.append(']');
      }
      if (!left.isEmpty()) {
        j.append(",\"left\":[");
        for (int k = 0; k < left.size(); k++) {
          if (k > 0) j.append(',');
          j.append(quote(left.get(k).getName()));
        }
        j.append(']');
      }
      if (poison != null) j.append(",\"poisoned\":").append(quote(poison));
      if (isolation != null) j.append(",\"isolation\":").append(quote(isolation));
      if (scope != null) j.append(",\"isolationScope\":\"").append(scope).append('"');
      boolean last = !left.isEmpty() || poison != null || isolation != null;
      if (last) j.append(",\"last\":true");
      j.append('}');
      // the failure in the run's log, as the console launcher would show it
      if (notRun != null) {
        System.out.println("braid: the test did not run: " + notRun);
        if (discoveryError != null) discoveryError.printStackTrace(System.out);
      } else if (failure != null) {
        System.out.println("braid: " + (listener.failedTest != null ? listener.failedTest : "the test run") + " failed:");
        failure.printStackTrace(System.out);
      }
      if (!left.isEmpty()) System.out.println("braid: threads left running by this run: " + left + "; the next run starts a fresh JVM");
      if (poison != null) System.out.println("braid: " + poison + "; the next run starts a fresh JVM");
      if (isolation != null) System.out.println("braid: " + isolation + "; this run is recorded again in a JVM of its own, and so are the next ones");
      String marker = MARK + j + "\n";
      report(System.out, marker);
      report(System.err, MARK + "{\"execution\":" + quote(p[2]) + "}\n");
      if (last) break;
    }
    System.exit(0);
  }

  /**
   * Why the repetition ran no test, or null when a test ran (passed or failed): the selection
   * matched no test, its discovery failed (the JUnit launcher's own message, down to the root
   * cause), or every test it selected was skipped. Such a repetition is not a failing run.
   */
  static String notRun(List<String> selections, Throwable discoveryError, boolean noTest, Listener listener, Throwable launchError) {
    String selected = selectionText(selections);
    if (discoveryError != null) return "the discovery of " + selected + " failed: " + causeChain(discoveryError);
    if (noTest) return "no test matched " + selected;
    // JUnit 4 (the vintage engine) reports a selection it cannot run as a failed test named initializationError
    if (launchError == null && listener.junit4NotRun != null && listener.junit4NotRunTests == listener.tests && listener.junit4NotRunTests == listener.failed) {
      return listener.junit4NoMatch ? "no test matched " + selected + ": " + listener.junit4NotRun : "the discovery of " + selected + " failed: " + listener.junit4NotRun;
    }
    if (launchError != null || listener.tests > 0 || listener.failed > 0) return null;
    if (listener.skipped > 0 || listener.containerSkipped) return selected + " was skipped" + (listener.skipReason != null ? ": " + listener.skipReason : "");
    return "no test of " + selected + " ran";
  }

  /** The selections as the user wrote them: {@code pkg.Class#method}, {@code pkg.Class}, joined by ", ". */
  static String selectionText(List<String> selections) {
    StringBuilder b = new StringBuilder();
    for (String s : selections) {
      if (b.length() > 0) b.append(", ");
      b.append(s.substring(1));
    }
    return b.toString();
  }

  /** A throwable's messages, outermost first, down to its root cause ("a: b: c"), without repeats. */
  static String causeChain(Throwable t) {
    StringBuilder b = new StringBuilder();
    String last = null;
    for (int depth = 0; t != null && depth < 8; t = t.getCause() == t ? null : t.getCause(), depth++) {
      String m = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
      // JUnit's own exceptions are sentences; any other keeps its class name (java.lang.ClassNotFoundException: bank.Base)
      if (!t.getClass().getName().startsWith("org.junit.")) m = t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
      if (m.equals(last) || (last != null && last.contains(m))) continue;
      if (b.length() > 0) b.append(": ");
      b.append(m);
      last = m;
    }
    return b.toString();
  }

  private static void report(PrintStream s, String marker) {
    s.print(marker);
    s.flush();
  }

  /**
   * The discovery request of the selections; with {@code loader}, their classes are loaded through it
   * (a class that cannot be loaded is selected by name, so JUnit reports it as usual).
   */
  static LauncherDiscoveryRequest request(List<String> selections, ClassLoader loader) {
    List<DiscoverySelector> selectors = new ArrayList<>();
    for (String sel : selections) {
      boolean method = sel.charAt(0) == 'm';
      String spec = sel.substring(1);
      int hash = method ? spec.indexOf('#') : -1;
      String className = hash >= 0 ? spec.substring(0, hash) : spec;
      Class<?> cls = null;
      if (loader != null) {
        try {
          cls = Class.forName(className, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
          cls = null;
        }
      }
      if (cls == null) selectors.add(method ? DiscoverySelectors.selectMethod(spec) : DiscoverySelectors.selectClass(className));
      else if (!method) selectors.add(DiscoverySelectors.selectClass(cls));
      else {
        String m = spec.substring(hash + 1);
        int open = m.indexOf('(');
        selectors.add(open < 0 ? DiscoverySelectors.selectMethod(cls, m)
            : DiscoverySelectors.selectMethod(cls, m.substring(0, open), m.substring(open + 1, m.endsWith(")") ? m.length() - 1 : m.length())));
      }
    }
    return LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
  }

  /** The URLs of class path entries: folders and jars (URLClassLoader reads a URL not ending in '/' as a jar). */
  private static URL[] classPathUrls(String list) throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String f : list.split(File.pathSeparator)) if (!f.isEmpty()) urls.add(new File(f).toURI().toURL());
    return urls.toArray(new URL[0]);
  }

  /**
   * Why {@code failure} shows that the project's code cannot run in a repetition's own loader, or
   * null: a class of the project's folders not found (the code asked another loader, e.g. the system
   * class loader, for it), the same class seen through two loaders, a native library already bound to
   * an earlier repetition's loader.
   */
  static String isolationProblem(Throwable failure, FreshClassLoader loader) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage();
      if (t instanceof UnsatisfiedLinkError && m.contains("another classloader")) {
        return "a native library can be loaded by one class loader only (" + cut(m, 300) + ")";
      }
      if ((t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError) && !m.startsWith("Could not initialize class")) {
        String name = m.trim().replace('/', '.');
        if (!name.isEmpty() && loader.holds(name)) {
          String jar = loader.jarOf(name);
          if (jar != null) return "the library class " + name + " (" + jar + ", loaded afresh per repetition) is loaded through another class loader than the repetition's own — a shared jar or the system class loader uses it (" + t.getClass().getName() + ")";
          return "the test loads the project's class " + name + " through another class loader than the repetition's own (" + t.getClass().getName() + ")";
        }
      }
      if (t instanceof ClassCastException && m.matches("(?s)class (\\S+) cannot be cast to class \\1 .*")) {
        return "one of the project's classes is seen through two class loaders (" + cut(m, 300) + ")";
      }
      if (t instanceof LinkageError && m.contains("loader constraint violation")) {
        return "the project's classes clash with a class loaded by another loader (" + cut(m, 300) + ")";
      }
    }
    return null;
  }

  /**
   * Whose classes an isolation problem is about: {@code "library"} when the class named is in a jar
   * loaded afresh (the runner then keeps the jars shared and the project's folders fresh),
   * {@code "project"} when it is in a folder, null when the failure names no class of the loader (a
   * native library, a loader constraint).
   */
  static String isolationScope(Throwable failure, FreshClassLoader loader) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage();
      String name = null;
      if ((t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError) && !m.startsWith("Could not initialize class")) name = m.trim().replace('/', '.');
      else if (t instanceof ClassCastException) {
        java.util.regex.Matcher c = java.util.regex.Pattern.compile("(?s)class (\\S+) cannot be cast to class \\1 .*").matcher(m);
        if (c.matches()) name = c.group(1);
      }
      if (name != null && !name.isEmpty() && loader.holds(name)) return loader.jarOf(name) != null ? "library" : "project";
    }
    return null;
  }

  /** Why the JVM cannot run another repetition after {@code failure}, or null. */
  private static String poison(Throwable failure, Throwable launchError, boolean freshClasses) {
    if (launchError != null) return "the JUnit launcher failed: " + launchError;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      // a failed static initializer of the project's own classes stays in its repetition's loader
      if (freshClasses && (t instanceof ExceptionInInitializerError || (t instanceof NoClassDefFoundError && String.valueOf(t.getMessage()).startsWith("Could not initialize class")))) continue;
      if (t instanceof LinkageError) return "a class could not be loaded or initialized (" + t.getClass().getName() + ")";
      if (t instanceof OutOfMemoryError || t instanceof InternalError) return "the JVM reported " + t.getClass().getName();
    }
    return null;
  }

  /** Non-daemon threads started by the repetition and still alive after a short grace period. */
  private static List<Thread> leftRunning(Set<Thread> baseline) {
    long deadline = System.currentTimeMillis() + GRACE_MILLIS;
    List<Thread> left = new ArrayList<>();
    for (Thread t : liveThreads()) {
      if (t == Thread.currentThread() || t.isDaemon() || baseline.contains(t)) continue;
      long wait = deadline - System.currentTimeMillis();
      if (wait > 0) {
        try {
          t.join(wait);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (t.isAlive() && !t.isDaemon()) left.add(t);
    }
    return left;
  }

  private static List<Thread> liveThreads() {
    ThreadGroup g = Thread.currentThread().getThreadGroup();
    while (g.getParent() != null) g = g.getParent();
    Thread[] all = new Thread[Math.max(16, g.activeCount() * 2 + 8)];
    int n;
    while ((n = g.enumerate(all, true)) == all.length) all = new Thread[all.length * 2];
    List<Thread> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) if (all[k].isAlive()) out.add(all[k]);
    return out;
  }

  private static String cut(String s, int max) {
    return s.length() > max ? s.substring(0, max) + "\u2026" : s;
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int k = 0; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c == '\n') b.append("\\n");
      else if (c == '\r') b.append("\\r");
      else if (c == '\t') b.append("\\t");
      else if (c < 0x20 || c == 0x2028 || c == 0x2029) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  /** Counts tests and keeps the first failure (a failed test, or a failed container such as a class whose set-up failed). */
  static final class Listener implements TestExecutionListener {
    int tests;
    int failed;
    int skipped;
    Throwable failure;
    String failedTest;

    /** why the first test or container was skipped (@Disabled, a condition) */
    String skipReason;
    /** a class (container) was skipped with all its tests */
    boolean containerSkipped;
    /**
     * JUnit 4's initializationError "tests" that say the selection cannot run — no test matched the
     * filter (FilterRequest's "No tests found matching …"), or the class is not a valid JUnit 4 test
     * (org.junit.runners.model.InitializationError): how many, and the first one's reason
     */
    int junit4NotRunTests;
    String junit4NotRun;
    boolean junit4NoMatch;

    private void junit4NotRun(TestIdentifier id, Throwable t) {
      String name = id.getLegacyReportingName() != null ? id.getLegacyReportingName() : id.getDisplayName();
      if (t == null || !"initializationError".equals(name)) return;
      String m = t.getMessage() == null ? "" : t.getMessage();
      boolean noMatch = m.startsWith("No tests found matching ");
      String why;
      if (noMatch) why = m.replaceFirst(" from org\\.junit\\.\\S+$", "");
      else if (t.getClass().getName().equals("org.junit.runners.model.InitializationError")) why = initializationCauses(t);
      else if (isInitializationError(t.getClass()) && t.getMessage() != null) why = t.getMessage().replaceAll("\\s*\\n\\s*", " "); // InvalidTestClassError: "Invalid test class 'X': 1. Method m() should be public"
      else return;
      junit4NotRunTests++;
      if (junit4NotRun == null) {
        junit4NotRun = why;
        junit4NoMatch = noMatch;
      }
    }

    /** Whether {@code c} is JUnit 4's InitializationError or a subclass (InvalidTestClassError). */
    private static boolean isInitializationError(Class<?> c) {
      for (; c != null; c = c.getSuperclass()) if (c.getName().equals("org.junit.runners.model.InitializationError")) return true;
      return false;
    }

    /** InitializationError's causes (its getCauses()), joined by "; ". */
    private static String initializationCauses(Throwable t) {
      try {
        Object causes = t.getClass().getMethod("getCauses").invoke(t);
        StringBuilder b = new StringBuilder();
        if (causes instanceof List) for (Object c : (List<?>) causes) {
          if (b.length() > 0) b.append("; ");
          b.append(c instanceof Throwable && ((Throwable) c).getMessage() != null ? ((Throwable) c).getMessage() : String.valueOf(c));
        }
        if (b.length() > 0) return b.toString();
      } catch (ReflectiveOperationException | RuntimeException e) {
        // the message alone
      }
      return String.valueOf(t.getMessage());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest()) skipped++;
      else if (!id.getParentId().isPresent()) return; // an engine with nothing selected
      else containerSkipped = true;
      if (skipReason == null && reason != null) skipReason = reason;
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      if (id.isTest()) tests++;
      if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) return;
      if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
        if (id.isTest()) skipped++;
        return;
      }
      failed++;
      if (id.isTest()) junit4NotRun(id, result.getThrowable().orElse(null));
      if (failure == null) {
        failure = result.getThrowable().orElse(new AssertionError("failed without an exception"));
        failedTest = id.getDisplayName();
        if (id.getLegacyReportingName() != null) failedTest = id.getLegacyReportingName();
      }
    }
  }

  /**
   * A repetition's own loader of the project's class folders and the jars of the libraries under test:
   * a class found there is defined here (child first), everything else — the JDK, JUnit, the other
   * libraries — comes from the shared loader.
   */
  static final class FreshClassLoader extends java.net.URLClassLoader {
    static {
      ClassLoader.registerAsParallelCapable();
    }

    FreshClassLoader(URL[] folders, ClassLoader parent) {
      super(folders, parent); // unnamed: stack frames print as in the application class loader, without a loader name
    }

    /** Whether the class {@code name} is one of the project's (in the folders) or of a library under test (in the jars). */
    boolean holds(String name) {
      return findResource(name.replace('.', '/') + ".class") != null;
    }

    /** The jar's file name when the class {@code name} is in one of the loader's jars, else null. */
    String jarOf(String name) {
      URL u = findResource(name.replace('.', '/') + ".class");
      if (u == null || !"jar".equals(u.getProtocol())) return null;
      String f = u.getFile();
      int bang = f.indexOf("!/");
      if (bang >= 0) f = f.substring(0, bang);
      return f.substring(f.lastIndexOf('/') + 1);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("java.")) return super.loadClass(name, resolve);
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null && holds(name)) c = findClass(name);
        if (c == null) return super.loadClass(name, resolve);
        if (resolve) resolveClass(c);
        return c;
      }
    }

    @Override
    public URL getResource(String name) {
      URL own = findResource(name);
      return own != null ? own : super.getResource(name);
    }
  }
}
