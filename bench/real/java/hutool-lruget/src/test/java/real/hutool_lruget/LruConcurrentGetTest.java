package real.hutool_lruget;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import cn.hutool.cache.impl.LRUCache;

/**
 * chinabugotech/hutool #1895, hutool-cache 5.7.14: LRUCache keeps its entries in an access-ordered
 * LinkedHashMap, and a get() moves the entry it reads to the end of that map's list. get() only
 * takes an optimistic StampedLock read (or the shared read lock), so readers of different keys
 * relink the list at the same time and an entry drops out of it: the puts that follow evict
 * the entries still in the list and never that one, so the cache keeps a key it should have evicted.
 */
public class LruConcurrentGetTest {

    static final int SIZE = 4;
    static final int READERS = 2;
    static final int READS = 2;
    static final int ROUNDS = 16;

    @Test
    public void concurrentGetsKeepTheLruOrder() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            LRUCache<Integer, Integer> cache = new LRUCache<>(SIZE);
            for (int i = 0; i < SIZE; i++) {
                cache.put(i, i);
            }
            // The readers start together: each spins until the same instant (a clock, not a
            // shared field, so the wait itself touches no shared state).
            final long go = System.nanoTime() + 2_000_000L;
            Thread[] readers = new Thread[READERS];
            for (int t = 0; t < READERS; t++) {
                int key = t % SIZE;
                readers[t] = new Thread(() -> {
                    while (System.nanoTime() < go) {
                        Thread.onSpinWait();
                    }
                    for (int j = 0; j < READS; j++) {
                        cache.get(key);
                    }
                }, "reader-" + t);
                readers[t].start();
            }
            for (Thread t : readers) {
                t.join();
            }
            // Every key was used; SIZE puts of new keys must now evict all the old ones, the least
            // recently used first. An entry the concurrent gets unlinked from the list is never
            // evicted and stays in the cache.
            for (int i = SIZE; i < 2 * SIZE; i++) {
                cache.put(i, i);
            }
            StringBuilder left = new StringBuilder();
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 2 * SIZE; i++) {
                left.append(cache.get(i)).append(' ');
                expected.append(i < SIZE ? "null" : String.valueOf(i)).append(' ');
            }
            assertEquals(expected.toString(), left.toString(),
                    "round " + round + ": after concurrent gets the LRU cache kept an entry it should have evicted");
        }
    }
}
