package real.cache2k_manageriter;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ConcurrentModificationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.cache2k.Cache;
import org.cache2k.CacheBuilder;
import org.cache2k.CacheManager;
import org.junit.jupiter.api.Test;

/**
 * cache2k 0.22, fixed in 0.22.1 ("Fix possible race condition in cache manager when adding and
 * closing caches and requesting an iteration of the existing caches"): iterating the cache
 * manager (CacheManager is Iterable over its caches) while another thread builds a new cache.
 * The manager's iterator() hands out the iterator of its own set of caches, which newCache()
 * adds to: the iterating thread gets a ConcurrentModificationException.
 */
public class ManagerIteratorTest {

    static final int PRESENT = 6;
    static final int ADDED = 3;
    static final int ROUNDS = 2;

    @Test
    public void iterateWhileACacheIsBuilt() throws Exception {
        // jar classes keep their static state between repetitions: start from a fresh default manager
        CacheManager.getInstance().close();
        CacheManager manager = CacheManager.getInstance();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                for (int i = 0; i < PRESENT; i++) {
                    CacheBuilder.newCache(String.class, String.class).name("present" + round + "x" + i).build();
                }
                CountDownLatch start = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                int r = round;
                Thread builder = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < ADDED; i++) {
                            CacheBuilder.newCache(String.class, String.class).name("added" + r + "x" + i).build();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "builder");
                Thread lister = new Thread(() -> {
                    try {
                        start.await();
                        for (int k = 0; k < ADDED; k++) {
                            StringBuilder names = new StringBuilder();
                            for (Cache<?, ?> c : manager) {
                                names.append(c.getName()).append(' ');
                            }
                        }
                    } catch (ConcurrentModificationException e) {
                        failure.compareAndSet(null, e);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "lister");
                builder.start();
                lister.start();
                start.countDown();
                builder.join();
                lister.join();
                assertNull(failure.get(), "round " + round + ": iterating the CacheManager while a cache is built failed: " + failure.get());
            }
        } finally {
            manager.close();
        }
    }
}
