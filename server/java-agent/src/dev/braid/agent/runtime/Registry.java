package dev.braid.agent.runtime;

import java.util.HashMap;
import java.util.Map;

/**
 * Static names of the trace: source locations and variables, registered while classes are
 * instrumented. Ids are dense, from 0. Access is synchronized: registration happens at class
 * transformation and the writer reads each entry once per trace.
 */
public final class Registry {
  private Registry() {}

  private static final Map<String, Integer> LOC_KEYS = new HashMap<>();
  private static String[] locFile = new String[1024];
  private static String[] locMethod = new String[1024];
  private static int[] locLine = new int[1024];
  private static boolean[] locJdk = new boolean[1024];
  /** Library call named by the location ({@code java.util.HashMap.put}), or null. */
  private static String[] locCall = new String[1024];
  private static boolean[] locHarness = new boolean[1024];
  private static int locCount;
  /** Dotted names of test classes (JUnit/TestNG annotations, junit.framework.TestCase subclasses). */
  private static final java.util.Set<String> HARNESS_CLASSES = new java.util.HashSet<>();

  private static final Map<String, Integer> VAR_KEYS = new HashMap<>();
  private static String[] varName = new String[256];
  private static String[] varClass = new String[256];
  private static String[] varField = new String[256];
  private static boolean[] varArray = new boolean[256];
  private static int varCount;

  /** Registers a source location; {@code line} 0 means "not known yet", see {@link #setLineIfUnknown}. */
  public static synchronized int loc(String file, int line, String method, boolean jdk, String uniqueTag) {
    String key = file + '\u0000' + line + '\u0000' + method + '\u0000' + (uniqueTag == null ? "" : uniqueTag);
    Integer id = LOC_KEYS.get(key);
    if (id != null) return id;
    int n = locCount++;
    if (n == locFile.length) {
      int cap = n * 2;
      locFile = java.util.Arrays.copyOf(locFile, cap);
      locMethod = java.util.Arrays.copyOf(locMethod, cap);
      locLine = java.util.Arrays.copyOf(locLine, cap);
      locJdk = java.util.Arrays.copyOf(locJdk, cap);
      locCall = java.util.Arrays.copyOf(locCall, cap);
      locHarness = java.util.Arrays.copyOf(locHarness, cap);
    }
    locHarness[n] = isHarnessMethod(method);
    if (!jdk) applicationCode = true;
    locFile[n] = file;
    locMethod[n] = method;
    locLine[n] = line;
    locJdk[n] = jdk;
    LOC_KEYS.put(key, n);
    return n;
  }

  /**
   * True once a class of the application has been instrumented in this JVM. Output lines are
   * recorded only then, so that a build tool's own JVM (which runs no recorded class) writes no trace.
   */
  static volatile boolean applicationCode;

  /** A location of a library call ({@code call}, e.g. {@code java.util.HashMap.put}) at a user line. */
  public static synchronized int callLoc(String file, int line, String method, String call) {
    int id = loc(file, line, method, false, "call " + call);
    locCall[id] = call;
    return id;
  }

  public static synchronized String locCall(int id) { return locCall[id]; }
  public static synchronized boolean locHarness(int id) { return locHarness[id]; }

  /** Marks a class (dotted name) as test code; called before its methods are instrumented. */
  public static synchronized void markHarnessClass(String className) {
    HARNESS_CLASSES.add(className);
  }

  private static java.util.List<String> testCodeEntries = java.util.Collections.emptyList();

  /** Classes/packages named test code by the agent option testCode (same matching as include). */
  public static synchronized void setTestCodeEntries(java.util.List<String> entries) {
    testCodeEntries = new java.util.ArrayList<>(entries);
  }

  public static synchronized boolean isHarnessClass(String className) {
    if (HARNESS_CLASSES.contains(className)) return true;
    for (String e : testCodeEntries) {
      if (className.equals(e) || (className.startsWith(e) && (className.charAt(e.length()) == '.'
          || className.charAt(e.length()) == '$'))) {
        return true;
      }
    }
    int dollar = className.indexOf('$');
    return dollar > 0 && HARNESS_CLASSES.contains(className.substring(0, dollar));
  }

  private static boolean isHarnessMethod(String method) {
    if ((HARNESS_CLASSES.isEmpty() && testCodeEntries.isEmpty()) || method == null) return false;
    int dot = method.lastIndexOf('.');
    return dot > 0 && isHarnessClass(method.substring(0, dot));
  }

  public static synchronized void setLineIfUnknown(int loc, int line) {
    if (locLine[loc] == 0) locLine[loc] = line;
  }

  public static synchronized String locFile(int id) { return locFile[id]; }
  public static synchronized String locMethod(int id) { return locMethod[id]; }
  public static synchronized int locLine(int id) { return Math.max(1, locLine[id]); }

  /** Snapshot of the "location is in a JDK class" flags, read without locking by the hooks. */
  static volatile boolean[] jdkLocs = new boolean[0];

  public static synchronized void publishJdkFlags() {
    jdkLocs = java.util.Arrays.copyOf(locJdk, locCount);
  }

  public static synchronized int var(String className, String field, boolean array) {
    String name = array ? (field == null ? className + "[]" : className + "." + field + "[]")
        : field == null ? className : className + "." + field;
    Integer id = VAR_KEYS.get(name);
    if (id != null) return id;
    int n = varCount++;
    if (n == varName.length) {
      int cap = n * 2;
      varName = java.util.Arrays.copyOf(varName, cap);
      varClass = java.util.Arrays.copyOf(varClass, cap);
      varField = java.util.Arrays.copyOf(varField, cap);
      varArray = java.util.Arrays.copyOf(varArray, cap);
    }
    varName[n] = name;
    varClass[n] = className;
    varField[n] = field;
    varArray[n] = array;
    VAR_KEYS.put(name, n);
    // grown geometrically, written in place; the volatile store publishes the entry to the lock-free readers
    boolean[] typed = typeNamedArrays;
    if (n >= typed.length) typed = java.util.Arrays.copyOf(typed, Math.max(64, 2 * (n + 1)));
    typed[n] = array && field == null;
    typeNamedArrays = typed;
    return n;
  }

  /** Per field var id: its array var ("Class.field[]") + 1, 0 until asked (Rt.aliasArray), read without locking. */
  static volatile int[] arrayVarOfField = new int[0];

  /** The array var of a field var (registered on first use). */
  static synchronized int arrayVarOf(int fieldVar) {
    int av = var(varClass[fieldVar], varField[fieldVar], true);
    int[] map = arrayVarOfField;
    if (fieldVar >= map.length) map = java.util.Arrays.copyOf(map, Math.max(64, 2 * (fieldVar + 1)));
    map[fieldVar] = av + 1;
    arrayVarOfField = map;
    return av;
  }

  /** Per var id: an array named by its element type (no field in sight; Rt.arrayVar), read without locking. */
  static volatile boolean[] typeNamedArrays = new boolean[0];

  public static synchronized String varName(int id) { return varName[id]; }
  public static synchronized String varClass(int id) { return varClass[id]; }
  public static synchronized String varField(int id) { return varField[id]; }
  public static synchronized boolean varArray(int id) { return varArray[id]; }
}
