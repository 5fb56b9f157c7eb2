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
    if (options.out == null || options.out.isEmpty()) {
      System.err.println("[braid-agent] no trace file given (agent option out=<file>); nothing is recorded");
      return;
    }
    String program = options.program != null ? options.program : mainClassName();
    String execution = options.execution != null ? options.execution : "run-" + Rt.pid();
    if (options.gzip && !options.out.endsWith(".gz")) options.out = options.out + ".gz";
    Rt.setMaxWaitMillis(options.maxWaitMillis);
    Rt.setValues(options.values);
    Rt.start(options.out, header(options, program), execution, options.noise, seedOf(options.seed),
        options.noiseSleepMaxMicros);

    ClassFilter filter = new ClassFilter(options.include, options.exclude);
    dev.braid.agent.instrument.Calls.configure(options.libraryCalls, filter.hasJdkIncludes());
    dev.braid.agent.runtime.LibraryAccess.excludeTypes(options.include);
    dev.braid.agent.runtime.Registry.setTestCodeEntries(options.testCode);
    if (options.output) dev.braid.agent.runtime.OutputTap.install();
    BraidTransformer transformer = new BraidTransformer(filter, options.verbose);
    inst.addTransformer(transformer, true);
    if (filter.hasJdkIncludes()) retransformJdkClasses(inst, filter);

    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler(new UncaughtRecorder(previous));
  }

  private static void retransformJdkClasses(Instrumentation inst, ClassFilter filter) {
    if (!inst.isRetransformClassesSupported()) {
      System.err.println("[braid-agent] this JVM cannot retransform classes; JDK includes are ignored");
      return;
    }
    List<Class<?>> targets = new ArrayList<>();
    for (Class<?> c : inst.getAllLoadedClasses()) {
      if (c.isArray() || c.isPrimitive() || !inst.isModifiableClass(c)) continue;
      if (filter.isIncludedJdk(c.getName())) targets.add(c);
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

  /** Numeric noise seed from the seed text (a number, or any text hashed). */
  static long seedOf(String seed) {
    try {
      return Long.parseLong(seed.trim());
    } catch (NumberFormatException e) {
      long h = 1125899906842597L;
      for (int k = 0; k < seed.length(); k++) h = 31 * h + seed.charAt(k);
      return h;
    }
  }

  private static String header(AgentOptions o, String program) {
    StringBuilder b = new StringBuilder(256);
    b.append("{\"braid\":\"trace\",\"version\":1,\"execution\":\u0000EXECUTION\u0000");
    if (program != null) b.append(",\"program\":").append(Json.quote(program));
    if (o.test != null) b.append(",\"test\":").append(Json.quote(o.test));
    b.append(",\"recorder\":{\"name\":\"braid-java-agent\",\"version\":\"").append(VERSION).append("\",\"options\":{");
    b.append("\"noise\":").append(o.noise);
    b.append(",\"seed\":").append(Json.quote(o.seed));
    b.append(",\"include\":").append(jsonList(o.include));
    b.append(",\"exclude\":").append(jsonList(o.exclude));
    if (!o.libraryCalls) b.append(",\"libraryCalls\":false");
    b.append(",\"pid\":").append(Rt.pid());
    b.append("}},\"startedAt\":").append(Json.quote(Instant.now().toString())).append('}');
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
