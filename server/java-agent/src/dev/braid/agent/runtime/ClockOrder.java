package dev.braid.agent.runtime;

/**
 * The agent option order (Events, docs/recorder.md "An order without the global counter"): true for
 * order=clock. A static final, fixed when this class is initialized, which {@link Rt#setClockOrder}
 * does at the agent's start before any event: the JIT folds it, so the default counter mode's per-event
 * paths (Rt.access, ThreadBuffer.publish) have no load and branch for the clock mode.
 */
final class ClockOrder {
  private ClockOrder() {}

  static final boolean ON = Rt.clockOrderOption;
}
