package real.otel_componentregistry;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;

/**
 * open-telemetry/opentelemetry-java PR #4951 ("Fix concurrent modification exception in
 * ComponentRegistry"), opentelemetry-sdk-common 1.20.0: the registry keeps every component it
 * built (here the meters of an SdkMeterProvider) in an unsynchronized identity set and hands out a
 * view of it. A metric collection walks that view while another thread asks the provider for a new
 * meter, which adds to the set: the walk throws java.util.ConcurrentModificationException.
 */
public class CollectWhileMetersCreatedTest {

    static final int EARLIER = 8;   // meters made before the race
    static final int LATE = 4;      // meters made while a collection runs
    static final int COLLECTS = 2;
    static final int ROUNDS = 2;

    @Test
    public void collectWhileNewMetersAreCreated() throws Exception {
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            InMemoryMetricReader reader = InMemoryMetricReader.create();
            SdkMeterProvider provider = SdkMeterProvider.builder().registerMetricReader(reader).build();
            for (int i = 0; i < EARLIER; i++) {
                provider.get("early-" + i);
            }
            CountDownLatch go = new CountDownLatch(1);
            int r = round;
            Thread collector = new Thread(() -> {
                try {
                    go.await();
                    for (int c = 0; c < COLLECTS; c++) {
                        reader.collectAllMetrics();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "collector");
            Thread creator = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < LATE; i++) {
                        provider.get("late-" + r + "-" + i);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "creator");
            collector.start();
            creator.start();
            go.countDown();
            collector.join();
            creator.join();
            provider.close();
        }
        for (Throwable e : failures) {
            e.printStackTrace();
        }
        assertTrue(failures.isEmpty(), "collection failed while meters were created: " + failures);
    }
}
