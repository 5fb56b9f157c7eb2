package real.javautil_multikeyresize;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.cedarsoftware.util.MultiKeyMap;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * jdereg/java-util 4238322e ("Fix MultiKeyMap concurrent resize race that silently dropped entries",
 * 4.91.0): the stripe lock of a put was chosen from the bucket index of the table read before the lock
 * was taken; a resize in between (it takes every stripe lock) made the put hold a stripe that no longer
 * guards its bucket, so two puts could change one bucket at once and an entry was lost. The window is
 * open while the table is smaller than the stripe count (8 on a 2-core machine), so each round starts
 * a map at capacity 1 and lets four threads put 16 distinct keys at once; then every key must be there.
 */
class MultiKeyResizeTest {
  static final int THREADS = 4;
  static final int KEYS_PER_THREAD = 4;
  static final int ROUNDS = 3;

  @Test
  void concurrentPutsKeepEveryEntry() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      MultiKeyMap<Integer> map = new MultiKeyMap<>(1);
      CyclicBarrier start = new CyclicBarrier(THREADS);
      Thread[] threads = new Thread[THREADS];
      for (int t = 0; t < THREADS; t++) {
        final int first = t;
        threads[t] = new Thread(() -> {
          try {
            start.await();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          for (int k = 0; k < KEYS_PER_THREAD; k++) {
            int key = first + k * THREADS;
            map.put(key, key);
          }
        }, "putter-" + t);
        threads[t].start();
      }
      for (Thread thread : threads) thread.join();
      for (int key = 0; key < THREADS * KEYS_PER_THREAD; key++) {
        assertNotNull(map.get(key), "round " + round + ": key " + key + " was lost (size " + map.size() + ")");
      }
      assertEquals(THREADS * KEYS_PER_THREAD, map.size(), "round " + round + ": size");
    }
  }
}
