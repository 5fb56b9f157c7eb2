package real.resilience4j_eventconsumers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * resilience4j #1115 ("ConcurrentModificationException warning log while consuming events"),
 * resilience4j 1.4.0/1.5.0: a circuit breaker's success events are handed to the consumers
 * registered for them, a plain ArrayList that EventProcessor.processEvent walks with forEach while
 * registerConsumer may add to it from another thread. ArrayList.forEach stops at the modification
 * and throws ConcurrentModificationException, which the circuit breaker logs as a warning: the
 * consumers after the one that was running miss the event.
 */
public class EventConsumersTest {

    static final int CALLS = 20;

    @Test
    public void everyRegisteredConsumerSeesEverySuccess() throws Exception {
        CircuitBreaker breaker = CircuitBreaker.ofDefaults("inventory");
        AtomicInteger audited = new AtomicInteger();
        AtomicInteger counted = new AtomicInteger();
        // two consumers registered up front: an audit log and a success counter
        List<String> auditLog = new CopyOnWriteArrayList<>();
        breaker.getEventPublisher().onSuccess(event -> {
            auditLog.add(event.toString());
            audited.incrementAndGet();
        });
        breaker.getEventPublisher().onSuccess(event -> counted.incrementAndGet());

        CountDownLatch start = new CountDownLatch(1);
        Thread requests = new Thread(() -> {
            await(start);
            for (int i = 0; i < CALLS; i++) {
                int n = i;
                breaker.executeSupplier(() -> "item-" + n);
            }
        }, "requests");
        Thread monitoring = new Thread(() -> {
            await(start);
            // a monitoring component attaches its own consumer once requests are being served
            while (counted.get() == 0) {
                Thread.onSpinWait();
            }
            breaker.getEventPublisher().onSuccess(event -> { });
        }, "monitoring");
        requests.start();
        monitoring.start();
        start.countDown();
        requests.join();
        monitoring.join();

        assertEquals(CALLS, audited.get(), "the audit consumer missed successes");
        assertEquals(CALLS, counted.get(), "the counting consumer missed successes (ConcurrentModificationException in EventProcessor.processEvent)");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
