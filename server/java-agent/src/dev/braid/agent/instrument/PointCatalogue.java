package dev.braid.agent.instrument;

import dev.braid.agent.runtime.Json;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The catalogue of instrumented points (agent option {@code points=FILE}, docs/noise.md): one JSON
 * line per point, {@code {"id","file","line","method","kind"}} (InstrumentedPoint in
 * server/src/engine/noise/noisePlan.ts), appended per class once the class is instrumented (several
 * JVMs of a run may append to the same file; readers drop repeated ids). One instance collects the
 * lines of one class.
 */
public final class PointCatalogue {
  private static volatile String file;
  private static FileOutputStream out;
  private static boolean failed;

  /** Agent start: the file to append to (null: no catalogue). */
  public static void configure(String path) {
    file = path;
  }

  static boolean enabled() {
    return file != null;
  }

  private final StringBuilder lines = new StringBuilder();

  void add(String id, String sourcePath, int line, String method, String kind) {
    if (file == null) return;
    lines.append("{\"id\":").append(Json.quote(id))
        .append(",\"file\":").append(Json.quote(sourcePath))
        .append(",\"line\":").append(line)
        .append(",\"method\":").append(Json.quote(method))
        .append(",\"kind\":\"").append(kind).append("\"}\n");
  }

  /** Writes the class's lines (called after the class was instrumented successfully). */
  void flush() {
    if (lines.length() == 0) return;
    byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
    lines.setLength(0);
    synchronized (PointCatalogue.class) {
      if (failed) return;
      try {
        if (out == null) {
          java.io.File f = new java.io.File(file);
          java.io.File parent = f.getAbsoluteFile().getParentFile();
          if (parent != null) parent.mkdirs();
          out = new FileOutputStream(f, true);
        }
        out.write(bytes); // one write per class: whole lines even with several JVMs appending
      } catch (IOException e) {
        failed = true;
        System.err.println("[braid-agent] cannot write the point catalogue " + file + ": " + e.getMessage());
      }
    }
  }
}
