package real.jersey_cowhashmap;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import com.sun.jersey.client.impl.CopyOnWriteHashMap;

/**
 * JERSEY-2795 (javaee/jersey #3067), jersey-client 1.19: "CopyOnWriteHashMap is not thread safe ...
 * java.lang.NullPointerException at com.sun.jersey.client.impl.CopyOnWriteHashMap.entrySet
 * (CopyOnWriteHashMap.java:155) ... In the face of concurrent updating, certain readers will
 * retrieve a null underlying view object." The scenario of the fix's own test
 * (CopyOnWriteHashMapTest.testConcurrentClears), smaller: threads share one map (as a Client's
 * properties are shared by its requests) and each puts, clears and reads the entry set; none may
 * throw.
 */
public class CopyOnWriteHashMapTest {

    private static final int THREADS = 4;
    private static final int UPDATES = 200;

    @Test
    public void concurrentPutsClearsAndReads() throws Exception {
        CopyOnWriteHashMap<Integer, Integer> properties = new CopyOnWriteHashMap<>();
        properties.put(-1, -1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int first = t * UPDATES;
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = first; i < first + UPDATES; i++) {
                    properties.put(i, i);
                    properties.clear();
                    properties.entrySet();
                }
            }, "updater-" + t);
            threads[t].setUncaughtExceptionHandler((th, e) -> thrown.compareAndSet(null, e));
            threads[t].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(thrown.get(), () -> "an updater threw " + thrown.get());
    }
}
