package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The events of one thread, in index order: a single producer (the thread) and a single consumer
 * (the writer). {@link #floor} tells the writer which indexes the thread may still publish: 0 when
 * it is not between taking an index and publishing the event, else one more than the last index
 * it published (its pending index is at least that).
 */
final class ThreadBuffer extends ThreadBufferFields.Pad2 {
  private static final VarHandle FLOOR;
  /** Floor bit: the thread's last event is a read whose value is still being stored (see {@link #publishRead}). */
  static final long VALUE_PENDING = 1L << 62;

  static {
    try {
      FLOOR = MethodHandles.lookup().findVarHandle(ThreadBufferFields.Producer.class, "floor", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final Events events;
  final Thread owner;

  // The producer's fields (cur, pos, lastIndex, floor, pending read) and the writer's (rchunk,
  // rpos, rlimit, …) live in superclasses, on cache lines of their own (ThreadBufferFields):
  // sharing one line made the writer's per-event cursor updates and the producer's per-event
  // stores invalidate each other.

  ThreadBuffer(Events events, Thread owner) {
    this.events = events;
    this.owner = owner;
    // order=clock: a thread's first event follows the START that started it (the sync clock is at
    // least the START's clock: the START took it before Thread.start)
    if (ClockOrder.ON) lastIndex = events.syncClock.get();
  }

  // ---- order=clock (Events): enter() before the stripe's lock (or a full fence), then clockAbove,
  // then a publish method, which publishes the event with that clock; leave() when no event follows ----

  /** Tells the writer that this thread may publish a clock above its last one from now on. */
  void enter() {
    FLOOR.setRelease(this, lastIndex + 1);
  }

  /** No event after {@link #enter}. */
  void leave() {
    FLOOR.setRelease(this, 0L);
  }

  /** The clock of the thread's next event: above its last, {@code min} and the writer's watermark; published by the next publish. */
  long clockAbove(long min) {
    long c = lastIndex;
    if (min > c) c = min;
    long e = events.watermark();
    if (e > c) c = e;
    return nextClock = c + 1;
  }

  /** The clock of the thread's last event (order=clock); read by another thread only after a join. */
  long lastClock() {
    return lastIndex;
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


  /**
   * Publishes a read whose value is known only after the access instruction: the floor stays set
   * (with {@link #VALUE_PENDING}) until {@link #completeRead} stores the value, so the writer
   * does not write the event before. Returns the index.
   */
  long publishRead(int t, int kind, int ref, int loc, int stack, int obj, int elem) {
    Chunk c = cur;
    int p = pos;
    c.rec[p * Events.REC + 5] = Events.V_NONE;
    long i = publish(t, kind, ref, loc, stack, obj, elem, false);
    pendingChunk = c;
    pendingPos = p;
    pendingIndex = i;
    return i;
  }

  /** The read published last gets its value (when still pending); the writer may then write it. */
  void completeRead(int vtype, long bits, Object value) {
    int p = pendingPos;
    if (p < 0) return;
    pendingPos = -1;
    Chunk c = pendingChunk;
    pendingChunk = null;
    int o = p * Events.REC;
    // the writer gave up waiting (> 1 s) and may have recycled the chunk for another thread
    if (c.rec[o] != pendingIndex) {
      FLOOR.setRelease(this, 0L);
      return;
    }
    c.rec[o + 4] = bits;
    c.rec[o + 5] = vtype;
    if (vtype == Events.V_REF) storeRef(c, p, value);
    FLOOR.setRelease(this, 0L);
  }

  /**
   * The reference value of slot {@code p}, null included: chunks are reused without clearing their
   * refs (the writer clears each slot it takes), so a slot may hold an older event's object.
   */
  private static void storeRef(Chunk c, int p, Object value) {
    Object[] refs = c.refs;
    if (refs == null) {
      if (value == null) return;
      c.refs = refs = new Object[c.cap];
    }
    refs[p] = value;
  }

  /** A write (or other event) with its value. */
  long publishValue(int t, int kind, int ref, int loc, int stack, int obj, int elem, int vtype, long bits, Object value) {
    Chunk c = cur;
    int p = pos;
    int o = p * Events.REC;
    c.rec[o + 4] = bits;
    c.rec[o + 5] = vtype;
    if (vtype == Events.V_REF) storeRef(c, p, value);
    return publish(t, kind, ref, loc, stack, obj, elem, true);
  }

  /** Takes the next global index and publishes the event; {@link #reserve()} must have succeeded. */
  long publish(int t, int kind, int ref, int loc, int stack, int obj, int elem) {
    Chunk c = cur;
    int o = pos * Events.REC;
    c.rec[o + 5] = Events.V_NONE;
    return publish(t, kind, ref, loc, stack, obj, elem, true);
  }

  private long publish(int t, int kind, int ref, int loc, int stack, int obj, int elem, boolean done) {
    pendingPos = -1; // a nested event (class initializer) before a pending read's value: that value is lost
    long i;
    if (ClockOrder.ON) {
      i = nextClock; // (the floor was set by enter)
    } else {
      FLOOR.setRelease(this, lastIndex + 1);
      i = events.counter.getAndIncrement();
    }
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
    FLOOR.setRelease(this, done ? 0L : i | VALUE_PENDING);
    return i;
  }

  /** Producer: true while the writer has not reached this thread's current chunk. */
  boolean hasUnconsumedOlderChunks() {
    Chunk r = rchunk;
    return r != null && r != cur;
  }


  /** Writer: true when this pending-value floor has not moved for a second (write the read without value). */
  boolean valuePendingTooLong(long f) {
    long now = System.nanoTime();
    if (f != stuckFloor) {
      stuckFloor = f;
      stuckSince = now;
      return false;
    }
    return now - stuckSince > 1_000_000_000L;
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

  boolean isRetired() { return retired; }

  /** True when the owner has ended and everything it published was consumed. */
  boolean drained() {
    long f = floorAcquire();
    return !owner.isAlive() && (f == 0 || (f & VALUE_PENDING) != 0) && peek() == Long.MAX_VALUE;
  }
}
