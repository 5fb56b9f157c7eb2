package real.hutool_expiredremove;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import cn.hutool.cache.impl.TimedCache;

/**
 * hutool I8MEIX (Gitee), hutool-cache 5.8.23, "StampedCache's get is not atomic": a get() that finds
 * the key's entry expired releases its read, then removes the key under the write lock. A put()
 * of a fresh value for the same key in between is removed with it: the value just put is gone.
 */
public class ExpiredGetRemoveTest {

    static final int ROUNDS = 40;

    @Test
    public void aFreshPutSurvivesAConcurrentGetOfTheExpiredEntry() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            TimedCache<String, String> cache = new TimedCache<>(60_000);
            cache.put("key", "old", 1);
            // Both threads start at the same instant (a clock, not a shared field), 2 ms from now:
            // by then the old entry (1 ms) has expired.
            final long go = System.nanoTime() + 2_000_000L;
            Thread reader = new Thread(() -> {
                while (System.nanoTime() < go) {
                    Thread.onSpinWait();
                }
                cache.get("key");
            }, "reader");
            Thread writer = new Thread(() -> {
                while (System.nanoTime() < go) {
                    Thread.onSpinWait();
                }
                cache.put("key", "new", 60_000);
            }, "writer");
            reader.start();
            writer.start();
            reader.join();
            writer.join();
            assertEquals("new", cache.get("key"),
                    "round " + round + ": the value put while another thread read the expired entry was removed");
        }
    }
}
