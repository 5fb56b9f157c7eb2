package real.functionaljava_memo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import fj.P1;

/**
 * functionaljava #105 (functionaljava 4.2), "Race condition in P1.memo()": "when two threads
 * encountered the uninitialized state, a == null. One thread gets suspended before entering the
 * synchronized block, while the other runs through it. The latter thread sets v to something not
 * null. Then the first thread resumes, enters the synchronized block and checks if (v == null ||
 * v.get() == null) which is now false, and thus returns the still uninitialized a." Threads call
 * _1() of a new memoised P1 at the same time; one of them gets null.
 */
public class MemoTest {

    static final int ROUNDS = Integer.getInteger("rounds", 4);
    static final int THREADS = 2;

    static P1<String> newConfig() {
        return new P1<String>() {
            @Override
            public String _1() {
                return "config-" + System.nanoTime();
            }
        }.memo();
    }

    @Test
    public void concurrentFirstCallsSeeTheMemoisedValue() throws Exception {
        // one call alone first, so that class loading does not hold the first caller in every JVM
        newConfig()._1();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            P1<String> config = newConfig();
            CountDownLatch start = new CountDownLatch(1);
            Thread[] readers = new Thread[THREADS];
            for (int i = 0; i < readers.length; i++) {
                readers[i] = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (config._1() == null) {
                        failures.add(Thread.currentThread().getName() + " got null");
                    }
                }, "reader-" + i);
                readers[i].start();
            }
            start.countDown();
            for (Thread t : readers) {
                t.join();
            }
        }
        assertEquals(List.of(), failures, "the memoised P1 returned null to a concurrent first caller");
    }
}
