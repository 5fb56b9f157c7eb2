package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The events of one thread, in index order: a single producer (the thread) and a single consumer
 * (the writer). {@link #floor} tells the writer which indexes the thread may still publish: 0 when
 * it is not between taking an index and publishing the event, else one more than the last index
 * it published (its pending index is at least that).
 */
final class ThreadBuffer {
  private static final VarHandle FLOOR;

  static {
    try {
      FLOOR = MethodHandles.lookup().findVarHandle(ThreadBuffer.class, "floor", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Events events;
  final Thread owner;

  // ---- producer side ----
  private Chunk cur;
  private int pos;
  private long lastIndex;
  @SuppressWarnings("unused") private long floor;

  // ---- writer side ----
  /** The chunk the writer reads; written only by the writer, read by the producer (back-pressure). */
  volatile Chunk rchunk;
  int rpos;
  int rlimit;

  ThreadBuffer(Events events, Thread owner) {
    this.events = events;
    this.owner = owner;
  }

  /** Makes room for one event (may wait for the writer). False when recording is closed. */
  boolean reserve() {
    Chunk c = cur;
    if (c != null && pos < c.cap) return true;
    Chunk n = events.newChunk(this, c != null);
    if (n == null) return false;
    if (n == Events.DROP) {
      events.dropped.incrementAndGet();
      return false;
    }
    pos = 0;
    cur = n;
    if (c == null) {
      rchunk = n;
      events.register(this);
    } else {
      c.setNext(n);
    }
    return true;
  }

  /** Takes the next global index and publishes the event; {@link #reserve()} must have succeeded. */
  long publish(int t, int kind, int ref, int loc, int stack, int obj, int elem) {
    FLOOR.setRelease(this, lastIndex + 1);
    long i = events.counter.getAndIncrement();
    lastIndex = i;
    Chunk c = cur;
    int p = pos;
    long[] r = c.rec;
    int o = p * Events.REC;
    r[o] = i;
    r[o + 1] = ((long) t << 40) | ((long) kind << 32) | (elem & 0xffffffffL);
    r[o + 2] = ((long) ref << 32) | (loc & 0xffffffffL);
    r[o + 3] = ((long) stack << 32) | (obj & 0xffffffffL);
    pos = p + 1;
    c.publishCount(p + 1);
    FLOOR.setRelease(this, 0L);
    return i;
  }

  /** Producer: true while the writer has not reached this thread's current chunk. */
  boolean hasUnconsumedOlderChunks() {
    Chunk r = rchunk;
    return r != null && r != cur;
  }

  long floorAcquire() {
    return (long) FLOOR.getAcquire(this);
  }

  // ---- writer side ----

  /** Index of the next unconsumed visible event, or Long.MAX_VALUE. */
  long peek() {
    while (true) {
      Chunk c = rchunk;
      if (c == null) return Long.MAX_VALUE;
      if (rpos < rlimit) return c.rec[rpos * Events.REC];
      rlimit = c.countAcquire();
      if (rpos < rlimit) return c.rec[rpos * Events.REC];
      if (rpos < c.cap) return Long.MAX_VALUE;
      Chunk n = c.nextAcquire();
      if (n == null) return Long.MAX_VALUE;
      rchunk = n;
      rpos = 0;
      rlimit = 0;
      events.recycle(c);
    }
  }

  /** Writer, for a drained buffer: detaches and returns its last chunk (null when there is none). */
  Chunk retire() {
    Chunk c = rchunk;
    rchunk = null;
    retired = true;
    return c;
  }

  private boolean retired;

  boolean isRetired() { return retired; }

  /** True when the owner has ended and everything it published was consumed. */
  boolean drained() {
    return !owner.isAlive() && floorAcquire() == 0 && peek() == Long.MAX_VALUE;
  }
}
