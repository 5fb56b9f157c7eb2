package dev.braid.agent;

import dev.braid.agent.instrument.BraidTransformer;
import dev.braid.agent.runtime.Json;
import dev.braid.agent.runtime.Rt;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Wires the recorder: options, runtime, transformer, JDK retransformation, uncaught handler. */
public final class AgentMain {
  public static final String VERSION = "0.1.0";

  private AgentMain() {}

  public static void start(String args, Instrumentation inst) {
    RecorderWatchdog.start();
    AgentOptions options = AgentOptions.parse(args);
    if (options.record && (options.out == null || options.out.isEmpty())) {
      System.err.println("[braid-agent] no trace file given (agent option out=<file>); nothing is recorded");
      return;
    }
    String program = options.program != null ? options.program : mainClassName();
    String execution = options.execution != null ? options.execution : "run-" + Rt.pid();
    if (options.gzip && options.out != null && !options.out.endsWith(".gz")) options.out = options.out + ".gz";
    planName = loadPlan(options);
    if (options.pct() && options.plan != null) {
      System.err.println("[braid-agent] noiseMode=pct ignored: the noise plan " + options.plan + " decides where noise goes");
      options.noiseMode = "uniform";
    }
    if (options.pct()) {
      dev.braid.agent.runtime.PctScheduler.configure(options.pctDepth, options.pctSteps, options.pctMaxWaitSteps,
          options.pctStallMs, Rt.parseSeed(options.seed));
    }
    Rt.setMaxWaitMillis(options.maxWaitMillis);
    Rt.setValues(options.values);
    Rt.setFilter(options.filter);
    Rt.setClockOrder(options.order.equals("clock"));
    // record=false without out: no file at all (uncaught exceptions are then only printed)
    String out = options.out != null && !options.out.isEmpty() ? options.out : null;
    // repetitions in one JVM: one file per segment, begun by the driver (docs/recorder.md); a forcing
    // plan forces each segment afresh and reports at its end (Forcing.beginSegment)
    if (options.repeat && options.record && out != null) {
      Rt.prepareSegments(header(options, program, Rt.SEED_MARK, Rt.STARTED_MARK, Rt.PCT_MARK));
    }
    // the recording hooks' own uniform noise is the noise at accesses (noiseAt accesses or all)
    Rt.start(out != null ? out : "", header(options, program), execution, options.noiseAtAccesses() ? options.noise : 0,
        dev.braid.agent.runtime.Rt.parseSeed(options.seed), options.noiseSleepMaxMicros, options.record);
    if (out == null) Rt.noTraceFile();
    if (options.pct()) {
      // schedule-based noise: the access hooks step the scheduler (Rt.noise); the synchronization
      // points (and, with record=false, the access points) are scheduling points too
      dev.braid.agent.runtime.NoisePoints.setPct(!options.record);
    } else if (options.plan == null) {
      // record=false: uniform noise at the points of the kinds chosen; recording: only the
      // synchronization points (the access hooks make their noise themselves)
      long sleepMax = Math.max(1, options.noiseSleepMaxMicros) * 1000L;
      dev.braid.agent.runtime.NoisePoints.setUniform(!options.record && options.noiseAtAccesses() ? options.noise : 0,
          options.noiseAtSync() ? options.noise : 0, !options.noiseInMonitors, sleepMax);
    }
    dev.braid.agent.instrument.PointCatalogue.configure(options.points);

    JdkClasses.setByName(options.jdkByName);
    ClassFilter filter = new ClassFilter(options.include, options.exclude);
    dev.braid.agent.instrument.Calls.configure(options.libraryCalls, filter.hasJdkIncludes());
    dev.braid.agent.runtime.LibraryAccess.excludeTypes(options.include);
    dev.braid.agent.runtime.Registry.setTestCodeEntries(options.testCode);
    if (options.output && options.record) dev.braid.agent.runtime.OutputTap.install();
    boolean pointIds = options.plan != null || options.points != null
        || (options.noise > 0 && (!options.record || options.noiseAtSync())) || options.pct();
    BraidTransformer transformer = new BraidTransformer(filter, options.verbose, options.record, pointIds);
    inst.addTransformer(transformer, true);
    if (filter.hasJdkIncludes()) retransformJdkClasses(inst, filter);

    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler(new UncaughtRecorder(previous));
  }

  /** The name of the plan in force (header), or null. */
  private static String planName;

