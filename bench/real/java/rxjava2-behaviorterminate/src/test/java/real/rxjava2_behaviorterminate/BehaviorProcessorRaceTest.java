package real.rxjava2_behaviorterminate;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.reactivex.processors.BehaviorProcessor;
import io.reactivex.subscribers.TestSubscriber;

/**
 * ReactiveX/RxJava #5280 (fixed by PR #5281), rxjava 2.0.8: "Setting the terminal event of the
 * BehaviorProcessor and replaying it to late subscribers is not an atomic action, and causes a
 * NullPointerException in certain racy situations." onComplete marks the subscribers TERMINATED
 * and only then stores the terminal value; a subscribe in between cannot add itself, reads the
 * value (still null) and fails with NullPointerException instead of completing. The loop is the
 * report's minimal example (one thread calls onComplete, another subscribes), a few rounds per run.
 */
public class BehaviorProcessorRaceTest {

    @Test
    public void lateSubscriberSeesTheCompletion() throws Exception {
        for (int round = 0; round < 3; round++) {
            BehaviorProcessor<Boolean> processor = BehaviorProcessor.create();
            TestSubscriber<Boolean> subscriber = TestSubscriber.create();
            AtomicReference<Throwable> subscribeFailure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            Thread completer = new Thread(() -> {
                await(start);
                processor.onComplete();
            }, "completer");
            Thread subscribing = new Thread(() -> {
                await(start);
                try {
                    processor.subscribe(subscriber);
                } catch (Throwable t) {
                    subscribeFailure.set(t);
                }
            }, "subscriber");
            completer.start();
            subscribing.start();
            start.countDown();
            completer.join();
            subscribing.join();
            assertNull(subscribeFailure.get(), () -> "round: subscribe failed with " + subscribeFailure.get());
            subscriber.assertComplete();
        }
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
