package dev.braid.agent.runtime;

import java.util.HashSet;
import java.util.Set;

/**
 * Library calls as accesses (docs/trace-format.md, {@code loc.call}): a call from recorded code to a
 * method of a thread-unsafe JDK collection or builder is one read (query) or one write (mutator) of
 * that object at the call site. Iterators and views returned by such calls count as their backing
 * object. The instrumenter routes each such call site through a small static stub in the calling
 * class, which calls {@link #call} (and {@link #view} for methods that return a view) around the
 * original call; the JDK class itself is not changed.
 */
public final class LibraryAccess {
  private LibraryAccess() {}

  /**
   * Recorded library types; a user subclass counts as the nearest of these it extends. The
   * thread-safe ones (from {@code java.util.Vector} on) are recorded too: each call is atomic, but
   * two calls are not — a check-then-act over {@code containsKey} and {@code put} of a
   * {@code ConcurrentHashMap} is the atomicity violation UNICORN looks for.
   */
  static final String[] TYPES = {
    "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap",
    "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeMap", "java.util.TreeSet",
    "java.util.ArrayDeque", "java.util.PriorityQueue", "java.lang.StringBuilder",
    "java.util.Vector", "java.util.Hashtable", "java.util.concurrent.ConcurrentHashMap",
    "java.util.concurrent.ConcurrentSkipListMap", "java.util.concurrent.ConcurrentSkipListSet",
    "java.util.concurrent.CopyOnWriteArrayList", "java.util.concurrent.CopyOnWriteArraySet",
    "java.util.concurrent.ConcurrentLinkedQueue", "java.util.concurrent.ConcurrentLinkedDeque",
    "java.util.Collections$SynchronizedCollection", "java.util.Collections$SynchronizedMap",
    // atomics (issue 38): a get() then set() of an AtomicReference is a check-then-act like any other
    "java.util.concurrent.atomic.AtomicReference", "java.util.concurrent.atomic.AtomicInteger",
    "java.util.concurrent.atomic.AtomicLong", "java.util.concurrent.atomic.AtomicBoolean",
    "java.util.concurrent.atomic.AtomicReferenceArray", "java.util.concurrent.atomic.AtomicIntegerArray",
    "java.util.concurrent.atomic.AtomicLongArray",
    // adders and accumulators: increment() then sum() from another thread is an order like any other
    "java.util.concurrent.atomic.LongAdder", "java.util.concurrent.atomic.DoubleAdder",
    "java.util.concurrent.atomic.LongAccumulator", "java.util.concurrent.atomic.DoubleAccumulator"
  };
  private static final int NT = TYPES.length;
  private static final int[] TYPE_VAR = new int[NT];
  /** Types whose internals are recorded instead (named with --include): their calls are not recorded. */
  private static final Set<String> EXCLUDED = new HashSet<>();

  static {
    for (int k = 0; k < NT; k++) TYPE_VAR[k] = Registry.var(TYPES[k], null, false);
  }

  private static final ClassValue<Integer> TYPE_INDEX = new ClassValue<Integer>() {
    @Override
    protected Integer computeValue(Class<?> c) {
      for (Class<?> k = c; k != null; k = k.getSuperclass()) {
        String n = k.getName();
        for (int t = 0; t < NT; t++) {
          if (TYPES[t].equals(n)) return EXCLUDED.contains(n) ? -1 : t;
        }
      }
      return -1;
    }
  };

  /** Called once at agent start with the JDK classes named in --include. */
  public static synchronized void excludeTypes(java.util.List<String> included) {
    for (String s : included) {
      // a type the agent never instruments (ClassFilter's deny list, e.g. ConcurrentHashMap) keeps its calls
      for (String t : TYPES) if ((t.equals(s) || t.startsWith(s + ".")) && !dev.braid.agent.ClassFilter.isJdkDenied(t)) EXCLUDED.add(t);
    }
  }

