package dev.braid.agent.runtime;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Interned call stacks: stack id = (parent stack id, top frame loc id). Parent -1 means a one-frame
 * stack. Entries are stored in chunks that never move, written before the id is published in the map.
 */
public final class Stacks {
  private Stacks() {}

  private static final int CHUNK_BITS = 12;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private static final int MAX_CHUNKS = 2048;
  private static final int[][] PARENT = new int[MAX_CHUNKS][];
  private static final int[][] FRAME = new int[MAX_CHUNKS][];
  private static final ConcurrentHashMap<Long, Integer> IDS = new ConcurrentHashMap<>();
  private static final AtomicInteger NEXT = new AtomicInteger();

  public static long key(int parent, int frame) {
    return ((long) (parent + 1) << 32) | (frame & 0xffffffffL);
  }

  /** Returns the id of (parent, frame), or -1 when the table is full. */
  public static int intern(int parent, int frame) {
    Long k = key(parent, frame);
    Integer id = IDS.get(k);
    if (id != null) return id;
    synchronized (Stacks.class) {
      id = IDS.get(k);
      if (id != null) return id;
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
      IDS.put(k, n);
      return n;
    }
  }

  public static synchronized int parent(int id) { return PARENT[id >>> CHUNK_BITS][id & (CHUNK - 1)]; }
  public static synchronized int frame(int id) { return FRAME[id >>> CHUNK_BITS][id & (CHUNK - 1)]; }
}
