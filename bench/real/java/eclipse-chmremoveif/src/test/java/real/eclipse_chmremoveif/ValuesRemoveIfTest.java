package real.eclipse_chmremoveif;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import org.eclipse.collections.impl.map.mutable.ConcurrentHashMap;

/**
 * eclipse-collections #424 (eclipse-collections 9.0.0, fixed in 9.1.0): "entrySet() and values()
 * removeIf() methods in both CHM are not thread-safe" (the same bug as the JDK's JDK-8078645). One
 * thread removes the stale values with values().removeIf(stale) while another thread replaces
 * every value with a fresh one. removeIf walks the map with the view's iterator and, for a value
 * that matched, calls the iterator's remove(), which removes the KEY: when the other thread has
 * replaced the value in between, the fresh mapping is removed with it.
 *
 * Every order of the two threads' operations leaves each key mapped to the fresh value (a key
 * whose stale value was removed first is put again; a key replaced first no longer matches), so a
 * missing key is the bug.
 */
public class ValuesRemoveIfTest {

    static final int KEYS = 200;

    @Test
    public void removeIfOfStaleValuesKeepsEveryFreshMapping() throws Exception {
        ConcurrentHashMap<String, String> map = ConcurrentHashMap.newMap();
        for (int i = 0; i < KEYS; i++) {
            map.put("key-" + i, "stale");
        }
        CountDownLatch start = new CountDownLatch(1);
        Thread remover = new Thread(() -> {
            await(start);
            map.values().removeIf(v -> v.equals("stale"));
        }, "remover");
        Thread updater = new Thread(() -> {
            await(start);
            for (int i = 0; i < KEYS; i++) {
                map.put("key-" + i, "fresh");
            }
        }, "updater");
        remover.start();
        updater.start();
        start.countDown();
        remover.join();
        updater.join();

        List<String> lost = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            if (!"fresh".equals(map.get("key-" + i))) {
                lost.add("key-" + i);
            }
        }
        assertTrue(lost.isEmpty(), "fresh mappings removed by values().removeIf(stale): " + lost);
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
