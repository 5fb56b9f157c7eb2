package real.cache2k_peekduringput;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.cache2k.Cache;
import org.cache2k.CacheBuilder;
import org.cache2k.CacheManager;
import org.junit.jupiter.api.Test;

/**
 * cache2k 0.22, fixed in 0.22.1 ("Fix: retrieving existing entries via peek() might return null
 * when a concurrent put() happens"): a key is in the cache; one thread puts new values for it
 * while another peeks it. The key is never absent, so peek() must never return null.
 */
public class PeekDuringPutTest {

    static final int PUTS = 200;
    static final int PEEKS = 200;

    @Test
    public void peekOfAPresentKeyDuringPut() throws Exception {
        // jar classes keep their static state between repetitions: start from a fresh default manager
        CacheManager.getInstance().close();
        Cache<String, String> cache = CacheBuilder.newCache(String.class, String.class).name("peekDuringPut").build();
        try {
            cache.put("key", "value-0");
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger nulls = new AtomicInteger();
            Thread writer = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 1; i <= PUTS; i++) {
                    cache.put("key", "value-" + i);
                }
            }, "writer");
            Thread reader = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < PEEKS; i++) {
                    if (cache.peek("key") == null) {
                        nulls.incrementAndGet();
                    }
                }
            }, "reader");
            writer.start();
            reader.start();
            start.countDown();
            writer.join();
            reader.join();
            assertEquals(0, nulls.get(), "peek(\"key\") returned null while the key was present and being put");
        } finally {
            CacheManager.getInstance().close();
        }
    }
}
