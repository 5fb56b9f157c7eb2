package dev.braid.agent.runtime;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The background thread that writes the trace file (format v1, docs/trace-format.md): consumes the
 * event ring in index order, writes every definition before its first use, flushes periodically,
 * and drains everything on shutdown. The file is created lazily, at the first line to write, so a
 * JVM that records nothing (e.g. Maven's own JVM when only the forked test JVM runs the included
 * classes) leaves no file; a second JVM of the same run writes {@code <name>~<pid>.trace.jsonl}.
 */
final class TraceWriter implements Runnable {
  private static final long FLUSH_NANOS = 100_000_000L;
  private static final long LIVENESS_NANOS = 20_000_000L;
  private static final long SHUTDOWN_WAIT_NANOS = 300_000_000L;

  private final EventRing ring;
  private final String outPath;
  private final String headerTemplate;
  private final ConcurrentLinkedQueue<String> extraLines = new ConcurrentLinkedQueue<>();

  private OutputStream out;
  private boolean failed;
  private final byte[] buf = new byte[1 << 16];
  private int len;
  private long lastFlush = System.nanoTime();
  private long lastLiveness = System.nanoTime();
  private long eventsWritten;
  private long bytesWritten;

  private boolean[] locDefined = new boolean[1024];
  private boolean[] varDefined = new boolean[256];
  private boolean[] threadDefined = new boolean[64];
  private boolean[] stackDefined = new boolean[4096];

  /** Events the writer produced itself (thread END), as pairs (index, thread id) in index order. */
  private long[] selfIndex = new long[16];
  private int[] selfThread = new int[16];
  private int selfHead, selfTail;

  private volatile long stopAt = Long.MAX_VALUE;
  private volatile boolean finished;

  TraceWriter(EventRing ring, String outPath, String headerTemplate) {
    this.ring = ring;
    this.outPath = outPath;
    this.headerTemplate = headerTemplate;
  }

  void addExtraLine(String jsonLine) {
    extraLines.add(jsonLine);
  }

  long eventsWritten() { return eventsWritten; }
  long bytesWritten() { return bytesWritten + len; }

