package dev.braid.agent.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Interned call stacks: stack id = (parent stack id, top frame loc id). Parent -1 means a one-frame
 * stack. Entries are stored in chunks that never move, written before the id is published in the map.
 * The map (key → id) is an open-addressing table of longs read without a lock and without
 * allocation (a ConcurrentHashMap&lt;Long, Integer&gt; boxed the key on every per-thread cache miss,
 * issue 45's profile); insertions and growth under the class lock, a grown table replaces the old
 * one (a reader of the old one that misses takes the lock and looks again).
 */
public final class Stacks {
  private Stacks() {}

  private static final int CHUNK_BITS = 12;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private static final int MAX_CHUNKS = 2048;
  private static final int[][] PARENT = new int[MAX_CHUNKS][];
  private static final int[][] FRAME = new int[MAX_CHUNKS][];
  private static final AtomicInteger NEXT = new AtomicInteger();
  private static final VarHandle KEYS = MethodHandles.arrayElementVarHandle(long[].class);

  /** Keys are stored with the top bit set (0 = empty slot); ids[i] is written before keys[i] (release). */
  private static final class Table {
    final long[] keys;
    final int[] ids;

    Table(int cap) {
      keys = new long[cap];
      ids = new int[cap];
    }
  }

  private static volatile Table table = new Table(1 << 12);
  private static int size;

  private static int slot(long stored, int mask) {
    long h = stored * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 40) & mask;
  }

  private static int find(Table t, long stored) {
    long[] keys = t.keys;
    int mask = keys.length - 1;
    for (int i = slot(stored, mask);; i = (i + 1) & mask) {
      long s = (long) KEYS.getAcquire(keys, i);
      if (s == stored) return t.ids[i];
      if (s == 0) return -1;
    }
  }

  private static void put(Table t, long stored, int id) {
    long[] keys = t.keys;
    int mask = keys.length - 1;
    int i = slot(stored, mask);
    while (keys[i] != 0) i = (i + 1) & mask;
    t.ids[i] = id;
    KEYS.setRelease(keys, i, stored);
  }

  public static long key(int parent, int frame) {
    return ((long) (parent + 1) << 32) | (frame & 0xffffffffL);
  }

  /** Returns the id of (parent, frame), or -1 when the table is full. */
  public static int intern(int parent, int frame) {
    long stored = key(parent, frame) | Long.MIN_VALUE;
    int id = find(table, stored);
    if (id >= 0) return id;
    synchronized (Stacks.class) {
      Table t = table;
      id = find(t, stored);
      if (id >= 0) return id;
      int n = NEXT.get();
      int c = n >>> CHUNK_BITS;
      if (c >= MAX_CHUNKS) return -1;
      if (PARENT[c] == null) {
        PARENT[c] = new int[CHUNK];
        FRAME[c] = new int[CHUNK];
      }
      PARENT[c][n & (CHUNK - 1)] = parent;
      FRAME[c][n & (CHUNK - 1)] = frame;
      NEXT.set(n + 1);
      if (2 * (size + 1) > t.keys.length) {
        Table g = new Table(t.keys.length * 2);
        for (int i = 0; i < t.keys.length; i++) {
          if (t.keys[i] != 0) put(g, t.keys[i], t.ids[i]);
        }
        table = t = g;
      }
      put(t, stored, n);
      size++;
      return n;
    }
  }

  public static synchronized int parent(int id) { return PARENT[id >>> CHUNK_BITS][id & (CHUNK - 1)]; }
  public static synchronized int frame(int id) { return FRAME[id >>> CHUNK_BITS][id & (CHUNK - 1)]; }
}
