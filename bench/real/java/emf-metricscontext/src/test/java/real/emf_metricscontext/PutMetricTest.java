package real.emf_metricscontext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import software.amazon.cloudwatchlogs.emf.model.MetricsContext;
import software.amazon.cloudwatchlogs.emf.model.Unit;

/**
 * awslabs/aws-embedded-metrics-java #142, aws-embedded-metrics 4.1.2: "A customer found that using
 * many threads could throw a NullPointerException during a putMetric() call. Multiple threads
 * could be calling putMetric() at the same time. The HashMap may be re-hashing during a call to
 * get()." One thread records a metric it has recorded before (its name is in the map) while three
 * threads record new metrics into the same MetricsContext; no putMetric may throw, and every
 * metric name must be remembered with its resolution.
 */
public class PutMetricTest {

    static final int NEW_PER_THREAD = 3000;

    @Test
    public void concurrentPutMetricKeepsEveryMetric() throws Exception {
        MetricsContext context = new MetricsContext();
        context.putMetric("Latency", 1, Unit.MILLISECONDS);
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread[] threads = new Thread[4];
        threads[0] = new Thread(() -> {
            await(start);
            for (int i = 0; i < 3 * NEW_PER_THREAD; i++) {
                context.putMetric("Latency", i, Unit.MILLISECONDS);
            }
        }, "latency");
        for (int t = 1; t < threads.length; t++) {
            int w = t;
            threads[t] = new Thread(() -> {
                await(start);
                for (int i = 0; i < NEW_PER_THREAD; i++) {
                    context.putMetric("Metric-" + w + "-" + i, i, Unit.COUNT);
                }
            }, "writer-" + t);
        }
        for (Thread t : threads) {
            t.setUncaughtExceptionHandler((th, e) -> thrown.compareAndSet(null, e));
            t.start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(thrown.get(), () -> "putMetric threw " + thrown.get());
        Map<?, ?> resolutions = resolutionsOf(context);
        assertEquals(1 + 3 * NEW_PER_THREAD, resolutions.size(), "metric names remembered with their resolution");
    }

    private static void await(CountDownLatch start) {
        try {
            start.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** MetricsContext.metricNameAndResolutionMap, the map the fix made a ConcurrentHashMap */
    private static Map<?, ?> resolutionsOf(MetricsContext context) throws Exception {
        Field f = MetricsContext.class.getDeclaredField("metricNameAndResolutionMap");
        f.setAccessible(true);
        return (Map<?, ?>) f.get(context);
    }
}
