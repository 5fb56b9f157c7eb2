package real.metrics_cachedgauge;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.codahale.metrics.CachedGauge;

/**
 * dropwizard/metrics #1565 (and #711), metrics-core 4.1.6: two threads call getValue() of a new
 * CachedGauge at the same time. shouldLoad() lets only the first load the value (it moves
 * reloadAt on), so the second returns the field value before the first has stored what it
 * loaded: getValue() returns null (an NPE in CachedThreadStatesGaugeSet, in the report).
 */
public class CachedGaugeTest {

    static final class ThreadCountGauge extends CachedGauge<String> {
        ThreadCountGauge() {
            super(1, TimeUnit.MINUTES);
        }

        @Override
        protected String loadValue() {
            return "threads=" + Thread.activeCount();
        }
    }

    @Test
    public void concurrentFirstReadsSeeTheLoadedValue() throws Exception {
        CachedGauge<String> gauge = new ThreadCountGauge();
        CountDownLatch start = new CountDownLatch(1);
        String[] seen = new String[2];
        Thread[] readers = new Thread[seen.length];
        for (int i = 0; i < readers.length; i++) {
            int k = i;
            readers[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                seen[k] = gauge.getValue();
            }, "reader-" + i);
            readers[i].start();
        }
        start.countDown();
        for (Thread t : readers) {
            t.join();
        }
        for (int i = 0; i < seen.length; i++) {
            assertNotNull(seen[i], "reader-" + i + " got null from CachedGauge.getValue()");
        }
    }
}
