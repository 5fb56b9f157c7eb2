package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Lock-free multi-producer ring of events indexed by the global order index i (slot = i mod
 * capacity). A producer takes i from one counter, fills slot i and publishes it by writing i into
 * the slot's sequence; the single writer consumes slots in order of i, so the trace is written with
 * strictly increasing i without a reordering step. Producers wait when the writer is a full ring behind.
 */
final class EventRing {
  static final int KIND_R = 0, KIND_W = 1, KIND_ACQ = 2, KIND_REL = 3, KIND_START = 4, KIND_JOIN = 5, KIND_END = 6;
  /** Value of {@code elem} for a static field access (no object, no element). */
  static final int ELEM_STATIC = -2;
  static final int ELEM_FIELD = -1;

  static final int CAPACITY = 1 << 17;
  static final int MASK = CAPACITY - 1;

  private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);

  final AtomicLong counter = new AtomicLong(1);
  final long[] seq = new long[CAPACITY];
  final int[] thread = new int[CAPACITY];
  final byte[] kind = new byte[CAPACITY];
  final int[] ref = new int[CAPACITY];
  final int[] loc = new int[CAPACITY];
  final int[] stack = new int[CAPACITY];
  final int[] obj = new int[CAPACITY];
  final int[] elem = new int[CAPACITY];
  /** Index of the next event the writer will consume (published lazily by the writer). */
  volatile long consumed = 1;

  EventRing() {
    java.util.Arrays.fill(seq, -1L);
  }

  void publish(int t, int k, int r, int l, int st, int o, int e) {
    long i = counter.getAndIncrement();
    if (i - consumed >= CAPACITY) waitForSpace(i);
    int s = (int) (i & MASK);
    thread[s] = t;
    kind[s] = (byte) k;
    ref[s] = r;
    loc[s] = l;
    stack[s] = st;
    obj[s] = o;
    elem[s] = e;
    SEQ.setRelease(seq, s, i);
  }

  private void waitForSpace(long i) {
    int spins = 0;
    while (i - consumed >= CAPACITY) {
      if (Rt.isClosed()) return;
      if (++spins < 100) Thread.onSpinWait();
      else Thread.yield();
    }
  }

  boolean isPublished(long i) {
    return (long) SEQ.getAcquire(seq, (int) (i & MASK)) == i;
  }

  /** Takes an index for an event the writer produces itself (it must not wait on its own ring). */
  long reserve() {
    return counter.getAndIncrement();
  }
}
