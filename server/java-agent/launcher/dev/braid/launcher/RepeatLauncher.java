package dev.braid.launcher;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
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
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs one JUnit Platform test selection (JUnit 5; JUnit 4 through the vintage engine) many times in
 * one JVM, each repetition a separate recorded run (docs/recorder.md, "Repetitions in one JVM").
 * Built into dist/braid-launcher.jar by scripts/build-agent.mjs against the JUnit console launcher's
 * jar, which is on the class path at run time (not bundled).
 *
 * <p>Arguments: {@code --select-method pkg.Class#method} and/or {@code --select-class pkg.Class}
 * (repeatable). Driven by Braid's runner (server/src/recorder/repeatedRuns.ts) through stdin, one
 * line per repetition: {@code run<TAB>trace file<TAB>execution id<TAB>noise seed}; any other line or
 * the end of stdin ends the JVM. Each repetition begins a trace segment in the agent
 * (dev.braid.agent.runtime.Rt.beginSegment), runs the selection, ends the segment, then reports on
 * stdout and stderr one line {@code @@braid-repetition@@{json}}: outcome, tests run and failed, the
 * first failure's message and frames, and whether the JVM ends here — threads the repetition left
 * running (non-daemon, still alive 250 ms after it) or a failure that poisons the JVM (a linkage
 * error such as a failed static initializer, OutOfMemoryError, InternalError).
 */
public final class RepeatLauncher {
  static final String MARK = "@@braid-repetition@@";
  private static final long GRACE_MILLIS = 250;

  private RepeatLauncher() {}

  public static void main(String[] args) throws Exception {
    List<DiscoverySelector> selectors = new ArrayList<>();
    for (int k = 0; k < args.length; k++) {
      String a = args[k];
      String v = k + 1 < args.length ? args[k + 1] : null;
      if ((a.equals("--select-method") || a.equals("-m")) && v != null) {
        selectors.add(DiscoverySelectors.selectMethod(v));
        k++;
      } else if ((a.equals("--select-class") || a.equals("-c")) && v != null) {
        selectors.add(DiscoverySelectors.selectClass(v));
        k++;
      } else if (a.startsWith("--select-method=")) {
        selectors.add(DiscoverySelectors.selectMethod(a.substring(16)));
      } else if (a.startsWith("--select-class=")) {
        selectors.add(DiscoverySelectors.selectClass(a.substring(15)));
      } else {
        System.err.println("braid RepeatLauncher: unknown argument " + a);
        System.exit(2);
      }
    }
    if (selectors.isEmpty()) {
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
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
    String line;
    while ((line = commands.readLine()) != null) {
      String[] p = line.split("\t", -1);
      if (p.length < 4 || !p[0].equals("run")) break;
      boolean recording = begin != null && Boolean.TRUE.equals(begin.invoke(null, p[1], p[2], p[3]));
      Listener listener = new Listener();
      Throwable launchError = null;
      long started = System.nanoTime();
      try {
        launcher.execute(request, listener);
      } catch (Throwable t) {
        launchError = t;
      }
      long millis = (System.nanoTime() - started) / 1_000_000L;
      System.out.flush();
      System.err.flush();
      if (recording) end.invoke(null);
      List<Thread> left = leftRunning(baseline);
      Throwable failure = listener.failure != null ? listener.failure : launchError;
      String poison = poison(failure, launchError);
      boolean fail = listener.failed > 0 || launchError != null || listener.tests == 0;
      StringBuilder j = new StringBuilder(256);
      j.append("{\"execution\":").append(quote(p[2]));
      j.append(",\"outcome\":\"").append(fail ? "fail" : "pass").append('"');
      j.append(",\"tests\":").append(listener.tests).append(",\"failed\":").append(listener.failed);
      j.append(",\"skipped\":").append(listener.skipped).append(",\"ms\":").append(millis);
      if (failure != null) {
        j.append(",\"message\":").append(quote(cut(String.valueOf(failure), 2000)));
        if (listener.failedTest != null) j.append(",\"test\":").append(quote(listener.failedTest));
        j.append(",\"frames\":[");
        StackTraceElement[] st = failure.getStackTrace();
        for (int k = 0; k < st.length && k < 40; k++) {
          if (k > 0) j.append(',');
          j.append(quote(st[k].toString()));
        }
        j.append(']');
      } else if (listener.tests == 0) {
        j.append(",\"message\":").append(quote("no tests found for " + args[args.length - 1]));
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
      boolean last = !left.isEmpty() || poison != null;
      if (last) j.append(",\"last\":true");
      j.append('}');
      // the failure in the run's log, as the console launcher would show it
      if (failure != null) {
        System.out.println("braid: " + (listener.failedTest != null ? listener.failedTest : "the test run") + " failed:");
        failure.printStackTrace(System.out);
      }
      if (!left.isEmpty()) System.out.println("braid: threads left running by this run: " + left + "; the next run starts a fresh JVM");
      if (poison != null) System.out.println("braid: " + poison + "; the next run starts a fresh JVM");
      String marker = MARK + j + "\n";
      report(System.out, marker);
      report(System.err, MARK + "{\"execution\":" + quote(p[2]) + "}\n");
      if (last) break;
    }
    System.exit(0);
  }

  private static void report(PrintStream s, String marker) {
    s.print(marker);
    s.flush();
  }

  /** Why the JVM cannot run another repetition after {@code failure}, or null. */
  private static String poison(Throwable failure, Throwable launchError) {
    if (launchError != null) return "the JUnit launcher failed: " + launchError;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
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

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest()) skipped++;
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
      if (failure == null) {
        failure = result.getThrowable().orElse(new AssertionError("failed without an exception"));
        failedTest = id.getDisplayName();
        if (id.getLegacyReportingName() != null) failedTest = id.getLegacyReportingName();
      }
    }
  }
}
