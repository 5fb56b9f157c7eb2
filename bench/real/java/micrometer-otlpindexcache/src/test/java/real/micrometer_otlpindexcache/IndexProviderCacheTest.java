package real.micrometer_otlpindexcache;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.micrometer.registry.otlp.internal.CumulativeBase2ExponentialHistogram;

/**
 * micrometer-metrics/micrometer #6243, micrometer-registry-otlp 1.14.7: "IndexProviderFactory throws
 * ConcurrentModificationException" (java.util.HashMap.computeIfAbsent in
 * IndexProviderFactory.getIndexProviderForScale, from the Base2ExponentialHistogram constructor, when
 * timers with exponential histograms are registered from several threads). Two threads make
 * exponential histograms of different maximum scales at the same time (as the fix's concurrency test:
 * each scale's index provider is made once and kept in a static map, and so is each scale's empty
 * snapshot, the fix's second, unreported case); neither may throw.
 */
public class IndexProviderCacheTest {

    /**
     * Every run starts with empty caches, as a JVM's first histograms do: braid test repeats the test
     * in one JVM where the library's classes (and so its static caches) are shared between runs.
     */
    private static void emptyCaches() throws Exception {
        String pkg = "io.micrometer.registry.otlp.internal.";
        for (String[] cache : new String[][] { { "IndexProviderFactory", "indexProviderCache" },
                { "DefaultExponentialHistogramSnapShot", "emptySnapshotCache" } }) {
            Field field = Class.forName(pkg + cache[0]).getDeclaredField(cache[1]);
            field.setAccessible(true);
            ((Map<?, ?>) field.get(null)).clear();
        }
    }

    @Test
    public void twoThreadsMakeHistogramsOfDifferentScales() throws Exception {
        emptyCaches();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread high = new Thread(() -> histograms(start, 20, 11), "histograms-20-11");
        Thread low = new Thread(() -> histograms(start, 10, 1), "histograms-10-1");
        high.setUncaughtExceptionHandler((t, e) -> record(thrown, e));
        low.setUncaughtExceptionHandler((t, e) -> record(thrown, e));
        high.start();
        low.start();
        start.countDown();
        high.join();
        low.join();
        assertNull(thrown.get(), () -> "making a histogram threw " + thrown.get());
    }

    /** Keeps the first throwable and labels the run by the static map it came from (the evaluation's, not Braid's). */
    private static void record(AtomicReference<Throwable> thrown, Throwable e) {
        if (!thrown.compareAndSet(null, e)) {
            return;
        }
        for (StackTraceElement frame : e.getStackTrace()) {
            if (frame.getClassName().endsWith("IndexProviderFactory")) {
                System.out.println("BRAID-TRUTH index-provider-cme");
                return;
            }
            if (frame.getClassName().endsWith("DefaultExponentialHistogramSnapShot")) {
                System.out.println("BRAID-TRUTH empty-snapshot-cme");
                return;
            }
        }
    }

    private static void histograms(CountDownLatch start, int fromScale, int toScale) {
        try {
            start.await();
        } catch (InterruptedException e) {
            return;
        }
        for (int scale = fromScale; scale >= toScale; scale--) {
            CumulativeBase2ExponentialHistogram histogram = new CumulativeBase2ExponentialHistogram(scale, 16, 1.0, null);
            histogram.recordDouble(2);
            histogram.close();
        }
    }
}
