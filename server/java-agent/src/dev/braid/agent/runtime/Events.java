package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Event capture: one global order counter and one single-producer buffer per recording thread
 * ({@link ThreadBuffer}, a list of {@link Chunk}s of binary records). A thread appends its events
 * in index order; the writer merges the buffers by index (k-way merge) and emits index i only
 * when no thread can still publish an index below i (see {@link ThreadBuffer#floor}).
 *
 * <p>Record layout (6 longs): index; thread id &lt;&lt; 40 | kind &lt;&lt; 32 | elem; ref &lt;&lt; 32 | loc;
 * stack &lt;&lt; 32 | obj; value bits; value type ({@code V_*}). A reference value (String or object)
 * is kept in the chunk's {@code refs} slot of the event.
 */
final class Events {
  static final int KIND_R = 0, KIND_W = 1, KIND_ACQ = 2, KIND_REL = 3, KIND_START = 4, KIND_JOIN = 5, KIND_END = 6;
  /** Happens-before hand-off (ref = token), failure point (ref = detail text, elem = FAIL_*), output line (ref = text, elem = stream). */
  static final int KIND_SND = 7, KIND_RCV = 8, KIND_FAIL = 9, KIND_OUT = 10;
  static final int FAIL_UNCAUGHT = 0, FAIL_EXIT = 1, FAIL_ASSERT = 2;
  /** Value of {@code elem} for a static field access (no object, no element). */
  static final int ELEM_STATIC = -2;
  static final int ELEM_FIELD = -1;

  static final int REC = 6;
  /** Value types of an access's value (record field 5). */
  static final int V_NONE = 0, V_INT = 1, V_BOOL = 2, V_CHAR = 3, V_LONG = 4, V_FLOAT = 5, V_DOUBLE = 6, V_REF = 7;
  static final int SMALL_CHUNK = 256;
  static final int BIG_CHUNK = 4096;
  /** Events held in chunks not yet consumed by the writer, at most (producers wait beyond). */
  static final long MAX_OUTSTANDING = 1L << 18;

  final AtomicLong counter = new AtomicLong(1);

  // ---- order=clock (agent option order; docs/recorder.md "How it works"): Lamport clocks instead
  // of the counter. An access takes max(its thread's clock, its stripe's clock, the watermark) + 1
  // under the stripe lock it holds anyway (Stripes#clock), so conflicting accesses are ordered as
  // they happened and each thread's events in program order; every other event (ACQ/REL,
  // START/JOIN/END, SND/RCV, library calls, FAIL, OUT) also goes through the sync clock (one CAS),
  // which orders a release before the acquire that follows it. The writer merges the threads'
  // buffers by (clock, thread) and numbers the lines itself. ----

  // (the mode itself is ClockOrder.ON, a static final the JIT folds: the default counter mode's
  // paths carry no per-event load and branch for it)
  /** The clock of the last event of the synchronization kinds (a CAS per such event). */
  final AtomicLong syncClock = new AtomicLong();
  /**
   * The watermark: the writer's bound, stored before it reads the threads' floors; a thread takes a
   * clock above it (read after its floor is set and its stripe's compare-and-set, a full fence), so
   * a thread that sleeps with a low clock does not hold the writer back. Alone on its cache line.
   */
  private final Watermark watermark = new Watermark();

  long watermark() { return (long) Watermark.V.getVolatile(watermark); }

  void setWatermark(long w) { Watermark.V.setVolatile(watermark, w); }

  /** A clock at least {@code c} and above the sync clock, which it becomes (atomically). */
  long syncAfter(long c) {
    AtomicLong g = syncClock;
    while (true) {
      long v = g.get();
      long n = c > v ? c : v + 1;
      if (g.compareAndSet(v, n)) return n;
    }
  }
  final AtomicLong outstanding = new AtomicLong();

  private ThreadBuffer[] all = new ThreadBuffer[16];
  private int count;
  /** Snapshot of the registered buffers read by the writer. */
  volatile ThreadBuffer[] buffers = new ThreadBuffer[0];

  /**
   * Consumed big chunks kept for reuse: as many as the budget holds ({@link #MAX_OUTSTANDING} /
   * {@link #BIG_CHUNK}), so a recording in steady state allocates no chunk (each is a 192 KiB
   * long[] to zero; with 32 slots the chunks recycled while producers waited at the budget
   * overflowed the list and were allocated again: JFR's allocation samples on the application
   * threads were all chunks). No more memory at the peak: a chunk is allocated only when the list
   * is empty, so the chunks in use and kept never exceed the budget's plus one per thread.
   */
  private final Chunk[] free = new Chunk[(int) (MAX_OUTSTANDING / BIG_CHUNK)];
  private int freeCount;

  synchronized void register(ThreadBuffer b) {
    if (count == all.length) all = java.util.Arrays.copyOf(all, count * 2);
    all[count++] = b;
    buffers = java.util.Arrays.copyOf(all, count);
  }

  /**
   * Writer: forgets the buffers of ended threads that are fully consumed, and returns their last
   * chunk to the budget (a dead thread holds no chunk).
   */
  synchronized void unregisterDrained(ThreadBuffer[] drained, int n) {
    if (n == 0) return;
    for (int j = 0; j < n; j++) {
      Chunk last = drained[j].retire();
      if (last != null) recycle(last);
    }
    int kept = 0;
    for (int k = 0; k < count; k++) {
      ThreadBuffer b = all[k];
      if (!b.isRetired()) all[kept++] = b;
    }
    for (int k = kept; k < count; k++) all[k] = null;
    count = kept;
    buffers = java.util.Arrays.copyOf(all, count);
  }

  /** Returned by {@link #newChunk} when the event is dropped (the writer fell behind for too long). */
  static final Chunk DROP = new Chunk(0);
  /**
   * Longest time a thread waits while the writer makes no progress before events are dropped
   * (agent option maxWaitMs).
   */
  static volatile long maxWaitNanos = 5_000_000_000L;
  /** Bumped by the writer whenever it writes events (waiting threads watch it). */
  volatile long writerProgress;

  /** Events dropped because the writer fell behind (reported in the trace as {@code {"dropped":N}} lines). */
  final AtomicLong dropped = new AtomicLong();
  /** Set when a thread gave up waiting: further over-budget chunks are dropped at once until the writer catches up. */
  private volatile boolean dropping;

  /**
   * A new chunk for {@code b}, or {@link #DROP}, or null when recording is closed. Back-pressure:
   * when more than {@link #MAX_OUTSTANDING} events are held, a thread whose older chunks the
   * writer has not consumed yet waits for it, as long as the writer makes progress, and at most
   * {@link #maxWaitNanos} without progress; past that the event is dropped (and counted). A thread whose older chunks are all consumed never waits (it gets a
   * small chunk when over budget), so threads that hold partly filled chunks — live or dead —
   * never block one another.
   */
  Chunk newChunk(ThreadBuffer b, boolean big) {
    int cap = big ? BIG_CHUNK : SMALL_CHUNK;
    if (outstanding.get() + cap > MAX_OUTSTANDING) {
      if (dropping && outstanding.get() <= MAX_OUTSTANDING / 2) dropping = false;
      long since = 0;
      long progress = writerProgress;
      long park = 50_000;
      int spins = 0;
      while (outstanding.get() + cap > MAX_OUTSTANDING && b.hasUnconsumedOlderChunks()) {
        if (Rt.isClosed()) return null;
        if (dropping) return DROP;
        if (++spins < 4) {
          Thread.yield();
          continue;
        }
        long now = System.nanoTime();
        long p = writerProgress;
        if (since == 0 || p != progress) {
          since = now;
          progress = p;
        } else if (now - since > maxWaitNanos) {
          dropping = true;
          return DROP;
        }
        // back off (50 µs up to 2 ms): each wake-up costs the waiting application thread CPU
        java.util.concurrent.locks.LockSupport.parkNanos(park);
        if (park < 2_000_000) park *= 2;
      }
      if (outstanding.get() + cap > MAX_OUTSTANDING) cap = SMALL_CHUNK;
    }
    outstanding.addAndGet(cap);
    if (cap == BIG_CHUNK) {
      synchronized (this) {
        if (freeCount > 0) {
          Chunk c = free[--freeCount];
          free[freeCount] = null;
          c.reset();
          return c;
        }
      }
    }
    return new Chunk(cap);
  }

  /** Writer: a chunk it has consumed completely. */
  void recycle(Chunk c) {
    outstanding.addAndGet(-c.cap);
    // (no Arrays.fill of refs: the writer clears each reference slot as it takes the value, TraceWriter.emitBelow)
    if (c.cap != BIG_CHUNK) return;
    synchronized (this) {
      if (freeCount < free.length) free[freeCount++] = c;
    }
  }

  /** Takes an index for an event the writer produces itself. */
  long reserve() {
    return counter.getAndIncrement();
  }
}

/** The watermark of {@link Events}, padded to a cache line of its own. */
@SuppressWarnings("unused")
final class Watermark {
  static final VarHandle V;

  static {
    try {
      V = MethodHandles.lookup().findVarHandle(Watermark.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  long p0, p1, p2, p3, p4, p5, p6, p7;
  long value;
  long q0, q1, q2, q3, q4, q5, q6, q7;
}

/** Chunk fields the writer reads but the producer does not write per event. */
abstract class ChunkHead {
  final int cap;
  final long[] rec;
  /** Reference values (String or object) by event slot, allocated at the first one. */
  Object[] refs;

  ChunkHead(int cap) {
    this.cap = cap;
    this.rec = new long[cap * Events.REC];
  }
}

/** Padding: {@code count}, stored per event by the producer, gets a cache line of its own. */
@SuppressWarnings("unused")
abstract class ChunkPad extends ChunkHead {
  long p0, p1, p2, p3, p4, p5, p6, p7;

  ChunkPad(int cap) {
    super(cap);
  }
}

/** A block of binary event records; {@code count} is published with release semantics. */
final class Chunk extends ChunkPad {
  private static final VarHandle COUNT;
  private static final VarHandle NEXT;

  static {
    try {
      MethodHandles.Lookup l = MethodHandles.lookup();
      COUNT = l.findVarHandle(Chunk.class, "count", int.class);
      NEXT = l.findVarHandle(Chunk.class, "next", Chunk.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private int count;
  private Chunk next;

  Chunk(int cap) {
    super(cap);
  }

  void reset() {
    COUNT.setRelease(this, 0);
    NEXT.setRelease(this, (Chunk) null);
  }

  void publishCount(int n) { COUNT.setRelease(this, n); }
  int countAcquire() { return (int) COUNT.getAcquire(this); }
  void setNext(Chunk c) { NEXT.setRelease(this, c); }
  Chunk nextAcquire() { return (Chunk) NEXT.getAcquire(this); }
}
