package dev.braid.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * Options of the agent, given as {@code -javaagent:braid-agent.jar=key=value,key=value}, or as
 * {@code -javaagent:braid-agent.jar=@<file>} with one {@code key=value} per line in the UTF-8 file
 * (what {@code braid record} does: paths may then hold commas, quotes and spaces).
 * List values (include, exclude) are separated by ';'. Unknown keys are reported on stderr.
 */
public final class AgentOptions {
  /** Trace file to write; required for recording. */
  public String out;
  public String execution;
  public String program;
  public String test;
  public double noise;
  public String seed = "0";
  /** Upper bound of a noise sleep, in microseconds. */
  public int noiseSleepMaxMicros = 1000;
  public final List<String> include = new ArrayList<>();
  public final List<String> exclude = new ArrayList<>();
  /** Classes or packages that are test code (loc.harness), besides those with JUnit/TestNG annotations. */
  public final List<String> testCode = new ArrayList<>();
  public boolean verbose;
  /** Calls to JDK collections/builders recorded as accesses of the object (issue 11); off: libraryCalls=false. */
  public boolean libraryCalls = true;
  /**
   * jdkByName=true: every class under java., javax., jdk., sun., com.sun. is the JDK's (the agent before
   * issue 38); default: the class loader and the run-time image's modules decide (JdkClasses).
   */
  public boolean jdkByName;
  /** Lines of System.out/err recorded as OUT events; off: output=false. */
  public boolean output = true;
  /** Longest wait of an application thread for a trace writer that makes no progress before events are dropped, ms. */
  public long maxWaitMillis = 5000;
  /** Record the value of each access (primitives, Strings cut to 64 characters, objects as Type@id). */
  public boolean values = true;
  /** Write the trace gzip-compressed (to out + ".gz" unless out ends with ".gz"). */
  public boolean gzip;
  /** Noise plan file (docs/noise.md): noise only at its points; option noise is then ignored. */
  public String plan;
  /** Catalogue of the instrumented points to append to (JSON lines, docs/noise.md). */
  public String points;
  /** false: record nothing, only inject noise (the outcome still comes out, see Rt.start). */
  public boolean record = true;
  /**
   * Where uniform noise goes (docs/noise.md): {@code accesses} (the default: read, write, call,
   * start and hand-off points), {@code sync} (only synchronization points: before a monitor enter or
   * {@code Lock.lock}, at wait/notify, park/unpark, Condition await/signal), or {@code all} (both).
   */
  public String noiseAt = "accesses";
  /**
   * Repetitions in one JVM (Braid's RepeatLauncher, docs/recorder.md): nothing is written until the
   * driver begins a trace segment (Rt.beginSegment), each segment its own file, execution and seed.
   */
  public boolean repeat;
  /** Uniform noise at synchronization points also while the thread holds a recorded lock (measurements). */
  public boolean noiseInMonitors;
  /**
   * Agent option filter (docs/recorder.md "What is not recorded"): {@code on} (default) does not record a read whose
   * location's last recorded access is the same thread's and that thread wrote the location since another
   * thread last touched it (UNICORN's access window ignores such a read); {@code off} records every read.
   */
  public boolean filter = true;
  /**
   * Agent option order (docs/recorder.md "How it works"): {@code counter} (default) orders events by
   * one global counter taken per event; {@code clock} by Lamport clocks per thread and per stripe
   * (no global read-modify-write per access), merged by the trace writer. The environment variable
   * {@code BRAID_AGENT_ORDER} sets the default (to run a test suite with either order).
   */
  public String order = "clock".equals(System.getenv("BRAID_AGENT_ORDER")) ? "clock" : "counter";
  /**
   * How noise is made (docs/noise.md): {@code uniform} (the default: option noise's coins at the
   * points of noiseAt) or {@code pct} (schedule-based, PctScheduler: random thread priorities with
   * pctDepth - 1 change points among the first pctSteps scheduling points; option noise is then unused).
   */
  public String noiseMode = "uniform";
  public int pctDepth = 3;
  public long pctSteps = 2000;
  public long pctMaxWaitSteps = 1000;
  public long pctStallMs = 100;

  /** Schedule-based noise (noiseMode=pct). */
  public boolean pct() {
    return noiseMode.equals("pct");
  }

