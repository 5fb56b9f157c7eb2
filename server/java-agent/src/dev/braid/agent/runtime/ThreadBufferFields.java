package dev.braid.agent.runtime;

/**
 * The fields of {@link ThreadBuffer}, split by who writes them and padded apart (HotSpot lays out a
 * superclass's fields before a subclass's), so that the producer thread's per-event stores and the
 * writer thread's per-event cursor updates do not share a cache line.
 */
final class ThreadBufferFields {
  private ThreadBufferFields() {}

  @SuppressWarnings("unused")
  abstract static class Pad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
  }

  /** Written by the producer (the recorded thread). */
  abstract static class Producer extends Pad0 {
    Chunk cur;
    int pos;
    long lastIndex;
    /** See {@link ThreadBuffer}: read by the writer, written twice per event. */
    long floor;
    /** Slot of a read published by publishRead whose value is not stored yet, or -1. */
    Chunk pendingChunk;
    int pendingPos = -1;
    long pendingIndex;
    /** order=clock: the clock the next publish gives its event (ThreadBuffer#clockAbove). */
    long nextClock;
  }

  @SuppressWarnings("unused")
  abstract static class Pad1 extends Producer {
    long p10, p11, p12, p13, p14, p15, p16, p17;
  }

  /** Written by the writer thread. */
  abstract static class Writer extends Pad1 {
    /** The chunk the writer reads; written only by the writer, read by the producer (back-pressure). */
    volatile Chunk rchunk;
    int rpos;
    int rlimit;
    /** A pending value that never comes (the thread died between the read and its value). */
    long stuckFloor;
    long stuckSince;
    boolean retired;
  }

  @SuppressWarnings("unused")
  abstract static class Pad2 extends Writer {
    long p20, p21, p22, p23, p24, p25, p26, p27;
  }
}
