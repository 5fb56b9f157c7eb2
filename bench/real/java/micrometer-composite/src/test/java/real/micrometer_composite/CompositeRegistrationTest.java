package real.micrometer_composite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * micrometer #1622 (fixed by #1628), micrometer-core 1.1.7: threads register the same counter on a
 * CompositeMeterRegistry and increment it. MeterRegistry.getOrCreateMeter publishes the new
 * composite counter in meterMap before the meter-added listener has added the composite's child
 * (the SimpleMeterRegistry's counter); another thread finds the counter in meterMap, increments it
 * while it has no child, and the increment is lost.
 */
public class CompositeRegistrationTest {

    static final int THREADS = 2;
    static final int TAGS = 1;

    @Test
    public void concurrentRegistrationKeepsEveryIncrement() throws Exception {
        SimpleMeterRegistry simple = new SimpleMeterRegistry();
        CompositeMeterRegistry composite = new CompositeMeterRegistry();
        composite.add(simple);
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int tag = 0; tag < TAGS; tag++) {
                    Counter counter = Counter.builder("requests").tag("route", "r" + tag).register(composite);
                    counter.increment();
                }
            }, "registrar-" + t);
            threads[t].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        for (int tag = 0; tag < TAGS; tag++) {
            assertEquals(THREADS, simple.get("requests").tag("route", "r" + tag).counter().count(), 0.0,
                    "increments of route r" + tag + " kept by the composite's child registry");
        }
    }
}
