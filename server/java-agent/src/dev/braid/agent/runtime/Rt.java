package dev.braid.agent.runtime;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The recorder runtime: static hooks called by instrumented bytecode. Loaded by the bootstrap class
 * loader so that instrumented JDK classes can call it. Every hook returns at once when recording is
 * off, when the recorder itself is running on this thread (recursion guard), or, for code in JDK
 * classes, when no application method is on the thread's stack.
 */
public final class Rt {
  private Rt() {}

  private static volatile boolean enabled;
  private static volatile boolean closed;
  private static EventRing ring;
  private static TraceWriter writer;
  private static Thread writerThread;
  private static double noise;
  private static long noiseSleepMaxNanos;
  private static long seed;
  private static String executionId;

  private static final ThreadLocal<ThreadState> STATE = new ThreadLocal<ThreadState>() {
    @Override
    protected ThreadState initialValue() {
      return new ThreadState(Thread.currentThread(), seed);
    }
  };

  // ---- thread table ----
  private static final ConcurrentHashMap<Thread, Integer> THREAD_IDS = new ConcurrentHashMap<>();
  private static final Object THREAD_LOCK = new Object();
  private static Thread[] threads = new Thread[64];
  private static String[] threadNames = new String[64];
  /** 0 = unknown, 1 = started (seen running), 2 = END written. */
  private static byte[] threadPhase = new byte[64];
  private static int threadCount;

  /** Starts recording into {@code outPath}; called once by the agent. */
  public static void start(String outPath, String headerTemplate, String execution, double noiseProbability,
      long noiseSeed, int noiseSleepMaxMicros) {
    noise = noiseProbability;
    seed = noiseSeed;
    noiseSleepMaxNanos = Math.max(1, noiseSleepMaxMicros) * 1000L;
    executionId = execution;
    ring = new EventRing();
    writer = new TraceWriter(ring, outPath, headerTemplate);
    ThreadState main = STATE.get();
    main.busy++;
    try {
      main.id = threadId(Thread.currentThread());
      markRunning(main.id);
      writerThread = new Thread(writer, "braid-trace-writer");
      writerThread.setDaemon(true);
      writerThread.start();
      Runtime.getRuntime().addShutdownHook(new Thread(Rt::shutdown, "braid-trace-flush"));
    } finally {
      main.busy--;
    }
    enabled = true;
  }

  static boolean isClosed() { return closed; }

  static String executionId() { return executionId; }

  static void markRecorderThread() {
    ThreadState s = STATE.get();
    s.recorderThread = true;
    s.busy++;
  }

  /** Makes the current thread invisible to the recorder until {@link #endInternal()}. */
  public static void beginInternal() {
    STATE.get().busy++;
  }

  public static void endInternal() {
    STATE.get().busy--;
  }

  private static void shutdown() {
    markRecorderThread();
    if (writer == null) return;
    synchronized (THREAD_LOCK) {
      for (int id = 1; id <= threadCount; id++) {
        Thread t = threads[id];
        if (threadPhase[id] == 1 && t != null && !t.isAlive()) {
          threadPhase[id] = 2;
          ring.publish(id, EventRing.KIND_END, 0, -1, -1, 0, 0);
        }
      }
    }
    writer.stopAndWait(writerThread);
    enabled = false;
    closed = true;
  }

  // ---- thread ids ----

  static int threadId(Thread t) {
    Integer id = THREAD_IDS.get(t);
    if (id != null) return id;
    synchronized (THREAD_LOCK) {
      id = THREAD_IDS.get(t);
      if (id != null) return id;
      int n = ++threadCount;
      if (n >= threads.length) {
        threads = java.util.Arrays.copyOf(threads, n * 2);
        threadNames = java.util.Arrays.copyOf(threadNames, n * 2);
        threadPhase = java.util.Arrays.copyOf(threadPhase, n * 2);
      }
      threads[n] = t;
      threadNames[n] = t.getName();
      THREAD_IDS.put(t, n);
      return n;
    }
  }

  private static void markRunning(int id) {
    synchronized (THREAD_LOCK) {
      if (threadPhase[id] == 0) threadPhase[id] = 1;
    }
  }

  static int threadCount() {
    synchronized (THREAD_LOCK) {
      return threadCount;
    }
  }

  static String threadName(int id) {
    synchronized (THREAD_LOCK) {
      return id <= threadCount ? threadNames[id] : "thread-" + id;
    }
  }

  /** True once for a thread that ran, has terminated, and has no END event yet (marks it ended). */
  static boolean isDeadAndNotEnded(int id) {
    synchronized (THREAD_LOCK) {
      Thread t = threads[id];
      if (threadPhase[id] == 1 && t != null && !t.isAlive()) {
        threadPhase[id] = 2;
        return true;
      }
      return false;
    }
  }

  private static boolean markEnded(int id) {
    synchronized (THREAD_LOCK) {
      if (threadPhase[id] == 2) return false;
      threadPhase[id] = 2;
      return true;
    }
  }

  private static int idOf(ThreadState s) {
    if (s.id == 0) {
      s.id = threadId(s.thread);
      markRunning(s.id);
    }
    return s.id;
  }

  // ---- noise ----

