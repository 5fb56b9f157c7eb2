package dev.braid.agent;

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

  /** The plan's name; throws IllegalArgumentException "FILE: field: what" on a bad plan. */
  static String load(String file) {
    Object root;
    try {
      root = JsonReader.parse(new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8));
    } catch (java.io.IOException | RuntimeException e) {
      String why = e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage();
      throw new IllegalArgumentException(file + ": " + why);
    }
    try {
      return install(root);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage());
    }
  }

  private static String install(Object root) {
    Map<?, ?> plan = object(root, "(the plan)");
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
    NoisePoints.setPlan(ids, p, kinds, min, max, only);
    return (String) name;
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
