package real.metrics_rescale;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import com.codahale.metrics.Clock;
import com.codahale.metrics.ExponentiallyDecayingReservoir;

/**
 * dropwizard/metrics PR #1033 (issues #1005, #793), metrics-core 3.1.2: two threads update an
 * ExponentiallyDecayingReservoir after a long idle period. The first moves nextScaleTime on
 * (compareAndSet) but has not yet taken the write lock when the second one's update reads the old
 * startTime and adds a sample whose weight, exp(alpha * (now - startTime)), overflows; the rescale
 * then multiplies it by 0 and the reservoir holds NaN weights: the snapshot's mean is no longer a
 * finite number (the PR's test checks the mean). A snapshot taken at the same time holds the read
 * lock and widens the window, as the PR describes.
 */
public class RescaleRaceTest {

    static final class ManualClock extends Clock {
        final AtomicLong nanos = new AtomicLong();

        @Override
        public long getTick() {
            return nanos.get();
        }

        @Override
        public long getTime() {
            return TimeUnit.NANOSECONDS.toMillis(nanos.get());
        }
    }

    @Test
    public void updatesAfterLongIdlePeriodsKeepTheReservoirFinite() throws Exception {
        ManualClock clock = new ManualClock();
        ExponentiallyDecayingReservoir reservoir = new ExponentiallyDecayingReservoir(10, 0.015, clock);
        for (int round = 0; round < 8; round++) {
            clock.nanos.addAndGet(TimeUnit.HOURS.toNanos(15));
            CountDownLatch start = new CountDownLatch(1);
            Thread[] threads = {
                new Thread(() -> { await(start); reservoir.getSnapshot().getMean(); }, "snapshot"),
                new Thread(() -> { await(start); reservoir.update(1000); }, "update-1"),
                new Thread(() -> { await(start); reservoir.update(1000); }, "update-2"),
            };
            for (Thread t : threads) {
                t.start();
            }
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
        }
        double mean = reservoir.getSnapshot().getMean();
        assertTrue(mean >= 0.0 && mean <= Double.MAX_VALUE, "the reservoir's mean is " + mean);
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
