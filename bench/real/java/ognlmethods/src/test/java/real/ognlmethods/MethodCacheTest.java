package real.ognlmethods;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import ognl.Ognl;
import ognl.OgnlRuntime;
import org.junit.jupiter.api.Test;

/**
 * orphan-oss/ognl#4 "Fixed race condition with OgnlRuntime.getMethods": "Premature put to cache
 * with empty map caused lookups outside of sync to return the empty map and then null for the
 * get." Two threads call a method through OGNL on an object of a class OGNL has not seen yet; the
 * first fills the method cache of that class, the second may find the half-filled map and fails
 * with "method not found".
 */
class MethodCacheTest {

  /** Classes OGNL has not cached yet, one per round (the method cache is static). */
  private static final Object[] TARGETS = {
    new Bean.Order(), new Bean.Customer(), new Bean.Invoice(), new Bean.Shipment(),
  };

  @Test
  void concurrentFirstCallOfAMethod() throws Exception {
    // OGNL's method cache is static: start from an empty one, also when the runs repeat in one JVM
    OgnlRuntime.clearCache();
    for (int round = 0; round < TARGETS.length; round++) {
      Object target = TARGETS[round];
      String call = "describe()";
      CyclicBarrier start = new CyclicBarrier(2);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Runnable caller = () -> {
        try {
          start.await();
          Ognl.getValue(call, target);
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      };
      Thread a = new Thread(caller, "caller-a");
      Thread b = new Thread(caller, "caller-b");
      a.start();
      b.start();
      a.join();
      b.join();
      if (failure.get() != null) {
        fail("round " + round + " (" + target.getClass().getName() + "." + call + "): " + failure.get(), failure.get());
      }
    }
  }
}
