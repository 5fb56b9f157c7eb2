package dev.braid.agent.runtime;

/**
 * Per-thread recorder state: trace thread id, recursion guard, shadow call stack and the noise
 * random generator. Uses only arrays so that creating it never runs instrumented JDK code.
 */
final class ThreadState {
  /** Trace thread id, assigned when the thread first appears in the trace (0 = not yet). */
  int id;
  final Thread thread;
  /** Non-zero while the recorder itself runs on this thread; hooks then return at once. */
  int busy;
  /** Set for the recorder's own threads. */
  boolean recorderThread;
  /** This thread's event buffer, created at its first event. */
  ThreadBuffer buffer;
  /** Recorded locks this thread holds (acquire minus release hooks; a hint for Forcing's lock check). */
  int locksHeld;
  /** Forcing: per force access, the sequence number of this thread's latest performance (0: never); null until the first. */
  long[] forceLast;
  /**
   * Forcing: per force access, the object key (and the sameKey key) of this thread's latest
   * performance: a window it opened is on that object (Forcing.waitAt)
   */
  long[] forceLastKey;
  long[] forceLastSub;
  /** Forcing: the force accesses of a library call in progress (published when it returns), 0 for none. */
  int forcePending;
  long forcePendingKey;
  /** the pending library access's key for sameKey waits (the object mixed with the call's key) */
  long forcePendingSub;
  /**
   * Forcing: the atNext force accesses of a library call this thread began (performed at its next recorded
   * access, Forcing.flushNext), 0 for none; their object keys and the sequence number at their arrival
   */
  int forceNext;
  long forceNextKey;
  long forceNextSub;
  long forceNextArrived;
  /**
   * Forcing, per wait held before a lock acquisition (beforeLock): the sequence number at which this
   * thread arrived at the lock plus 1, when its hold there was met (the awaited access came after it); its
   * access inside the lock counts the wait as met when the awaited performance was on its object. 0: none.
   * Negative, -(s + 1): not held, the awaited access was already made by another thread after this
   * thread arrived at its previous access of the plan (sequence s, the order already in place in this
   * instance); the access inside the lock counts it as met when that performance was on its object
   */
  long[] forceLockLet;
  /**
   * Forcing: the sequence number (+ 1) when this thread last reached an access of the plan, before any
   * hold there — where its instance of the pattern stands (a hold before a lock counts an awaited access
   * made since as the order already in place). 0: none
   */
  long forceReach;
  /** Forcing: the repetition (Forcing.segment) forceLast and forcePending belong to */
  int forceSegment;
  /**
   * Forcing: the force accesses this thread may take part in (bits, with Forcing's COMPUTED bit once
   * known; 0: not computed yet) — a plan whose accesses name their threads (force.accesses[].threads)
   */
  int forceAllow;

  int depth;
  int[] frameLoc = new int[64];
  /** Location of the call the frame is making (its call-site line), or -1 when not known (then its entry loc). */
  int[] callLoc = new int[64];
  /** Interned stack of frames 0..d (entry locs), or -2 when not computed yet. */
  int[] frameStack = new int[64];
  /** Number of application (non-JDK) frames among frames 0..d. */
  int[] appFrames = new int[64];

  private long rnd;
  /** PctScheduler: this thread's slot (-1: not scheduled) in scheduler epoch pctEpoch (0: none yet). */
  int pctSlot = -1;
  int pctEpoch;

  /** Direct-mapped per-thread cache of stack interning. */
  private final long[] cacheKey = new long[1024];
  private final int[] cacheVal = new int[1024];

  /**
   * Whether the noise generator has its first state ({@link #reseed}). Not done in the constructor:
   * it calls {@code getId}, which a Thread subclass may override in recorded code, and the override's
   * hooks, run while the ThreadLocal is still making this state, would make another, for ever
   * (StackOverflowError in every such thread). ThreadStates seeds a new state once it is the
   * thread's, with busy set, so that those hooks return at once.
   */
  boolean seeded;

  ThreadState(Thread thread) {
    this.thread = thread;
    for (int k = 0; k < cacheKey.length; k++) cacheKey[k] = -1L;
  }

  /**
   * A noise seed: the first (ThreadStates) or a new one (a repetition in one JVM, Rt.beginSegment),
   * as if the state were made now. The caller has set busy.
   */
  void reseed(long seed) {
    seeded = true;
    this.rnd = initialState(seed, thread.getId());
  }

