package dev.braid.agent.runtime;

import java.util.HashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Per-point noise (seed 004, docs/noise.md): the table of the points that get noise, each with its
 * probability and noise kind, indexed by a dense int that the instrumenter resolves from the point's
 * id when it instruments the point and bakes into the bytecode ({@code Rt.point(index)}); at run
 * time the lookup is an array index. Two sources: a noise plan (agent option {@code plan=FILE}, one
 * entry per planned point, no noise anywhere else), or, when nothing is recorded
 * ({@code record=false}) and no plan is given, the uniform noise of option {@code noise} at every
 * point of the kinds that get uniform noise while recording (one shared entry); and, with option
 * {@code noiseAt=sync} or {@code all} (recording or not), the uniform noise at the synchronization
 * points (a second shared entry, taken only while the thread holds no recorded lock).
 */
public final class NoisePoints {
  private NoisePoints() {}

  public static final int YIELD = 0;
  /** park for a random time in [1, ms] milliseconds (uniform; exactly ms when ms &lt; 1) */
  public static final int SLEEP = 1;
  /** spin for a fixed time */
  public static final int BUSY = 2;
  /** the uniform noise of {@code braid record --noise}: yield or park up to noiseSleepMaxUs, half each */
  public static final int MIXED = 3;
  /** a scheduling point of the schedule-based noise (PctScheduler, agent option noiseMode=pct) */
  public static final int PCT = 4;

  private static double[] probability = new double[0];
  private static int[] kind = new int[0];
  /** SLEEP: longest park, ns; BUSY: spin time, ns; MIXED: longest park, ns */
  private static long[] maxNanos = new long[0];
  /** SLEEP: shortest park, ns */
  private static long[] minNanos = new long[0];
  /** per entry: the names of the threads that get its noise, or null for every thread */
  private static String[][] threads = new String[0][];
  private static HashMap<String, Integer> planned;
  /** internal names of the classes that hold planned points */
  private static java.util.HashSet<String> plannedClasses = new java.util.HashSet<>();
  /** the shared entry of uniform noise (no plan, record=false), or -1 */
  private static int uniform = -1;
  /** the shared entry of uniform noise at synchronization points (no plan, noiseAt sync or all), or -1 */
  private static int uniformSync = -1;
  /** per entry: noise only while the thread holds no recorded lock (ThreadState.locksHeld) */
  private static boolean[] freeOnly = new boolean[0];

  /**
   * Installs a plan: point ids with their probability and kind; parameters in ns; per point the
   * names of the threads that get its noise ({@code null}: every thread).
   */
  public static synchronized void setPlan(String[] ids, double[] p, int[] kinds, long[] min, long[] max, String[][] only) {
    planned = new HashMap<>();
    plannedClasses = new java.util.HashSet<>();
    for (int k = 0; k < ids.length; k++) {
      planned.put(ids[k], k);
      int paren = ids[k].indexOf('(');
      int dot = paren < 0 ? -1 : ids[k].lastIndexOf('.', paren);
      if (dot > 0) plannedClasses.add(ids[k].substring(0, dot));
    }
    probability = p;
    kind = kinds;
    minNanos = min;
    maxNanos = max;
    threads = only;
    freeOnly = new boolean[p.length];
    uniform = -1;
    uniformSync = -1;
  }

  /**
   * No plan: uniform noise with probability {@code p} at every point of an access kind (record=false
   * only; 0: none) and with probability {@code pSync} at every synchronization point (0: none; with
   * {@code syncFreeOnly} only while the thread holds no recorded lock).
   */
  public static synchronized void setUniform(double p, double pSync, boolean syncFreeOnly, long sleepMaxNanos) {
    if (planned != null) return;
    int n = (p > 0 ? 1 : 0) + (pSync > 0 ? 1 : 0);
    if (n == 0) return;
    probability = new double[n];
    threads = new String[n][];
    kind = new int[n];
    minNanos = new long[n];
    maxNanos = new long[n];
    freeOnly = new boolean[n];
    int k = 0;
    uniform = -1;
    uniformSync = -1;
    if (p > 0) {
      uniform = k;
      probability[k++] = p;
    }
    if (pSync > 0) {
      uniformSync = k;
      freeOnly[k] = syncFreeOnly;
      probability[k++] = pSync;
    }
    for (int j = 0; j < n; j++) {
      kind[j] = MIXED;
      maxNanos[j] = Math.max(1, sleepMaxNanos);
    }
  }

