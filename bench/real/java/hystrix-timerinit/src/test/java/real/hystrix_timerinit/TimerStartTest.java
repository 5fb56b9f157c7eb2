package real.hystrix_timerinit;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.ref.Reference;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import com.netflix.hystrix.util.HystrixTimer;
import com.netflix.hystrix.util.HystrixTimer.TimerListener;

/**
 * Netflix/Hystrix PR #203, hystrix-core 1.3.8: "one thread may create the ScheduledExecutor, but a
 * second thread may try to use it before it has been initialized, resulting in a
 * NullPointerException", seen when several threads start using the (reset, so lazily restarted)
 * HystrixTimer at once. Each round resets the global timer, then two threads add a timer listener
 * at the same time; neither may fail.
 */
public class TimerStartTest {

    static final int ROUNDS = 3;

    static final class Tick implements TimerListener {
        @Override
        public void tick() {
        }

        @Override
        public int getIntervalTimeInMilliseconds() {
            return 60_000;
        }
    }

    @Test
    public void listenersAddedWhileTheTimerStartsAreScheduled() throws Exception {
        try {
            for (int round = 0; round < ROUNDS; round++) {
                addAtOnce(round);
            }
        } finally {
            HystrixTimer.reset();
        }
    }

    private void addAtOnce(int round) throws Exception {
        // the timer is a static singleton of the jar: start every round from a stopped timer
        HystrixTimer.reset();
        CountDownLatch start = new CountDownLatch(1);
        Throwable[] failure = new Throwable[2];
        @SuppressWarnings("unchecked")
        Reference<TimerListener>[] added = new Reference[failure.length];
        Thread[] users = new Thread[failure.length];
        for (int t = 0; t < users.length; t++) {
            int k = t;
            users[t] = new Thread(() -> {
                try {
                    start.await();
                    added[k] = HystrixTimer.getInstance().addTimerListener(new Tick());
                } catch (Throwable e) {
                    failure[k] = e;
                }
            }, "command-" + t);
            users[t].start();
        }
        start.countDown();
        for (Thread t : users) {
            t.join();
        }
        for (Reference<TimerListener> r : added) {
            if (r != null) {
                r.clear();
            }
        }
        for (int t = 0; t < failure.length; t++) {
            if (failure[t] != null) {
                failure[t].printStackTrace();
            }
            assertNull(failure[t], "round " + round + ": addTimerListener failed in command-" + t + ": " + failure[t]);
        }
    }
}