  public static AgentOptions parse(String args) {
    AgentOptions o = new AgentOptions();
    if (args == null || args.isEmpty()) return o;
    String[] parts;
    if (args.startsWith("@")) {
      try {
        parts = new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(args.substring(1))),
            java.nio.charset.StandardCharsets.UTF_8).split("\r?\n");
      } catch (java.io.IOException | RuntimeException e) {
        System.err.println("[braid-agent] cannot read the agent options file " + args.substring(1) + ": " + e
            + "; nothing is recorded");
        return o;
      }
    } else {
      parts = args.split(",");
    }
    for (String part : parts) {
      if (part.isEmpty()) continue;
      int eq = part.indexOf('=');
      String key = eq < 0 ? part : part.substring(0, eq);
      String value = eq < 0 ? "true" : part.substring(eq + 1);
      switch (key) {
        case "out": o.out = value; break;
        case "execution": o.execution = value; break;
        case "program": o.program = value; break;
        case "test": o.test = value; break;
        case "noise": o.noise = parseDouble(key, value); break;
        case "seed": o.seed = value; break;
        case "noiseSleepMaxUs": o.noiseSleepMaxMicros = (int) parseDouble(key, value); break;
        case "include": addList(o.include, value); break;
        case "exclude": addList(o.exclude, value); break;
        case "testCode": addList(o.testCode, value); break;
        case "verbose": o.verbose = !"false".equals(value); break;
        case "libraryCalls": o.libraryCalls = !"false".equals(value); break;
        case "jdkByName": o.jdkByName = !"false".equals(value); break;
        case "output": o.output = !"false".equals(value); break;
        case "gzip": o.gzip = !"false".equals(value); break;
        case "values": o.values = !"false".equals(value); break;
        case "filter":
          if (value.equals("on") || value.equals("off")) o.filter = value.equals("on");
          else System.err.println("[braid-agent] option filter=" + value + " must be on or off; using on");
          break;
        case "order":
          if (value.equals("counter") || value.equals("clock")) o.order = value;
          else System.err.println("[braid-agent] option order=" + value + " must be counter or clock; using counter");
          break;
        case "plan": o.plan = value; break;
        case "points": o.points = value; break;
        case "record": o.record = !"false".equals(value); break;
        case "noiseAt":
          if (value.equals("accesses") || value.equals("sync") || value.equals("all")) o.noiseAt = value;
          else System.err.println("[braid-agent] option noiseAt=" + value + " must be accesses, sync or all; using accesses");
          break;
        case "repeat": o.repeat = !"false".equals(value); break;
        case "noiseInMonitors": o.noiseInMonitors = !"false".equals(value); break;
        case "noiseMode":
          if (value.equals("uniform") || value.equals("pct")) o.noiseMode = value;
          else System.err.println("[braid-agent] option noiseMode=" + value + " must be uniform or pct; using uniform");
          break;
        case "pctDepth": o.pctDepth = (int) wholeNumber(key, value, 1, 100, o.pctDepth); break;
        case "pctSteps": o.pctSteps = wholeNumber(key, value, 1, 1L << 40, o.pctSteps); break;
        case "pctMaxWaitSteps": o.pctMaxWaitSteps = wholeNumber(key, value, 1, 1L << 40, o.pctMaxWaitSteps); break;
        case "pctStallMs": o.pctStallMs = wholeNumber(key, value, 1, 60_000, o.pctStallMs); break;
        case "maxWaitMs": o.maxWaitMillis = Math.max(0, (long) parseDouble(key, value)); break;
        default: System.err.println("[braid-agent] unknown agent option '" + key + "' ignored");
      }
    }
    if (o.noise < 0 || o.noise > 1) {
      System.err.println("[braid-agent] option noise=" + o.noise + " must be between 0 and 1; using 0");
      o.noise = 0;
    }
    return o;
  }

  /** Uniform noise at the access points (read, write, call, start, hand-off): noiseAt accesses or all. */
  public boolean noiseAtAccesses() {
    return !noiseAt.equals("sync");
  }

  /** Uniform noise at the synchronization points: noiseAt sync or all. */
  public boolean noiseAtSync() {
    return !noiseAt.equals("accesses");
  }

  private static void addList(List<String> list, String value) {
    for (String s : value.split("[;:]")) {
      String t = s.trim();
      if (t.endsWith(".*")) t = t.substring(0, t.length() - 2);
      if (!t.isEmpty()) list.add(t);
    }
  }

  private static long wholeNumber(String key, String value, long min, long max, long otherwise) {
    try {
      long v = Long.parseLong(value.trim());
      if (v >= min && v <= max) return v;
    } catch (NumberFormatException e) {
      // reported below
    }
    System.err.println("[braid-agent] option " + key + "=" + value + " must be a whole number from " + min + " to " + max
        + "; using " + otherwise);
    return otherwise;
  }

  private static double parseDouble(String key, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      System.err.println("[braid-agent] option " + key + "=" + value + " is not a number; using 0");
      return 0;
    }
  }
}