  /**
   * No plan, noiseMode=pct: every synchronization point is a scheduling point (one shared entry), and
   * with {@code accessesToo} (record=false: the access hooks are off) every access point as well.
   */
  public static synchronized void setPct(boolean accessesToo) {
    if (planned != null) return;
    probability = new double[] {1};
    threads = new String[1][];
    kind = new int[] {PCT};
    minNanos = new long[1];
    maxNanos = new long[1];
    freeOnly = new boolean[1];
    uniform = accessesToo ? 0 : -1;
    uniformSync = 0;
  }

  public static synchronized boolean hasPlan() {
    return planned != null;
  }

  /** With a plan: whether the class (internal name) holds a planned point. Without: true. */
  public static synchronized boolean mayHavePoints(String internalName) {
    return planned == null || plannedClasses.contains(internalName);
  }

  /**
   * Instrumentation time: the table index of the point with this id and kind ({@code read},
   * {@code write}, {@code lock}, {@code unlock}, {@code sync}, {@code start}, {@code call}), or -1 when
   * it gets no noise.
   */
  public static synchronized int indexOf(String id, String pointKind) {
    if (planned != null) {
      Integer k = planned.get(id);
      return k == null ? -1 : k;
    }
    if (uniform >= 0 && uniformKind(pointKind)) return uniform;
    if (uniformSync >= 0 && (syncKind(pointKind) || (!freeOnly[uniformSync] && heldKind(pointKind)))) return uniformSync;
    return -1;
  }

  /** Kinds where the recorder injects uniform noise (accesses, library calls, thread start, hand-off sends). */
  private static boolean uniformKind(String k) {
    return k.equals("read") || k.equals("write") || k.equals("call") || k.equals("start") || k.equals("sync");
  }

  /**
   * Points that get uniform noise with noiseAt sync/all: before acquiring, park and unpark, and calls
   * into application code (invoke: a check and the block that acts on it are often two calls apart)
   */
  private static boolean syncKind(String k) {
    return k.equals("lock") || k.equals("park") || k.equals("unpark") || k.equals("invoke");
  }

  /**
   * Synchronization points where the thread holds the lock by contract (unlock, wait, notify,
   * Condition await and signal): uniform noise there only blocks the other threads, so they get it
   * only with noiseInMonitors.
   */
  private static boolean heldKind(String k) {
    return k.equals("unlock") || k.equals("wait") || k.equals("notify") || k.equals("await") || k.equals("signal");
  }

  private static boolean named(String[] names, String name) {
    for (String n : names) if (n.equals(name)) return true;
    return false;
  }

  /** Run time: tosses the point's coin with the thread's seeded generator and makes the noise. */
  static void inject(ThreadState s, int p) {
    if (kind[p] == PCT) {
      PctScheduler.step(s);
      return;
    }
    if (freeOnly[p] && s.locksHeld > 0) return;
    String[] only = threads[p];
    if (only != null && !named(only, Thread.currentThread().getName())) return;
    if (s.nextDouble() >= probability[p]) return;
    switch (kind[p]) {
      case YIELD:
        Thread.yield();
        break;
      case SLEEP: {
        long min = minNanos[p];
        long span = maxNanos[p] - min;
        LockSupport.parkNanos(min + (span > 0 ? Long.remainderUnsigned(s.nextLong(), span + 1) : 0));
        break;
      }
      case BUSY: {
        long end = System.nanoTime() + maxNanos[p];
        while (System.nanoTime() - end < 0) Thread.onSpinWait();
        break;
      }
      default:
        if ((s.nextLong() & 1) == 0) Thread.yield();
        else LockSupport.parkNanos(1 + Long.remainderUnsigned(s.nextLong(), maxNanos[p]));
    }
  }
}
