package dev.braid.agent;

import dev.braid.agent.runtime.Forcing;
import dev.braid.agent.runtime.Json;
import dev.braid.agent.runtime.NoisePoints;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * Reads a noise plan (agent option {@code plan=FILE}; format in docs/noise.md and
 * server/src/engine/noise/noisePlan.ts) and installs it in {@link NoisePoints}. The same checks as
 * the runner's validator (noisePlanFile.ts); an error names the file and the field.
 */
final class NoisePlanLoader {
  private NoisePlanLoader() {}

  /**
   * The plan's name; throws IllegalArgumentException "FILE: field: what" on a bad plan. Its force
   * section (docs/noise.md "Forcing plans") is checked always, installed only when {@code record}
   * (forcing needs the recording hooks).
   */
  static String load(String file, boolean record) {
    Object root;
    try {
      root = JsonReader.parse(new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8));
    } catch (java.io.IOException | RuntimeException e) {
      String why = e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage();
      throw new IllegalArgumentException(file + ": " + why);
    }
    try {
      return install(root, record, file);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }

  /** The plan read last has a force section (whether or not it is valid). */
  static boolean hasForce;

  private static String install(Object root, boolean record, String file) {
    Map<?, ?> plan = object(root, "(the plan)");
    hasForce = plan.containsKey("force");
    if (!"braid-noise-plan".equals(plan.get("format"))) throw bad("format", "must be \"braid-noise-plan\"");
    Object version = plan.get("version");
    if (!(version instanceof Double) || ((Double) version) != 1) throw bad("version", "must be 1 (this agent reads version 1)");
    Object name = plan.get("name");
    if (!(name instanceof String) || ((String) name).isEmpty()) throw bad("name", "must be a non-empty string");
    long[] dflt = noise(plan.get("noise"), "noise");
    Object pts = plan.get("points");
    if (!(pts instanceof List)) throw bad("points", "must be an array");
    List<?> list = (List<?>) pts;
    int n = list.size();
    String[] ids = new String[n];
    double[] p = new double[n];
    int[] kinds = new int[n];
    long[] min = new long[n];
    long[] max = new long[n];
    String[][] only = new String[n][];
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int k = 0; k < n; k++) {
      String at = "points[" + k + "]";
      Map<?, ?> pt = object(list.get(k), at);
      Object id = pt.get("id");
      if (!(id instanceof String) || !validId((String) id)) {
        throw bad(at + ".id", "must be a point id <class>.<method><descriptor>@<offset>, e.g. bank/Bank.transfer(II)V@12");
      }
      if (!seen.add((String) id)) throw bad(at + ".id", "point " + id + " is planned twice");
      Object prob = pt.get("probability");
      if (!(prob instanceof Double) || !(((Double) prob) >= 0 && ((Double) prob) <= 1)) {
        throw bad(at + ".probability", "must be a number between 0 and 1");
      }
      long[] kind = pt.containsKey("noise") ? noise(pt.get("noise"), at + ".noise") : dflt;
      if (pt.containsKey("threads")) only[k] = threadNames(pt.get("threads"), at + ".threads");
      ids[k] = (String) id;
      p[k] = (Double) prob;
      kinds[k] = (int) kind[0];
      min[k] = kind[1];
      max[k] = kind[2];
    }
    Force force = plan.containsKey("force") ? force(plan.get("force")) : null;
    NoisePoints.setPlan(ids, p, kinds, min, max, only);
    if (force != null && !record) {
      System.err.println("[braid-agent] the force section of the noise plan " + file
          + " is ignored: forcing needs recording (record=false)");
    } else if (force != null) {
      Forcing.install(force.order, force.pattern, force.waitMs, force.times, force.maxTimeouts, force.role, force.type,
          force.variable, force.file, force.line, force.method, force.points, force.at, force.forAccess, force.since,
          force.sameObject, force.anywhere, force.optional, force.needs, force.call, force.fresh, force.ready, force.sameKey,
          force.lockFile, force.lockLine, force.lockMethod, force.lockWithin, force.threads, force.callers, force.atStart, force.afterOwn, force.atNext);
    }
    return (String) name;
  }

  /** Most accesses and waits of a force section (the agent keeps per-access bit masks in an int). */
  static final int MAX_FORCE_ACCESSES = 16;
  static final int MAX_FORCE_WAITS = 16;

  /** A checked force section. */
  private static final class Force {
    String order;
    String pattern;
    double waitMs;
    long times;
    int maxTimeouts = 5;
    int[] role;
    String[] type;
    String[] variable;
    String[] file;
    int[] line;
    String[] method;
    String[][] points;
    int[] at;
    int[] forAccess;
    int[] since;
    boolean[] sameObject;
    /** per wait: a keyed call matches only a performance on the same key */
    boolean[] sameKey;
    /** per access: matches the variable at any location */
    boolean[] anywhere;
    /** per access: the library call a library access must be made by ("java.util.Iterator.next"), or null */
    String[] call;
    /** per access: the threads that may take part in it (names; {@code *} stands for a number), or null for every thread */
    String[][] threads;
    /** per access: the call sites its thread's stack must have, nearest first ("file\0line\0method" each), or null */
    String[][] callers;
    /** per access (a library call's): its performance counts when the call begins */
    boolean[] atStart;
    /**
     * per access (a library call's): its performance counts at its thread's next recorded access after the
     * call began (inside a callback the call makes, or after a lazy call such as stream() returned)
     */
    boolean[] atNext;
    /** per wait: the awaited performance counts only when its thread made this access before it (-1: any) */
    int[] afterOwn;
    /** per wait: not needed for the run's forcing to count as met */
    boolean[] optional;
    /** per wait: accesses of another role another thread must have performed after {@code since} (or null) */
    int[][] needs;
    /** per wait: only a performance after the thread reached the wait counts (or one whose thread is held in its window waiting for this access) */
    boolean[] fresh;
    /** per wait: held until another thread is held at a wait at {@code for} (ready there) */
    boolean[] ready;
    /** per wait: the lock acquisition the thread is held before ({@code beforeLock}), or null */
    String[] lockFile;
    int[] lockLine;
    String[] lockMethod;
    /** per wait held before a lock: the method the thread must be inside to be held ({@code beforeLock.within}), or null */
    String[] lockWithin;
  }

  /** Checks a force section (the same checks and messages as noisePlanFile.ts, checkForce). */
  private static Force force(Object v) {
    if (!(v instanceof Map)) throw bad("force", "must be an object {\"order\", \"waitMs\", \"times\", \"accesses\", \"waits\"}");
    Map<?, ?> m = (Map<?, ?>) v;
    Force f = new Force();
    Object order = m.get("order");
    if (!"pattern".equals(order) && !"opposite".equals(order)) throw bad("force.order", "must be \"pattern\" or \"opposite\"");
    f.order = (String) order;
    f.waitMs = positive(m.get("waitMs"), "force.waitMs", 60_000);
    f.times = whole(m.get("times"), "force.times");
    if (m.containsKey("maxTimeouts")) f.maxTimeouts = (int) Math.min(Integer.MAX_VALUE, whole(m.get("maxTimeouts"), "force.maxTimeouts"));
    if (m.containsKey("pattern")) {
      if (!(m.get("pattern") instanceof Map)) throw bad("force.pattern", "must be an object");
      f.pattern = toJson(m.get("pattern"));
    }
    Object as = m.get("accesses");
    if (!(as instanceof List) || ((List<?>) as).isEmpty() || ((List<?>) as).size() > MAX_FORCE_ACCESSES) {
      throw bad("force.accesses", "must be a non-empty array of at most " + MAX_FORCE_ACCESSES + " accesses");
    }
    List<?> accesses = (List<?>) as;
    int n = accesses.size();
    f.role = new int[n];
    f.type = new String[n];
    f.variable = new String[n];
    f.file = new String[n];
    f.line = new int[n];
    f.method = new String[n];
    f.points = new String[n][];
    f.anywhere = new boolean[n];
    f.call = new String[n];
    f.threads = new String[n][];
    f.callers = new String[n][];
    f.atStart = new boolean[n];
    f.atNext = new boolean[n];
    for (int k = 0; k < n; k++) {
      String at = "force.accesses[" + k + "]";
      if (!(accesses.get(k) instanceof Map)) {
        throw bad(at, "must be an object {\"role\", \"type\", \"variable\", \"file\", \"line\", \"method\"}");
      }
      Map<?, ?> a = (Map<?, ?>) accesses.get(k);
      f.role[k] = (int) Math.min(Integer.MAX_VALUE, whole(a.get("role"), at + ".role"));
      Object type = a.get("type");
      if (!"R".equals(type) && !"W".equals(type) && !"RW".equals(type)) throw bad(at + ".type", "must be \"R\", \"W\" or \"RW\"");
      f.type[k] = (String) type;
      f.variable[k] = text(a.get("variable"), at + ".variable");
      f.file[k] = text(a.get("file"), at + ".file");
      Object ln = a.get("line");
      if (!(ln instanceof Double) || ((Double) ln).isInfinite() || (Double) ln < 0 || (Double) ln != Math.rint((Double) ln)) {
        throw bad(at + ".line", "must be a whole number ≥ 0 (0: any line of the method)");
      }
      f.line[k] = (int) Math.min(Integer.MAX_VALUE, (double) (Double) ln);
      f.method[k] = text(a.get("method"), at + ".method");
      if (a.containsKey("anywhere")) {
        if (!(a.get("anywhere") instanceof Boolean)) throw bad(at + ".anywhere", "must be true or false");
        f.anywhere[k] = (Boolean) a.get("anywhere");
      }
      if (a.containsKey("call")) f.call[k] = text(a.get("call"), at + ".call");
      if (a.containsKey("threads")) f.threads[k] = threadNames(a.get("threads"), at + ".threads");
      if (a.containsKey("callers")) f.callers[k] = callSites(a.get("callers"), at + ".callers");
      if (a.containsKey("atStart")) {
        if (!(a.get("atStart") instanceof Boolean)) throw bad(at + ".atStart", "must be true or false");
        if ((Boolean) a.get("atStart") && f.call[k] == null) throw bad(at + ".atStart", "needs call (only a library call's access has a start)");
        f.atStart[k] = (Boolean) a.get("atStart");
      }
      if (a.containsKey("atNext")) {
        if (!(a.get("atNext") instanceof Boolean)) throw bad(at + ".atNext", "must be true or false");
        if ((Boolean) a.get("atNext") && f.call[k] == null) throw bad(at + ".atNext", "needs call (only a library call's access is counted at its thread's next access)");
        if ((Boolean) a.get("atNext") && f.atStart[k]) throw bad(at + ".atNext", "cannot go with atStart");
        f.atNext[k] = (Boolean) a.get("atNext");
      }
      if (a.containsKey("points")) {
        Object ps = a.get("points");
        if (!(ps instanceof List)) throw bad(at + ".points", "must be an array of point ids");
        List<?> list = (List<?>) ps;
        f.points[k] = new String[list.size()];
        for (int j = 0; j < list.size(); j++) {
          Object id = list.get(j);
          if (!(id instanceof String) || !validId((String) id)) {
            throw bad(at + ".points[" + j + "]", "must be a point id <class>.<method><descriptor>@<offset>, e.g. bank/Bank.transfer(II)V@12");
          }
          f.points[k][j] = (String) id;
        }
      }
    }
    Object ws = m.get("waits");
    if (!(ws instanceof List) || ((List<?>) ws).isEmpty() || ((List<?>) ws).size() > MAX_FORCE_WAITS) {
      throw bad("force.waits", "must be a non-empty array of at most " + MAX_FORCE_WAITS + " waits");
    }
    List<?> waits = (List<?>) ws;
    int w = waits.size();
    f.at = new int[w];
    f.forAccess = new int[w];
    f.since = new int[w];
    f.sameObject = new boolean[w];
    f.sameKey = new boolean[w];
    f.optional = new boolean[w];
    f.needs = new int[w][];
    f.fresh = new boolean[w];
    f.ready = new boolean[w];
    f.lockFile = new String[w];
    f.lockLine = new int[w];
    f.lockMethod = new String[w];
    f.lockWithin = new String[w];
    f.afterOwn = new int[w];
    for (int k = 0; k < w; k++) {
      String at = "force.waits[" + k + "]";
      f.afterOwn[k] = -1;
      if (!(waits.get(k) instanceof Map)) throw bad(at, "must be an object {\"at\", \"for\", \"sameObject\"}");
      Map<?, ?> wt = (Map<?, ?>) waits.get(k);
      int a = index(wt.get("at"), at + ".at", n);
      int b = index(wt.get("for"), at + ".for", n);
      if (f.role[b] == f.role[a]) {
        throw bad(at + ".for", "must be an access of another role than at (force.accesses[" + a + "] has role " + f.role[a] + ")");
      }
      int c = -1;
      if (wt.containsKey("since")) {
        c = index(wt.get("since"), at + ".since", n);
        if (c == a) throw bad(at + ".since", "must differ from at");
        if (f.role[c] != f.role[a]) {
          throw bad(at + ".since", "must be an access of the same role as at (force.accesses[" + a + "] has role " + f.role[a] + ")");
        }
      }
      Object same = wt.get("sameObject");
      if (!(same instanceof Boolean)) throw bad(at + ".sameObject", "must be true or false");
      f.at[k] = a;
      f.forAccess[k] = b;
      f.since[k] = c;
      f.sameObject[k] = (Boolean) same;
      if (wt.containsKey("needs")) {
        if (c < 0) throw bad(at + ".needs", "needs since");
        Object nv = wt.get("needs");
        if (!(nv instanceof List) || ((List<?>) nv).size() > MAX_FORCE_ACCESSES) throw bad(at + ".needs", "must be an array of indices into force.accesses");
        List<?> nl = (List<?>) nv;
        f.needs[k] = new int[nl.size()];
        for (int j = 0; j < nl.size(); j++) {
          int x = index(nl.get(j), at + ".needs[" + j + "]", n);
          if (f.role[x] == f.role[a]) throw bad(at + ".needs[" + j + "]", "must be an access of another role than at");
          f.needs[k][j] = x;
        }
      }
      if (wt.containsKey("sameKey")) {
        if (!(wt.get("sameKey") instanceof Boolean)) throw bad(at + ".sameKey", "must be true or false");
        f.sameKey[k] = (Boolean) wt.get("sameKey");
        if (f.sameKey[k] && !f.sameObject[k]) throw bad(at + ".sameKey", "needs sameObject");
      }
      if (wt.containsKey("optional")) {
        if (!(wt.get("optional") instanceof Boolean)) throw bad(at + ".optional", "must be true or false");
        f.optional[k] = (Boolean) wt.get("optional");
      }
      if (wt.containsKey("fresh")) {
        if (!(wt.get("fresh") instanceof Boolean)) throw bad(at + ".fresh", "must be true or false");
        if (c >= 0) throw bad(at + ".fresh", "cannot go with since");
        f.fresh[k] = (Boolean) wt.get("fresh");
      }
      if (wt.containsKey("ready")) {
        if (!(wt.get("ready") instanceof Boolean)) throw bad(at + ".ready", "must be true or false");
        if (c >= 0 || f.fresh[k]) throw bad(at + ".ready", "cannot go with since or fresh");
        f.ready[k] = (Boolean) wt.get("ready");
        if (f.ready[k] && !f.optional[k]) throw bad(at + ".ready", "must be optional");
      }
      if (wt.containsKey("beforeLock")) {
        // ready with beforeLock: held before the lock until a partner is held at its own access (the
        // same-delay control of a hold before a lock, docs/confirm.md)
        if (c >= 0 || f.fresh[k]) throw bad(at + ".beforeLock", "cannot go with since or fresh");
        if (!(wt.get("beforeLock") instanceof Map)) throw bad(at + ".beforeLock", "must be an object {\"file\", \"line\", \"method\"} (a lock acquisition)");
        Map<?, ?> lk = (Map<?, ?>) wt.get("beforeLock");
        Object lf = lk.get("file");
        Object ll = lk.get("line");
        Object lm = lk.get("method");
        if (!(lf instanceof String) || ((String) lf).isEmpty()) throw bad(at + ".beforeLock.file", "must be a non-empty string");
        if (!(ll instanceof Double) || (Double) ll < 1 || (Double) ll != Math.rint((Double) ll) || (Double) ll > Integer.MAX_VALUE) {
          throw bad(at + ".beforeLock.line", "must be a whole number ≥ 1");
        }
        if (!(lm instanceof String) || ((String) lm).isEmpty()) throw bad(at + ".beforeLock.method", "must be a non-empty string");
        f.lockFile[k] = (String) lf;
        f.lockLine[k] = (int) (double) (Double) ll;
        f.lockMethod[k] = (String) lm;
        if (lk.containsKey("within")) {
          Object lw = lk.get("within");
          if (!(lw instanceof String) || ((String) lw).lastIndexOf('.') <= 0) {
            throw bad(at + ".beforeLock.within", "must be a method name \"pkg.Class.method\" (a caller on the thread's stack)");
          }
          f.lockWithin[k] = (String) lw;
        }
      }
    }
    for (int k = 0; k < w; k++) {
      Map<?, ?> wt = (Map<?, ?>) waits.get(k);
      if (!wt.containsKey("afterOwn")) continue;
      String at = "force.waits[" + k + "]";
      int j = index(wt.get("afterOwn"), at + ".afterOwn", n);
      if (j == f.forAccess[k] || f.role[j] != f.role[f.forAccess[k]]) {
        throw bad(at + ".afterOwn", "must be another access of the role of for (force.accesses[" + f.forAccess[k] + "] has role " + f.role[f.forAccess[k]] + ")");
      }
      if (f.lockFile[k] != null || f.ready[k]) throw bad(at + ".afterOwn", "cannot go with beforeLock or ready");
      f.afterOwn[k] = j;
    }
    boolean required = false;
    for (boolean o : f.optional) required |= !o;
    if (!required) throw bad("force.waits", "needs at least one wait that is not optional");
    return f;
  }

  /** A whole number ≥ 1. */
  private static long whole(Object v, String field) {
    if (!(v instanceof Double) || ((Double) v).isInfinite() || (Double) v < 1 || (Double) v != Math.rint((Double) v)) {
      throw bad(field, "must be a whole number ≥ 1");
    }
    return (long) (double) (Double) v;
  }

  private static int index(Object v, String field, int n) {
    if (!(v instanceof Double) || (Double) v < 0 || (Double) v >= n || (Double) v != Math.rint((Double) v)) {
      throw bad(field, "must be an index into force.accesses (0.." + (n - 1) + ")");
    }
    return (int) (double) (Double) v;
  }

  private static String text(Object v, String field) {
    if (!(v instanceof String) || ((String) v).isEmpty()) throw bad(field, "must be a non-empty string");
    return (String) v;
  }

  /** JSON text of a parsed value (the force section's informative pattern, copied into the trace). */
  static String toJson(Object v) {
    if (v == null) return "null";
    if (v instanceof String) return Json.quote((String) v);
    if (v instanceof Boolean) return v.toString();
    if (v instanceof Double) {
      double d = (Double) v;
      if (Double.isNaN(d) || Double.isInfinite(d)) return "null";
      return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
    StringBuilder b = new StringBuilder();
    if (v instanceof Map) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) b.append(',');
        first = false;
        b.append(Json.quote(String.valueOf(e.getKey()))).append(':').append(toJson(e.getValue()));
      }
      return b.append('}').toString();
    }
    b.append('[');
    boolean first = true;
    for (Object e : (List<?>) v) {
      if (!first) b.append(',');
      first = false;
      b.append(toJson(e));
    }
    return b.append(']').toString();
  }

  /** {@code <internal class>.<method><descriptor>@<offset>} */
  static boolean validId(String id) {
    int at = id.lastIndexOf('@');
    int paren = id.indexOf('(');
    if (at < 0 || paren < 0 || paren > at) return false;
    int dot = id.lastIndexOf('.', paren);
    if (dot <= 0 || dot + 1 >= paren) return false;
    String offset = id.substring(at + 1);
    if (offset.isEmpty() || offset.length() > 6) return false;
    for (int k = 0; k < offset.length(); k++) if (offset.charAt(k) < '0' || offset.charAt(k) > '9') return false;
    return id.indexOf(')', paren) > paren && id.indexOf(')', paren) < at;
  }

  /** {kind, min ns, max ns} of a NoiseKind object. */
  private static long[] noise(Object v, String field) {
    Map<?, ?> m = object(v, field);
    Object kind = m.get("kind");
    if ("yield".equals(kind)) return new long[] {NoisePoints.YIELD, 0, 0};
    if ("sleep".equals(kind)) {
      double ms = positive(m.get("ms"), field + ".ms", 60_000);
      long max = (long) (ms * 1_000_000L);
      return new long[] {NoisePoints.SLEEP, ms >= 1 ? 1_000_000L : max, max};
    }
    if ("busy".equals(kind)) {
      double micros = positive(m.get("micros"), field + ".micros", 60_000_000);
      return new long[] {NoisePoints.BUSY, 0, (long) (micros * 1000L)};
    }
    throw bad(field + ".kind", "must be \"yield\", \"sleep\" or \"busy\"");
  }

  /** A point's {@code threads}: a non-empty array of distinct non-empty thread names. */
  private static String[] threadNames(Object v, String field) {
    if (!(v instanceof List) || ((List<?>) v).isEmpty()) throw bad(field, "must be a non-empty array of thread names");
    List<?> list = (List<?>) v;
    String[] out = new String[list.size()];
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int k = 0; k < out.length; k++) {
      Object n = list.get(k);
      if (!(n instanceof String) || ((String) n).isEmpty()) throw bad(field + "[" + k + "]", "must be a non-empty string (a thread name)");
      if (!seen.add((String) n)) throw bad(field + "[" + k + "]", "thread " + n + " is named twice");
      out[k] = (String) n;
    }
    return out;
  }

  /** An access's {@code callers}: a non-empty array of at most 8 call sites {"file", "line", "method"}, nearest first. */
  private static String[] callSites(Object v, String field) {
    if (!(v instanceof List) || ((List<?>) v).isEmpty() || ((List<?>) v).size() > 8) {
      throw bad(field, "must be a non-empty array of at most 8 call sites {\"file\", \"line\", \"method\"}, nearest first");
    }
    List<?> list = (List<?>) v;
    String[] out = new String[list.size()];
    for (int k = 0; k < out.length; k++) {
      String at = field + "[" + k + "]";
      if (!(list.get(k) instanceof Map)) throw bad(at, "must be an object {\"file\", \"line\", \"method\"}");
      Map<?, ?> c = (Map<?, ?>) list.get(k);
      String file = text(c.get("file"), at + ".file");
      Object ln = c.get("line");
      if (!(ln instanceof Double) || ((Double) ln).isInfinite() || (Double) ln < 0 || (Double) ln != Math.rint((Double) ln)) {
        throw bad(at + ".line", "must be a whole number ≥ 0 (0: any line of the method)");
      }
      String method = text(c.get("method"), at + ".method");
      out[k] = file + '\u0000' + (long) (double) (Double) ln + '\u0000' + method;
    }
    return out;
  }

  private static double positive(Object v, String field, double most) {
    if (!(v instanceof Double) || !(((Double) v) > 0 && ((Double) v) <= most)) {
      throw bad(field, "must be a number > 0 and ≤ " + (long) most);
    }
    return (Double) v;
  }

  private static Map<?, ?> object(Object v, String field) {
    if (!(v instanceof Map)) throw bad(field, "must be an object");
    return (Map<?, ?>) v;
  }

  private static IllegalArgumentException bad(String field, String what) {
    return new IllegalArgumentException(field + ": " + what);
  }
}