  private static void noise(ThreadState s) {
    if (noise <= 0 || s.nextDouble() >= noise) return;
    if ((s.nextLong() & 1) == 0) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(1 + Long.remainderUnsigned(s.nextLong(), noiseSleepMaxNanos));
    }
  }

  private static boolean isJdkLoc(int loc) {
    boolean[] flags = Registry.jdkLocs;
    return loc < flags.length && flags[loc];
  }

  // ---- hooks: method entry and exit (shadow stack) ----

  public static void enter(int loc) {
    if (!enabled) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    s.push(loc, isJdkLoc(loc));
  }

  public static void exit(int loc) {
    if (!enabled) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    s.popTo(loc);
  }

  /** An exception handler of the method entered at {@code loc} starts: frames above it are gone. */
  public static void handler(int loc) {
    if (!enabled) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    s.unwindTo(loc);
  }

  // ---- hooks: memory accesses ----

  public static void read(Object o, int var, int loc) {
    access(EventRing.KIND_R, o, var, loc, EventRing.ELEM_FIELD);
  }

  public static void write(Object o, int var, int loc) {
    access(EventRing.KIND_W, o, var, loc, EventRing.ELEM_FIELD);
  }

  public static void readStatic(int var, int loc) {
    access(EventRing.KIND_R, null, var, loc, EventRing.ELEM_STATIC);
  }

  public static void writeStatic(int var, int loc) {
    access(EventRing.KIND_W, null, var, loc, EventRing.ELEM_STATIC);
  }

  public static void arrayRead(Object array, int index, int var, int loc) {
    if (array == null || index < 0) return;
    access(EventRing.KIND_R, array, var, loc, index);
  }

  public static void arrayWrite(Object array, int index, int var, int loc) {
    if (array == null || index < 0) return;
    access(EventRing.KIND_W, array, var, loc, index);
  }

  private static void access(int kind, Object o, int var, int loc, int elem) {
    if (!enabled) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      noise(s);
      int t = idOf(s);
      int stack = s.stackAt(loc);
      int obj = o == null ? 0 : System.identityHashCode(o);
      ring.publish(t, kind, var, loc, stack, obj, elem);
    } finally {
      s.busy--;
    }
  }

  // ---- hooks: locks ----

  public static void acquire(Object lock, int loc) {
    lockEvent(EventRing.KIND_ACQ, lock, loc);
  }

  public static void release(Object lock, int loc) {
    lockEvent(EventRing.KIND_REL, lock, loc);
  }

  public static void tryAcquired(Object lock, boolean acquired, int loc) {
    if (acquired) lockEvent(EventRing.KIND_ACQ, lock, loc);
  }

  private static void lockEvent(int kind, Object lock, int loc) {
    if (!enabled || lock == null) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      int t = idOf(s);
      ring.publish(t, kind, System.identityHashCode(lock), loc, s.stackAt(loc), 0, 0);
    } finally {
      s.busy--;
    }
  }

  // ---- hooks: threads ----

  public static void beforeStart(Object thread, int loc) {
    if (!enabled || !(thread instanceof Thread)) return;
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      noise(s);
      int t = idOf(s);
      int child = threadId((Thread) thread);
      ring.publish(t, EventRing.KIND_START, child, loc, -1, 0, 0);
    } finally {
      s.busy--;
    }
  }

  public static void afterJoin(Object thread, int loc) {
    if (!enabled || !(thread instanceof Thread)) return;
    Thread child = (Thread) thread;
    if (child.isAlive()) return; // a timed join that timed out
    ThreadState s = STATE.get();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      int t = idOf(s);
      int c = threadId(child);
      if (markEnded(c)) ring.publish(c, EventRing.KIND_END, 0, -1, -1, 0, 0);
      ring.publish(t, EventRing.KIND_JOIN, c, loc, -1, 0, 0);
    } finally {
      s.busy--;
    }
  }

  /** Replaces {@code Thread.join(long)} calls. */
  public static void joinTimed(Thread thread, long millis, int loc) throws InterruptedException {
    thread.join(millis);
    afterJoin(thread, loc);
  }

  // ---- uncaught exceptions ----

  /** Writes an {@code uncaught} line for an exception that ends {@code thread}. */
  public static void uncaught(Thread thread, Throwable e) {
    if (writer == null || closed) return;
    ThreadState s = STATE.get();
    s.busy++;
    try {
      int id = threadId(thread);
      markRunning(id);
      StringBuilder b = new StringBuilder(256);
      b.append("{\"uncaught\":{\"thread\":").append(id);
      b.append(",\"exception\":").append(Json.quote(e.getClass().getName()));
      b.append(",\"message\":").append(Json.quote(String.valueOf(e.getMessage())));
      b.append(",\"frames\":[");
      StackTraceElement[] frames = e.getStackTrace();
      for (int k = 0; k < frames.length && k < 20; k++) {
        if (k > 0) b.append(',');
        StackTraceElement f = frames[k];
        b.append(Json.quote(f.getClassName() + "." + f.getMethodName() + "(" + f.getFileName() + ":" + f.getLineNumber() + ")"));
      }
      b.append("]}}");
      writer.addExtraLine(b.toString());
    } finally {
      s.busy--;
    }
  }
}
