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

  /**
   * When the agent was built against the JDK's internal ASM (no Debian ASM at build time, see
   * scripts/build-agent.mjs), java.base must export it to the agent's (bootstrap unnamed) module.
   * Harmless otherwise; a JDK without it (24+) needs the agent built with Debian's ASM.
   */
  private static void exportJdkAsm(Instrumentation inst, java.lang.Module agent) {
    java.lang.Module base = Object.class.getModule();
    java.util.Map<String, java.util.Set<java.lang.Module>> exports = new java.util.HashMap<>();
    for (String p : new String[] {"jdk.internal.org.objectweb.asm", "jdk.internal.org.objectweb.asm.commons"}) {
      if (base.getPackages().contains(p) && !base.isExported(p, agent)) exports.put(p, java.util.Set.of(agent));
    }
    if (exports.isEmpty() || !inst.isModifiableModule(base)) return;
    inst.redefineModule(base, java.util.Set.of(), exports, java.util.Map.of(), java.util.Set.of(), java.util.Map.of());
  }

  private static void start(String args, Instrumentation inst) {
    try {
      if (Premain.class.getClassLoader() != null) {
        File jar = new File(Premain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar));
      }
      boolean shadedAsm = Premain.class.getResource("/dev/braid/shaded/asm/ClassReader.class") != null;
      if (!shadedAsm && !Object.class.getModule().getPackages().contains("jdk.internal.org.objectweb.asm")) {
        System.err.println("[braid-agent] this agent was built against the JDK's internal ASM (JDK 17-23) and this Java "
            + System.getProperty("java.version") + " has none; rebuild it with Debian's ASM (apt-get install libasm-java)."
            + " The program runs without recording.");
        return;
      }
      Class<?> main = Class.forName("dev.braid.agent.AgentMain", false, null);
      exportJdkAsm(inst, main.getModule());
      main.getMethod("start", String.class, Instrumentation.class).invoke(null, args, inst);
    } catch (URISyntaxException | java.io.IOException | ReflectiveOperationException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      System.err.println("[braid-agent] failed to start, the program runs without recording: " + cause);
    }
  }
}
