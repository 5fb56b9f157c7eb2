package real.expiringmap_iterate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import net.jodah.expiringmap.ExpirationPolicy;
import net.jodah.expiringmap.ExpiringMap;

/**
 * jhalterman/expiringmap #10 and #30 (expiringmap 0.5.10): ExpiringMap is a ConcurrentMap, yet
 * iterating its values() while another thread changes the map throws
 * ConcurrentModificationException from the LinkedHashMap iterator under
 * ExpiringMap$EntryLinkedHashMap$AbstractHashIterator.getNext ("Iterating through map while
 * expirator is running", #30). A reader iterates the sessions' values while a writer puts new
 * sessions.
 */
public class IterateWhilePuttingTest {

    static final int ROUNDS = Integer.getInteger("rounds", 1);
    static final int ENTRIES = Integer.getInteger("entries", 4);
    static final int PUTS = 2;

    /** What a reader does with each session: format a line of a report. */
    static String describe(int session) {
        return String.format("session %d: %s", session, Integer.toBinaryString(session));
    }

    @Test
    public void valuesCanBeIteratedWhileAnotherThreadPuts() throws Exception {
        describe(0); // String.format's first call loads classes: not part of the race
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            Map<String, Integer> sessions = ExpiringMap.builder()
                    .expiration(1, TimeUnit.MINUTES)
                    .expirationPolicy(ExpirationPolicy.CREATED)
                    .build();
            for (int i = 0; i < ENTRIES; i++) {
                sessions.put("session-" + i, i);
            }
            CountDownLatch start = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try {
                    start.await();
                    int total = 0;
                    for (int v : sessions.values()) {
                        total += describe(v).length();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (ConcurrentModificationException e) {
                    failures.add("reader: " + e);
                }
            }, "reader");
            int first = ENTRIES + round * PUTS;
            Thread writer = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < PUTS; i++) {
                    sessions.put("session-" + (first + i), i);
                }
            }, "writer");
            reader.start();
            writer.start();
            start.countDown();
            reader.join();
            writer.join();
        }
        assertEquals(List.of(), failures, "iterating ExpiringMap.values() while another thread puts");
    }
}
