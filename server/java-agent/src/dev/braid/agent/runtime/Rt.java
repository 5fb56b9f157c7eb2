package dev.braid.agent.runtime;

import java.lang.invoke.VarHandle;
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
  private static Events events;
  private static TraceWriter writer;
  private static Thread writerThread;
  private static double noise;
  private static long noiseSleepMaxNanos;
  private static volatile long seed;
  private static volatile String executionId;

  /** The noise seed a new thread's state starts from (ThreadStates). */
  static long seed() {
    return seed;
  }

  // ---- thread table ----
  private static final ConcurrentHashMap<Thread, Integer> THREAD_IDS = new ConcurrentHashMap<>();
  private static final Object THREAD_LOCK = new Object();
  private static Thread[] threads = new Thread[64];
  private static String[] threadNames = new String[64];
  /** 0 = unknown, 1 = started (seen running), 2 = END written. */
  private static byte[] threadPhase = new byte[64];
  private static int threadCount;
  /** Ids of the threads in phase 1 (started, no END yet), so the writer's scan for dead threads is short. */
  private static int[] running = new int[64];
  private static int runningCount;

  /** Starts recording into {@code outPath}; called once by the agent. */
  public static void start(String outPath, String headerTemplate, String execution, double noiseProbability,
      long noiseSeed, int noiseSleepMaxMicros) {
    start(outPath, headerTemplate, execution, noiseProbability, noiseSeed, noiseSleepMaxMicros, true);
  }

  /**
   * Starts the runtime; called once by the agent. {@code record=false} (agent option record=false):
   * no event is recorded (the hooks stay off, the instrumenter only places noise points), and the
   * file {@code outPath} is written only if some thread dies of an uncaught exception (the header and
   * its {@code uncaught} line, from which the runner decides the outcome as for a recorded run).
   */
  public static void start(String outPath, String headerTemplate, String execution, double noiseProbability,
      long noiseSeed, int noiseSleepMaxMicros, boolean record) {
    noise = noiseProbability;
    seed = noiseSeed;
    noiseSleepMaxNanos = Math.max(1, noiseSleepMaxMicros) * 1000L;
    executionId = execution;
    events = new Events();
    // repetitions (prepareSegments): no file until the first segment begins
    writer = new TraceWriter(events, segmentHeader != null ? null : outPath, headerTemplate);
    ThreadState main = ThreadStates.current();
    main.busy++;
    try {
      if (record) {
        main.id = threadId(Thread.currentThread());
        markRunning(main.id);
      }
      writerThread = new Thread(writer, "braid-trace-writer");
      writerThread.setDaemon(true);
      writerThread.start();
      // (no lambda or method reference in the agent: their first use costs start-up time)
      Runtime.getRuntime().addShutdownHook(new Thread("braid-trace-flush") {
        @Override
        public void run() {
          shutdown();
        }
      });
    } finally {
      main.busy--;
    }
    enabled = record;
  }

  static boolean isClosed() { return closed; }

  // ---- trace segments: many runs in one JVM (docs/recorder.md, "Repetitions in one JVM") ----

  /** The header with placeholders for execution, seed and start time; non-null in segment mode. */
  private static volatile String segmentHeader;
  /** a segment is being written (between beginSegment and endSegment): a shutdown then ends it, with its reports */
  private static volatile boolean segmentOpen;
  public static final String SEED_MARK = "\u0000SEED\u0000";
  public static final String STARTED_MARK = "\u0000STARTED\u0000";
  /** the schedule-based noise's parameters of the segment's seed (PctScheduler.headerJson) */
  public static final String PCT_MARK = "\u0000PCT\u0000";

  /**
   * Segment mode (agent option repeat): called before {@link #start}; nothing is written until a
   * driver (Braid's RepeatLauncher) calls {@link #beginSegment}. {@code header} holds
   * {@link #SEED_MARK} and {@link #STARTED_MARK} (and the execution mark the writer fills).
   */
  public static void prepareSegments(String header) {
    segmentHeader = header;
  }

  /** Whether this JVM records in segments (the agent option repeat was given and recording is on). */
  public static boolean segmented() {
    return segmentHeader != null && writer != null && enabled && !closed;
  }

  /**
   * Starts a new trace segment: every event from now on goes to {@code outPath} (created at its first
   * line, with its own header: execution id, noise seed, start time; every definition written again
   * before its first use), until {@link #endSegment}. The current thread and the threads started
   * from now on draw noise from {@code seedText}. Returns false when this JVM is not in segment mode.
   */
  public static boolean beginSegment(String outPath, String execution, String seedText) {
    if (!segmented() || outPath == null || outPath.isEmpty()) return false;
    ThreadState s = ThreadStates.current();
    s.busy++;
    try {
      long newSeed = parseSeed(seedText);
      seed = newSeed;
      s.reseed(newSeed);
      if (PctScheduler.on) PctScheduler.begin(newSeed);
      epoch++;
      executionId = execution;
      // the launcher's thread starts the repetition with no frame: a test that ended by throwing
      // into JUnit (not recorded) left its frames, which would grow under every later repetition
      s.depth = 0;
      // a forcing plan forces each repetition afresh, with its own report (endSegment)
      Forcing.beginSegment();
      String header = segmentHeader.replace(SEED_MARK, Json.quote(seedText)).replace(PCT_MARK, PctScheduler.headerJson())
          .replace(STARTED_MARK, Json.quote(java.time.Instant.now().toString()));
      writer.switchTo(events.counter.get(), outPath, header, writerThread);
      segmentOpen = true;
      return true;
    } finally {
      s.busy--;
    }
  }

  /**
   * Ends the current segment: the END of each thread that has terminated, everything published so
   * far and the pending uncaught-exception lines are written and the file is closed before this
   * returns (at most a few seconds); events until the next {@link #beginSegment} are dropped.
   */
  public static boolean endSegment() {
    if (!segmented()) return false;
    ThreadState s = ThreadStates.current();
    s.busy++;
    try {
      for (int id : takeDeadThreads()) publish(s, id, Events.KIND_END, 0, -1, -1, 0, 0);
      // the repetition's forcing report ends its segment, as a JVM's ends its trace (shutdown)
      String forcing = !noFile && Registry.applicationCode ? Forcing.reportLine() : null;
      Forcing.stop();
      if (forcing != null) writer.addExtraLine(forcing);
      if (PctScheduler.on) writer.addExtraLine(PctScheduler.reportLine());
      segmentOpen = false;
      s.depth = 0;
      writer.switchTo(events.counter.get(), null, null, writerThread);
      return true;
    } finally {
      s.busy--;
    }
  }

  /** Numeric noise seed from the seed text (a number, or any text hashed), as the agent's option seed. */
  public static long parseSeed(String seed) {
    try {
      return Long.parseLong(seed.trim());
    } catch (NumberFormatException e) {
      long h = 1125899906842597L;
      for (int k = 0; k < seed.length(); k++) h = 31 * h + seed.charAt(k);
      return h;
    }
  }

  private static boolean noFile;

  /** record=false without a file (agent option out): uncaught exceptions are only printed. */
  public static void noTraceFile() {
    noFile = true;
  }

  private static long pid = -1;

  /**
   * This JVM's process id. Read from /proc/self on Linux: ProcessHandle.current() starts a thread
   * pool and spins lambdas, tens of milliseconds of start-up in every recorded JVM.
   */
  public static synchronized long pid() {
    if (pid >= 0) return pid;
    try {
      pid = Long.parseLong(new java.io.File("/proc/self").getCanonicalFile().getName());
    } catch (java.io.IOException | RuntimeException e) {
      pid = ProcessHandle.current().pid();
    }
    return pid;
  }

  /** Bounded back-pressure: longest wait for the trace writer before events are dropped. */
  public static void setMaxWaitMillis(long millis) {
    Events.maxWaitNanos = millis * 1_000_000L;
  }

  static String executionId() { return executionId; }

  static void markRecorderThread() {
    ThreadState s = ThreadStates.current();
    s.recorderThread = true;
    s.busy++;
  }

  /** Makes the current thread invisible to the recorder until {@link #endInternal()}. */
  public static void beginInternal() {
    ThreadStates.current().busy++;
  }

  public static void endInternal() {
    ThreadStates.current().busy--;
  }

  private static void shutdown() {
    markRecorderThread();
    if (writer == null) return;
    ThreadState s = ThreadStates.current();
    if (enabled) synchronized (THREAD_LOCK) {
      for (int id = 1; id <= threadCount; id++) {
        Thread t = threads[id];
        if (threadPhase[id] == 1 && t != null && !t.isAlive()) {
          threadPhase[id] = 2;
          publish(s, id, Events.KIND_END, 0, -1, -1, 0, 0);
        }
      }
    }
    // the forcing report (docs/trace-format.md), only from a JVM that ran application code (as OUT lines)
    String forcing = enabled && !noFile && Registry.applicationCode ? Forcing.reportLine() : null;
    Forcing.stop();
    if (forcing != null) writer.addExtraLine(forcing);
    // the schedule report of the JVM's trace, or of the repetition the shutdown cut short (a time
    // limit's SIGTERM): without it the recorder would learn the run length from the runs that ended only
    if (PctScheduler.on && !noFile && (segmentHeader == null || segmentOpen)) writer.addExtraLine(PctScheduler.reportLine());
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
      if (threadPhase[id] == 0) {
        threadPhase[id] = 1;
        if (runningCount == running.length) running = java.util.Arrays.copyOf(running, runningCount * 2);
        running[runningCount++] = id;
      }
    }
  }

  /**
   * Writer: the ids of the threads that ran, have terminated and have no END event yet, marked
   * ended (the caller writes their END). Forgets ended threads' Thread objects.
   */
  static int[] takeDeadThreads() {
    synchronized (THREAD_LOCK) {
      int n = 0;
      int kept = 0;
      int[] dead = null;
      for (int k = 0; k < runningCount; k++) {
        int id = running[k];
        if (threadPhase[id] != 1) continue;
        Thread t = threads[id];
        if (t != null && !t.isAlive()) {
          threadPhase[id] = 2;
          if (dead == null) dead = new int[runningCount - k];
          dead[n++] = id;
        } else {
          running[kept++] = id;
        }
      }
      runningCount = kept;
      return dead == null ? new int[0] : java.util.Arrays.copyOf(dead, n);
    }
  }

  /** The recorded threads that are alive (Forcing's lock check without java.management). */
  static Thread[] liveThreads() {
    synchronized (THREAD_LOCK) {
      java.util.ArrayList<Thread> out = new java.util.ArrayList<>();
      for (int id = 1; id <= threadCount; id++) {
        Thread t = threads[id];
        if (t != null && t.isAlive()) out.add(t);
      }
      return out.toArray(new Thread[0]);
    }
  }

  /** Whether the thread with trace id {@code id} is alive (Forcing: is a partner thread left?). */
  static boolean threadAlive(int id) {
    synchronized (THREAD_LOCK) {
      Thread t = id > 0 && id <= threadCount ? threads[id] : null;
      return t != null && t.isAlive();
    }
  }

  /** The thread is alive and not waiting without a timeout or blocked on a monitor (it may act by itself). */
  static boolean threadFree(int id) {
    Thread t;
    synchronized (THREAD_LOCK) {
      t = id > 0 && id <= threadCount ? threads[id] : null;
    }
    if (t == null) return false;
    Thread.State st = t.getState();
    return st != Thread.State.TERMINATED && st != Thread.State.WAITING && st != Thread.State.BLOCKED;
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
    if (PctScheduler.on) {
      PctScheduler.step(s);
      return;
    }
    if (noise <= 0 || s.nextDouble() >= noise) return;
    if ((s.nextLong() & 1) == 0) {
      Thread.yield();
    } else {
      LockSupport.parkNanos(1 + Long.remainderUnsigned(s.nextLong(), noiseSleepMaxNanos));
    }
  }

  /**
   * Noise point {@code p} of a noise plan (or of uniform noise without recording): the instrumenter
   * places this call before the point's instruction only at points that get noise (NoisePoints).
   */
  public static void point(int p) {
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    NoisePoints.inject(s, p);
  }

  /** {@link #point} in an included JDK class: noise only when called from application code (while recording). */
  public static void pointJdk(int p) {
    ThreadState s = ThreadStates.current();
    if (s.busy != 0 || (enabled && !s.inApplicationCode())) return;
    NoisePoints.inject(s, p);
  }

  private static boolean isJdkLoc(int loc) {
    boolean[] flags = Registry.jdkLocs;
    return loc < flags.length && flags[loc];
  }

  // ---- hooks: method entry and exit (shadow stack) ----

  public static void enter(int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.push(loc, isJdkLoc(loc));
  }

  public static void exit(int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.popTo(loc);
  }

  /** An exception handler of the method entered at {@code loc} starts: frames above it are gone. */
  public static void handler(int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.unwindTo(loc);
  }

  private static ThreadBuffer bufferOf(ThreadState s) {
    ThreadBuffer b = s.buffer;
    if (b == null) {
      s.buffer = b = new ThreadBuffer(events, s.thread);
      if (s.id != 0) registerBuffer(s.id, b);
    }
    return b;
  }

  /**
   * Each recording thread's buffer by its trace id, so that an after hook finds the buffer of the
   * read it completes from the stripe's holder id ({@link Stripes#holder}) instead of a second
   * ThreadLocal lookup (issue 45: {@code ThreadLocal.get} was 13 % of the application threads' JFR
   * samples on the recorder bench). Grown under THREAD_LOCK, read without a lock: a reader that
   * sees an older array, or a slot of another thread, takes the ThreadLocal path.
   */
  private static volatile ThreadBuffer[] buffersById = new ThreadBuffer[64];

  private static void registerBuffer(int id, ThreadBuffer b) {
    synchronized (THREAD_LOCK) {
      ThreadBuffer[] a = buffersById;
      if (id >= a.length) a = java.util.Arrays.copyOf(a, Math.max(id + 1, a.length * 2));
      a[id] = b;
      buffersById = a;
    }
  }

  /** The current thread's buffer, found from the trace id of the stripe's holder when it is this thread's. */
  private static ThreadBuffer ownBuffer(int handle) {
    int t = Stripes.holder(handle);
    ThreadBuffer[] a = buffersById;
    if (t > 0 && t < a.length) {
      ThreadBuffer b = a[t];
      // one buffer per thread (bufferOf): a buffer this thread owns is ThreadStates.current().buffer
      if (b != null && b.owner == Thread.currentThread()) return b;
    }
    return ThreadStates.current().buffer;
  }

  /** Publishes an event of the current thread (state {@code s}, busy) with the next index. */
  private static void publish(ThreadState s, int t, int kind, int ref, int loc, int stack, int obj, int elem) {
    ThreadBuffer b = bufferOf(s);
    if (!b.reserve()) return;
    if (ClockOrder.ON) {
      // order=clock: through the sync clock; an END or JOIN after the ended thread's last event
      long min = kind == Events.KIND_END ? lastClockOf(t) : kind == Events.KIND_JOIN ? lastClockOf(ref) : 0;
      b.enter();
      VarHandle.fullFence();
      b.nextClock = events.syncAfter(b.clockAbove(min));
    }
    b.publish(t, kind, ref, loc, stack, obj, elem);
  }

  /** Agent option order (ClockOrder); read once, when ClockOrder is initialized. */
  static boolean clockOrderOption;

  /**
   * Agent option order=clock (Events); called once, before anything records (the agent's start):
   * it fixes {@link ClockOrder#ON} for the JVM's lifetime.
   */
  public static void setClockOrder(boolean on) {
    clockOrderOption = on;
    if (ClockOrder.ON != on) System.err.println("[braid-agent] order=" + (on ? "clock" : "counter") + " ignored: the order was fixed before the agent's options were read");
  }

  /** order=clock: the clock of the last event of thread {@code id}'s buffer (0: none). */
  static long lastClockOf(int id) {
    ThreadBuffer[] a = buffersById;
    ThreadBuffer b = id > 0 && id < a.length ? a[id] : null;
    return b != null ? b.lastClock() : 0;
  }

  // ---- hooks: memory accesses ----
  // Each access hook is followed by the access instruction and then by an after hook with the
  // hook's handle: the hook locks the location's stripe (Stripes) before it takes the index, the
  // after hook unlocks it. An access that will throw (null object, index out of bounds) is not
  // recorded and locks nothing. Values (issue 12): a write hook gets the value written; a read is
  // published with its value pending (the writer waits for it) and the after hook with the value
  // read (afterI … afterA) stores it; plain after(h) completes a read without value.

  private static volatile boolean values = true;

  /** Agent option values=false: no values are recorded. */
  public static void setValues(boolean on) {
    values = on;
  }

  /**
   * The filter (agent option filter, on by default; docs/recorder.md): a read is not recorded when
   * its location's last recorded access is the same thread's and that thread wrote the location
   * since another thread last accessed it. UNICORN's access window ignores exactly such a read (the
   * latest slot is that thread's write, and a read never replaces a write of its thread), so the
   * patterns are the same; the read costs no order index, no event and no trace line. To decide it
   * exactly every access locks its stripe exclusively (the last recorded access to each of the two
   * locations a stripe keeps, Stripes#recorded, is then well defined), and a new trace segment
   * ({@link #beginSegment}) starts a new epoch.
   */
  private static volatile boolean filter = true;
  /** Trace segment number: a read is never left out because of a write recorded in an earlier segment. */
  private static volatile int epoch;

  /** Agent option filter=off: every access is recorded (and reads share their stripe). */
  public static void setFilter(boolean on) {
    filter = on;
  }

  public static int read(Object o, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_R, o, var, loc, Events.ELEM_FIELD, key, Events.V_NONE, 0, null);
  }

  public static int write(Object o, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_NONE, 0, null);
  }

  public static int readStatic(int var, int loc, int key) {
    return access(Events.KIND_R, null, var, loc, Events.ELEM_STATIC, key, Events.V_NONE, 0, null);
  }

  public static int writeStatic(int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_NONE, 0, null);
  }

  /**
   * Array aliases (docs/recorder.md "Limits"): an array is named by the field holding it when the
   * bytecode shows that field, otherwise by its element type. The same array reached both ways — a
   * lazily built array filled through its field and read through a local copy — would get two names
   * and its accesses would never pair. Accesses named by a field, and field writes that store an array
   * (aliasArray: the array built and published before it is filled), remember the array (identity hash →
   * var) in a small lossy table; an access named by type takes the field name the table holds for that
   * array. One plain long per slot (key and var together); a lost or overwritten slot only loses the
   * alias. No allocation.
   */
  private static final int ALIAS_SLOTS = 1 << 14;
  private static final long[] ARRAY_ALIAS = new long[ALIAS_SLOTS];

  /** A field write storing an array: the array is named by that field from now on (arrayVar). */
  static void aliasArray(Object array, int fieldVar) {
    int[] map = Registry.arrayVarOfField;
    int av = fieldVar < map.length ? map[fieldVar] - 1 : -1;
    if (av < 0) av = Registry.arrayVarOf(fieldVar);
    int h = System.identityHashCode(array);
    int k = ((h * 0x9E3779B1) >>> 18) & (ALIAS_SLOTS - 1);
    long e = ((long) h << 32) | ((av + 1) & 0xFFFFFFFFL);
    if (ARRAY_ALIAS[k] != e) ARRAY_ALIAS[k] = e;
  }

  static int arrayVar(Object array, int var) {
    if (array == null) return var;
    int h = System.identityHashCode(array);
    int k = ((h * 0x9E3779B1) >>> 18) & (ALIAS_SLOTS - 1);
    boolean[] typed = Registry.typeNamedArrays;
    if (var < typed.length && typed[var]) {
      long e = ARRAY_ALIAS[k];
      return e != 0 && (int) (e >>> 32) == h ? (int) e - 1 : var;
    }
    long e = ((long) h << 32) | ((var + 1) & 0xFFFFFFFFL);
    if (ARRAY_ALIAS[k] != e) ARRAY_ALIAS[k] = e;
    return var;
  }

  public static int arrayRead(Object array, int index, int var, int loc) {
    return index >= 0 && index < length(array)
        ? access(Events.KIND_R, array, arrayVar(array, var), loc, index, index, Events.V_NONE, 0, null) : 0;
  }

  public static int arrayWrite(Object array, int index, int var, int loc) {
    return index >= 0 && index < length(array)
        ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_NONE, 0, null) : 0;
  }

  // Writes with their value, one overload per value type (byte and short go as int).

  public static int write(Object o, int v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_INT, v, null);
  }

  public static int write(Object o, boolean v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_BOOL, v ? 1 : 0, null);
  }

  public static int write(Object o, char v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_CHAR, v, null);
  }

  public static int write(Object o, long v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_LONG, v, null);
  }

  public static int write(Object o, float v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_FLOAT, Float.floatToRawIntBits(v), null);
  }

  public static int write(Object o, double v, int var, int loc, int key) {
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_DOUBLE, Double.doubleToRawLongBits(v), null);
  }

  public static int write(Object o, Object v, int var, int loc, int key) {
    if (v != null && enabled && v.getClass().isArray()) aliasArray(v, var);
    return o == null ? 0 : access(Events.KIND_W, o, var, loc, Events.ELEM_FIELD, key, Events.V_REF, 0, v);
  }

  public static int writeStatic(int v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_INT, v, null);
  }

  public static int writeStatic(boolean v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_BOOL, v ? 1 : 0, null);
  }

  public static int writeStatic(char v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_CHAR, v, null);
  }

  public static int writeStatic(long v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_LONG, v, null);
  }

  public static int writeStatic(float v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_FLOAT, Float.floatToRawIntBits(v), null);
  }

  public static int writeStatic(double v, int var, int loc, int key) {
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_DOUBLE, Double.doubleToRawLongBits(v), null);
  }

  public static int writeStatic(Object v, int var, int loc, int key) {
    if (v != null && enabled && v.getClass().isArray()) aliasArray(v, var);
    return access(Events.KIND_W, null, var, loc, Events.ELEM_STATIC, key, Events.V_REF, 0, v);
  }

  public static int arrayWrite(Object array, int index, int v, int var, int loc) {
    return index >= 0 && index < length(array) ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_INT, v, null) : 0;
  }

  public static int arrayWrite(Object array, int index, char v, int var, int loc) {
    return index >= 0 && index < length(array) ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_CHAR, v, null) : 0;
  }

  public static int arrayWrite(Object array, int index, long v, int var, int loc) {
    return index >= 0 && index < length(array) ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_LONG, v, null) : 0;
  }

  public static int arrayWrite(Object array, int index, float v, int var, int loc) {
    return index >= 0 && index < length(array)
        ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_FLOAT, Float.floatToRawIntBits(v), null) : 0;
  }

  public static int arrayWrite(Object array, int index, double v, int var, int loc) {
    return index >= 0 && index < length(array)
        ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_DOUBLE, Double.doubleToRawLongBits(v), null) : 0;
  }

  public static int arrayWrite(Object array, int index, Object v, int var, int loc) {
    return index >= 0 && index < length(array) ? access(Events.KIND_W, array, arrayVar(array, var), loc, index, index, Events.V_REF, 0, v) : 0;
  }

  /** Length of an array, -1 for null. */
  private static int length(Object a) {
    if (a instanceof Object[]) return ((Object[]) a).length;
    if (a instanceof int[]) return ((int[]) a).length;
    if (a instanceof long[]) return ((long[]) a).length;
    if (a instanceof byte[]) return ((byte[]) a).length;
    if (a instanceof char[]) return ((char[]) a).length;
    if (a instanceof double[]) return ((double[]) a).length;
    if (a instanceof boolean[]) return ((boolean[]) a).length;
    if (a instanceof float[]) return ((float[]) a).length;
    if (a instanceof short[]) return ((short[]) a).length;
    return -1;
  }

  /**
   * Called right after each instrumented access instruction with the hook's handle: unlocks the
   * stripe; after a read (handle without the write bit) completes the read without a value.
   */
  public static void after(int handle) {
    if (handle == 0) return;
    if ((handle & 1) == 0) completeRead(handle, Events.V_NONE, 0, null);
    Stripes.unlock(handle);
  }

  // After a read, with the value read (byte and short go as int).

  public static void afterI(int handle, int v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_INT, v, null);
    Stripes.unlock(handle);
  }

  public static void afterZ(int handle, boolean v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_BOOL, v ? 1 : 0, null);
    Stripes.unlock(handle);
  }

  public static void afterC(int handle, char v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_CHAR, v, null);
    Stripes.unlock(handle);
  }

  public static void afterJ(int handle, long v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_LONG, v, null);
    Stripes.unlock(handle);
  }

  public static void afterF(int handle, float v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_FLOAT, Float.floatToRawIntBits(v), null);
    Stripes.unlock(handle);
  }

  public static void afterD(int handle, double v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_DOUBLE, Double.doubleToRawLongBits(v), null);
    Stripes.unlock(handle);
  }

  public static void afterA(int handle, Object v) {
    if (handle == 0) return;
    completeRead(handle, Events.V_REF, 0, v);
    Stripes.unlock(handle);
  }

  private static void completeRead(int handle, int vtype, long bits, Object value) {
    ThreadBuffer b = ownBuffer(handle);
    if (b == null) return;
    if (values) b.completeRead(vtype, bits, value);
    else b.completeRead(Events.V_NONE, 0, null);
  }

  private static int access(int kind, Object o, int var, int loc, int elem, int key, int vtype, long bits, Object value) {
    if (!enabled) return 0;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return 0;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return 0;
    s.busy++;
    try {
      noise(s);
      int t = idOf(s);
      int obj = o == null ? 0 : System.identityHashCode(o);
      // forcing (docs/noise.md "Forcing plans"): may hold this thread here, before any stripe lock
      int forced = 0;
      if (Forcing.active) {
        // a library call's atNext access counts at this, its thread's next recorded access
        if (s.forceNext != 0) Forcing.flushNext(s, t);
        forced = Forcing.before(s, t, kind, var, loc, Forcing.key(obj, key));
      }
      // R and W records carry the caller's stack id; the writer interns (parent, loc) (TraceWriter.writeAccess)
      int stack = s.parentStack();
      ThreadBuffer b = bufferOf(s);
      if (!b.reserve()) {
        if (forced != 0) Forcing.performed(s, t, forced, Forcing.key(obj, key));
        return 0;
      }
      boolean filtering = filter;
      boolean clock = ClockOrder.ON;
      // order=clock: the floor before the stripe's compare-and-set (a full fence), the watermark after it
      if (clock) b.enter();
      int h = Stripes.lock(Stripes.stripeOf(obj, key), kind == Events.KIND_W, filtering || clock);
      Stripes.hold(h, t);
      // published with the stripe held: a thread it releases orders its own access after this one
      if (forced != 0) Forcing.performed(s, t, forced, Forcing.key(obj, key));
      if (filtering) {
        int ep = epoch;
        if (kind == Events.KIND_R && Stripes.ownWriteShadows(h, var, obj, elem, t, ep)) {
          // not recorded; a read still waiting for its value (its access threw) gets none, as at a publish
          b.completeRead(Events.V_NONE, 0, null);
          if (clock) b.leave();
          return h;
        }
        Stripes.recorded(h, kind == Events.KIND_W, var, obj, elem, t, ep);
      }
      if (clock) {
        long c = b.clockAbove(Stripes.clock(h));
        // forcing and PCT order threads by what they hold, not by a stripe: their runs order every
        // access through the sync clock too (a held thread's access then follows what released it)
        if (Forcing.active || PctScheduler.on) b.nextClock = c = events.syncAfter(c);
        Stripes.setClock(h, c);
      }
      if (kind == Events.KIND_R) b.publishRead(t, kind, var, loc, stack, obj, elem);
      else if (vtype != Events.V_NONE && values) b.publishValue(t, kind, var, loc, stack, obj, elem, vtype, bits, value);
      else b.publish(t, kind, var, loc, stack, obj, elem);
      return h;
    } finally {
      s.busy--;
    }
  }

  // ---- hooks: locks ----

  /**
   * Before a lock acquisition at {@code loc} (a monitorenter, a {@code Lock.lock()} call): forcing may
   * hold the thread here (a wait's beforeLock, docs/noise.md "Forcing plans"). Without such a wait:
   * two static reads.
   */
  public static void beforeAcquire(int loc) {
    if (!Forcing.active || !Forcing.lockWaits || !enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      Forcing.beforeLock(s, idOf(s), loc);
    } finally {
      s.busy--;
    }
  }

  public static void acquire(Object lock, int loc) {
    lockEvent(Events.KIND_ACQ, lock, loc);
  }

  public static void release(Object lock, int loc) {
    lockEvent(Events.KIND_REL, lock, loc);
  }

  public static void tryAcquired(Object lock, boolean acquired, int loc) {
    if (acquired) lockEvent(Events.KIND_ACQ, lock, loc);
  }

  private static void lockEvent(int kind, Object lock, int loc) {
    if (!enabled || lock == null) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    if (kind == Events.KIND_ACQ) s.locksHeld++;
    else if (s.locksHeld > 0) s.locksHeld--;
    s.busy++;
    try {
      int t = idOf(s);
      publish(s, t, kind, System.identityHashCode(lock), loc, s.stackAt(loc), 0, 0);
    } finally {
      s.busy--;
    }
  }

  // ---- hooks: threads ----

  public static void beforeStart(Object thread, int loc) {
    if (!enabled || !(thread instanceof Thread)) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      noise(s);
      if (PctScheduler.on) PctScheduler.started((Thread) thread);
      int t = idOf(s);
      int child = threadId((Thread) thread);
      publish(s, t, Events.KIND_START, child, loc, -1, 0, 0);
    } finally {
      s.busy--;
    }
  }

  public static void afterJoin(Object thread, int loc) {
    if (!enabled || !(thread instanceof Thread)) return;
    Thread child = (Thread) thread;
    if (child.isAlive()) return; // a timed join that timed out
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    if (isJdkLoc(loc) && !s.inApplicationCode()) return;
    s.busy++;
    try {
      int t = idOf(s);
      int c = threadId(child);
      if (markEnded(c)) publish(s, c, Events.KIND_END, 0, -1, -1, 0, 0);
      publish(s, t, Events.KIND_JOIN, c, loc, -1, 0, 0);
    } finally {
      s.busy--;
    }
  }

  /** Replaces {@code Thread.join(long)} calls. */
  public static void joinTimed(Thread thread, long millis, int loc) throws InterruptedException {
    thread.join(millis);
    afterJoin(thread, loc);
  }

  // ---- hooks: call sites, happens-before hand-offs, failure points, output, library calls ----

  /** The current method is about to call another at {@code loc} (call-site line of caller frames). */
  public static void at(int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.callAt(loc);
  }

  static ThreadState state() {
    return ThreadStates.current();
  }

  static boolean enabled() {
    return enabled;
  }

  /** SND or RCV of happens-before token {@code token} by the current thread. */
  static void sync(int kind, int token, int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.busy++;
    try {
      if (kind == Events.KIND_SND) noise(s);
      publish(s, idOf(s), kind, token, loc, -1, 0, 0);
    } finally {
      s.busy--;
    }
  }

  /** A failure point of kind {@code Events.FAIL_*} on the current thread at {@code loc} (-1: unknown). */
  static void failure(int kind, String detail, int loc) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.busy++;
    try {
      int stack = loc >= 0 ? s.stackAt(loc) : -1;
      publish(s, idOf(s), Events.KIND_FAIL, Texts.put(detail), loc, stack, 0, kind);
    } finally {
      s.busy--;
    }
  }

  /** Hook at a call of {@code System.exit} / {@code Runtime.halt} with the status about to be used. */
  public static void exitCall(int status, int loc) {
    if (status != 0) failure(Events.FAIL_EXIT, "exit status " + status, loc);
  }

  /** Hook right after an assertion failure object was created in instrumented code. */
  public static void assertionCreated(Object error, int loc) {
    if (error instanceof Throwable) {
      String m = ((Throwable) error).getMessage();
      failure(Events.FAIL_ASSERT, error.getClass().getName() + (m != null ? ": " + m : ""), loc);
    }
  }

  /** A line written to System.out (1) or System.err (2). */
  static void output(int stream, String text) {
    if (!enabled || !Registry.applicationCode) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.busy++;
    try {
      publish(s, idOf(s), Events.KIND_OUT, Texts.put(text), -1, -1, 0, stream);
    } finally {
      s.busy--;
    }
  }

  /**
   * One read or write of library object {@code obj} (identity) of type {@code var} at call-site {@code loc};
   * {@code sub}: the object mixed with the call's key (a keyed call), else {@code obj} — forcing's sameKey waits.
   */
  static void libraryAccess(int kind, int var, int loc, int obj, int sub) {
    if (!enabled) return;
    ThreadState s = ThreadStates.current();
    if (s.busy != 0) return;
    s.busy++;
    try {
      noise(s);
      int t = idOf(s);
      if (Forcing.active) {
        // forcing: held before the call; its performance counts once the call has returned (libraryCalled),
        // or at once for an access with atStart
        if (s.forcePending != 0) Forcing.flushPending(s, t);
        if (s.forceNext != 0) Forcing.flushNext(s, t);
        long arrived = Forcing.seq();
        int forced = Forcing.before(s, t, kind, var, loc, Forcing.libraryKey(obj), Forcing.libraryKey(sub));
        // an access whose performance counts when its call begins (atStart: two calls made to overlap)
        int start = forced & Forcing.atStartMask;
        if (start != 0) {
          Forcing.performed(s, t, start, Forcing.libraryKey(obj), Forcing.libraryKey(sub));
          Forcing.afterBegun(t, start, Forcing.libraryKey(obj), Forcing.libraryKey(sub), arrived);
          forced &= ~start;
        }
        // an access counted at the thread's next recorded access (atNext): in a callback of this call, or after it
        int next = forced & Forcing.atNextMask;
        if (next != 0) {
          s.forceNext = next;
          s.forceNextKey = Forcing.libraryKey(obj);
          s.forceNextSub = Forcing.libraryKey(sub);
          s.forceNextArrived = arrived;
          forced &= ~next;
        }
        if (forced != 0) {
          s.forcePending = forced;
          s.forcePendingKey = Forcing.libraryKey(obj);
          s.forcePendingSub = Forcing.libraryKey(sub);
        }
      }
      publish(s, t, kind, var, loc, s.parentStack(), obj, Events.ELEM_FIELD);
    } finally {
      s.busy--;
    }
  }

  /** A library call recorded as an access has returned (forcing only; see LibraryAccess.called). */
  static void libraryCalled() {
    ThreadState s = ThreadStates.current();
    if (s.busy != 0 || s.forcePending == 0) return;
    s.busy++;
    try {
      Forcing.flushPending(s, idOf(s));
    } finally {
      s.busy--;
    }
  }

  /** Trace loc of a stack frame of a throwable (registered on the fly), or -1. */
  static int locOfFrame(StackTraceElement f) {
    if (f == null || f.getLineNumber() <= 0) return -1;
    String cls = f.getClassName();
    int dot = cls.lastIndexOf('.');
    String pkg = dot < 0 ? "" : cls.substring(0, dot + 1).replace('.', '/');
    String file = f.getFileName();
    if (file == null) {
      String simple = cls.substring(dot + 1);
      int dollar = simple.indexOf('$');
      file = (dollar > 0 ? simple.substring(0, dollar) : simple) + ".java";
    }
    return Registry.loc(pkg + file, f.getLineNumber(), cls + "." + f.getMethodName(), false, null);
  }

  // ---- uncaught exceptions ----

  /** Writes an {@code uncaught} line for an exception that ends {@code thread}. */
  public static void uncaught(Thread thread, Throwable e) {
    if (writer == null || closed || noFile) return;
    if (thread == Thread.currentThread()) {
      StackTraceElement[] st = e.getStackTrace();
      int loc = -1;
      for (int k = 0; k < st.length && loc < 0; k++) {
        if (!dev.braid.agent.JdkClasses.isJdkFrame(st[k])) loc = locOfFrame(st[k]);
      }
      String m = e.getMessage();
      failure(Events.FAIL_UNCAUGHT, e.getClass().getName() + (m != null ? ": " + m : "") + " in " + thread.getName(), loc);
    }
    ThreadState s = ThreadStates.current();
    s.busy++;
    try {
      int id = threadId(thread);
      if (enabled) markRunning(id);
      StringBuilder b = new StringBuilder(256);
      b.append("{\"uncaught\":{\"thread\":").append(id);
      b.append(",\"name\":").append(Json.quote(thread.getName()));
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