  // ---- call sites, registered while classes are instrumented ----
  private static String[] siteFile = new String[256];
  private static String[] siteMethod = new String[256];
  private static String[] siteOwner = new String[256];
  private static String[] siteName = new String[256];
  private static int[] siteLine = new int[256];
  private static boolean[] siteWrite = new boolean[256];
  /** Per site: loc id per (type, direct 0 / view 1), -1 until first used. Rows never move. */
  private static volatile int[][] siteLocs = new int[256][];
  private static int siteCount;

  /** Registers a call site; {@code owner} is the dotted static owner of the call. */
  public static synchronized int site(String file, int line, String method, String owner, String name, boolean write) {
    int n = siteCount++;
    if (n == siteFile.length) {
      int cap = n * 2;
      siteFile = java.util.Arrays.copyOf(siteFile, cap);
      siteMethod = java.util.Arrays.copyOf(siteMethod, cap);
      siteOwner = java.util.Arrays.copyOf(siteOwner, cap);
      siteName = java.util.Arrays.copyOf(siteName, cap);
      siteLine = java.util.Arrays.copyOf(siteLine, cap);
      siteWrite = java.util.Arrays.copyOf(siteWrite, cap);
    }
    siteFile[n] = file;
    siteMethod[n] = method;
    siteOwner[n] = owner;
    siteName[n] = name;
    siteLine[n] = line;
    siteWrite[n] = write;
    int[][] rows = siteLocs;
    if (n >= rows.length) rows = java.util.Arrays.copyOf(rows, rows.length * 2);
    int[] row = new int[2 * NT + 1];
    java.util.Arrays.fill(row, -1);
    row[2 * NT] = write ? 1 : 0;
    rows[n] = row;
    siteLocs = rows;
    return n;
  }

  private static synchronized int newSiteLoc(int site, int type, boolean view) {
    String call = (view ? siteOwner[site] : TYPES[type]) + "." + siteName[site];
    return Registry.callLoc(siteFile[site], Math.max(1, siteLine[site]), siteMethod[site], call);
  }

  private static int siteLoc(int site, int type, boolean view) {
    int[] row = siteLocs[site];
    int k = view ? NT + type : type;
    int loc = row[k];
    if (loc < 0) row[k] = loc = newSiteLoc(site, type, view);
    return loc;
  }

  private static boolean isWrite(int site) {
    return siteLocs[site][2 * NT] != 0;
  }

  // ---- views and iterators: identity hash of the view -> identity hash and type of the backing object ----
  private static final int SLOTS = 1 << 14;
  private static final int[] VIEW_KEY = new int[SLOTS];
  private static final int[] VIEW_BACKING = new int[SLOTS];
  private static final int[] VIEW_TYPE = new int[SLOTS];

  private static int slot(int h) {
    return ((h * 0x9E3779B1) >>> 18) & (SLOTS - 1);
  }

  /** Type index of a recorded object, or -1; for a view, sets {@code out[0]} to its backing object's id. */
  private static int resolve(Object o, int[] out) {
    int t = TYPE_INDEX.get(o.getClass());
    int h = System.identityHashCode(o);
    if (t >= 0) {
      out[0] = h;
      out[1] = 0;
      return t;
    }
    int k = slot(h);
    synchronized (VIEW_KEY) {
      if (VIEW_KEY[k] != h || VIEW_TYPE[k] == 0) return -1;
      out[0] = VIEW_BACKING[k];
      out[1] = 1;
      return VIEW_TYPE[k] - 1;
    }
  }

  private static final ThreadLocal<int[]> SCRATCH = new ThreadLocal<int[]>() {
    @Override
    protected int[] initialValue() {
      return new int[2];
    }
  };

  /** Before the call at {@code site} on {@code receiver}: one R or W of the (backing) object. */
  public static void call(Object receiver, int site) {
    if (receiver == null || !Rt.enabled()) return;
    int[] out = SCRATCH.get();
    int t = resolve(receiver, out);
    if (t < 0) return;
    boolean view = out[1] != 0;
    Rt.libraryAccess(isWrite(site) ? Events.KIND_W : Events.KIND_R, TYPE_VAR[t], siteLoc(site, t, view), out[0], out[0]);
  }

