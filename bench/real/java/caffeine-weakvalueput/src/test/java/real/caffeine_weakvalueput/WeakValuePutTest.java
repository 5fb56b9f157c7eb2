package real.caffeine_weakvalueput;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.ref.Reference;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * ben-manes/caffeine #568 (caffeine 3.0.2, fixed in 3.0.3): "Unintuitive behavior (bug?) with
 * put()". In a cache with weak values, a put() for a key that is already present lets a
 * concurrent getIfPresent() of that key return null instead of the old or the new value, even
 * when the put does not change the value: the entry's setValue clears the old value reference
 * before it stores the new one, and a reader that has just read the old reference gets its
 * cleared referent.
 *
 * The key stays mapped to the same strongly held value for the whole test, so every read must
 * find it.
 */
public class WeakValuePutTest {

    static final int ITERATIONS = 25;

    @Test
    public void readsDuringAPutOfTheSameValueNeverSeeNull() throws Exception {
        Cache<String, String> cache = Caffeine.newBuilder().weakValues().build();
        String key = "session";
        String value = new String("alive"); // held strongly here: never collected
        cache.put(key, value);

        AtomicReference<String> missed = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[4];
        for (int i = 0; i < threads.length; i++) {
            boolean writer = i % 2 == 0;
            String name = (writer ? "writer-" : "reader-") + i;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int j = 0; j < ITERATIONS && missed.get() == null; j++) {
                    if (writer) {
                        cache.put(key, value);
                    } else if (cache.getIfPresent(key) == null) {
                        missed.compareAndSet(null, name + " read null on iteration " + j);
                    }
                }
            }, name);
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(missed.get(), "getIfPresent returned null while the key was mapped");
        Reference.reachabilityFence(value);
    }
}
