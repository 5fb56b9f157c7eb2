package dev.braid.agent.runtime;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Schedule-based noise (agent option {@code noiseMode=pct}, docs/noise.md "PCT"): PCT, the randomized
 * scheduler of Burckhardt, Kothari, Musuvathi and Nagarakatte (ASPLOS 2010), on a real JVM. Each
 * thread gets a random priority when recorded code starts it, or else when it first reaches a
 * scheduling point (the points where uniform
 * noise goes: accesses, library calls, thread starts, hand-offs, and the synchronization points);
 * at {@code depth - 1} change points, step numbers drawn from {@code [1, steps]} (the expected run
 * length in scheduling points), the thread that makes that step drops below every initial priority
 * (the i-th change point to {@code depth - i}). At each scheduling point a thread waits while a
 * thread of higher priority is runnable: waiting at a scheduling point itself, or in state
 * {@code RUNNABLE} (a thread that is blocked on a monitor, waiting, parked, sleeping or dead is not).
 * Every decision is taken by step counts and the seed, never by time; the only clock is the safety
 * net against a higher thread the scheduler cannot see progress of (native code, a long stretch of
 * code that is not instrumented): a wait ends when {@code maxWaitSteps} scheduling points of other
 * threads have passed since it began (a spinning higher thread), or when no thread made any step
 * for {@code stallMs} (the higher threads it waited for are then not waited for again until their
 * next step). Both are counted and reported ({@link #reportLine}).
 *
 * <p>Priorities and change points are a function of the run's seed: the k-th thread to be started or
 * to reach a scheduling point gets priority {@code depth + prio(seed, k)}; the header records the change points
 * and the first threads' priorities ({@link #headerJson}). The hot path allocates nothing.
 */
public final class PctScheduler {
  private PctScheduler() {}

  /** Threads the scheduler orders; a thread beyond them runs unscheduled (counted). */
  static final int MAX_THREADS = 1024;
  /** Threads whose priorities the header lists. */
  static final int HEADER_PRIORITIES = 8;
  /** One pause of a waiting thread (after a few yields), ns. */
  private static final long PAUSE_NANOS = 50_000L;

  /** set once at the agent's start, before the program's threads run */
  static boolean on;
  private static int depth = 3;
  private static long expectedSteps = 2000;
  private static long maxWaitSteps = 1000;
  private static long stallNanos = 100_000_000L;
  private static long seed;
  private static long[] changeAt = new long[0];

  /** Segment (repetition in one JVM) of the current slots; a thread's slot of an older epoch is stale. */
  private static volatile int epoch = 1;
  private static volatile int slots;
  private static final AtomicReferenceArray<Thread> THREADS = new AtomicReferenceArray<>(MAX_THREADS);
  private static final AtomicLongArray PRIORITY = new AtomicLongArray(MAX_THREADS);
  private static final AtomicIntegerArray WAITING = new AtomicIntegerArray(MAX_THREADS);
  /** per slot: 1 after a wait stalled on the thread (no step for stallMs), until its next step: not waited for */
  private static final AtomicIntegerArray QUIET = new AtomicIntegerArray(MAX_THREADS);
  private static final AtomicLong STEP = new AtomicLong();
  private static final AtomicLong WAITS = new AtomicLong();
  private static final AtomicLong STEP_BOUND = new AtomicLong();
  private static final AtomicLong STALLED = new AtomicLong();
  private static final AtomicLong CHANGES = new AtomicLong();
  private static final AtomicLong UNSCHEDULED = new AtomicLong();

  /**
   * Turns the scheduler on with its parameters (agent options pctDepth, pctSteps, pctMaxWaitSteps,
   * pctStallMs) and the run's seed.
   */
  public static synchronized void configure(int d, long steps, long maxWait, long stallMs, long runSeed) {
    depth = Math.max(1, d);
    expectedSteps = Math.max(1, steps);
    maxWaitSteps = Math.max(1, maxWait);
    stallNanos = Math.max(1, stallMs) * 1_000_000L;
    begin(runSeed);
    on = true;
  }

  /** A new run (the start, or a repetition's segment): its seed's change points, no thread yet, counts at 0. */
  static synchronized void begin(long runSeed) {
    seed = runSeed;
    long[] cp = new long[depth - 1];
    for (int j = 0; j < cp.length; j++) cp[j] = 1 + Long.remainderUnsigned(mix(runSeed, 0x5043540000L + j), expectedSteps);
    // the i-th change point in step order lowers to depth - i; equal draws are one step
    Arrays.sort(cp);
    changeAt = cp;
    for (int k = 0; k < slots; k++) {
      THREADS.set(k, null);
      WAITING.set(k, 0);
      QUIET.set(k, 0);
    }
    slots = 0;
    epoch++;
    STEP.set(0);
    WAITS.set(0);
    STEP_BOUND.set(0);
    STALLED.set(0);
    CHANGES.set(0);
    UNSCHEDULED.set(0);
  }

  /** SplitMix64's finalizer over the seed and a stream number (ThreadState.initialState's mixing). */
  static long mix(long s, long stream) {
    long z = s + 0x9E3779B97F4A7C15L * (stream + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The initial priority of the k-th thread to reach a scheduling point: above every change point's. */
  static long initialPriority(long runSeed, int k) {
    return depth + (mix(runSeed, k) >>> 24);
  }

  /** A scheduling point on the current thread (inside the recorder's busy guard). */
  static void step(ThreadState s) {
    int slot = s.pctSlot;
    if (s.pctEpoch != epoch) {
      slot = register(s);
    }
    if (slot < 0) return;
    if (QUIET.get(slot) != 0) QUIET.set(slot, 0);
    long n = STEP.incrementAndGet();
    long[] cp = changeAt;
    for (int j = 0; j < cp.length; j++) {
      if (cp[j] == n) {
        PRIORITY.set(slot, depth - 1 - j);
        CHANGES.incrementAndGet();
      }
    }
    long mine = PRIORITY.get(slot);
    if (!higherRunnable(slot, mine)) return;
    WAITS.incrementAndGet();
    WAITING.set(slot, 1);
    try {
      long last = STEP.get();
      long since = System.nanoTime();
      for (int spins = 0; ; spins++) {
        if (spins < 4) Thread.yield();
        else LockSupport.parkNanos(PAUSE_NANOS);
        if (!higherRunnable(slot, mine)) return;
        long now = STEP.get();
        if (now - n >= maxWaitSteps) {
          STEP_BOUND.incrementAndGet();
          return;
        }
        if (now != last) {
          last = now;
          since = System.nanoTime();
        } else if (System.nanoTime() - since >= stallNanos) {
          STALLED.incrementAndGet();
          markQuiet(slot, mine);
          return;
        }
      }
    } finally {
      WAITING.set(slot, 0);
    }
  }

  /** Whether a thread of higher priority than {@code mine} (ties: the lower slot) may run now. */
  private static boolean higherRunnable(int slot, long mine) {
    int n = slots;
    for (int k = 0; k < n; k++) {
      if (k == slot) continue;
      long p = PRIORITY.get(k);
      if (p < mine || (p == mine && k > slot)) continue;
      Thread t = THREADS.get(k);
      if (t == null || QUIET.get(k) != 0) continue;
      if (WAITING.get(k) != 0) return true;
      if (t.getState() == Thread.State.RUNNABLE) return true;
    }
    return false;
  }

  /**
   * A wait stalled: the higher threads it waited for that are not waiting themselves made no step
   * for stallMs (native code, a long stretch without instrumented code); no thread waits for them
   * again until their next step, so one such thread costs the others one stall, not one per step.
   */
  private static void markQuiet(int slot, long mine) {
    int n = slots;
    for (int k = 0; k < n; k++) {
      if (k == slot || WAITING.get(k) != 0) continue;
      long p = PRIORITY.get(k);
      if (p < mine || (p == mine && k > slot)) continue;
      QUIET.set(k, 1);
    }
  }

  private static synchronized int register(ThreadState s) {
    if (s.pctEpoch == epoch) return s.pctSlot;
    s.pctEpoch = epoch;
    int n = slots;
    for (int k = 0; k < n; k++) {
      if (THREADS.get(k) == s.thread) return s.pctSlot = k;
    }
    return s.pctSlot = add(s.thread);
  }

  /**
   * Thread.start in recorded code: the new thread gets its slot and priority now, in its parent's
   * program order (so the k-th thread started is the same thread in every run), and counts from its
   * start: a thread that has not reached a scheduling point yet is running all the same.
   */
  static synchronized void started(Thread child) {
    int n = slots;
    for (int k = 0; k < n; k++) {
      if (THREADS.get(k) == child) return;
    }
    add(child);
  }

  private static int add(Thread t) {
    int k = slots;
    if (k >= MAX_THREADS) {
      UNSCHEDULED.incrementAndGet();
      return -1;
    }
    PRIORITY.set(k, initialPriority(seed, k));
    WAITING.set(k, 0);
    QUIET.set(k, 0);
    THREADS.set(k, t);
    slots = k + 1;
    return k;
  }

  /**
   * The parameters for the trace header's recorder options (key {@code pct}): depth, expected steps,
   * the change points and the priorities of the first threads, in the order they reach a point.
   */
  public static synchronized String headerJson() {
    StringBuilder b = new StringBuilder(200);
    b.append("{\"depth\":").append(depth).append(",\"steps\":").append(expectedSteps);
    b.append(",\"changePoints\":[");
    for (int j = 0; j < changeAt.length; j++) b.append(j > 0 ? "," : "").append(changeAt[j]);
    b.append("],\"priorities\":[");
    for (int k = 0; k < HEADER_PRIORITIES; k++) b.append(k > 0 ? "," : "").append(initialPriority(seed, k));
    return b.append("]}").toString();
  }

  /**
   * The trace line {@code {"pct":{…}}} at the end of a run (docs/trace-format.md): scheduling points
   * made, threads ordered, waits, waits ended by the step bound or a stall, priority changes made,
   * threads left unscheduled.
   */
  static String reportLine() {
    return "{\"pct\":{\"steps\":" + STEP.get() + ",\"threads\":" + slots + ",\"waits\":" + WAITS.get()
        + ",\"endedByStepBound\":" + STEP_BOUND.get() + ",\"endedByStall\":" + STALLED.get()
        + ",\"changes\":" + CHANGES.get() + ",\"unscheduled\":" + UNSCHEDULED.get() + "}}";
  }
}
