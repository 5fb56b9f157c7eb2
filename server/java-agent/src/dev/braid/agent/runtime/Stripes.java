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

  // ---- the stripe's last recorded access (Rt's filter): ints 1..6 of the stripe's cache line,
  // read and written only while the stripe is locked exclusively ----
  private static final int L_VAR = 1, L_OBJ = 2, L_ELEM = 3, L_THREAD = 4, L_WROTE = 5, L_EPOCH = 6;
  /** int 7: the trace id of the thread that locked the stripe last (Rt's after hooks find its buffer by it). */
  private static final int L_HOLDER = 7;

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
   * With the stripe of {@code handle} locked exclusively: whether the last access recorded under it
   * is thread {@code t}'s, to the same location (var, obj, elem), in the same trace segment
   * ({@code epoch}), and {@code t} wrote the location since another thread last accessed it. A read
   * by {@code t} now is then one UNICORN's access window ignores (a read never replaces a write of
   * its thread's latest slot). False for a location another location of the stripe displaced.
   */
  static boolean ownWriteShadows(int handle, int var, int obj, int elem, int t, int epoch) {
    int slot = (handle >>> 2) - 1;
    int[] l = LOCKS;
    return l[slot + L_WROTE] != 0 && l[slot + L_THREAD] == t && l[slot + L_VAR] == var && l[slot + L_OBJ] == obj
        && l[slot + L_ELEM] == elem && l[slot + L_EPOCH] == epoch;
  }

  /** With the stripe of {@code handle} locked exclusively: thread {@code t}'s access to (var, obj, elem) was recorded. */
  static void recorded(int handle, boolean write, int var, int obj, int elem, int t, int epoch) {
    int slot = (handle >>> 2) - 1;
    int[] l = LOCKS;
    if (l[slot + L_THREAD] == t && l[slot + L_VAR] == var && l[slot + L_OBJ] == obj && l[slot + L_ELEM] == elem
        && l[slot + L_EPOCH] == epoch) {
      if (write) l[slot + L_WROTE] = 1;
      return;
    }
    l[slot + L_THREAD] = t;
    l[slot + L_VAR] = var;
    l[slot + L_OBJ] = obj;
    l[slot + L_ELEM] = elem;
    l[slot + L_EPOCH] = epoch;
    l[slot + L_WROTE] = write ? 1 : 0;
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
      if (!AH.compareAndSet(LOCKS, slot, WRITER, 0)) {
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