  /**
   * Thread-safe maps and sets whose keyed calls are accesses of the key (docs/recorder.md "Library
   * calls"): each call is atomic, so two calls on different keys never conflict — only a sequence on
   * one key (containsKey then put of the same session id) is a check-then-act. Non-thread-safe maps
   * stay whole-object accesses: puts of different keys of a {@code HashMap} do race (resize).
   */
  private static final boolean[] KEYED_TYPE = new boolean[NT];

  static {
    for (int t = 0; t < NT; t++) {
      String n = TYPES[t];
      KEYED_TYPE[t] = n.equals("java.util.Hashtable") || n.equals("java.util.concurrent.ConcurrentHashMap")
          || n.equals("java.util.concurrent.ConcurrentSkipListMap") || n.equals("java.util.concurrent.ConcurrentSkipListSet")
          || n.equals("java.util.concurrent.CopyOnWriteArraySet") || n.equals("java.util.Collections$SynchronizedMap");
    }
  }

  /**
   * Before a keyed call ({@code get}, {@code put}, {@code containsKey}, … with {@code key} its first
   * argument): on a thread-safe map or set, one R or W of that key — the object id is the map's mixed
   * with the key's hash; a key whose hash is not a plain value (not a String, boxed primitive, enum or
   * UUID: its {@code hashCode} could run recorded code) and every other collection: as {@link #call}.
   */
  public static void callKeyed(Object receiver, Object key, int site) {
    if (receiver == null || !Rt.enabled()) return;
    int[] out = SCRATCH.get();
    int t = resolve(receiver, out);
    if (t < 0) return;
    boolean view = out[1] != 0;
    int obj = out[0];
    // the key's access, for forcing's sameKey waits on any map or set (a get() checks one key)
    int sub = obj;
    if (!view && key != null) {
      int h = keyHash(key);
      if (h != 0) sub = obj ^ h * 0x9E3779B1;
    }
    if (KEYED_TYPE[t]) obj = sub;
    Rt.libraryAccess(isWrite(site) ? Events.KIND_W : Events.KIND_R, TYPE_VAR[t], siteLoc(site, t, view), obj, sub);
  }

  /** The hash of a plain-value key (never user code), 0 for any other key. */
  private static int keyHash(Object key) {
    if (key instanceof String || key instanceof Integer || key instanceof Long || key instanceof Short
        || key instanceof Byte || key instanceof Character || key instanceof Boolean || key instanceof java.util.UUID) {
      int h = key.hashCode();
      return h == 0 ? 1 : h;
    }
    if (key instanceof Enum) return System.identityHashCode(key) | 1;
    return 0;
  }

  /**
   * After a recorded library call returned (added to the stubs only with a forcing plan): the call's
   * access counts as performed for forcing now, so that a thread it releases acts after the call.
   */
  public static void called() {
    if (Forcing.active) Rt.libraryCalled();
  }

  /** After a call that returned a view or iterator {@code result} of {@code receiver}. */
  public static void view(Object result, Object receiver, int site) {
    if (result == null || receiver == null || !Rt.enabled()) return;
    int[] out = SCRATCH.get();
    int t = resolve(receiver, out);
    if (t < 0 || TYPE_INDEX.get(result.getClass()) >= 0) return;
    int h = System.identityHashCode(result);
    int k = slot(h);
    synchronized (VIEW_KEY) {
      VIEW_KEY[k] = h;
      VIEW_BACKING[k] = out[0];
      VIEW_TYPE[k] = t + 1;
    }
  }

  /** An assertion failure thrown through a call of a test framework's assertion method. */
  public static void assertionThrown(Throwable t, int loc) {
    if (t instanceof AssertionError) Rt.assertionCreated(t, loc);
  }
}
