package dev.braid.agent.runtime;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Forcing plans (docs/noise.md "Forcing plans"): the {@code force} section of a noise plan names the
 * accesses of one pattern and waits between them. A thread about to perform an access that matches
 * {@code accesses[at]} of a wait is held, before the access and without any stripe lock, until some
 * other thread has performed {@code accesses[for]} (on the same object when {@code sameObject}; with
 * {@code since}, after this thread's own latest {@code accesses[since]}), for at most {@code waitMs};
 * a hold that would keep a thread blocked on a lock the held thread owns ends at once. What happened
 * is written at the end of the run as one trace line {@code {"forcing":{…}}}.
 *
 * <p>Cost without a force section: the access hooks read {@link #active}, nothing else. With one, an
 * access pays a lookup of its loc's and var's precomputed masks (two array reads); only accesses that
 * match take the forcing monitor.
 *
 * <p>Bookkeeping: a global sequence number (an {@link AtomicLong}) stamps every performance of a
 * force access; per access a ring of its {@value #RING} latest performances (sequence, thread, object
 * key) — nothing grows with the run. Held threads wait on the forcing monitor ({@link #LOCK}) with
 * a timeout; a performance notifies it.
 */
public final class Forcing {
  private Forcing() {}

  /** True while a force section is installed and forcing has not stopped: the hooks' one check. */
  public static boolean active;
  /** A force section was installed (the instrumenter then adds the library calls' after-hooks). */
  private static volatile boolean installed;
  /** The last wait was met {@code times} times: nothing more is held or counted. */
  private static volatile boolean stopped;
  /**
   * Repetitions in one JVM (Rt.beginSegment): the current repetition's number. Each repetition forces
   * afresh, as a JVM of its own would: counters, rings, performers and held threads start empty, and a
   * thread's own state from an earlier repetition ({@link ThreadState#forceSegment}) is dropped.
   */
  private static volatile int segment;

  static final int MAX_ACCESSES = 16;
  private static final int RING = 128;
  /** Lock checks while held: every 2 ms when the thread holds a recorded lock, every 20 ms otherwise. */
  private static final long LOCK_CHECK_NANOS = 2_000_000L;
  private static final long SLOW_LOCK_CHECK_NANOS = 20_000_000L;
  /** Object key of a library access: the (backing) object's id, and this in place of a field. */
  private static final int LIBRARY_KEY = 0x4c494231;

  private static final Object LOCK = new Object();
  private static final AtomicLong SEQ = new AtomicLong();

  // ---- the force section ----
  private static String order;
  private static String patternJson;
  private static double waitMs;
  private static long waitNanos;
  private static long times;
  private static int maxTimeouts;
  private static int accessCount;
  private static int[] role;
  private static boolean[] isWrite;
  /** per access: matches reads (type R or RW) */
  private static boolean[] isRead;
  /** per access: matches the variable at any location (anywhere) */
  private static boolean[] anywhere;
  /**
   * per access: the library call that must make it ("java.util.Iterator.next"), or null: on a line
   * with several calls on one collection (values(), iterator(), hasNext(), next() of a for-each) only
   * that call's access matches
   */
  private static String[] call;
  /**
   * per access: the threads that may take part in it — perform it for a wait, or be held at it — by
   * name, {@code *} standing for a number ("pool-*-thread-*"), or null for every thread: the threads
   * of the instance the failing runs had (a worker's transition, not main's setup one before it)
   */
  private static String[][] threads;
  /**
   * per access: the call sites its thread's stack must have, nearest first ("file\0line\0method"; the
   * caller's call site first), or null for any stack — the callers of the instance the failing runs had
   * (engine/confirm/instanceCallers.ts): a recursive method's nested calls are neither held nor counted
   */
  private static String[][] callers;
  /** the accesses with callers (bits) */
  private static int callerMask;
  /**
   * the library-call accesses whose performance counts when the call begins, not when it returns (bits;
   * force.accesses[].atStart): two calls of a library method that is not thread-safe made to overlap
   */
  static volatile int atStartMask;
  /**
   * the library-call accesses whose performance counts at their thread's next recorded access after the
   * call began (bits; force.accesses[].atNext): a lazy call (stream()) whose traversal comes later, or a
   * call whose callback (a mapping function) another thread's mutation must fall into
   */
  static volatile int atNextMask;
  /**
   * per access: the ready wait at it for another atStart access (two calls made to overlap), or -1. The
   * first call's thread was held until the second was at its call; once its own call has begun it waits
   * for the second call to begin too (afterBegun), so both calls start within microseconds — else the
   * first (a short call) is often over before the released thread has woken up.
   */
  private static int[] overlapWait = new int[0];
  /**
   * per wait: an access of the awaited role (force.waits[].afterOwn) its thread must have made before the
   * awaited performance for that one to count, or -1 — a symmetric pattern's threads serialised: the
   * other thread's next access of the variable after its own access of the pattern
   */
  private static int[] afterOwn;

  private static int[] filled(int n, int v) {
    int[] a = new int[n];
    java.util.Arrays.fill(a, v);
    return a;
  }
  /** some access names its threads */
  private static boolean byThread;
  /** per wait: optional (not needed for ok) */
  private static boolean[] optional;
  /** per wait with since: accesses another thread must have performed after the since performance (or null) */
  private static int[][] needs;
  /**
   * per wait: only a performance of {@code for} after the thread reached the wait counts — or the
   * performance after which its thread is now held, in the window it opened, waiting for this very
   * access (a loop's next() held for a remove since its hasNext()): an older performance is likely
   * from a pass of the loop that is over (a for-each's hasNext() of an empty map, never followed by
   * next())
   */
  private static boolean[] fresh;
  /**
   * per wait: held until another thread is held at a wait whose {@code at} is this wait's {@code for}
   * (the partner is ready at its access), not until it performed it: the thread opening a loop's window
   * waits for the other thread to arrive at the access that must land inside it
   */
  private static boolean[] ready;
  /** some wait is fresh or ready: a thread that gets held wakes the held ones (they may wait for it to be held) */
  private static boolean loopWaits;

  private static String[] variable;
  private static String[] file;
  private static int[] line;
  private static String[] method;
  /** per access: the ids of its points, or null */
  private static String[][] points;
  /** per access: locations ("file\0line\0method") of its points, found while classes are instrumented */
  private static java.util.HashSet<String>[] pointLocs;
  private static int readBits;
  private static int writeBits;
  private static int waitCount;
  private static int[] at;
  private static int[] forAccess;
  /** -1: none */
  private static int[] since;
  private static boolean[] sameObject;
  /**
   * per wait (with sameObject): a keyed library call matches only a performance on the same key — the
   * key the call's first argument names (a plain value: String, boxed primitive, enum, UUID), on any
   * map or set, thread-safe or not. A get() checks one key: only a put() of that key acts on its check.
   */
  private static boolean[] sameKey;
  /**
   * per wait with since: the since access is of the wait's own variable and the wait is on the same
   * object — the window is on one object, and only a thread whose latest since performance was on the
   * object it now accesses has it open
   */
  private static boolean[] sinceSame;
  /**
   * per wait: the lock acquisition ("file\0line\0method") the thread of {@code at} is held before
   * (beforeLock), or null — its access is made under a lock the awaited access needs, so a hold at the
   * access would keep the other thread out; held before taking the lock, it lets the other thread take
   * it and make its access first. The access itself is then not held: it counts the wait as met when
   * its thread's hold before the lock was met by a performance on its object
   */
  private static String[] lockSite;
  /**
   * per wait held before a lock: the method ("pkg.Class.method") the thread must be inside (on its call
   * stack) to be held there (beforeLock.within), or null — a lock helper called from several places
   * (metrics-rescale's lockForRegularUsage, by update and by getSnapshot) holds only the callers of the
   * pattern's role
   */
  private static String[] lockWithin;
  /** some wait is held before a lock acquisition: Rt.beforeAcquire's one check (with active) */
  public static volatile boolean lockWaits;
  private static volatile int[] lockLocMasks = new int[0];

  // ---- counters (under LOCK) ----
  private static long[] met;
  private static long[] timedOut;
  private static long[] lockEnded;
  private static long[] skipped;
  private static long[] reached;
  /** reaches of a wait with since whose thread had never performed accesses[since] */
  private static long[] notApplicable;
  /** holds that ended without being met (timed out or for a lock) */
  private static long[] failures;
  private static boolean[] disabled;
  private static String[] lockReason;
  /** per access: performances */
  private static long[] performed;
  /** per wait held before a lock: the held access was made after a met hold, but the awaited performance was on another object */
  private static long[] lockOther;
  /**
   * per wait held before a lock: met with the order already in place — the awaited access made by another
   * thread, on the held access's object, after the thread's previous access of the plan and before it
   * reached the lock (not held)
   */
  private static long[] inPlace;
  /** per wait held before a lock: not held for the order already in place, but the awaited performance was on another object */
  private static long[] inPlaceOther;

  // ---- rings of performances, per access (under LOCK) ----
  private static long[][] ringSeq;
  private static int[][] ringThread;
  private static long[][] ringKey;
  /** the performance's key (sameKey): the object mixed with the call's key, or the object key */
  private static long[][] ringSub;
  private static int[] ringNext;
  private static int[] ringSize;

  // ---- threads that performed force accesses: the latest PERFORMERS distinct ones (under LOCK) ----
  private static final int PERFORMERS = 64;
  private static final int[] performers = new int[PERFORMERS];
  private static int performerCount;
  private static int performerNext;
  /** per wait: holds ended early because no other thread that performed a force access was alive */
  private static long[] partnerGone;
  /** per wait: holds ended early because every other live thread that took part was held too (RaceFuzzer's release) */
  private static long[] allHeld;
  /** per wait: holds in a window given up for a thread of the other role held on another object (conflict) */
  private static long[] yielded;

  // ---- held threads (under LOCK) ----
  private static int heldCount;
  private static int[] heldThread = new int[8];
  private static int[] heldWait = new int[8];
  private static long[] heldKey = new long[8];
  private static long[] heldSub = new long[8];
  /** the sequence number only a later performance of the held thread's awaited access counts after */
  private static long[] heldAfter = new long[8];
  /** the held thread is asked to give up its hold (conflict: its window is on another object) */
  private static boolean[] heldYield = new boolean[8];

  /**
   * Installs a checked force section (NoisePlanLoader). Per access: role, "R"/"W", variable, file,
   * line, method and point ids (or null); per wait: at, for, since (-1: none), sameObject.
   */
  @SuppressWarnings("unchecked")
  public static synchronized void install(String order, String patternJson, double waitMs, long times, int maxTimeouts,
      int[] role, String[] type, String[] variable, String[] file, int[] line, String[] method, String[][] points,
      int[] at, int[] forAccess, int[] since, boolean[] sameObject, boolean[] anywhere, boolean[] optional, int[][] needs,
      String[] call, boolean[] fresh, boolean[] ready, boolean[] sameKey, String[] lockFile, int[] lockLine, String[] lockMethod, String[] lockWithin, String[][] threads,
      String[][] callers, boolean[] atStart, int[] afterOwn, boolean[] atNext) {
    int n = role.length;
    int w = at.length;
    Forcing.order = order;
    Forcing.patternJson = patternJson;
    Forcing.waitMs = waitMs;
    Forcing.waitNanos = Math.max(1, (long) (waitMs * 1_000_000L));
    Forcing.times = times;
    Forcing.maxTimeouts = maxTimeouts;
    Forcing.accessCount = n;
    Forcing.role = role;
    Forcing.variable = variable;
    Forcing.file = file;
    Forcing.line = line;
    Forcing.method = method;
    Forcing.points = points;
    Forcing.anywhere = anywhere;
    Forcing.call = call != null ? call : new String[n];
    Forcing.threads = threads != null ? threads : new String[n][];
    byThread = false;
    for (int k = 0; k < n; k++) byThread |= Forcing.threads[k] != null;
    Forcing.callers = callers != null ? callers : new String[n][];
    callerMask = 0;
    for (int k = 0; k < n; k++) if (Forcing.callers[k] != null) callerMask |= 1 << k;
    int starts = 0;
    for (int k = 0; k < n && atStart != null; k++) if (atStart[k]) starts |= 1 << k;
    atStartMask = starts;
    int nexts = 0;
    for (int k = 0; k < n && atNext != null; k++) if (atNext[k]) nexts |= 1 << k;
    atNextMask = nexts;
    Forcing.afterOwn = afterOwn != null ? afterOwn : filled(w, -1);
    Forcing.optional = optional;
    Forcing.needs = needs;
    Forcing.fresh = fresh != null ? fresh : new boolean[at.length];
    Forcing.ready = ready != null ? ready : new boolean[at.length];
    loopWaits = false;
    for (int k = 0; k < at.length; k++) loopWaits |= Forcing.fresh[k] || Forcing.ready[k];
    overlapWait = filled(n, -1);
    for (int k = 0; k < at.length; k++) {
      // an atNext access waits (at its deferred performance) for the other call to begin, as an atStart one does
      if (Forcing.ready[k] && ((starts | nexts) & (1 << at[k])) != 0 && (starts & (1 << forAccess[k])) != 0) overlapWait[at[k]] = k;
    }
    isWrite = new boolean[n];
    isRead = new boolean[n];
    pointLocs = new java.util.HashSet[n];
    readBits = 0;
    writeBits = 0;
    for (int k = 0; k < n; k++) {
      isWrite[k] = type[k].indexOf('W') >= 0;
      isRead[k] = type[k].indexOf('R') >= 0;
      if (isWrite[k]) writeBits |= 1 << k;
      if (isRead[k]) readBits |= 1 << k;
      pointLocs[k] = new java.util.HashSet<>();
    }
    Forcing.waitCount = w;
    Forcing.at = at;
    Forcing.forAccess = forAccess;
    Forcing.since = since;
    Forcing.sameObject = sameObject;
    Forcing.sameKey = sameKey != null ? sameKey : new boolean[w];
    sinceSame = new boolean[w];
    for (int k = 0; k < w; k++) {
      sinceSame[k] = since[k] >= 0 && sameObject[k] && variable[since[k]].equals(variable[at[k]]);
    }
    lockSite = new String[w];
    Forcing.lockWithin = new String[w];
    boolean anyLock = false;
    for (int k = 0; k < w; k++) {
      if (lockFile == null || lockFile[k] == null) continue;
      lockSite[k] = lockFile[k] + '\u0000' + lockLine[k] + '\u0000' + lockMethod[k];
      if (lockWithin != null) Forcing.lockWithin[k] = lockWithin[k];
      anyLock = true;
    }
    lockLocMasks = new int[0];
    lockOther = new long[w];
    inPlace = new long[w];
    inPlaceOther = new long[w];
    met = new long[w];
    timedOut = new long[w];
    lockEnded = new long[w];
    skipped = new long[w];
    reached = new long[w];
    notApplicable = new long[w];
    failures = new long[w];
    partnerGone = new long[w];
    allHeld = new long[w];
    yielded = new long[w];
    disabled = new boolean[w];
    lockReason = new String[w];
    performed = new long[n];
    ringSeq = new long[n][RING];
    ringThread = new int[n][RING];
    ringKey = new long[n][RING];
    ringSub = new long[n][RING];
    ringNext = new int[n];
    ringSize = new int[n];
    for (int k = 0; k < n; k++) if (points[k] != null && points[k].length > 0) hasPoints = true;
    installed = true;
    lockWaits = anyLock;
    active = true;
  }

  public static boolean installed() {
    return installed;
  }

  // ---- matching: per loc id and per var id, a mask of the accesses they match, computed once ----

  private static final int COMPUTED = 1 << 30;
  private static final Object MASKS = new Object();
  private static volatile int[] locMasks = new int[0];
  private static volatile int[] varMasks = new int[0];
  private static volatile boolean hasPoints;

  /**
   * Instrumentation time: the instruction with point id {@code id} is at this location. A force
   * access that names the id matches accesses at that location (variable and type still checked).
   */
  public static void pointAt(String id, String atFile, int atLine, String atMethod) {
    if (!hasPoints) return;
    synchronized (MASKS) {
      boolean added = false;
      for (int k = 0; k < accessCount; k++) {
        String[] ids = points[k];
        if (ids == null) continue;
        for (String p : ids) {
          if (p.equals(id)) added |= pointLocs[k].add(atFile + '\u0000' + Math.max(1, atLine) + '\u0000' + atMethod);
        }
      }
      if (added) locMasks = new int[0]; // recomputed with the new location
    }
  }

  /** The accesses an access of this kind, var and loc matches (bits), 0 for none. */
  private static int mask(int kind, int var, int loc) {
    int tm = kind == Events.KIND_W ? writeBits : readBits;
    int[] lm = locMasks;
    int l = loc >= 0 && loc < lm.length ? lm[loc] : 0;
    if (l == 0) l = computeLoc(loc);
    if ((l & tm) == 0) return 0;
    int[] vm = varMasks;
    int v = var >= 0 && var < vm.length ? vm[var] : 0;
    if (v == 0) v = computeVar(var);
    return l & v & tm;
  }

  private static int computeLoc(int loc) {
    if (loc < 0) return COMPUTED;
    String f = Registry.locFile(loc);
    int ln = Registry.locLine(loc);
    String m = Registry.locMethod(loc);
    String c = Registry.locCall(loc);
    synchronized (MASKS) {
      int bits = COMPUTED;
      String key = null;
      for (int k = 0; k < accessCount; k++) {
        if (anywhere[k] || (line[k] == 0 || line[k] == ln) && file[k].equals(f) && method[k].equals(m)
            && (call[k] == null || call[k].equals(c))) {
          bits |= 1 << k;
        } else if (!pointLocs[k].isEmpty()) {
          if (key == null) key = f + '\u0000' + ln + '\u0000' + m;
          if (pointLocs[k].contains(key)) bits |= 1 << k;
        }
      }
      int[] lm = locMasks;
      if (loc >= lm.length) lm = java.util.Arrays.copyOf(lm, Math.max(64, 2 * (loc + 1)));
      lm[loc] = bits;
      locMasks = lm;
      return bits;
    }
  }

  private static int computeVar(int var) {
    if (var < 0) return COMPUTED;
    String name = Registry.varName(var);
    synchronized (MASKS) {
      int bits = COMPUTED;
      // an array named by its element type in the traces the pattern came from ("java.lang.Object[]") is
      // named by its field in this run once the agent saw the field (Rt.arrayVar): at the access's
      // location, any array matches an array access
      boolean array = name.endsWith("[]");
      for (int k = 0; k < accessCount; k++) {
        if (variable[k].equals(name) || (array && variable[k].endsWith("[]") && !anywhere[k])) bits |= 1 << k;
      }
      int[] vm = varMasks;
      if (var >= vm.length) vm = java.util.Arrays.copyOf(vm, Math.max(64, 2 * (var + 1)));
      vm[var] = bits;
      varMasks = vm;
      return bits;
    }
  }

  // ---- object keys ----

  /** A field ({@code key} = the field name's hash; obj 0 for a static) or an array element ({@code key} = index). */
  static long key(int obj, int key) {
    return ((long) obj << 32) | (key & 0xFFFFFFFFL);
  }

  static long libraryKey(int obj) {
    return key(obj, LIBRARY_KEY);
  }

  // ---- the hooks' side ----

  /**
   * Before an access of the current thread (busy, no stripe lock held): the accesses it matches
   * (bits, 0 for none), after holding the thread at each wait whose {@code at} it matches.
   */
  static int before(ThreadState s, int t, int kind, int var, int loc, long key) {
    return before(s, t, kind, var, loc, key, key);
  }

  /** As above, for a keyed library call: {@code sub} is the object mixed with the call's key (sameKey waits). */
  static int before(ThreadState s, int t, int kind, int var, int loc, long key, long sub) {
    int m = mask(kind, var, loc);
    if (m == 0 || stopped) return 0;
    if (byThread && (m &= allowed(s)) == 0) return 0;
    if ((m & callerMask) != 0 && (m = byCallers(s, m)) == 0) return 0;
    if (s.forceSegment != segment) ownSegment(s);
    long reach = SEQ.get() + 1;
    for (int w = 0; w < waitCount && !stopped; w++) {
      if ((m & (1 << at[w])) != 0) waitAt(s, t, w, m, loc, key, sub);
    }
    // after the waits (the one before a lock reads the previous reach): this access is the thread's latest step
    s.forceReach = reach;
    return m;
  }

  /**
   * {@code m} without the accesses whose callers the thread's stack does not have (only at an access
   * the plan matches, and only for accesses with callers: a walk of at most 8 interned frames).
   */
  private static int byCallers(ThreadState s, int m) {
    int stack = s.parentStack();
    for (int k = 0; k < accessCount; k++) {
      if ((m & callerMask & (1 << k)) != 0 && !hasCallers(stack, callers[k])) m &= ~(1 << k);
    }
    return m;
  }

  /** The interned stack (its top frame the nearest call site) has {@code sites}, nearest first. */
  private static boolean hasCallers(int stack, String[] sites) {
    for (String site : sites) {
      if (stack < 0) return false;
      int loc = Stacks.frame(stack);
      String f = Registry.locFile(loc);
      String m = Registry.locMethod(loc);
      int l = Registry.locLine(loc);
      // "file\0line\0method", compared without building a string
      int a = f.length();
      if (!site.startsWith(f) || site.length() <= a || site.charAt(a) != '\u0000') return false;
      int b = site.indexOf('\u0000', a + 1);
      if (b < 0 || !site.startsWith(m, b + 1) || site.length() != b + 1 + m.length()) return false;
      if (!lineIs(site, a + 1, b, l)) return false;
      stack = Stacks.parent(stack);
    }
    return true;
  }

  /** The site's line (digits between {@code from} and {@code to}) is {@code line}, or 0: any line of the method. */
  private static boolean lineIs(String s, int from, int to, int line) {
    long v = 0;
    if (from >= to) return false;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    return v == 0 || v == line;
  }

  /** The waits held before a lock acquired at {@code loc} (bits), computed once per loc. */
  private static int lockMask(int loc) {
    int[] lm = lockLocMasks;
    int l = loc >= 0 && loc < lm.length ? lm[loc] : 0;
    if (l != 0) return l & ~COMPUTED;
    if (loc < 0) return 0;
    String key = Registry.locFile(loc) + '\u0000' + Registry.locLine(loc) + '\u0000' + Registry.locMethod(loc);
    synchronized (MASKS) {
      int bits = COMPUTED;
      for (int k = 0; k < waitCount; k++) if (key.equals(lockSite[k])) bits |= 1 << k;
      lm = lockLocMasks;
      if (loc >= lm.length) lm = java.util.Arrays.copyOf(lm, Math.max(64, 2 * (loc + 1)));
      lm[loc] = bits;
      lockLocMasks = lm;
      return bits & ~COMPUTED;
    }
  }

  /**
   * Before the current thread acquires a lock at {@code loc} (a {@code synchronized} block's monitor, a
   * {@code Lock.lock()}; busy): held at each wait whose beforeLock is this place until another thread
   * performs the wait's {@code for} (any object) after this thread arrived; a met hold is remembered
   * for the thread's access inside the lock (waitAt).
   */
  static void beforeLock(ThreadState s, int t, int loc) {
    int m = lockMask(loc);
    if (m == 0 || stopped) return;
    if (s.forceSegment != segment) ownSegment(s);
    StackTraceElement[] stack = null;
    int allow = byThread ? allowed(s) : -1;
    for (int w = 0; w < waitCount && !stopped; w++) {
      if ((m & (1 << w)) == 0 || (allow & (1 << at[w])) == 0) continue;
      if (lockWithin[w] != null) {
        // only here, at a lock place of the plan (not per access): the thread's frames, once per acquisition
        if (stack == null) stack = Thread.currentThread().getStackTrace();
        if (!inside(stack, lockWithin[w])) continue;
      }
      long after;
      int held;
      synchronized (LOCK) {
        held = segment;
        reached[w]++;
        if (s.forceLockLet == null) s.forceLockLet = new long[waitCount];
        s.forceLockLet[w] = 0;
        // the order already in place in this instance: another thread made the awaited access after this
        // thread arrived at its previous access of the plan (pool2-returnclose's opposite order: the
        // returner, whose check released the closer held at its write of closed, linked before the closer
        // reached pollFirst's lock). Not held; its access inside the lock checks the object. Without a
        // previous access there is no instance to tell an older performance (an earlier round's) from, so
        // the thread is held as before. Judged even when the wait is disabled, as a wait at an access is.
        // Not for ready (it waits for a partner's hold, not a performance)
        if (!ready[w] && s.forceReach > 0 && performedAfter(forAccess[w], t, s.forceReach - 1, -1, 0, 0)) {
          s.forceLockLet[w] = -s.forceReach;
          continue;
        }
        if (disabled[w]) {
          skipped[w]++;
          continue;
        }
        after = SEQ.get();
        if (conflict(w, t, 0, 0, 0)) {
          skipped[w]++;
          continue;
        }
        addHeld(t, w, 0, 0, after);
        if (loopWaits && heldCount > 1 || anyYield()) LOCK.notifyAll();
      }
      hold(s, t, w, loc, 0, 0, after, held);
    }
  }

  /** Whether a frame of {@code stack} is of {@code method} ("pkg.Class.method", as the trace names methods). */
  private static boolean inside(StackTraceElement[] stack, String method) {
    int dot = method.lastIndexOf('.');
    if (dot <= 0) return false;
    for (StackTraceElement f : stack) {
      String c = f.getClassName();
      String m = f.getMethodName();
      if (c.length() == dot && m.length() == method.length() - dot - 1 && method.startsWith(c) && method.endsWith(m)) return true;
    }
    return false;
  }

  /**
   * The force accesses this thread may take part in (bits): those without {@code threads}, and those
   * whose {@code threads} name it. Computed once per thread (its name when it first reaches a force access).
   */
  private static int allowed(ThreadState s) {
    int a = s.forceAllow;
    if (a != 0) return a;
    String name = s.thread.getName();
    a = COMPUTED;
    for (int k = 0; k < accessCount; k++) {
      String[] names = threads[k];
      if (names == null) {
        a |= 1 << k;
        continue;
      }
      for (String n : names) {
        if (nameMatches(n, name)) {
          a |= 1 << k;
          break;
        }
      }
    }
    return s.forceAllow = a;
  }

  /** {@code name} is {@code pattern}, each {@code *} of it standing for a number (one or more digits): "pool-*-thread-*" names "pool-1-thread-12". */
  static boolean nameMatches(String pattern, String name) {
    int i = 0;
    int j = 0;
    while (i < pattern.length()) {
      char c = pattern.charAt(i++);
      if (c == '*') {
        int d = j;
        while (j < name.length() && name.charAt(j) >= '0' && name.charAt(j) <= '9') j++;
        if (j == d) return false;
      } else if (j >= name.length() || name.charAt(j++) != c) {
        return false;
      }
    }
    return j == name.length();
  }

  /** The current thread performed the accesses {@code m} on {@code key} (after taking its stripe lock). */
  static void performed(ThreadState s, int t, int m, long key) {
    performed(s, t, m, key, key);
  }

  /** As above, for a keyed library call ({@code sub}: the object mixed with the call's key). */
  static void performed(ThreadState s, int t, int m, long key, long sub) {
    if (stopped) return;
    if (s.forceSegment != segment) ownSegment(s);
    long[] last = s.forceLast;
    if (last == null) {
      s.forceLast = last = new long[accessCount];
      s.forceLastKey = new long[accessCount];
      s.forceLastSub = new long[accessCount];
    }
    long[] lastKey = s.forceLastKey;
    long[] lastSub = s.forceLastSub;
    synchronized (LOCK) {
      long seq = SEQ.incrementAndGet();
      for (int j = 0; j < accessCount; j++) {
        if ((m & (1 << j)) == 0) continue;
        int p = ringNext[j];
        ringSeq[j][p] = seq;
        ringThread[j][p] = t;
        ringKey[j][p] = key;
        ringSub[j][p] = sub;
        ringNext[j] = (p + 1) & (RING - 1);
        if (ringSize[j] < RING) ringSize[j]++;
        performed[j]++;
        last[j] = seq;
        lastKey[j] = key;
        lastSub[j] = sub;
      }
      addPerformer(t);
      if (heldCount > 0) LOCK.notifyAll();
    }
  }

  /** The sequence number of the latest performance (a thread's arrival at an access, for afterBegun). */
  static long seq() {
    return SEQ.get();
  }

  /**
   * After the current thread's call of an atStart access in {@code m} has begun (performed): for an
   * access with an overlap wait (overlapWait), spin until another thread's call of the awaited access has
   * begun on the wait's object since this thread arrived at its call ({@code arrived}, seq()), at most
   * {@code waitMs}. Nothing is counted: the plan's waits say whether the overlap was met.
   */
  static void afterBegun(int t, int m, long key, long sub, long arrived) {
    int[] waits = overlapWait;
    for (int j = 0; j < waits.length; j++) {
      int w = waits[j];
      if ((m & (1 << j)) == 0 || w < 0) continue;
      long deadline = System.nanoTime() + waitNanos;
      for (int spins = 0; !stopped; spins++) {
        synchronized (LOCK) {
          if (performedSince(w, t, key, sub, arrived)) break;
        }
        if (System.nanoTime() - deadline >= 0) break;
        if (spins < 1000) Thread.onSpinWait();
        else Thread.yield();
      }
    }
  }

  private static void addPerformer(int t) {
    for (int k = 0; k < performerCount; k++) if (performers[k] == t) return;
    performers[performerNext] = t;
    performerNext = (performerNext + 1) % PERFORMERS;
    if (performerCount < PERFORMERS) performerCount++;
    // a new thread takes part: waits given up while its partner had not started yet (a driver
    // filling a list before the thread that iterates it runs) are tried again, maxTimeouts afresh
    for (int w = 0; w < waitCount; w++) {
      failures[w] = 0;
      disabled[w] = false;
    }
  }

  /**
   * True when some other thread has performed a force access and none of those is alive any more:
   * nobody is left to perform what a held thread waits for (the last rounds of a loop whose partner
   * has finished). A thread that has not performed any force access yet (not started) keeps the hold.
   */
  private static boolean noPartnerLeft(int t) {
    int[] ids;
    synchronized (LOCK) {
      ids = java.util.Arrays.copyOf(performers, performerCount);
    }
    boolean other = false;
    for (int id : ids) {
      if (id == t) continue;
      other = true;
      if (Rt.threadAlive(id)) return false;
    }
    return other;
  }

  /**
   * True when every other live thread that performed a force access is held too, or waits (a monitor,
   * park, join: a driver in Future.get()), and one is held: nobody is free to perform what the held
   * threads wait for (a pool whose workers all hold, each waiting for another's access of its own
   * key). The thread that finds it lets go, as RaceFuzzer releases a postponed thread when all are
   * postponed; the others stay held for what it performs.
   * Checked once a hold has lasted a third of {@code waitMs}: a partner may not have started yet.
   */
  private static boolean everyoneHeld(int t) {
    int[] ids;
    int[] held;
    synchronized (LOCK) {
      ids = java.util.Arrays.copyOf(performers, performerCount);
      held = java.util.Arrays.copyOf(heldThread, heldCount);
    }
    boolean other = false;
    for (int id : ids) {
      if (id == t) continue;
      boolean isHeld = false;
      for (int h : held) isHeld |= h == id;
      if (isHeld) other = true;
      else if (Rt.threadFree(id)) return false;
    }
    return other;
  }

  /**
   * At a thread's recorded access: the atNext accesses of a library call it began earlier count as
   * performed now (then, as for atStart, wait for an overlapping call to begin: afterBegun).
   */
  static void flushNext(ThreadState s, int t) {
    int m = s.forceNext;
    if (m == 0) return;
    s.forceNext = 0;
    if (s.forceSegment != segment) return;
    performed(s, t, m, s.forceNextKey, s.forceNextSub);
    afterBegun(t, m, s.forceNextKey, s.forceNextSub, s.forceNextArrived);
  }

  /** A library access of the thread whose call has returned (or a later one began): it counts as performed now. */
  static void flushPending(ThreadState s, int t) {
    int m = s.forcePending;
    if (m == 0) return;
    s.forcePending = 0;
    // a call begun in an earlier repetition is not this one's performance
    if (s.forceSegment != segment) return;
    performed(s, t, m, s.forcePendingKey, s.forcePendingSub);
  }

  private static void waitAt(ThreadState s, int t, int w, int m, int loc, long key, long sub) {
    long after = 0;
    int held;
    if (lockSite[w] != null) {
      // held before the lock, not here (inside it, the other thread could not make its access)
      synchronized (LOCK) {
        long let = s.forceLockLet == null ? 0 : s.forceLockLet[w];
        if (let == 0) return;
        s.forceLockLet[w] = 0;
        if (let < 0) {
          // not held: the order was already in place if the awaited performance was on this object
          if (performedSince(w, t, key, sub, -let - 1)) {
            inPlace[w]++;
            met(w);
          } else {
            inPlaceOther[w]++;
          }
        } else if (performedSince(w, t, key, sub, let - 1)) {
          met(w);
        } else {
          lockOther[w]++;
        }
      }
      return;
    }
    synchronized (LOCK) {
      held = segment;
      reached[w]++;
      if (since[w] >= 0) {
        long[] last = s.forceLast;
        after = last == null ? 0 : last[since[w]];
        if (after == 0) {
          notApplicable[w]++;
          return;
        }
        // a window on one object (A1 B2 A1 on the same variable) closes on the object it opened on:
        // a thread that opened it on one list and now touches another (a recursive walk of a tree of
        // lists, the next list's hasNext()) has no window open there
        if (sinceSame[w] && !same(sameKey[w], key, sub, s.forceLastKey[since[w]], s.forceLastSub[since[w]])) {
          notApplicable[w]++;
          return;
        }
        // the window this thread opened must already hold the other thread's earlier accesses
        // (W1(x) W2(x) W2(y) W1(y): the thread that wrote x second plays role 2, not role 1)
        int[] nd = needs[w];
        if (nd != null) {
          for (int j : nd) {
            if (!performedByOtherSince(j, t, after)) {
              notApplicable[w]++;
              return;
            }
          }
        }
      }
      if (fresh[w]) after = SEQ.get();
      if (satisfied(w, t, key, sub, after)) {
        met(w);
        return;
      }
      // a wait given up (maxTimeouts) holds nobody, but it is still judged: an access whose awaited
      // performance already came first meets it (ognlmethods: the filler held at its puts of method names
      // nobody gets, each waiting for a get of its own key, used up the timeouts before its put of the
      // name the other thread had already got — the pattern's order, counted as not met)
      if (disabled[w]) {
        skipped[w]++;
        return;
      }
      if (conflict(w, t, m, key, sub)) {
        skipped[w]++;
        return;
      }
      addHeld(t, w, key, sub, after);
      // a thread held at a fresh wait may be waiting for this one to be held in its window; a thread
      // asked to give way (conflict) goes on
      if (loopWaits && heldCount > 1 || anyYield()) LOCK.notifyAll();
    }
    hold(s, t, w, loc, key, sub, after, held);
  }

  /** Wait {@code w} of thread {@code t} (on {@code key}) can end as met. */
  private static boolean satisfied(int w, int t, long key, long sub, long after) {
    // ready before a lock: a partner held at its access (any object: the object to come is not known yet)
    if (ready[w]) return partnerReady(w, t, key, sub);
    // before a lock the object is not known yet: the access inside the lock checks it (waitAt)
    if (lockSite[w] != null) return performedAfter(forAccess[w], t, after, -1, 0, 0);
    return performedSince(w, t, key, sub, after) || fresh[w] && partnerInWindow(w, t, key, sub);
  }

  /** Wait {@code w}'s object condition between an access on (key, sub) and one on (k2, s2): none, the same object, or the same key. */
  private static boolean sameTarget(int w, long key, long sub, long k2, long s2) {
    return !sameObject[w] || same(sameKey[w], key, sub, k2, s2);
  }

  /**
   * The same object, or with {@code byKey} the same key when both accesses are keyed calls (a call's
   * {@code sub} differs from its object key only when its first argument was a plain key): a call
   * without a key (size(), clear(), an iterator) and a field compare by object.
   */
  private static boolean same(boolean byKey, long key, long sub, long k2, long s2) {
    return byKey && sub != key && s2 != k2 ? sub == s2 : key == k2;
  }

  /** For a ready wait: another thread is held at a wait whose access is this wait's {@code for} (on the same object when asked). */
  private static boolean partnerReady(int w, int t, long key, long sub) {
    for (int h = 0; h < heldCount; h++) {
      if (heldThread[h] == t) continue;
      int hw = heldWait[h];
      // a hold before a lock (this one's or the partner's) knows no object yet
      if (at[hw] == forAccess[w] && (lockSite[w] != null || lockSite[hw] != null || sameTarget(w, key, sub, heldKey[h], heldSub[h]))) return true;
    }
    return false;
  }

  /**
   * For a fresh wait: another thread is held at a wait for this wait's access ({@code at}) since its
   * own performance of {@code for} (on the same object when asked) — it is inside the window that
   * performance opened, waiting for this thread.
   */
  private static boolean partnerInWindow(int w, int t, long key, long sub) {
    for (int h = 0; h < heldCount; h++) {
      if (heldThread[h] == t) continue;
      int hw = heldWait[h];
      if (forAccess[hw] == at[w] && since[hw] == forAccess[w] && sameTarget(w, key, sub, heldKey[h], heldSub[h])) return true;
    }
    return false;
  }

  /** Holds the current thread (registered as held at {@code w}) until the wait is met, times out or meets a lock. */
  private static void hold(ThreadState s, int t, int w, int loc, long key, long sub, long after, int held) {
    long start = System.nanoTime();
    long deadline = start + waitNanos;
    long nextCheck = start + (s.locksHeld > 0 ? LOCK_CHECK_NANOS : SLOW_LOCK_CHECK_NANOS);
    String blocked = null;
    boolean gone = false;
    boolean stuck = false;
    boolean interrupted = false;
    try {
      while (true) {
        synchronized (LOCK) {
          // the repetition it was held in is over (a thread it left running): let go, count nothing
          if (held != segment) return;
          if (stopped) {
            removeHeld(t);
            return;
          }
          if (satisfied(w, t, key, sub, after)) {
            removeHeld(t);
            // before a lock: met once the thread's access inside it finds the performance on its object
            // (a ready one is met here: its partner is held, it performs nothing the access could check)
            if (lockSite[w] != null && !ready[w]) s.forceLockLet[w] = after + 1; // + 1: 0 is none (SEQ may still be 0)
            else met(w);
            return;
          }
          if (yieldAsked(t)) {
            removeHeld(t);
            yielded[w]++;
            return;
          }
          long now = System.nanoTime();
          if (blocked != null) {
            removeHeld(t);
            lockEnded[w]++;
            if (lockReason[w] == null) lockReason[w] = blocked;
            failed(w);
            return;
          }
          if (interrupted || gone || stuck || now - deadline >= 0) {
            removeHeld(t);
            timedOut[w]++;
            if (gone) partnerGone[w]++;
            else if (stuck) allHeld[w]++;
            failed(w);
            return;
          }
          long wait = Math.min(deadline - now, nextCheck - now);
          if (wait > 0) {
            try {
              LOCK.wait(wait / 1_000_000L, (int) (wait % 1_000_000L));
            } catch (InterruptedException e) {
              interrupted = true; // the program's interrupt ends the hold; the flag is set again below
            }
          }
        }
        long now = System.nanoTime();
        if (now - nextCheck >= 0) {
          blocked = blockedByThisThread(s, loc);
          gone = blocked == null && noPartnerLeft(t);
          stuck = blocked == null && !gone && now - start >= waitNanos / 3 && everyoneHeld(t);
          nextCheck = now + (s.locksHeld > 0 ? LOCK_CHECK_NANOS : SLOW_LOCK_CHECK_NANOS);
        }
      }
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  /** Another thread performed access {@code j} (any object) after sequence number {@code after}. */
  private static boolean performedByOtherSince(int j, int t, long after) {
    return performedAfter(j, t, after, -1, 0, 0);
  }

  /** Wait {@code w}'s awaited access was performed by another thread after {@code after} (on {@code key} when sameObject). */
  private static boolean performedSince(int w, int t, long key, long sub, long after) {
    return performedAfter(forAccess[w], t, after, w, key, sub);
  }

  /**
   * Scans access {@code j}'s ring of recent performances, newest first, down to sequence {@code after}:
   * one by another thread, on the object (or key) wait {@code w} asks for (w = -1: any object).
   */
  private static boolean performedAfter(int j, int t, long after, int w, long key, long sub) {
    long[] seqs = ringSeq[j];
    int[] threads = ringThread[j];
    long[] keys = ringKey[j];
    long[] subs = ringSub[j];
    int p = ringNext[j];
    int own = w >= 0 ? afterOwn[w] : -1;
    for (int c = 0; c < ringSize[j]; c++) {
      p = (p - 1) & (RING - 1);
      if (seqs[p] <= after) return false;
      if (threads[p] != t && (w < 0 || sameTarget(w, key, sub, keys[p], subs[p])) && (own < 0 || performedBefore(own, threads[p], seqs[p], w, keys[p], subs[p]))) return true;
    }
    return false;
  }

  /**
   * The performance at {@code seq} by thread {@code u} comes after u's own performance of access {@code j}
   * (on the same target as wait {@code w} asks for) and is not itself one: u's newest performance of j up
   * to {@code seq} is older. In a loop, a thread's next removal also matches the guard access (any line):
   * it is a performance of j, so it does not count — only what the thread does after it (its add).
   */
  private static boolean performedBefore(int j, int u, long seq, int w, long key, long sub) {
    long[] seqs = ringSeq[j];
    int[] threads = ringThread[j];
    long[] keys = ringKey[j];
    long[] subs = ringSub[j];
    int p = ringNext[j];
    for (int c = 0; c < ringSize[j]; c++) {
      p = (p - 1) & (RING - 1);
      if (seqs[p] <= seq && threads[p] == u && sameTarget(w, key, sub, keys[p], subs[p])) return seqs[p] < seq;
    }
    return false;
  }

  /**
   * Holding this thread at wait {@code w} would deadlock the forcing: a thread already held waits
   * for the very access this thread is about to perform, or is held in the same role (one thread
   * per role: this one then plays the other role and goes on), or is held in the other role on
   * another object waiting for this thread's role.
   */
  private static boolean conflict(int w, int t, int m, long key, long sub) {
    for (int h = 0; h < heldCount; h++) {
      if (heldThread[h] == t) continue;
      int hw = heldWait[h];
      // a thread held at a ready wait waits for this one to be held, not for its access — unless this
      // thread would wait at the same ready wait on the same object: both would wait for a partner that
      // never comes (two calls made to overlap, both threads at the first call's wait); this one plays
      // the other role
      if (ready[hw]) {
        if (ready[w] && at[hw] == at[w] && sameTarget(w, key, sub, heldKey[h], heldSub[h])) return true;
        continue;
      }
      // a thread whose wait is met is let go: it no longer holds its role (it leaves the held list
      // only once it runs again, and the thread that met it would else race past its own hold)
      if (satisfied(hw, heldThread[h], heldKey[h], heldSub[h], heldAfter[h])) continue;
      if ((m & (1 << forAccess[hw])) != 0 && sameTarget(hw, key, sub, heldKey[h], heldSub[h])) return true;
      if (role[at[hw]] == role[at[w]] && (!(sameObject[w] && sameObject[hw])
          || same(sameKey[w] && sameKey[hw], key, sub, heldKey[h], heldSub[h]))) return true;
      // held in the role this thread waits for, at an access on another object than the one this thread
      // waits on, and waiting for an access of this thread's role: neither hold can be met by the other
      // thread (a resetter's window still open on the root logger's list while the creator is held at its
      // add to a child's list, waiting for the resetter's read of that list). The hold inside a window
      // gives way — its thread opens the window again on the object the other thread waits at — else
      // the thread held first keeps its hold and this one goes on
      if (role[at[hw]] == role[forAccess[w]] && role[forAccess[hw]] == role[at[w]]
          && !sameTarget(w, key, sub, heldKey[h], heldSub[h])) {
        if (since[w] < 0 && since[hw] >= 0) {
          heldYield[h] = true;
          continue;
        }
        return true;
      }
    }
    return false;
  }

  private static void met(int w) {
    met[w]++;
    if (met[w] >= times && (w == waitCount - 1 || !optional[w]) && forcedEnough()) {
      stopped = true;
      active = false;
      LOCK.notifyAll();
    }
  }

  /**
   * The pattern's order was forced {@code times} times: the plan's last wait met that often, and every
   * wait that is not optional too. The last wait alone is not enough when it is an optional guard (an
   * order pattern's, or the writer's of a check then a use): met first — a reader's next() that gave
   * way to the writer held at its guard (expiringmap-iterate) — it used to stop forcing before the
   * pattern's own wait had been met once, and the runs failed unforced.
   */
  private static boolean forcedEnough() {
    if (met[waitCount - 1] < times) return false;
    for (int k = 0; k < waitCount - 1; k++) if (!optional[k] && met[k] < times) return false;
    return true;
  }

  private static void failed(int w) {
    if (++failures[w] >= maxTimeouts) disabled[w] = true;
  }

  private static boolean anyYield() {
    for (int h = 0; h < heldCount; h++) if (heldYield[h]) return true;
    return false;
  }

  /** The held thread {@code t} was asked to give up its hold (conflict). */
  private static boolean yieldAsked(int t) {
    for (int h = 0; h < heldCount; h++) if (heldThread[h] == t) return heldYield[h];
    return false;
  }

  private static void addHeld(int t, int w, long key, long sub, long after) {
    if (heldCount == heldThread.length) {
      heldThread = java.util.Arrays.copyOf(heldThread, heldCount * 2);
      heldWait = java.util.Arrays.copyOf(heldWait, heldCount * 2);
      heldKey = java.util.Arrays.copyOf(heldKey, heldCount * 2);
      heldSub = java.util.Arrays.copyOf(heldSub, heldCount * 2);
      heldAfter = java.util.Arrays.copyOf(heldAfter, heldCount * 2);
      heldYield = java.util.Arrays.copyOf(heldYield, heldCount * 2);
    }
    heldThread[heldCount] = t;
    heldWait[heldCount] = w;
    heldKey[heldCount] = key;
    heldSub[heldCount] = sub;
    heldAfter[heldCount] = after;
    heldYield[heldCount] = false;
    heldCount++;
  }

  private static void removeHeld(int t) {
    for (int h = 0; h < heldCount; h++) {
      if (heldThread[h] != t) continue;
      heldCount--;
      heldThread[h] = heldThread[heldCount];
      heldWait[h] = heldWait[heldCount];
      heldKey[h] = heldKey[heldCount];
      heldSub[h] = heldSub[heldCount];
      heldAfter[h] = heldAfter[heldCount];
      heldYield[h] = heldYield[heldCount];
      return;
    }
  }

  // ---- locks: is another thread blocked on a lock this (held) thread owns? ----

  private static boolean noManagement;

  /** Why the hold must end (a thread blocked on a lock this thread owns), or null. Outside LOCK. */
  private static String blockedByThisThread(ThreadState s, int loc) {
    Thread me = Thread.currentThread();
    if (!noManagement) {
      try {
        return Management.blockedBy(me, loc);
      } catch (Throwable e) {
        noManagement = true; // java.management not in this runtime image: the cruder check below
      }
    }
    if (s.locksHeld <= 0) return null;
    for (Thread other : Rt.liveThreads()) {
      if (other != me && other.getState() == Thread.State.BLOCKED) {
        return "thread " + other.getName() + " is blocked on a monitor while " + me.getName()
            + " holds a lock and waits at " + shortLoc(loc);
      }
    }
    return null;
  }

  /**
   * The check with java.management (in a class of its own, so that a runtime image without that
   * module only fails here): a thread whose lock owner is {@code me} — blocked on a monitor, or
   * parked on a {@code java.util.concurrent} lock — ends the hold.
   */
  private static final class Management {
    static String blockedBy(Thread me, int loc) {
      java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
      long id = me.getId();
      for (java.lang.management.ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds(), 0)) {
        if (ti == null || ti.getThreadId() == id || ti.getLockOwnerId() != id) continue;
        java.lang.management.LockInfo li = ti.getLockInfo();
        String what = li == null ? "a lock" : lockName(li.getClassName());
        String how = ti.getThreadState() == Thread.State.BLOCKED ? "monitor" : "lock";
        return "thread " + ti.getThreadName() + " is blocked on " + what + " (" + how + ") held by " + me.getName()
            + " while it waits at " + shortLoc(loc);
      }
      return null;
    }
  }

  /** {@code java.util.concurrent.locks.ReentrantLock$NonfairSync} → {@code java.util.concurrent.locks.ReentrantLock}. */
  private static String lockName(String cls) {
    int dollar = cls.lastIndexOf('$');
    if (dollar > 0 && cls.endsWith("Sync")) return cls.substring(0, dollar);
    return cls;
  }

  private static String baseName(String path) {
    int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
    return path.substring(slash + 1);
  }

  private static String shortLoc(int loc) {
    return loc < 0 ? "an unknown place" : baseName(Registry.locFile(loc)) + ":" + Registry.locLine(loc);
  }

  /** {@code Account.java:13 (W balance)} */
  private static String describe(int k) {
    String v = variable[k];
    int dot = v.lastIndexOf('.');
    String where = anywhere[k] ? "any access" : line[k] > 0 ? baseName(file[k]) + ":" + line[k] : baseName(file[k]) + " (any line of " + method[k] + ")";
    return where + " (" + (isWrite[k] && isRead[k] ? "R/W " : isWrite[k] ? "W " : "R ") + v.substring(dot + 1) + ")";
  }

  // ---- the report ----

  /** A thread's first forcing step in this repetition: its own state from an earlier one is dropped. */
  private static void ownSegment(ThreadState s) {
    if (s.forceLast != null) java.util.Arrays.fill(s.forceLast, 0L);
    if (s.forceLockLet != null) java.util.Arrays.fill(s.forceLockLet, 0L);
    s.forceReach = 0;
    s.forcePending = 0;
    s.forceNext = 0;
    s.forceSegment = segment;
  }

  /**
   * A repetition begins (Rt.beginSegment): forcing starts over as in a fresh JVM — every count, ring,
   * performer and held thread of the last repetition dropped, forcing active again.
   */
  static void beginSegment() {
    if (!installed) return;
    synchronized (LOCK) {
      segment++;
      java.util.Arrays.fill(met, 0L);
      java.util.Arrays.fill(timedOut, 0L);
      java.util.Arrays.fill(lockEnded, 0L);
      java.util.Arrays.fill(skipped, 0L);
      java.util.Arrays.fill(reached, 0L);
      java.util.Arrays.fill(notApplicable, 0L);
      java.util.Arrays.fill(failures, 0L);
      java.util.Arrays.fill(partnerGone, 0L);
      java.util.Arrays.fill(allHeld, 0L);
      java.util.Arrays.fill(yielded, 0L);
      java.util.Arrays.fill(lockOther, 0L);
      java.util.Arrays.fill(inPlace, 0L);
      java.util.Arrays.fill(inPlaceOther, 0L);
      java.util.Arrays.fill(disabled, false);
      java.util.Arrays.fill(lockReason, null);
      java.util.Arrays.fill(performed, 0L);
      java.util.Arrays.fill(ringNext, 0);
      java.util.Arrays.fill(ringSize, 0);
      performerCount = 0;
      performerNext = 0;
      heldCount = 0;
      stopped = false;
      active = true;
      LOCK.notifyAll();
    }
  }

  /** Ends forcing (at shutdown, and at the end of a repetition): held threads go on. */
  static void stop() {
    synchronized (LOCK) {
      stopped = true;
      active = false;
      LOCK.notifyAll();
    }
  }

  /** The trace line {@code {"forcing":{…}}} (docs/trace-format.md), or null without a force section. */
  static String reportLine() {
    if (!installed) return null;
    synchronized (LOCK) {
      boolean ok = true;
      StringBuilder reasons = new StringBuilder();
      for (int w = 0; w < waitCount; w++) {
        if (met[w] > 0 || optional[w]) continue;
        ok = false;
        if (reasons.length() > 0) reasons.append("; ");
        reasons.append("wait ").append(w).append(": ").append(whyNotMet(w));
      }
      StringBuilder b = new StringBuilder(256);
      b.append("{\"forcing\":{\"ok\":").append(ok);
      b.append(",\"order\":").append(Json.quote(order));
      if (patternJson != null) b.append(",\"pattern\":").append(patternJson);
      b.append(",\"waits\":[");
      for (int w = 0; w < waitCount; w++) {
        if (w > 0) b.append(',');
        b.append("{\"at\":").append(at[w]).append(",\"for\":").append(forAccess[w]);
        b.append(",\"met\":").append(met[w]).append(",\"timedOut\":").append(timedOut[w]);
        b.append(",\"lock\":").append(lockEnded[w]).append(",\"skipped\":").append(skipped[w]);
        if (inPlace[w] > 0) b.append(",\"inPlace\":").append(inPlace[w]);
        if (optional[w]) b.append(",\"optional\":true");
        b.append('}');
      }
      b.append(']');
      if (!ok) b.append(",\"reason\":").append(Json.quote(reasons.toString()));
      return b.append("}}").toString();
    }
  }

  private static String whyNotMet(int w) {
    String here = lockSite[w] == null ? describe(at[w]) : "the lock taken at " + lockPlace(w) + " (before " + describe(at[w]) + ")";
    String awaited = "another thread's " + describe(forAccess[w]) + (sameObject[w] ? (sameKey[w] ? " on the same key" : " on the same object") : "");
    if (reached[w] == 0) return "no thread reached " + here;
    StringBuilder b = new StringBuilder();
    if (lockEnded[w] > 0) {
      b.append(lockReason[w]).append(" (").append(times(lockEnded[w])).append(')');
    }
    if (timedOut[w] > 0) {
      if (b.length() > 0) b.append("; ");
      long waited = timedOut[w] - partnerGone[w] - allHeld[w];
      if (waited > 0) {
        b.append("timed out ").append(times(waited)).append(" (").append(number(waitMs)).append(waited == 1 ? " ms)" : " ms each)");
      }
      if (partnerGone[w] > 0) {
        b.append(waited > 0 ? " and " : "").append("ended ").append(times(partnerGone[w]))
            .append(" when no other thread of the pattern was left");
      }
      if (allHeld[w] > 0) {
        b.append(waited > 0 || partnerGone[w] > 0 ? " and " : "").append("let go ").append(times(allHeld[w]))
            .append(" when every other thread of the pattern was held too");
      }
      b.append(" at ").append(here).append(" waiting for ").append(awaited);
      if (performed[forAccess[w]] == 0) b.append(", which no thread performed");
    }
    if (lockOther[w] > 0) {
      if (b.length() > 0) b.append("; ");
      b.append("let go ").append(times(lockOther[w])).append(" before ").append(here)
          .append(" by another thread's ").append(describe(forAccess[w])).append(" on another object");
    }
    if (inPlaceOther[w] > 0) {
      if (b.length() > 0) b.append("; ");
      b.append("went on ").append(times(inPlaceOther[w])).append(" unheld before ").append(here)
          .append(" after another thread's ").append(describe(forAccess[w]))
          .append(" since its previous access of the pattern, which was on another object");
    }
    if (yielded[w] > 0) {
      if (b.length() > 0) b.append("; ");
      b.append("gave way ").append(times(yielded[w])).append(" at ").append(here)
          .append(" to a thread of the other role held on another object, waiting for this thread's role");
    }
    if (b.length() > 0) {
      if (disabled[w]) b.append("; then disabled (maxTimeouts ").append(maxTimeouts).append(')');
      return b.toString();
    }
    if (notApplicable[w] == reached[w]) {
      return here + " was reached " + times(reached[w]) + ", never by a thread that had performed "
          + describe(since[w]) + " before";
    }
    if (skipped[w] > 0) {
      return here + " was reached " + times(reached[w]) + " but never held: another thread was already held in its role"
          + " or waiting for this thread's access (skipped " + times(skipped[w]) + ")";
    }
    return here + " was reached " + times(reached[w]) + " but forcing had stopped";
  }

  /** {@code Reservoir.java:189} of a wait held before a lock */
  private static String lockPlace(int w) {
    String[] parts = lockSite[w].split("\u0000", -1);
    return baseName(parts[0]) + ":" + parts[1];
  }

  private static String times(long n) {
    return n == 1 ? "once" : n + " times";
  }

  private static String number(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
