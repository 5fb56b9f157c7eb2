package real.micrometer_latefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * micrometer-metrics/micrometer #5489 (micrometer-core 1.13.4), "ConcurrentModificationException
 * when late meter filters are added": a MeterFilter configured after meters were registered
 * copies the ids of preFilterIdToMeterMap (a HashMap) into stalePreFilterIds without the meter
 * map lock; "preFilterIdToMeterMap is being modified (a new entry added) while it is being
 * iterated over". In the report a Quarkus/Keycloak server failed to start. Here one thread
 * configures a late common-tags filter while another registers new timers.
 */
public class LateFilterTest {

    static final int ROUNDS = Integer.getInteger("rounds", 2);
    static final int METERS = Integer.getInteger("meters", 4);

    @Test
    public void lateFilterWhileMetersAreRegistered() throws Exception {
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            for (int i = 0; i < METERS; i++) {
                registry.counter("cache.gets", "cache", "c" + i);
            }
            CountDownLatch start = new CountDownLatch(1);
            Thread configurer = new Thread(() -> {
                try {
                    start.await();
                    registry.config().meterFilter(MeterFilter.commonTags(List.of(io.micrometer.core.instrument.Tag.of("node", "n1"))));
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    failures.add("configurer: " + e);
                }
            }, "configurer");
            Thread requests = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 2; i++) {
                    registry.timer("http.server.requests", "uri", "/r" + i);
                }
            }, "requests");
            configurer.start();
            requests.start();
            start.countDown();
            configurer.join();
            requests.join();
        }
        assertEquals(List.of(), failures, "configuring a meter filter while meters are registered");
    }
}
