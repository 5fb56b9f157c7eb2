package real.metrics_shareddefault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Field;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SharedMetricRegistries;

/**
 * dropwizard/metrics #1094, metrics-core 3.2.0: "Make SharedMetricRegistries thread-safe" — setDefault
 * checks that no default registry name is set and then sets it, two steps on a volatile field, so two
 * callers can both pass the check: "not end up with a lost update". Two components set their own
 * registry as the default at the same time; exactly one may succeed (the other gets the
 * IllegalStateException "Default metric registry name is already set."), and the winner's registry
 * must be the default.
 */
public class SharedDefaultRegistryTest {

    /**
     * Every run starts with no default: the registries are static and a JVM may run the test more than
     * once, so the default's name is reset the way metrics' own tests did before the fix (by reflection).
     */
    private static void noDefault() throws Exception {
        Field name = SharedMetricRegistries.class.getDeclaredField("defaultRegistryName");
        name.setAccessible(true);
        name.set(null, null);
        SharedMetricRegistries.clear();
    }

    @Test
    public void twoComponentsSetTheDefaultRegistryAtOnce() throws Exception {
        noDefault();
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger succeeded = new AtomicInteger();
        AtomicReference<MetricRegistry> winner = new AtomicReference<>();
        Thread[] components = new Thread[2];
        for (int i = 0; i < components.length; i++) {
            String name = "component-" + i;
            MetricRegistry registry = new MetricRegistry();
            components[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    SharedMetricRegistries.setDefault(name, registry);
                    succeeded.incrementAndGet();
                    winner.set(registry);
                } catch (IllegalStateException alreadySet) {
                    // the other component's registry is the default
                }
            }, name);
            components[i].start();
        }
        start.countDown();
        for (Thread t : components) {
            t.join();
        }
        assertEquals(1, succeeded.get(), "components whose setDefault succeeded");
        assertSame(winner.get(), SharedMetricRegistries.getDefault());
    }
}
