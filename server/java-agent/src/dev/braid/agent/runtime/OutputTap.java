package dev.braid.agent.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;

/**
 * Records each line written to System.out or System.err as an OUT event (docs/trace-format.md),
 * so that the output line that matched {@code --fail-on-output} has a place in the trace. The
 * standard streams are replaced by print streams that pass every byte on to the original stream.
 */
public final class OutputTap extends OutputStream {
  private static final int MAX_LINE = 2000;
  private final PrintStream target;
  private final int stream;
  private final Charset charset;
  private byte[] line = new byte[256];
  private int len;

  private OutputTap(PrintStream target, int stream) {
    this.target = target;
    this.stream = stream;
    this.charset = Charset.defaultCharset();
  }

  /** Replaces System.out and System.err. */
  public static void install() {
    Charset cs = Charset.defaultCharset();
    System.setOut(new PrintStream(new OutputTap(System.out, 1), true, cs));
    System.setErr(new PrintStream(new OutputTap(System.err, 2), true, cs));
  }

  @Override
  public synchronized void write(int b) {
    target.write(b);
    take((byte) b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int n) {
    target.write(b, off, n);
    for (int k = off; k < off + n; k++) take(b[k]);
  }

  private void take(byte b) {
    if (b == '\n') {
      int end = len > 0 && line[len - 1] == '\r' ? len - 1 : len;
      String text = new String(line, 0, end, charset);
      len = 0;
      Rt.output(stream, text);
      return;
    }
    if (len == MAX_LINE) return;
    if (len == line.length) line = java.util.Arrays.copyOf(line, Math.min(MAX_LINE, len * 2));
    line[len++] = b;
  }

  @Override
  public void flush() throws IOException {
    target.flush();
  }
}