  /**
   * Installs the noise plan of option plan=FILE, if any (uniform noise is then off). A plan that
   * cannot be used is reported with its file and field, and the program runs without noise.
   */
  private static String loadPlan(AgentOptions o) {
    if (o.plan == null) return null;
    if (o.noise > 0) {
      System.err.println("[braid-agent] noise=" + o.noise + " ignored: the noise plan " + o.plan + " decides where noise goes");
    }
    o.noise = 0;
    try {
      return NoisePlanLoader.load(o.plan, o.record);
    } catch (IllegalArgumentException e) {
      System.err.println("[braid-agent] bad noise plan " + e.getMessage() + "; the program runs without noise"
          + (NoisePlanLoader.hasForce ? " or forcing" : ""));
      dev.braid.agent.runtime.NoisePoints.setPlan(new String[0], new double[0], new int[0], new long[0], new long[0], new String[0][]);
      return null;
    }
  }

  private static void retransformJdkClasses(Instrumentation inst, ClassFilter filter) {
    if (!inst.isRetransformClassesSupported()) {
      System.err.println("[braid-agent] this JVM cannot retransform classes; JDK includes are ignored");
      return;
    }
    List<Class<?>> targets = new ArrayList<>();
    for (Class<?> c : inst.getAllLoadedClasses()) {
      if (c.isArray() || c.isPrimitive() || !inst.isModifiableClass(c)) continue;
      if (JdkClasses.isJdk(c) && filter.isIncludedJdk(c.getName())) targets.add(c);
    }
    for (Class<?> c : targets) {
      try {
        inst.retransformClasses(c);
      } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
        System.err.println("[braid-agent] cannot instrument JDK class " + c.getName() + ": " + e);
      }
    }
  }

  private static String mainClassName() {
    String cmd = System.getProperty("sun.java.command", "");
    int sp = cmd.indexOf(' ');
    String first = sp < 0 ? cmd : cmd.substring(0, sp);
    return first.isEmpty() ? null : first;
  }



  private static String header(AgentOptions o, String program) {
    return header(o, program, Json.quote(o.seed), Json.quote(Instant.now().toString()),
        o.pct() ? dev.braid.agent.runtime.PctScheduler.headerJson() : null);
  }

  /** The header line; {@code seed} and {@code startedAt} as JSON text (or Rt's placeholders for segments). */
  private static String header(AgentOptions o, String program, String seed, String startedAt, String pct) {
    StringBuilder b = new StringBuilder(256);
    b.append("{\"braid\":\"trace\",\"version\":1,\"execution\":\u0000EXECUTION\u0000");
    if (program != null) b.append(",\"program\":").append(Json.quote(program));
    if (o.test != null) b.append(",\"test\":").append(Json.quote(o.test));
    b.append(",\"recorder\":{\"name\":\"braid-java-agent\",\"version\":\"").append(VERSION).append("\",\"options\":{");
    b.append("\"noise\":").append(o.noise);
    if (!o.noiseAt.equals("accesses")) b.append(",\"noiseAt\":").append(Json.quote(o.noiseAt));
    if (o.noiseInMonitors) b.append(",\"noiseInMonitors\":true");
    if (o.pct()) b.append(",\"noiseMode\":\"pct\",\"pct\":").append(pct);
    b.append(",\"seed\":").append(seed);
    b.append(",\"include\":").append(jsonList(o.include));
    b.append(",\"exclude\":").append(jsonList(o.exclude));
    if (!o.libraryCalls) b.append(",\"libraryCalls\":false");
    if (o.order.equals("clock")) b.append(",\"order\":\"clock\"");
    if (o.plan != null) {
      b.append(",\"plan\":{\"name\":").append(Json.quote(planName)).append(",\"file\":").append(Json.quote(o.plan)).append('}');
    }
    if (!o.record) b.append(",\"record\":false");
    b.append(",\"pid\":").append(Rt.pid());
    b.append("}},\"startedAt\":").append(startedAt).append('}');
    return b.toString();
  }

  private static String jsonList(List<String> list) {
    StringBuilder b = new StringBuilder("[");
    for (int k = 0; k < list.size(); k++) {
      if (k > 0) b.append(',');
      b.append(Json.quote(list.get(k)));
    }
    return b.append(']').toString();
  }

  /** Records uncaught exceptions, then behaves like the handler it replaces. */
  static final class UncaughtRecorder implements Thread.UncaughtExceptionHandler {
    private final Thread.UncaughtExceptionHandler previous;

    UncaughtRecorder(Thread.UncaughtExceptionHandler previous) {
      this.previous = previous;
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
      try {
        Rt.uncaught(t, e);
      } catch (Throwable ignored) {
        // never hide the program's own exception
      }
      if (previous != null) {
        previous.uncaughtException(t, e);
      } else if (!(e instanceof ThreadDeath)) {
        System.err.print("Exception in thread \"" + t.getName() + "\" ");
        e.printStackTrace(System.err);
      }
    }
  }
}