  /**
   * The generator's first state for a run's seed and a thread: SplitMix64's finalizer over both, so
   * that runs with consecutive seeds (a batch: seed, seed + 1, …) start far apart. Without it the
   * first draws of xorshift from seeds that differ in their low bits share their high bits: every
   * run of a batch made the same first noise decisions (a Node batch of 30 runs never failed where
   * the next batch failed 8 of 10).
   */
  static long initialState(long seed, long threadId) {
    long z = seed + 0x9E3779B97F4A7C15L * (threadId + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    return z == 0 ? 1 : z;
  }

  long nextLong() {
    long x = rnd;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    rnd = x;
    return x;
  }

  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  void push(int loc, boolean jdk) {
    if (depth == frameLoc.length) {
      int cap = depth * 2;
      frameLoc = java.util.Arrays.copyOf(frameLoc, cap);
      callLoc = java.util.Arrays.copyOf(callLoc, cap);
      frameStack = java.util.Arrays.copyOf(frameStack, cap);
      appFrames = java.util.Arrays.copyOf(appFrames, cap);
    }
    frameLoc[depth] = loc;
    callLoc[depth] = -1;
    frameStack[depth] = -2;
    appFrames[depth] = (depth > 0 ? appFrames[depth - 1] : 0) + (jdk ? 0 : 1);
    depth++;
  }

  /** Pops frames down to and including the nearest frame entered at {@code loc}. */
  void popTo(int loc) {
    for (int d = depth - 1; d >= 0; d--) {
      if (frameLoc[d] == loc) {
        depth = d;
        return;
      }
    }
  }

  /** Pops frames above the nearest frame entered at {@code loc} (an exception handler of it runs). */
  void unwindTo(int loc) {
    for (int d = depth - 1; d >= 0; d--) {
      if (frameLoc[d] == loc) {
        depth = d + 1;
        return;
      }
    }
  }

  boolean inApplicationCode() {
    return depth > 0 && appFrames[depth - 1] > 0;
  }

  private int intern(int parent, int frame) {
    long k = Stacks.key(parent, frame);
    int h = (int) (k ^ (k >>> 29) ^ (k >>> 41)) * 0x9E3779B1;
    int slot = (h >>> 22) & (cacheKey.length - 1);
    if (cacheKey[slot] == k) return cacheVal[slot];
    int id = Stacks.intern(parent, frame);
    cacheKey[slot] = k;
    cacheVal[slot] = id;
    return id;
  }

  private int stackOfFrame(int d) {
    if (frameStack[d] != -2) return frameStack[d];
    int lo = d;
    while (lo > 0 && frameStack[lo - 1] == -2) lo--;
    int parent = lo == 0 ? -1 : frameStack[lo - 1];
    for (int k = lo; k <= d; k++) {
      int s = intern(parent, callLoc[k] >= 0 ? callLoc[k] : frameLoc[k]);
      frameStack[k] = s;
      parent = s;
    }
    return frameStack[d];
  }

  /** The top frame is about to make a call at {@code loc}: its frame in callees' stacks shows that line. */
  void callAt(int loc) {
    int d = depth - 1;
    if (d < 0 || callLoc[d] == loc) return;
    callLoc[d] = loc;
    frameStack[d] = -2;
  }

  // ---- barrier generations: the k-th await of this thread on a barrier is generation k ----
  private int[] barrierKey = new int[4];
  private int[] barrierGen = new int[4];
  private int barriers;

  int nextGeneration(int barrier) {
    for (int k = 0; k < barriers; k++) {
      if (barrierKey[k] == barrier) return ++barrierGen[k];
    }
    if (barriers == barrierKey.length) {
      barrierKey = java.util.Arrays.copyOf(barrierKey, barriers * 2);
      barrierGen = java.util.Arrays.copyOf(barrierGen, barriers * 2);
    }
    barrierKey[barriers] = barrier;
    barrierGen[barriers] = 1;
    barriers++;
    return 1;
  }

  /** Stack id of an access at {@code loc} in the current (top) method. */
  int stackAt(int loc) {
    return intern(parentStack(), loc);
  }

  /**
   * The stack id of the current method's caller (-1: none), i.e. the parent of {@link #stackAt}'s
   * stack. R and W records carry it in place of the stack: the trace writer interns (parent, loc)
   * itself, and only when its cache of line heads misses (issue 45: the per-thread lookup was 10–20 ns
   * of the compiled access hook).
   */
  int parentStack() {
    return depth >= 2 ? stackOfFrame(depth - 2) : -1;
  }
}