  /** Asks the writer to write everything published before now and finish; waits up to 3 s. */
  void stopAndWait(Thread writerThread) {
    stopAt = ring.counter.get();
    LockSupport.unpark(writerThread);
    try {
      writerThread.join(3000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void run() {
    Rt.markRecorderThread();
    long cursor = 1;
    int idle = 0;
    long waitingSince = 0;
    try {
      while (true) {
        long stop = stopAt;
        if (cursor >= stop) break;
        if (selfHead < selfTail && selfIndex[selfHead] == cursor) {
          writeEnd(cursor, selfThread[selfHead]);
          selfHead++;
          cursor++;
          continue;
        }
        if (ring.isPublished(cursor)) {
          writeEvent(cursor);
          cursor++;
          if ((cursor & 255) == 0) ring.consumed = cursor;
          idle = 0;
          waitingSince = 0;
          continue;
        }
        ring.consumed = cursor;
        drainExtraLines();
        long now = System.nanoTime();
        if (stop != Long.MAX_VALUE) {
          // Shutting down: a slot that stays unpublished (its thread was stopped) is skipped.
          if (waitingSince == 0) waitingSince = now;
          else if (now - waitingSince > SHUTDOWN_WAIT_NANOS) {
            cursor++;
            waitingSince = 0;
          }
          Thread.onSpinWait();
          continue;
        }
        if (now - lastLiveness > LIVENESS_NANOS) {
          lastLiveness = now;
          emitEndsOfDeadThreads();
        }
        if (len > 0 && now - lastFlush > FLUSH_NANOS) flush();
        if (cursor < ring.counter.get()) {
          if (++idle < 50) Thread.onSpinWait();
          else LockSupport.parkNanos(20_000);
        } else {
          idle++;
          LockSupport.parkNanos(idle < 100 ? 50_000 : 1_000_000);
        }
      }
      ring.consumed = cursor;
      drainExtraLines();
      flush();
    } catch (Throwable t) {
      System.err.println("[braid-agent] trace writer stopped: " + t);
    } finally {
      close();
      finished = true;
    }
  }

  boolean isFinished() { return finished; }

  private void emitEndsOfDeadThreads() {
    int n = Rt.threadCount();
    for (int id = 1; id <= n; id++) {
      if (Rt.isDeadAndNotEnded(id)) {
        long i = ring.reserve();
        if (selfTail == selfIndex.length) {
          System.arraycopy(selfIndex, selfHead, selfIndex, 0, selfTail - selfHead);
          System.arraycopy(selfThread, selfHead, selfThread, 0, selfTail - selfHead);
          selfTail -= selfHead;
          selfHead = 0;
          if (selfTail == selfIndex.length) {
            selfIndex = java.util.Arrays.copyOf(selfIndex, selfTail * 2);
            selfThread = java.util.Arrays.copyOf(selfThread, selfTail * 2);
          }
        }
        selfIndex[selfTail] = i;
        selfThread[selfTail] = id;
        selfTail++;
      }
    }
  }

  private void drainExtraLines() {
    String line;
    while ((line = extraLines.poll()) != null) {
      int t = uncaughtThreadOf(line);
      if (t > 0) defineThread(t);
      appendAscii(line);
      appendByte('\n');
    }
  }

  private static int uncaughtThreadOf(String line) {
    String key = "\"thread\":";
    int k = line.indexOf(key);
    if (k < 0) return 0;
    int v = 0;
    for (int p = k + key.length(); p < line.length() && Character.isDigit(line.charAt(p)); p++) {
      v = v * 10 + (line.charAt(p) - '0');
    }
    return v;
  }

  // ---- events and definitions ----

  private static final byte[][] KIND_NAMES = {
    ascii("\"R\""), ascii("\"W\""), ascii("\"ACQ\""), ascii("\"REL\""), ascii("\"START\""), ascii("\"JOIN\""),
    ascii("\"END\"")
  };

  private void writeEvent(long i) {
    int s = (int) (i & EventRing.MASK);
    int t = ring.thread[s];
    int k = ring.kind[s];
    int ref = ring.ref[s];
    int loc = ring.loc[s];
    int stack = ring.stack[s];
    int obj = ring.obj[s];
    int elem = ring.elem[s];
    defineThread(t);
    switch (k) {
      case EventRing.KIND_R:
      case EventRing.KIND_W:
        defineVar(ref);
        defineLoc(loc);
        defineStack(stack);
        break;
      case EventRing.KIND_ACQ:
      case EventRing.KIND_REL:
        defineLoc(loc);
        defineStack(stack);
        break;
      case EventRing.KIND_START:
      case EventRing.KIND_JOIN:
        defineThread(ref);
        defineLoc(loc);
        break;
      default:
        break;
    }
    appendByte('[');
    appendLong(i);
    appendByte(',');
    appendLong(t);
    appendByte(',');
    appendBytes(KIND_NAMES[k]);
    switch (k) {
      case EventRing.KIND_R:
      case EventRing.KIND_W:
        appendByte(',');
        appendLong(ref);
        appendByte(',');
        appendLong(loc);
        appendByte(',');
        appendStack(stack);
        if (elem != EventRing.ELEM_STATIC) {
          appendByte(',');
          appendLong(obj);
          if (elem >= 0) {
            appendByte(',');
            appendLong(elem);
          }
        }
        break;
      case EventRing.KIND_ACQ:
      case EventRing.KIND_REL:
        appendByte(',');
        appendLong(ref);
        appendByte(',');
        appendLong(loc);
        appendByte(',');
        appendStack(stack);
        break;
      case EventRing.KIND_START:
      case EventRing.KIND_JOIN:
        appendByte(',');
        appendLong(ref);
        appendByte(',');
        appendLong(loc);
        break;
      default:
        break;
    }
    appendByte(']');
    appendByte('\n');
    eventsWritten++;
  }

  private void writeEnd(long i, int t) {
    defineThread(t);
    appendByte('[');
    appendLong(i);
    appendByte(',');
    appendLong(t);
    appendByte(',');
    appendBytes(KIND_NAMES[EventRing.KIND_END]);
    appendByte(']');
    appendByte('\n');
    eventsWritten++;
  }

  private void appendStack(int stack) {
    if (stack < 0) appendAscii("null");
    else appendLong(stack);
  }

  private void defineThread(int id) {
    if (id >= threadDefined.length) threadDefined = java.util.Arrays.copyOf(threadDefined, Math.max(id + 1, threadDefined.length * 2));
    if (threadDefined[id]) return;
    threadDefined[id] = true;
    appendAscii("{\"def\":\"thread\",\"id\":" + id + ",\"name\":" + Json.quote(Rt.threadName(id)) + "}\n");
  }

  private void defineVar(int id) {
    if (id >= varDefined.length) varDefined = java.util.Arrays.copyOf(varDefined, Math.max(id + 1, varDefined.length * 2));
    if (varDefined[id]) return;
    varDefined[id] = true;
    StringBuilder b = new StringBuilder(96);
    b.append("{\"def\":\"var\",\"id\":").append(id).append(",\"name\":").append(Json.quote(Registry.varName(id)));
    b.append(",\"class\":").append(Json.quote(Registry.varClass(id)));
    if (Registry.varField(id) != null) b.append(",\"field\":").append(Json.quote(Registry.varField(id)));
    if (Registry.varArray(id)) b.append(",\"array\":true");
    appendAscii(b.append("}\n").toString());
  }

  private void defineLoc(int id) {
    if (id < 0) return;
    if (id >= locDefined.length) locDefined = java.util.Arrays.copyOf(locDefined, Math.max(id + 1, locDefined.length * 2));
    if (locDefined[id]) return;
    locDefined[id] = true;
    appendAscii("{\"def\":\"loc\",\"id\":" + id + ",\"file\":" + Json.quote(Registry.locFile(id)) + ",\"line\":"
        + Registry.locLine(id) + ",\"method\":" + Json.quote(Registry.locMethod(id)) + "}\n");
  }

  private void defineStack(int id) {
    if (id < 0) return;
    if (id < stackDefined.length && stackDefined[id]) return;
    // Define the missing ancestors first, outermost first.
    int[] chain = new int[16];
    int n = 0;
    for (int s = id; s >= 0 && !(s < stackDefined.length && stackDefined[s]); s = Stacks.parent(s)) {
      if (n == chain.length) chain = java.util.Arrays.copyOf(chain, n * 2);
      chain[n++] = s;
    }
    for (int k = n - 1; k >= 0; k--) {
      int s = chain[k];
      if (s >= stackDefined.length) stackDefined = java.util.Arrays.copyOf(stackDefined, Math.max(s + 1, stackDefined.length * 2));
      stackDefined[s] = true;
      int parent = Stacks.parent(s);
      int frame = Stacks.frame(s);
      defineLoc(frame);
      if (parent < 0) appendAscii("{\"def\":\"stack\",\"id\":" + s + ",\"frame\":" + frame + "}\n");
      else appendAscii("{\"def\":\"stack\",\"id\":" + s + ",\"parent\":" + parent + ",\"frame\":" + frame + "}\n");
    }
  }

  // ---- output buffer ----

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private void appendByte(int b) {
    if (len == buf.length) flushBuffer();
    buf[len++] = (byte) b;
  }

  private void appendBytes(byte[] b) {
    if (len + b.length > buf.length) flushBuffer();
    System.arraycopy(b, 0, buf, len, b.length);
    len += b.length;
  }

  private void appendAscii(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > buf.length) {
      flushBuffer();
      writeRaw(b, b.length);
      return;
    }
    appendBytes(b);
  }

  private final byte[] digits = new byte[20];

  private void appendLong(long v) {
    if (v < 0) {
      appendByte('-');
      v = -v;
    }
    int n = 0;
    do {
      digits[n++] = (byte) ('0' + (v % 10));
      v /= 10;
    } while (v != 0);
    if (len + n > buf.length) flushBuffer();
    while (n > 0) buf[len++] = digits[--n];
  }

  private void flushBuffer() {
    if (len == 0) return;
    writeRaw(buf, len);
    len = 0;
  }

  private void flush() {
    flushBuffer();
    lastFlush = System.nanoTime();
    if (out != null) {
      try {
        out.flush();
      } catch (IOException e) {
        fail(e);
      }
    }
  }

  private void writeRaw(byte[] b, int n) {
    if (failed) return;
    try {
      if (out == null) open();
      out.write(b, 0, n);
      bytesWritten += n;
    } catch (IOException e) {
      fail(e);
    }
  }

  private void open() throws IOException {
    File f = new File(outPath);
    String execution = Rt.executionId();
    File parent = f.getAbsoluteFile().getParentFile();
    if (parent != null) parent.mkdirs();
    OutputStream os;
    try {
      os = Files.newOutputStream(f.toPath(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // Another JVM of the same run (e.g. a forked test JVM) already writes this trace.
      long pid = ProcessHandle.current().pid();
      String p = outPath.endsWith(".trace.jsonl")
          ? outPath.substring(0, outPath.length() - ".trace.jsonl".length()) + "~" + pid + ".trace.jsonl"
          : outPath + "~" + pid;
      f = new File(p);
      execution = execution + "~" + pid;
      os = Files.newOutputStream(f.toPath(), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.WRITE);
    }
    out = os;
    byte[] header = (headerTemplate.replace("\u0000EXECUTION\u0000", Json.quote(execution)) + "\n")
        .getBytes(StandardCharsets.UTF_8);
    out.write(header);
    bytesWritten += header.length;
  }

  private void fail(IOException e) {
    if (!failed) System.err.println("[braid-agent] cannot write trace " + outPath + ": " + e.getMessage());
    failed = true;
  }

  private void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        fail(e);
      }
    }
  }

}
