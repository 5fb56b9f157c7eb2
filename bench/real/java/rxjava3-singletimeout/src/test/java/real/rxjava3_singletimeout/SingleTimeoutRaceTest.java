package real.rxjava3_singletimeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.reactivex.rxjava3.core.Scheduler;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.disposables.Disposable;
import io.reactivex.rxjava3.schedulers.Schedulers;

/**
 * ReactiveX/RxJava #7514, rxjava 3.1.5: Single.timeout with a very small timeout (0 ns) on a
 * Single that never signals does not always emit the TimeoutException. The timeout task is
 * scheduled before the source is subscribed; when it runs while the subscription is being set
 * up, it can see no upstream yet and then fail to mark the operator as timed out, so the error
 * never comes. Each round waits for the error; a round without it fails the test.
 */
public class SingleTimeoutRaceTest {

    static final int ROUNDS = 100;

    @Test
    public void zeroTimeoutAlwaysSignalsTheError() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "timeout-timer");
            t.setDaemon(true);
            return t;
        });
        Scheduler scheduler = Schedulers.from(timer);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                CountDownLatch timedOut = new CountDownLatch(1);
                Disposable d = Single.never()
                        .timeout(0, TimeUnit.NANOSECONDS, scheduler)
                        .subscribe(v -> { }, e -> timedOut.countDown());
                boolean signalled = timedOut.await(1, TimeUnit.SECONDS);
                d.dispose();
                assertTrue(signalled, "round " + round + ": Single.timeout(0 ns) never signalled its TimeoutException");
            }
        } finally {
            timer.shutdownNow();
        }
    }
}
