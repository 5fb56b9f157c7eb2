package real.spectator_queryindex;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.NoopRegistry;
import com.netflix.spectator.atlas.impl.Parser;
import com.netflix.spectator.atlas.impl.Query;
import com.netflix.spectator.atlas.impl.QueryIndex;

/**
 * Netflix/spectator PR #1148 (spectator-reg-atlas 1.7.17), "atlas: fix race condition for
 * QueryIndex": "Updates can happen concurrently with reads. This can result in some of the
 * volatile variables being set to null after the null check occurs." A publishing thread matches
 * a meter id against the subscriptions' index while a subscription is removed; the removal of the
 * last query on another key sets otherKeysIdx to null between the reader's null check and its use:
 * NullPointerException in QueryIndex.forEachMatch.
 */
public class QueryIndexTest {

    static final int ROUNDS = Integer.getInteger("rounds", 4);
    static final int MATCHES = 5;

    @Test
    public void matchWhileASubscriptionIsRemoved() throws Exception {
        NoopRegistry registry = new NoopRegistry();
        Id id = Id.create("cpu.utilization").withTag("app", "www");
        Query subscription = Parser.parseQuery("app,www,:eq");
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            QueryIndex<String> index = QueryIndex.newInstance(registry);
            index.add(subscription, "subscription-1");
            CountDownLatch start = new CountDownLatch(1);
            Thread publisher = new Thread(() -> {
                try {
                    start.await();
                    List<String> matched = new ArrayList<>();
                    for (int i = 0; i < MATCHES; i++) {
                        index.forEachMatch(id, matched::add);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    failures.add("publisher: " + e);
                }
            }, "publisher");
            Thread unsubscriber = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                index.remove(subscription, "subscription-1");
            }, "unsubscriber");
            publisher.start();
            unsubscriber.start();
            start.countDown();
            publisher.join();
            unsubscriber.join();
        }
        assertEquals(List.of(), failures, "matching ids while a subscription is removed");
    }
}
