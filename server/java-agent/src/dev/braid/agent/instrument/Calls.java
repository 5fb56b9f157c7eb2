package dev.braid.agent.instrument;

/** Agent-wide settings of call-site instrumentation (library calls, call-site hooks). */
public final class Calls {
  private Calls() {}

  public static void configure(boolean libraryCalls, boolean jdkIncludes) {
    CallStubs.libraryCalls = libraryCalls;
    CallStubs.jdkIncludes = jdkIncludes;
  }
}
