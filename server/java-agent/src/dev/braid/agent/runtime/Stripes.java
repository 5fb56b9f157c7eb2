package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Striped reader-writer locks that make "take the order index + perform the access" atomic per
 * memory location: an access hook locks the location's stripe before it takes the index and returns
 * a handle; {@link Rt#after(int)}, called right after the access instruction with that handle,
 * unlocks it. So a write and any other access to the same location get indexes in the order in
 * which they really happened (reads of the same location may share the stripe: their relative order
 * does not matter; with Rt's filter on every access locks exclusively, see {@link #ownWriteShadows}).
 * Lock word: bit 30 = writer, bits 0..29 = readers.
 *
 * <p>A waiter that waits longer than {@link #STEAL_NANOS} (a lock left by an access that threw and
 * was caught in code the recorder does not see, or a class initializer run by a static access that
 * needs the same stripe) resets the lock and goes on; unlocking never makes the count negative.
 */
final class Stripes {
  private Stripes() {}

  static final int STRIPES = 4096;
  /** Ints per stripe: one lock per 64-byte cache line. */
  private static final int STRIDE = 16;
  private static final int WRITER = 1 << 30;
  private static final int READERS = WRITER - 1;
  private static final long STEAL_NANOS = 50_000_000L;
  private static final int[] LOCKS = new int[STRIPES * STRIDE];
  private static final VarHandle AH = MethodHandles.arrayElementVarHandle(int[].class);

  static int stripeOf(int objHash, int key) {
    int h = (objHash * 0x9E3779B1) ^ (key * 0x85EBCA6B);
    h ^= h >>> 15;
    h *= 0x2C1B3C6D;
    h ^= h >>> 13;
    return h & (STRIPES - 1);
  }

  /**
   * Locks a stripe, exclusive for a write (or, {@code exclusive}, for any access), shared for a read
   * otherwise; returns the handle for {@link #unlock}: bit 0 = the access is a write, bit 1 = the
   * lock is exclusive, above them the slot + 1.
   */
  static int lock(int stripe, boolean write, boolean exclusive) {
    int slot = stripe * STRIDE;
    boolean excl = write || exclusive;
    if (excl) {
      if (!AH.compareAndSet(LOCKS, slot, 0, WRITER)) lockSlow(slot, true);
    } else {
      int v = (int) AH.getOpaque(LOCKS, slot);
      if ((v & WRITER) != 0 || !AH.compareAndSet(LOCKS, slot, v, v + 1)) lockSlow(slot, false);
    }
    return ((slot + 1) << 2) | (excl ? 2 : 0) | (write ? 1 : 0);
  }

  // ---- the stripe's last recorded accesses (Rt's filter): two locations per stripe, ints 1..6
  // (way 0, the one recorded last) and 8..13 (way 1) of the stripe's cache line, read and written
  // only while the stripe is locked exclusively. Two ways, not one: with one, two locations of a
  // thread's loop that share a stripe (a pair among ~100 locations is likely with 4,096 stripes)
  // displace each other at every access, and whether they share one depends on identity hash codes,
  // i.e. on whatever the JVM hashed before (two builds of the agent recorded a different number of
  // reads of the same one-thread program). A location is in at most one way. ----
  private static final int WAY0 = 1, WAY1 = 8;
  /** Offsets within a way. */
  private static final int W_VAR = 0, W_OBJ = 1, W_ELEM = 2, W_THREAD = 3, W_WROTE = 4, W_EPOCH = 5;
  /** int 7: the trace id of the thread that locked the stripe last (Rt's after hooks find its buffer by it). */
  private static final int L_HOLDER = 7;
  /** ints 14 and 15: the stripe's Lamport clock (order=clock, Events), read and written only while locked exclusively. */
  private static final int L_CLOCK = 14;

  /** order=clock: the clock of the last access recorded under the stripe of {@code handle} (held exclusively). */
  static long clock(int handle) {
    int s = (handle >>> 2) - 1 + L_CLOCK;
    int[] l = LOCKS;
    return ((long) l[s] << 32) | (l[s + 1] & 0xffffffffL);
  }

  static void setClock(int handle, long c) {
    int s = (handle >>> 2) - 1 + L_CLOCK;
    int[] l = LOCKS;
    l[s] = (int) (c >>> 32);
    l[s + 1] = (int) c;
  }

  /**
   * Notes thread {@code t} as the stripe's holder: one plain store to the cache line the lock's CAS
   * just took. Under a shared lock another reader may overwrite it; {@link #holder} is then a hint
   * that its caller checks (Rt.completeRead: the buffer's owner must be the current thread).
   */
  static void hold(int handle, int t) {
    LOCKS[(handle >>> 2) - 1 + L_HOLDER] = t;
  }

  /** The trace id {@link #hold} stored last for the stripe of {@code handle} (a hint, see there). */
  static int holder(int handle) {
    return LOCKS[(handle >>> 2) - 1 + L_HOLDER];
  }

  /**
   * With the stripe of {@code handle} locked exclusively: whether the last access recorded to the
   * location (var, obj, elem) under it, in the same trace segment ({@code epoch}), is thread
   * {@code t}'s and {@code t} wrote the location since another thread last accessed it. A read by
   * {@code t} now is then one UNICORN's access window ignores (a read never replaces a write of its
   * thread's latest slot). False for a location that two others of the stripe displaced.
   */
  static boolean ownWriteShadows(int handle, int var, int obj, int elem, int t, int epoch) {
    int slot = (handle >>> 2) - 1;
    int[] l = LOCKS;
    return shadows(l, slot + WAY0, var, obj, elem, t, epoch) || shadows(l, slot + WAY1, var, obj, elem, t, epoch);
  }

  private static boolean shadows(int[] l, int w, int var, int obj, int elem, int t, int epoch) {
    return l[w + W_WROTE] != 0 && l[w + W_THREAD] == t && l[w + W_VAR] == var && l[w + W_OBJ] == obj
        && l[w + W_ELEM] == elem && l[w + W_EPOCH] == epoch;
  }

  private static boolean same(int[] l, int w, int var, int obj, int elem, int epoch) {
    return l[w + W_VAR] == var && l[w + W_OBJ] == obj && l[w + W_ELEM] == elem && l[w + W_EPOCH] == epoch;
  }

  /** With the stripe of {@code handle} locked exclusively: thread {@code t}'s access to (var, obj, elem) was recorded. */
  static void recorded(int handle, boolean write, int var, int obj, int elem, int t, int epoch) {
    int slot = (handle >>> 2) - 1;
    int[] l = LOCKS;
    int w;
    if (same(l, slot + WAY0, var, obj, elem, epoch)) {
      w = slot + WAY0;
    } else if (same(l, slot + WAY1, var, obj, elem, epoch)) {
      w = slot + WAY1;
    } else {
      // a new location: way 0's moves to way 1 (whose location is displaced), the new one takes way 0
      int a = slot + WAY0, b = slot + WAY1;
      l[b + W_VAR] = l[a + W_VAR];
      l[b + W_OBJ] = l[a + W_OBJ];
      l[b + W_ELEM] = l[a + W_ELEM];
      l[b + W_THREAD] = l[a + W_THREAD];
      l[b + W_WROTE] = l[a + W_WROTE];
      l[b + W_EPOCH] = l[a + W_EPOCH];
      l[a + W_VAR] = var;
      l[a + W_OBJ] = obj;
      l[a + W_ELEM] = elem;
      l[a + W_THREAD] = t;
      l[a + W_WROTE] = write ? 1 : 0;
      l[a + W_EPOCH] = epoch;
      return;
    }
    if (l[w + W_THREAD] == t) {
      if (write) l[w + W_WROTE] = 1;
    } else {
      l[w + W_THREAD] = t;
      l[w + W_WROTE] = write ? 1 : 0;
    }
  }

  private static void lockSlow(int slot, boolean write) {
    long start = 0;
    for (int spins = 0;; spins++) {
      int v = (int) AH.getOpaque(LOCKS, slot);
      if (write) {
        if (v == 0 && AH.compareAndSet(LOCKS, slot, 0, WRITER)) return;
      } else {
        if ((v & WRITER) == 0 && AH.compareAndSet(LOCKS, slot, v, v + 1)) return;
      }
      if (spins < 100) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
        if ((spins & 15) == 0) {
          long now = System.nanoTime();
          if (start == 0) {
            start = now;
          } else if (now - start > STEAL_NANOS) {
            AH.setVolatile(LOCKS, slot, write ? WRITER : 1);
            return;
          }
        }
      }
    }
  }

  static void unlock(int handle) {
    if (handle == 0) return;
    int slot = (handle >>> 2) - 1;
    if ((handle & 2) != 0) {
      // Held exclusively, the word is WRITER and nothing else changes it (readers and writers wait
      // for 0 or a clear writer bit; only a steal after STEAL_NANOS writes it): a release store
      // unlocks, ordered after the access instruction, without a second atomic read-modify-write
      // per access (issue 45). A word changed by a steal goes the old way.
      if ((int) AH.getOpaque(LOCKS, slot) == WRITER) {
        AH.setRelease(LOCKS, slot, 0);
      } else if (!AH.compareAndSet(LOCKS, slot, WRITER, 0)) {
        while (true) {
          int v = (int) AH.getVolatile(LOCKS, slot);
          if ((v & WRITER) == 0 || AH.compareAndSet(LOCKS, slot, v, v & ~WRITER)) return;
        }
      }
    } else {
      while (true) {
        int v = (int) AH.getVolatile(LOCKS, slot);
        if ((v & READERS) == 0 || AH.compareAndSet(LOCKS, slot, v, v - 1)) return;
      }
    }
  }
}
