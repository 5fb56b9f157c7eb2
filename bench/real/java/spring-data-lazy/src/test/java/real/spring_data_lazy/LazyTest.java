package real.spring_data_lazy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.springframework.data.util.Lazy;

/**
 * DATACMNS-1806 (spring-data-commons 2.3.4.RELEASE), "Concurrency issue in Lazy.getNullable()":
 * "The value is read before it is checked whether the value was resolved. If the resolution
 * happens concurrently, the uninitialized value may be returned." Threads call get() on a new
 * Lazy at the same time; one of them reads value (null), another stores the supplied value and
 * sets resolved, the first then sees resolved and returns its null: get() throws
 * IllegalStateException ("Expected lazy evaluation to yield a non-null value but got null!").
 */
public class LazyTest {

    static final int ROUNDS = Integer.getInteger("rounds", 4);
    static final int THREADS = 2;

    @Test
    public void concurrentFirstGetsSeeTheSuppliedValue() throws Exception {
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            Lazy<String> lazy = Lazy.of(() -> "repository-metadata");
            CountDownLatch start = new CountDownLatch(1);
            Thread[] readers = new Thread[THREADS];
            for (int i = 0; i < readers.length; i++) {
                readers[i] = new Thread(() -> {
                    try {
                        start.await();
                        lazy.get();
                    } catch (InterruptedException e) {
                        return;
                    } catch (IllegalStateException e) {
                        failures.add(Thread.currentThread().getName() + ": " + e.getMessage());
                    }
                }, "reader-" + i);
                readers[i].start();
            }
            start.countDown();
            for (Thread t : readers) {
                t.join();
            }
        }
        assertEquals(List.of(), failures, "Lazy.get() returned null to a concurrent first reader");
    }
}
