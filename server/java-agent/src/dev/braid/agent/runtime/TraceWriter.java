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
  /** Fewer events than this written in a round: pause for {@link #BATCH_PAUSE_NANOS} (see run). */
  private static final int SMALL_BATCH = Integer.getInteger("braid.smallBatch", 1024);
  private static final long BATCH_PAUSE_NANOS = Long.getLong("braid.batchPause", 50_000L);
  private static final long SHUTDOWN_WAIT_NANOS = 300_000_000L;

  private final Events events;
  /** the file being written; null: events are dropped (between segments, Rt.beginSegment) */
  private String outPath;
  private String headerTemplate;
  private final ConcurrentLinkedQueue<String> extraLines = new ConcurrentLinkedQueue<>();

  private OutputStream out;
  private boolean failed;
  private final byte[] buf = new byte[1 << 17];
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

  // a segment switch (Rt.beginSegment / endSegment): events below switchAt go to the current file
  private volatile long switchAt = Long.MAX_VALUE;
  private volatile String switchPath;
  private volatile String switchHeader;
  private volatile long switchesDone;
  private static final long SWITCH_WAIT_NANOS = 5_000_000_000L;

  TraceWriter(Events events, String outPath, String headerTemplate) {
    this.events = events;
    this.outPath = outPath;
    this.headerTemplate = headerTemplate;
  }

  void addExtraLine(String jsonLine) {
    extraLines.add(jsonLine);
  }

  long eventsWritten() { return eventsWritten; }
  long bytesWritten() { return bytesWritten + len; }

  /**
   * Ends the current file at index {@code at} (every event below it is written there, then its
   * pending extra lines, then it is closed) and writes the events from {@code at} on to {@code path}
   * with {@code header} (null: dropped until the next switch). Waits until the writer has done it
   * (at most 5 s, or until the writer has finished).
   */
  synchronized void switchTo(long at, String path, String header, Thread writerThread) {
    long done = switchesDone;
    switchPath = path;
    switchHeader = header;
    switchAt = at;
    LockSupport.unpark(writerThread);
    long deadline = System.nanoTime() + SWITCH_WAIT_NANOS;
    while (switchesDone == done && !finished && System.nanoTime() < deadline) LockSupport.parkNanos(100_000);
  }

  private void applySwitch() {
    cut = -1;
    drainExtraLines();
    reportDropped();
    flush();
    close();
    out = null;
    failed = false;
    outPath = switchPath;
    headerTemplate = switchHeader;
    // each file defines what it uses (docs/trace-format.md)
    java.util.Arrays.fill(locDefined, false);
    java.util.Arrays.fill(varDefined, false);
    java.util.Arrays.fill(threadDefined, false);
    java.util.Arrays.fill(stackDefined, false);
    java.util.Arrays.fill(headLen, (byte) 0);
    idxValue = -1;
    switchAt = Long.MAX_VALUE;
    switchesDone++;
  }

  /** Asks the writer to write everything published before now and finish; waits up to 3 s. */
  void stopAndWait(Thread writerThread) {
    stopAt = events.counter.get();
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
    int idle = 0;
    long waitingSince = 0;
    try {
      while (true) {
        long stop = stopAt;
        long sw = switchAt;
        long c;
        if (ClockOrder.ON) {
          // order=clock: every event a thread takes from now on has a clock above c, the watermark
          // (stored before the buffers and floors are read; a thread reads it after its floor is
          // set), except a thread's with a non-zero floor, whose next clock is at least its floor
          c = proposeWatermark(stop != Long.MAX_VALUE || sw != Long.MAX_VALUE);
          if (stop != Long.MAX_VALUE) stop = cut;
          if (sw != Long.MAX_VALUE) sw = cut;
        } else {
          // Every index below c has been taken, by threads whose buffers are registered (a buffer is
          // registered before its first index is taken, so read c first); a thread between taking an
          // index and publishing its event has a non-zero floor, below which it has published everything.
          c = events.counter.get();
        }
        ThreadBuffer[] bs = events.buffers;
        long w = c;
        for (ThreadBuffer b : bs) {
          long f = b.floorAcquire();
          if (f == 0) continue;
          if ((f & ThreadBuffer.VALUE_PENDING) != 0) {
            // a read whose value is being stored: its index is f; wait for it, but not for ever
            f &= ~ThreadBuffer.VALUE_PENDING;
            if (b.valuePendingTooLong(f)) continue;
          }
          if (f < w) w = f;
        }
        long now = 0;
        long cap = Math.min(stop, sw);
        if (cap != Long.MAX_VALUE) {
          if (w < cap) {
            // Shutting down or switching segments: a thread that stays between index and
            // publication is not waited for.
            now = System.nanoTime();
            if (waitingSince == 0) waitingSince = now;
            else if (now - waitingSince > SHUTDOWN_WAIT_NANOS) w = cap;
          }
          if (w > cap) w = cap;
        }
        int n = ClockOrder.ON ? emitMerged(bs, w) : emitBelow(bs, w);
        if (n > 0) events.writerProgress++;
        if (sw != Long.MAX_VALUE && w >= sw) {
          applySwitch();
          waitingSince = 0;
          continue;
        }
        if (stop != Long.MAX_VALUE && w >= stop) break;
        if (n > 0) {
          idle = 0;
          // A small batch: the writer has caught up with the threads. Each round reads the global
          // counter, every thread's floor and its chunk's count, lines the threads write at every
          // event, so a writer polling at their pace makes each of those writes a cache miss on
          // the application thread. A short pause lets them fill a batch first (issue 45).
          if (n < SMALL_BATCH && cap == Long.MAX_VALUE) LockSupport.parkNanos(BATCH_PAUSE_NANOS);
          if ((++rounds & 63) != 0) continue;
        }
        drainExtraLines();
        reportDropped();
        if (now == 0) now = System.nanoTime();
        if (cap != Long.MAX_VALUE) {
          Thread.onSpinWait();
          continue;
        }
        if (now - lastLiveness > LIVENESS_NANOS) {
          lastLiveness = now;
          emitEndsOfDeadThreads();
          forgetDrainedBuffers(bs);
          ThreadStates.forgetDead();
        }
        if (len > 0 && now - lastFlush > FLUSH_NANOS) flush();
        if (n > 0) continue;
        if (w < c) {
          if (++idle < 50) Thread.onSpinWait();
          else LockSupport.parkNanos(20_000);
        } else {
          idle++;
          LockSupport.parkNanos(idle < 100 ? 50_000 : 1_000_000);
        }
      }
      drainExtraLines();
      reportDropped();
      flush();
    } catch (Throwable t) {
      System.err.println("[braid-agent] trace writer stopped: " + t);
    } finally {
      close();
      finished = true;
    }
  }

  private long rounds;
  /**
   * Reordering window: the indexes are dense (every index taken is published, except at a forced
   * shutdown), so each event is put at slot (index - next) and the window is then written in order,
   * without comparisons.
   */
  private static final int WINDOW = 1 << 15;
  private final long[] stage = new long[WINDOW * Events.REC];
  private final Object[] stageRefs = new Object[WINDOW];
  /** The next index to write; everything below it is written. */
  private long next = 1;

  /** Writes, in index order, every published event with an index below {@code w}; returns how many. */
  private int emitBelow(ThreadBuffer[] bs, long w) {
    int n = 0;
    long[] st = stage;
    while (next < w) {
      long base = next;
      long lim = Math.min(w, base + WINDOW);
      for (ThreadBuffer b : bs) {
        while (true) {
          long k = b.peek();
          if (k >= lim) break;
          if (k >= base) {
            Chunk ch = b.rchunk;
            long[] r = ch.rec;
            int o = b.rpos * Events.REC;
            int d = (int) (k - base) * Events.REC;
            st[d] = k;
            st[d + 1] = r[o + 1];
            st[d + 2] = r[o + 2];
            st[d + 3] = r[o + 3];
            st[d + 4] = r[o + 4];
            st[d + 5] = r[o + 5];
            if (r[o + 5] == Events.V_REF) {
              Object[] refs = ch.refs;
              if (refs != null) {
                stageRefs[(int) (k - base)] = refs[b.rpos];
                refs[b.rpos] = null; // do not keep the program's object alive (the chunk is reused)
              } else {
                stageRefs[(int) (k - base)] = null;
              }
            }
          } // (k < base: published after a forced shutdown skipped it)
          b.rpos++;
        }
      }
      while (selfHead < selfTail && selfIndex[selfHead] < lim) {
        long k = selfIndex[selfHead];
        if (k >= base) {
          int d = (int) (k - base) * Events.REC;
          st[d] = k;
          st[d + 1] = ((long) selfThread[selfHead] << 40) | ((long) Events.KIND_END << 32);
          st[d + 2] = 0;
          st[d + 3] = 0;
          st[d + 5] = Events.V_NONE;
        }
        selfHead++;
      }
      int end = (int) (lim - base);
      for (int j = 0; j < end; j++) {
        int d = j * Events.REC;
        long k = base + j;
        if (st[d] != k) continue; // an index given up at shutdown
        int vt = (int) st[d + 5];
        writeEvent(k, st[d + 1], st[d + 2], st[d + 3], vt, st[d + 4], vt == Events.V_REF ? stageRefs[j] : null);
        if (vt == Events.V_REF) stageRefs[j] = null;
        n++;
      }
      next = lim;
    }
    return n;
  }

  // ---- order=clock (Events): the threads' buffers merged by (clock, thread), lines numbered here ----

  /** A segment switch or stop in progress: the clock every later event is above (-1: none). */
  private long cut = -1;
  /** Above the largest clock any thread can have taken when a cut is made (clocks grow by one per event). */
  private static final long CUT_GAP = 1L << 40;
  /** Every event with a clock below it has been written. */
  private long mergedBelow;
  /** The index of the next line written. */
  private long outIndex = 1;

  /** Stores and returns the next watermark: above every clock published so far (and the cut, if requested). */
  private long proposeWatermark(boolean request) {
    long m = events.watermark();
    for (ThreadBuffer b : events.buffers) {
      long l = b.lastClock();
      if (l >= m) m = l + 1;
    }
    if (request && cut < 0) cut = m + CUT_GAP;
    if (cut > m) m = cut;
    events.setWatermark(m);
    return m;
  }

  private static boolean before(long k, int t, long k2, int t2) {
    return k < k2 || (k == k2 && t < t2);
  }

  /** Writes, in (clock, thread) order, every published event with a clock below {@code w}; returns how many. */
  private int emitMerged(ThreadBuffer[] bs, long w) {
    int n = 0;
    long low = mergedBelow;
    while (true) {
      ThreadBuffer best = null;
      long bk = Long.MAX_VALUE, sk = Long.MAX_VALUE;
      int bt = Integer.MAX_VALUE, st = Integer.MAX_VALUE;
      for (ThreadBuffer b : bs) {
        long k = b.peek();
        while (k < low) { // published after a forced shutdown or switch passed it
          take(b, false);
          k = b.peek();
        }
        if (k >= w) continue;
        int t = headThread(b);
        if (before(k, t, bk, bt)) {
          sk = bk;
          st = bt;
          best = b;
          bk = k;
          bt = t;
        } else if (before(k, t, sk, st)) {
          sk = k;
          st = t;
        }
      }
      // the END of a thread that ended unjoined (its self index is the clock of its last event):
      // right after that event, or at once when that was written before; a JOIN of it comes later
      // (published after the writer took the thread, so with a clock of at least the last bound)
      int self = -1;
      for (int j = selfHead; j < selfTail; j++) {
        long k = selfIndex[j] < low ? -1 : selfIndex[j];
        if (k < w && before(k, Integer.MAX_VALUE - 1, bk, bt) && (self < 0 || k < (selfIndex[self] < low ? -1 : selfIndex[self]))) self = j;
      }
      if (self >= 0) {
        writeEvent(outIndex++, ((long) selfThread[self] << 40) | ((long) Events.KIND_END << 32), 0, 0, Events.V_NONE, 0, null);
        selfIndex[self] = selfIndex[selfHead];
        selfThread[self] = selfThread[selfHead];
        selfHead++;
        n++;
        continue;
      }
      if (best == null) break;
      for (int j = selfHead; j < selfTail; j++) {
        long k = selfIndex[j];
        if (before(k, Integer.MAX_VALUE - 1, sk, st)) {
          sk = k;
          st = Integer.MAX_VALUE - 1;
        }
      }
      // a run of best's events: below w and the second head
      while (true) {
        take(best, true);
        n++;
        long k = best.peek();
        if (k >= w || !before(k, headThread(best), sk, st)) break;
      }
    }
    if (w > mergedBelow) mergedBelow = w;
    return n;
  }

  private static int headThread(ThreadBuffer b) {
    return (int) (b.rchunk.rec[b.rpos * Events.REC + 1] >>> 40);
  }

  /** Consumes the head event of {@code b} (peek returned it), writing it when {@code write}. */
  private void take(ThreadBuffer b, boolean write) {
    Chunk ch = b.rchunk;
    long[] r = ch.rec;
    int p = b.rpos;
    int o = p * Events.REC;
    int vt = (int) r[o + 5];
    Object ref = null;
    if (vt == Events.V_REF) {
      Object[] refs = ch.refs;
      if (refs != null) {
        ref = refs[p];
        refs[p] = null; // do not keep the program's object alive (the chunk is reused)
      }
    }
    if (write) writeEvent(outIndex++, r[o + 1], r[o + 2], r[o + 3], vt, r[o + 4], ref);
    b.rpos = p + 1;
  }

  private ThreadBuffer[] drainedScratch = new ThreadBuffer[64];

  private void forgetDrainedBuffers(ThreadBuffer[] bs) {
    int n = 0;
    for (ThreadBuffer b : bs) {
      if (b.drained()) {
        if (n == drainedScratch.length) drainedScratch = java.util.Arrays.copyOf(drainedScratch, n * 2);
        drainedScratch[n++] = b;
      }
    }
    events.unregisterDrained(drainedScratch, n);
    java.util.Arrays.fill(drainedScratch, 0, n, null);
  }

  private long droppedReported;

  /** Writes a {@code {"dropped":N}} line for the events dropped since the last such line. */
  private void reportDropped() {
    long d = events.dropped.get();
    if (d == droppedReported) return;
    appendAscii("{\"dropped\":" + (d - droppedReported) + "}\n");
    droppedReported = d;
  }

  boolean isFinished() { return finished; }

  private void emitEndsOfDeadThreads() {
    for (int id : Rt.takeDeadThreads()) {
      long i;
      if (ClockOrder.ON) {
        i = Rt.lastClockOf(id); // the clock of its last event (emitMerged writes the END after it)
      } else {
        i = events.reserve();
      }
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
    if (!line.startsWith("{\"uncaught\":")) return 0; // (the forcing line names no thread)
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
    ascii("\"END\""), ascii("\"SND\""), ascii("\"RCV\""), ascii("\"FAIL\""), ascii("\"OUT\"")
  };
  private static final String[] FAIL_KINDS = {"uncaught", "exit", "assert"};

  private void writeEvent(long i, long r1, long r2, long r3, int vtype, long vbits, Object vref) {
    int t = (int) (r1 >>> 40);
    int k = (int) (r1 >>> 32) & 0xff;
    int elem = (int) r1;
    int ref = (int) (r2 >>> 32);
    int loc = (int) r2;
    int stack = (int) (r3 >>> 32);
    int obj = (int) r3;
    if (k <= Events.KIND_W) {
      writeAccess(i, r1, r2, t, k, elem, ref, loc, stack, obj, vtype, vbits, vref);
      return;
    }
    if (t >= threadDefined.length || !threadDefined[t]) defineThread(t);
    // R and W lines are written by writeAccess (below): the other kinds here
    switch (k) {
      case Events.KIND_ACQ:
      case Events.KIND_REL:
        defineLoc(loc);
        defineStack(stack);
        break;
      case Events.KIND_START:
      case Events.KIND_JOIN:
        defineThread(ref);
        defineLoc(loc);
        break;
      case Events.KIND_SND:
      case Events.KIND_RCV:
        defineLoc(loc);
        break;
      case Events.KIND_FAIL:
        defineLoc(loc);
        defineStack(stack);
        break;
      default:
        break;
    }
    if (k == Events.KIND_FAIL || k == Events.KIND_OUT) {
      writeTextEvent(i, t, k, ref, loc, stack, elem);
      return;
    }
    if (len + 128 > buf.length) flushBuffer();
    byte[] b = buf;
    int p = len;
    b[p++] = '[';
    p = putIndex(b, p, i);
    switch (k) {
      case Events.KIND_ACQ:
      case Events.KIND_REL:
        p = putHead(b, p, t, k, ref, loc, stack);
        break;
      case Events.KIND_START:
      case Events.KIND_JOIN:
      case Events.KIND_SND:
      case Events.KIND_RCV:
        p = putThreadKind(b, p, t, k);
        b[p++] = ',';
        p = putInt(b, p, ref);
        b[p++] = ',';
        p = putInt(b, p, loc);
        break;
      default:
        p = putThreadKind(b, p, t, k);
        break;
    }
    b[p++] = ']';
    b[p++] = '\n';
    len = p;
    eventsWritten++;
  }

  // The head of an R or W line after its index, {@code ,t,"K",var,loc,stack}, is the same bytes for
  // every event of one thread, kind, variable, location and stack: a direct-mapped cache keeps the
  // bytes of the heads met last (key: the event's record words without index, object and element), so
  // a repeated head is one copy instead of five number and name formattings and four definition
  // checks. A head is cached only once written in the current file, so a hit's definitions are
  // written; applySwitch empties the cache with the definitions. The line is byte for byte the same.
  private static final int HEADS = 2048;
  private static final int HEAD_BYTES = 64;
  private final long[] headVarLoc = new long[HEADS];
  private final long[] headThreadKindStack = new long[HEADS];
  private final byte[] headLen = new byte[HEADS];
  private final byte[] headBytes = new byte[HEADS * HEAD_BYTES];

  /**
   * An R or W event line ({@link #writeEvent} for the other kinds). Its record carries the stack id of
   * the accessing method's caller ({@code parent}, -1 for none; ThreadState#parentStack), not the
   * access's stack: (parent, loc) determines it, so the head cache is keyed by the parent, and the
   * stack is interned here only when the head is not cached.
   */
  private void writeAccess(long i, long r1, long r2, int t, int k, int elem, int ref, int loc, int parent, int obj,
      int vtype, long vbits, Object vref) {
    long kb = (r1 & 0xFFFFFFFF00000000L) | (parent & 0xFFFFFFFFL);
    int slot = (int) ((r2 * 0x9E3779B97F4A7C15L ^ kb * 0xC2B2AE3D27D4EB4FL) >>> 53);
    int hn = headLen[slot];
    boolean hit = hn != 0 && headVarLoc[slot] == r2 && headThreadKindStack[slot] == kb;
    int stack = -1;
    if (!hit) {
      stack = Stacks.intern(parent, loc);
      if (t >= threadDefined.length || !threadDefined[t]) defineThread(t);
      if (ref >= varDefined.length || !varDefined[ref]) defineVar(ref);
      if (loc >= locDefined.length || !locDefined[loc]) defineLoc(loc);
      if (stack >= 0 && (stack >= stackDefined.length || !stackDefined[stack])) defineStack(stack);
    }
    if (len + 128 > buf.length) flushBuffer();
    byte[] b = buf;
    int p = len;
    b[p++] = '[';
    p = putIndex(b, p, i);
    if (hit) {
      System.arraycopy(headBytes, slot * HEAD_BYTES, b, p, hn);
      p += hn;
    } else {
      int start = p;
      p = putHead(b, p, t, k, ref, loc, stack);
      int n = p - start;
      if (n <= HEAD_BYTES) {
        System.arraycopy(b, start, headBytes, slot * HEAD_BYTES, n);
        headVarLoc[slot] = r2;
        headThreadKindStack[slot] = kb;
        headLen[slot] = (byte) n;
      }
    }
    if (vtype != Events.V_NONE) {
      // [i,t,k,var,loc,stack,obj,elem,value]: obj 0 for a static, elem -1 for a field
      b[p++] = ',';
      p = elem == Events.ELEM_STATIC ? putInt(b, p, 0) : putObj(b, p, obj);
      b[p++] = ',';
      p = elem >= 0 ? putInt(b, p, elem) : putIntSlow(b, p, -1);
      b[p++] = ',';
      len = p;
      appendValue(vtype, vbits, vref);
      b = buf;
      p = len;
      if (p + 4 > b.length) {
        flushBuffer();
        b = buf;
        p = len;
      }
    } else if (elem != Events.ELEM_STATIC) {
      b[p++] = ',';
      p = putObj(b, p, obj);
      if (elem >= 0) {
        b[p++] = ',';
        p = putInt(b, p, elem);
      }
    }
    b[p++] = ']';
    b[p++] = '\n';
    len = p;
    eventsWritten++;
  }

  /** {@code ,t,"K"}: the thread and kind after a line's index. */
  private static int putThreadKind(byte[] b, int p, int t, int k) {
    b[p++] = ',';
    p = putInt(b, p, t);
    b[p++] = ',';
    byte[] name = KIND_NAMES[k];
    System.arraycopy(name, 0, b, p, name.length);
    return p + name.length;
  }

  /**
   * {@code ,t,"K",ref,loc,stack}: the head of an R, W, ACQ or REL line after its index (ref is the
   * variable of an access, the lock of an ACQ or REL; writeAccess caches it).
   */
  private static int putHead(byte[] b, int p, int t, int k, int ref, int loc, int stack) {
    p = putThreadKind(b, p, t, k);
    b[p++] = ',';
    p = putInt(b, p, ref);
    b[p++] = ',';
    p = putInt(b, p, loc);
    b[p++] = ',';
    return putStack(b, p, stack);
  }

  /** FAIL {@code [i,t,"FAIL",loc,stack,kind,detail]} and OUT {@code [i,t,"OUT",stream,text]}: rare, so built as text. */
  private void writeTextEvent(long i, int t, int k, int ref, int loc, int stack, int elem) {
    StringBuilder b = new StringBuilder(96);
    b.append('[').append(i).append(',').append(t);
    if (k == Events.KIND_FAIL) {
      b.append(",\"FAIL\",");
      if (loc >= 0) b.append(loc); else b.append("null");
      b.append(',');
      if (stack >= 0) b.append(stack); else b.append("null");
      b.append(',').append(Json.quote(FAIL_KINDS[elem])).append(',').append(Json.quote(Texts.take(ref)));
    } else {
      b.append(",\"OUT\",").append(elem).append(',').append(Json.quote(Texts.take(ref)));
    }
    appendAscii(b.append("]\n").toString());
    eventsWritten++;
  }

  private static final byte[] NULL = ascii("null");
  private static final int MAX_STRING_VALUE = 64;

  /** Appends a value as JSON: numbers, true/false, a char or String (cut to 64 characters) as a string, objects as "Type@id". */
  private void appendValue(int vtype, long bits, Object ref) {
    if (len + 160 > buf.length) flushBuffer();
    switch (vtype) {
      case Events.V_INT:
        len = putIntSlow(buf, len, (int) bits);
        break;
      case Events.V_BOOL:
        appendBytes(bits != 0 ? TRUE : FALSE);
        break;
      case Events.V_CHAR:
        appendJsonString(String.valueOf((char) bits), 1);
        break;
      case Events.V_LONG:
        len = putLong(buf, len, bits);
        break;
      case Events.V_FLOAT: {
        float f = Float.intBitsToFloat((int) bits);
        if (Float.isNaN(f) || Float.isInfinite(f) || (f == Math.rint(f) && Math.abs(f) < 1e15)) appendNumber(f);
        else appendAscii(Float.toString(f));
        break;
      }
      case Events.V_DOUBLE:
        appendNumber(Double.longBitsToDouble(bits));
        break;
      default:
        if (ref == null) {
          appendAscii("null");
        } else if (ref instanceof String) {
          appendJsonString((String) ref, MAX_STRING_VALUE);
        } else {
          // "Type@id": the quoted type name and '@' are cached per class
          appendBytes(TYPE_PREFIX.get(ref.getClass()));
          len = putObj(buf, len, System.identityHashCode(ref));
          buf[len++] = '"';
        }
    }
  }

  private static final byte[] TRUE = ascii("true");
  private static final byte[] FALSE = ascii("false");
  private static final ClassValue<byte[]> TYPE_PREFIX = new ClassValue<byte[]>() {
    @Override
    protected byte[] computeValue(Class<?> type) {
      // getTypeName: "long[]", "java.lang.Object[]" rather than "[J", "[Ljava.lang.Object;"
      String q = Json.quote(type.getTypeName() + "@");
      return q.substring(0, q.length() - 1).getBytes(StandardCharsets.UTF_8);
    }
  };

  /** Appends {@code s} (at most {@code max} characters, then "…") as a JSON string, without allocating for ASCII text. */
  private void appendJsonString(String s, int max) {
    int n = Math.min(s.length(), max);
    if (len + n + 8 > buf.length) flushBuffer();
    byte[] b = buf;
    int p = len;
    int start = p;
    b[p++] = '"';
    for (int k = 0; k < n; k++) {
      char c = s.charAt(k);
      if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
        // rare: escape or non-ASCII text; the slow path
        len = start;
        String cut = s.length() > max ? s.substring(0, max) + "\u2026" : s;
        appendAscii(Json.quote(cut));
        return;
      }
      b[p++] = (byte) c;
    }
    if (s.length() > max) {
      b[p++] = (byte) 0xE2; // U+2026 in UTF-8
      b[p++] = (byte) 0x80;
      b[p++] = (byte) 0xA6;
    }
    b[p++] = '"';
    len = p;
  }

  /** A float or double as JSON: NaN and infinities are not JSON numbers, so they are strings. */
  private void appendNumber(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) appendAscii("\"" + v + "\"");
    else if (v == Math.rint(v) && Math.abs(v) < 1e15) appendLong((long) v);
    else appendAscii(Double.toString(v));
  }

  private static int putStack(byte[] b, int p, int stack) {
    if (stack >= 0) return putInt(b, p, stack);
    System.arraycopy(NULL, 0, b, p, 4);
    return p + 4;
  }

  /** "00" .. "99" as pairs of ASCII digits. */
  private static final byte[] PAIRS = new byte[200];

  static {
    for (int k = 0; k < 100; k++) {
      PAIRS[2 * k] = (byte) ('0' + k / 10);
      PAIRS[2 * k + 1] = (byte) ('0' + k % 10);
    }
  }

  // Number formatting without allocation. Most numbers of an event repeat or are small: the index
  // is usually the previous one + 1 (kept as ASCII digits and incremented), ids below SMALL come
  // from a table, object ids from a direct-mapped cache of their digits.

  private final byte[] idxDigits = new byte[20];
  private int idxLen;
  private long idxValue = -1;

  private int putIndex(byte[] b, int p, long i) {
    byte[] d = idxDigits;
    if (i == idxValue + 1 && idxLen > 0) {
      int k = idxLen - 1;
      while (k >= 0 && d[k] == '9') d[k--] = '0';
      if (k >= 0) {
        d[k]++;
      } else {
        System.arraycopy(d, 0, d, 1, idxLen);
        d[0] = '1';
        idxLen++;
      }
    } else {
      idxLen = putLong(d, 0, i);
    }
    idxValue = i;
    System.arraycopy(d, 0, b, p, idxLen);
    return p + idxLen;
  }

  private static final int SMALL = 1 << 14;
  private static final byte[] SMALL_DIGITS = new byte[SMALL * 5];
  private static final byte[] SMALL_LEN = new byte[SMALL];

  static {
    byte[] tmp = new byte[12];
    for (int v = 0; v < SMALL; v++) {
      int n = putIntSlow(tmp, 0, v);
      System.arraycopy(tmp, 0, SMALL_DIGITS, v * 5, n);
      SMALL_LEN[v] = (byte) n;
    }
  }

  private static int putInt(byte[] b, int p, int v) {
    if (v >= 0 && v < SMALL) {
      int n = SMALL_LEN[v];
      int o = v * 5;
      for (int k = 0; k < n; k++) b[p + k] = SMALL_DIGITS[o + k];
      return p + n;
    }
    return putIntSlow(b, p, v);
  }

  private static final int OBJ_CACHE = 4096;
  private final int[] objKey = new int[OBJ_CACHE];
  private final byte[] objDigits = new byte[OBJ_CACHE * 11];
  private final byte[] objLen = new byte[OBJ_CACHE];

  private int putObj(byte[] b, int p, int v) {
    int slot = ((v * 0x9E3779B1) >>> 20) & (OBJ_CACHE - 1);
    int o = slot * 11;
    int n = objLen[slot];
    if (n == 0 || objKey[slot] != v) {
      n = putIntSlow(objDigits, o, v) - o;
      objKey[slot] = v;
      objLen[slot] = (byte) n;
    }
    System.arraycopy(objDigits, o, b, p, n);
    return p + n;
  }

  /** Writes the decimal digits of {@code v} at {@code p}; returns the new position. */
  private static int putIntSlow(byte[] b, int p, int v) {
    if (v < 0) {
      if (v == Integer.MIN_VALUE) return putLong(b, p, v);
      b[p++] = '-';
      v = -v;
    }
    if (v < 10) {
      b[p] = (byte) ('0' + v);
      return p + 1;
    }
    int n = v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7
        : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
    int q = p + n;
    while (v >= 100) {
      int d = v / 100;
      int r = (v - d * 100) << 1;
      b[--q] = PAIRS[r + 1];
      b[--q] = PAIRS[r];
      v = d;
    }
    if (v >= 10) {
      int r = v << 1;
      b[--q] = PAIRS[r + 1];
      b[--q] = PAIRS[r];
    } else {
      b[--q] = (byte) ('0' + v);
    }
    return p + n;
  }

  private static final byte[] LONG_MIN = ascii(Long.toString(Long.MIN_VALUE));

  private static int putLong(byte[] b, int p, long v) {
    if (v >= 0 && v <= Integer.MAX_VALUE) return putInt(b, p, (int) v);
    if (v > Integer.MIN_VALUE && v < 0) return putIntSlow(b, p, (int) v);
    if (v == Long.MIN_VALUE) {
      System.arraycopy(LONG_MIN, 0, b, p, LONG_MIN.length);
      return p + LONG_MIN.length;
    }
    if (v < 0) {
      b[p++] = '-';
      v = -v;
    }
    // beyond int: the low 8 digits at a time as an int, the rest recursively
    long hi = v / 100_000_000L;
    int lo = (int) (v - hi * 100_000_000L);
    p = putLong(b, p, hi);
    int e = p + 8;
    for (int q = e - 1; q >= p; q -= 2) {
      int d = lo % 100;
      lo /= 100;
      b[q] = PAIRS[2 * d + 1];
      b[q - 1] = PAIRS[2 * d];
    }
    return e;
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
    String call = Registry.locCall(id);
    appendAscii("{\"def\":\"loc\",\"id\":" + id + ",\"file\":" + Json.quote(Registry.locFile(id)) + ",\"line\":"
        + Registry.locLine(id) + ",\"method\":" + Json.quote(Registry.locMethod(id))
        + (call != null ? ",\"call\":" + Json.quote(call) : "") + (Registry.locHarness(id) ? ",\"harness\":true" : "") + "}\n");
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
    if (failed || outPath == null) return;
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
    // java.io rather than java.nio.file: its classes are in the JDK's class-data archive (start-up)
    if (f.createNewFile()) {
      os = new java.io.FileOutputStream(f);
    } else {
      // Another JVM of the same run (e.g. a forked test JVM) already writes this trace.
      long pid = Rt.pid();
      String suffix = outPath.endsWith(".trace.jsonl.gz") ? ".trace.jsonl.gz" : ".trace.jsonl";
      String p = outPath.endsWith(suffix)
          ? outPath.substring(0, outPath.length() - suffix.length()) + "~" + pid + suffix
          : outPath + "~" + pid;
      f = new File(p);
      execution = execution + "~" + pid;
      os = new java.io.FileOutputStream(f);
    }
    if (outPath.endsWith(".gz")) {
      // gzip on this (the writer) thread, fastest level; each periodic flush is a sync flush, so
      // the part written so far stays readable
      os = new java.util.zip.GZIPOutputStream(os, 1 << 16, true) {
        {
          def.setLevel(java.util.zip.Deflater.BEST_SPEED);
        }
      };
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
