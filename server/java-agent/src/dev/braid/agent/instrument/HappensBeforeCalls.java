package dev.braid.agent.instrument;

import java.util.HashMap;
import java.util.Map;

/**
 * Calls of java.util.concurrent that hand work or a signal from one thread to another, and the
 * static method of {@code dev.braid.agent.runtime.HappensBefore} that replaces each at the call site
 * (same name; receiver first, call-site loc last). See docs/trace-format.md, SND/RCV.
 */
final class HappensBeforeCalls {
  private HappensBeforeCalls() {}

  static final String HB = "dev/braid/agent/runtime/HappensBefore";
  private static final String CU = "java/util/concurrent/";

  /** (owner, name, descriptor) -> type of the receiver parameter of the replacement ("" for a static call). */
  private static final Map<String, String> CALLS = new HashMap<>();

  private static void add(String[] owners, String receiver, String name, String... descriptors) {
    for (String o : owners) for (String d : descriptors) CALLS.put(o + '.' + name + d, receiver);
  }

  static {
    String[] executors = {CU + "Executor", CU + "ExecutorService", CU + "ScheduledExecutorService",
      CU + "AbstractExecutorService", CU + "ThreadPoolExecutor", CU + "ScheduledThreadPoolExecutor",
      CU + "ForkJoinPool"};
    String[] services = java.util.Arrays.copyOfRange(executors, 1, executors.length);
    add(executors, CU + "Executor", "execute", "(Ljava/lang/Runnable;)V");
    add(services, CU + "ExecutorService", "submit", "(Ljava/lang/Runnable;)Ljava/util/concurrent/Future;",
        "(Ljava/lang/Runnable;Ljava/lang/Object;)Ljava/util/concurrent/Future;",
        "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;");
    add(services, CU + "ExecutorService", "invokeAll", "(Ljava/util/Collection;)Ljava/util/List;",
        "(Ljava/util/Collection;JLjava/util/concurrent/TimeUnit;)Ljava/util/List;");
    String[] futures = {CU + "Future", CU + "FutureTask", CU + "RunnableFuture", CU + "ScheduledFuture",
      CU + "ForkJoinTask"};
    add(futures, CU + "Future", "get", "()Ljava/lang/Object;",
        "(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;");
    String[] cf = {CU + "CompletableFuture"};
    add(cf, "", "supplyAsync", "(Ljava/util/function/Supplier;)Ljava/util/concurrent/CompletableFuture;",
        "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;");
    add(cf, "", "runAsync", "(Ljava/lang/Runnable;)Ljava/util/concurrent/CompletableFuture;",
        "(Ljava/lang/Runnable;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;");
    String cfRet = ")Ljava/util/concurrent/CompletableFuture;";
    add(cf, CU + "CompletableFuture", "thenApply", "(Ljava/util/function/Function;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenApplyAsync", "(Ljava/util/function/Function;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenAccept", "(Ljava/util/function/Consumer;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenAcceptAsync", "(Ljava/util/function/Consumer;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenRun", "(Ljava/lang/Runnable;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenRunAsync", "(Ljava/lang/Runnable;" + cfRet);
    add(cf, CU + "CompletableFuture", "thenCompose", "(Ljava/util/function/Function;" + cfRet);
    add(cf, CU + "CompletableFuture", "whenComplete", "(Ljava/util/function/BiConsumer;" + cfRet);
    add(cf, CU + "CompletableFuture", "handle", "(Ljava/util/function/BiFunction;" + cfRet);
    add(cf, CU + "CompletableFuture", "complete", "(Ljava/lang/Object;)Z");
    add(cf, CU + "CompletableFuture", "completeExceptionally", "(Ljava/lang/Throwable;)Z");
    add(cf, CU + "CompletableFuture", "join", "()Ljava/lang/Object;");
    add(cf, CU + "CompletableFuture", "get", "()Ljava/lang/Object;");
    add(new String[] {CU + "CountDownLatch"}, CU + "CountDownLatch", "countDown", "()V");
    add(new String[] {CU + "CountDownLatch"}, CU + "CountDownLatch", "await", "()V",
        "(JLjava/util/concurrent/TimeUnit;)Z");
    add(new String[] {CU + "CyclicBarrier"}, CU + "CyclicBarrier", "await", "()I",
        "(JLjava/util/concurrent/TimeUnit;)I");
    String[] phaser = {CU + "Phaser"};
    add(phaser, CU + "Phaser", "arriveAndAwaitAdvance", "()I");
    add(phaser, CU + "Phaser", "arrive", "()I");
    add(phaser, CU + "Phaser", "arriveAndDeregister", "()I");
    add(phaser, CU + "Phaser", "awaitAdvance", "(I)I");
  }

  /**
   * Descriptor of the replacement of a call, or null when the call is not a hand-off. The
   * replacement takes the receiver (typed {@code receiver}), the call's arguments and the loc.
   */
  static String replacement(int opcode, String owner, String name, String descriptor) {
    String receiver = CALLS.get(owner + '.' + name + descriptor);
    if (receiver == null) return null;
    boolean isStatic = opcode == org.objectweb.asm.Opcodes.INVOKESTATIC;
    if (isStatic != receiver.isEmpty()) return null;
    int close = descriptor.indexOf(')');
    String recv = receiver.isEmpty() ? "" : "L" + receiver + ";";
    return "(" + recv + descriptor.substring(1, close) + "I" + descriptor.substring(close);
  }
}
