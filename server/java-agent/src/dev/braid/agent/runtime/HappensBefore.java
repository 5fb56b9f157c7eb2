package dev.braid.agent.runtime;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Happens-before hand-offs of java.util.concurrent, recorded at the application's call sites
 * (docs/trace-format.md, SND/RCV). The instrumenter replaces a call such as
 * {@code executor.submit(task)} by a call of the static method of the same name here, with the
 * receiver as first and the call-site location as last argument; the method records the SND or RCV
 * and performs the original call. Tasks and callbacks are wrapped in a {@link HandOff} that
 * records their start (RCV) and end (SND). JDK classes are not changed.
 *
 * <p>Tokens: the identity of the hand-off object (task wrapper, latch), mixed with the generation
 * for barriers and the phase for phasers. A future's token is that of the task that completes it
 * ({@link #link}); a future Braid did not see created has its own identity as token.
 */
public final class HappensBefore {
  private HappensBefore() {}

  // ---- tokens of futures: a small direct-mapped identity table (future hash -> task token) ----
  private static final int SLOTS = 1 << 14;
  private static final int[] FUTURE_KEY = new int[SLOTS];
  private static final int[] FUTURE_TOKEN = new int[SLOTS];

  private static int slot(int h) {
    return ((h * 0x9E3779B1) >>> 18) & (SLOTS - 1);
  }

  static void link(Object future, int token) {
    if (future == null) return;
    int h = System.identityHashCode(future);
    int k = slot(h);
    synchronized (FUTURE_KEY) {
      FUTURE_KEY[k] = h;
      FUTURE_TOKEN[k] = token;
    }
  }

  static int tokenOf(Object future) {
    int h = System.identityHashCode(future);
    int k = slot(h);
    synchronized (FUTURE_KEY) {
      return FUTURE_KEY[k] == h && FUTURE_TOKEN[k] != 0 ? FUTURE_TOKEN[k] : h;
    }
  }

  static int token(Object o) {
    return System.identityHashCode(o);
  }

  /** A token of an object and a generation or phase; non-negative, as the trace format requires. */
  static int mix(int a, int b) {
    int h = a * 0x85EBCA6B + b * 0x9E3779B1;
    return (h ^ (h >>> 15)) & 0x7fffffff;
  }

  static void snd(int token, int loc) {
    Rt.sync(Events.KIND_SND, token, loc);
  }

  static void rcv(int token, int loc) {
    Rt.sync(Events.KIND_RCV, token, loc);
  }

  // ---- executors ----

  /**
   * Tasks that are more than a Runnable/Callable (a FutureTask the caller keeps, a Comparable task
   * of a priority executor) are passed on unwrapped, so the executor sees the same object.
   */
  private static boolean keep(Object task) {
    return task instanceof Future || task instanceof Comparable;
  }

  public static void execute(Executor e, Runnable r, int loc) {
    if (keep(r)) {
      e.execute(r);
      return;
    }
    HandOff h = HandOff.of(r, 0, loc);
    snd(h.token, loc);
    e.execute(h);
  }

  public static Future<?> submit(ExecutorService e, Runnable r, int loc) {
    if (keep(r)) return e.submit(r);
    HandOff h = HandOff.of(r, 0, loc);
    snd(h.token, loc);
    Future<?> f = e.submit((Runnable) h);
    link(f, h.token);
    return f;
  }

  public static <T> Future<T> submit(ExecutorService e, Runnable r, T result, int loc) {
    if (keep(r)) return e.submit(r, result);
    HandOff h = HandOff.of(r, 0, loc);
    snd(h.token, loc);
    Future<T> f = e.submit((Runnable) h, result);
    link(f, h.token);
    return f;
  }

  @SuppressWarnings("unchecked")
  public static <T> Future<T> submit(ExecutorService e, Callable<T> c, int loc) {
    if (keep(c)) return e.submit(c);
    HandOff h = HandOff.of(c, 0, loc);
    snd(h.token, loc);
    Future<T> f = e.submit((Callable<T>) h);
    link(f, h.token);
    return f;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<Callable<Object>> wrapAll(Collection tasks, int loc) {
    List<Callable<Object>> out = new ArrayList<>(tasks.size());
    for (Object c : tasks) {
      HandOff h = HandOff.of(c, 0, loc);
      snd(h.token, loc);
      out.add((Callable<Object>) h);
    }
    return out;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static List invokeAll(ExecutorService e, Collection tasks, int loc) throws InterruptedException {
    List<Callable<Object>> wrapped = wrapAll(tasks, loc);
    List<Future<Object>> fs = e.invokeAll(wrapped);
    receiveAll(wrapped, fs, loc);
    return fs;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static List invokeAll(ExecutorService e, Collection tasks, long timeout, TimeUnit unit, int loc)
      throws InterruptedException {
    List<Callable<Object>> wrapped = wrapAll(tasks, loc);
    List<Future<Object>> fs = e.invokeAll(wrapped, timeout, unit);
    receiveAll(wrapped, fs, loc);
    return fs;
  }

  private static void receiveAll(List<Callable<Object>> wrapped, List<Future<Object>> fs, int loc) {
    for (int k = 0; k < wrapped.size() && k < fs.size(); k++) {
      int t = ((HandOff) wrapped.get(k)).token;
      link(fs.get(k), t);
      if (fs.get(k).isDone() && !fs.get(k).isCancelled()) rcv(t, loc);
    }
  }

  public static Object get(Future<?> f, int loc) throws InterruptedException, ExecutionException {
    Object v = f.get();
    rcv(tokenOf(f), loc);
    return v;
  }

  public static Object get(Future<?> f, long timeout, TimeUnit unit, int loc)
      throws InterruptedException, ExecutionException, TimeoutException {
    Object v = f.get(timeout, unit);
    rcv(tokenOf(f), loc);
    return v;
  }

  // ---- CompletableFuture ----

  public static CompletableFuture<?> supplyAsync(Supplier<?> s, int loc) {
    HandOff h = HandOff.of(s, 0, loc);
    snd(h.token, loc);
    CompletableFuture<?> f = CompletableFuture.supplyAsync(h);
    link(f, h.token);
    return f;
  }

  public static CompletableFuture<?> supplyAsync(Supplier<?> s, Executor e, int loc) {
    HandOff h = HandOff.of(s, 0, loc);
    snd(h.token, loc);
    CompletableFuture<?> f = CompletableFuture.supplyAsync(h, e);
    link(f, h.token);
    return f;
  }

  public static CompletableFuture<Void> runAsync(Runnable r, int loc) {
    HandOff h = HandOff.of(r, 0, loc);
    snd(h.token, loc);
    CompletableFuture<Void> f = CompletableFuture.runAsync(h);
    link(f, h.token);
    return f;
  }

  public static CompletableFuture<Void> runAsync(Runnable r, Executor e, int loc) {
    HandOff h = HandOff.of(r, 0, loc);
    snd(h.token, loc);
    CompletableFuture<Void> f = CompletableFuture.runAsync(h, e);
    link(f, h.token);
    return f;
  }

  /** A dependant stage: its callback starts after the source completed (RCV of the source's token). */
  private static HandOff dependant(CompletableFuture<?> source, Object fn, int loc) {
    return HandOff.of(fn, tokenOf(source), loc);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenApply(CompletableFuture f, Function fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenApply(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenApplyAsync(CompletableFuture f, Function fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenApplyAsync(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenAccept(CompletableFuture f, Consumer fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenAccept(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenAcceptAsync(CompletableFuture f, Consumer fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenAcceptAsync(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenRun(CompletableFuture f, Runnable fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenRun(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenRunAsync(CompletableFuture f, Runnable fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenRunAsync(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture thenCompose(CompletableFuture f, Function fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.thenCompose(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture whenComplete(CompletableFuture f, BiConsumer fn, int loc) {
    HandOff h = dependant(f, fn, loc);
    CompletableFuture r = f.whenComplete(h);
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static CompletableFuture handle(CompletableFuture f, BiFunction fn, int loc) {
    HandOff.Bi h = new HandOff.Bi(fn, tokenOf(f), loc);
    CompletableFuture r = f.handle(h.asBiFunction());
    link(r, h.token);
    return r;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static boolean complete(CompletableFuture f, Object value, int loc) {
    snd(tokenOf(f), loc);
    return f.complete(value);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static boolean completeExceptionally(CompletableFuture f, Throwable ex, int loc) {
    snd(tokenOf(f), loc);
    return f.completeExceptionally(ex);
  }

  public static Object join(CompletableFuture<?> f, int loc) {
    Object v = f.join();
    rcv(tokenOf(f), loc);
    return v;
  }

  public static Object get(CompletableFuture<?> f, int loc) throws InterruptedException, ExecutionException {
    Object v = f.get();
    rcv(tokenOf(f), loc);
    return v;
  }

  // ---- latches, barriers, phasers ----

  public static void countDown(CountDownLatch l, int loc) {
    snd(token(l), loc);
    l.countDown();
  }

  public static void await(CountDownLatch l, int loc) throws InterruptedException {
    l.await();
    rcv(token(l), loc);
  }

  public static boolean await(CountDownLatch l, long timeout, TimeUnit unit, int loc) throws InterruptedException {
    boolean ok = l.await(timeout, unit);
    if (ok) rcv(token(l), loc);
    return ok;
  }

  private static int generationToken(CyclicBarrier b) {
    int t = token(b);
    return mix(t, Rt.enabled() ? Rt.state().nextGeneration(t) : 0);
  }

  public static int await(CyclicBarrier b, int loc) throws InterruptedException, BrokenBarrierException {
    int t = generationToken(b);
    snd(t, loc);
    int r = b.await();
    rcv(t, loc);
    return r;
  }

  public static int await(CyclicBarrier b, long timeout, TimeUnit unit, int loc)
      throws InterruptedException, BrokenBarrierException, TimeoutException {
    int t = generationToken(b);
    snd(t, loc);
    int r = b.await(timeout, unit);
    rcv(t, loc);
    return r;
  }

  public static int arriveAndAwaitAdvance(Phaser p, int loc) {
    int phase = p.getPhase();
    int t = mix(token(p), phase);
    snd(t, loc);
    int r = p.arriveAndAwaitAdvance();
    if (r >= 0) rcv(t, loc);
    return r;
  }

  public static int arrive(Phaser p, int loc) {
    snd(mix(token(p), p.getPhase()), loc);
    return p.arrive();
  }

  public static int arriveAndDeregister(Phaser p, int loc) {
    snd(mix(token(p), p.getPhase()), loc);
    return p.arriveAndDeregister();
  }

  public static int awaitAdvance(Phaser p, int phase, int loc) {
    int r = p.awaitAdvance(phase);
    if (phase >= 0 && r >= 0) rcv(mix(token(p), phase), loc);
    return r;
  }
}
