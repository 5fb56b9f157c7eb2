package dev.braid.agent.runtime;

/**
 * The current thread's {@link ThreadState}: every hook's first step. A direct-mapped table indexed
 * by the thread's id (ids are unique and handed out in sequence, so threads alive together seldom
 * share a slot) answers with three loads where {@code ThreadLocal.get} takes about seven, five of
 * them dependent (issue 45: ~8 % of the loop threads' JFR execution samples on the recorder bench,
 * with -XX:+DebugNonSafepoints). A slot holding another thread's state, or none, falls back to the
 * ThreadLocal, which stays the state's owner, and takes the slot.
 *
 * <p>The table is only a cache: a slot is written without a lock (a reference store is atomic; a
 * thread that reads a slot another thread just took sees that state's {@code thread} is not its
 * own and falls back). A dead thread's state would stay reachable from its slot until another
 * thread takes the slot; {@link #forgetDead} (the trace writer's periodic liveness pass) empties
 * such slots, so at most {@link #SLOTS} states outlive their threads between two passes.
 */
final class ThreadStates {
  private ThreadStates() {}

  static final int SLOTS = 256;
  private static final ThreadState[] BY_ID = new ThreadState[SLOTS];

  private static final ThreadLocal<ThreadState> STATE = new ThreadLocal<ThreadState>() {
    @Override
    protected ThreadState initialValue() {
      return new ThreadState(Thread.currentThread());
    }
  };

  /**
   * The table serves threads whose class is {@code Thread} itself (pools' workers, {@code new
   * Thread(runnable)}, a program's main thread): only there is {@code getId} surely the JDK's. A
   * subclass may override it in application code, which is instrumented: its hooks would call this
   * again, for ever. Threads of subclasses (and virtual threads) take the ThreadLocal.
   */
  @SuppressWarnings("deprecation") // Thread.getId: threadId() exists only from JDK 19
  static ThreadState current() {
    Thread t = Thread.currentThread();
    boolean plain = t.getClass() == Thread.class;
    int slot = 0;
    if (plain) {
      slot = (int) t.getId() & (SLOTS - 1);
      ThreadState s = BY_ID[slot];
      if (s != null && s.thread == t) return s;
    }
    ThreadState s = STATE.get();
    if (!s.seeded) seed(s);
    if (plain) BY_ID[slot] = s;
    return s;
  }

  /**
   * A new state's noise seed (ThreadState#seeded): it calls {@code getId}, maybe an override in
   * recorded code, whose hooks find this state (seeded is set first) busy and return at once.
   */
  private static void seed(ThreadState s) {
    s.busy++;
    try {
      s.reseed(Rt.seed());
    } finally {
      s.busy--;
    }
  }

  /** Empties the slots of threads that have ended (called by the trace writer now and then). */
  static void forgetDead() {
    ThreadState[] a = BY_ID;
    for (int k = 0; k < a.length; k++) {
      ThreadState s = a[k];
      // a slot another thread takes meanwhile loses its entry at worst: that thread falls back once
      if (s != null && !s.thread.isAlive()) a[k] = null;
    }
  }
}
