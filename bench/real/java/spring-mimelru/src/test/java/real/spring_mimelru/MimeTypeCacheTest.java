package real.spring_mimelru;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import org.springframework.util.MimeTypeUtils;

/**
 * spring-projects/spring-framework #24886, spring-core 5.2.5.RELEASE: "in the case of highly
 * concurrent calls for the same cached value, the current implementation can add multiple
 * instances of the same value to the queue" of MimeTypeUtils' LRU cache (an unbounded queue: a
 * memory leak, and ever longer scans of it). The cache is full (64 types parsed), then two
 * threads parse the same, cached, media type at the same time; afterwards that type must be in
 * the queue once.
 */
public class MimeTypeCacheTest {

    static final String TYPE = "application/json";

    @Test
    public void concurrentReadsOfACachedTypeKeepOneQueueEntry() throws Exception {
        MimeTypeUtils.parseMimeType(TYPE);
        for (int i = 1; i < 64; i++) {
            MimeTypeUtils.parseMimeType("application/x-fill-" + i);
        }
        CountDownLatch start = new CountDownLatch(1);
        Thread[] readers = new Thread[2];
        for (int i = 0; i < readers.length; i++) {
            readers[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = 0; k < 5; k++) {
                    MimeTypeUtils.parseMimeType(TYPE);
                }
            }, "reader-" + i);
            readers[i].start();
        }
        start.countDown();
        for (Thread t : readers) {
            t.join();
        }
        Collection<?> queue = queueOfTheCache();
        long entries = queue.stream().filter(TYPE::equals).count();
        assertEquals(1, entries, TYPE + " is " + entries + " times in the LRU queue (" + queue.size() + " entries for 64 cached types)");
    }

    /** MimeTypeUtils.cachedMimeTypes.queue: the queue the report says grows */
    private static Collection<?> queueOfTheCache() throws Exception {
        Field cacheField = MimeTypeUtils.class.getDeclaredField("cachedMimeTypes");
        cacheField.setAccessible(true);
        Object cache = cacheField.get(null);
        Field queueField = cache.getClass().getDeclaredField("queue");
        queueField.setAccessible(true);
        return (Collection<?>) queueField.get(cache);
    }
}
