package dev.braid.agent;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.util.jar.JarFile;

/**
 * Entry point named in the jar manifest. It puts the agent jar on the bootstrap class path (so that
 * instrumented JDK classes and application classes share one copy of the recorder runtime), then
 * hands over to {@code dev.braid.agent.AgentMain} loaded by the bootstrap class loader.
 */
public final class Premain {
  private Premain() {}

  public static void premain(String args, Instrumentation inst) {
    start(args, inst);
  }

  public static void agentmain(String args, Instrumentation inst) {
    start(args, inst);
  }

  private static void start(String args, Instrumentation inst) {
    try {
      if (Premain.class.getClassLoader() != null) {
        File jar = new File(Premain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar));
      }
      Class<?> main = Class.forName("dev.braid.agent.AgentMain", true, null);
      main.getMethod("start", String.class, Instrumentation.class).invoke(null, args, inst);
    } catch (URISyntaxException | java.io.IOException | ReflectiveOperationException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      System.err.println("[braid-agent] failed to start, the program runs without recording: " + cause);
    }
  }
}
