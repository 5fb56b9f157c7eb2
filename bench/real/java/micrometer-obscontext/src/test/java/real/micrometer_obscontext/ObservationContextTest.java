package real.micrometer_obscontext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.micrometer.observation.Observation;

/**
 * micrometer-metrics/micrometer #3874, micrometer-observation 1.11.4: "ConcurrentModificationException
 * on Observation$Context.computeIfAbsent" (java.util.HashMap.computeIfAbsent at
 * Observation$Context.computeIfAbsent(Observation.java:1036), from a tracing handler that looks up its
 * per-observation state while another thread works on the same context). One thread looks up (and,
 * when absent, makes) a handler's state in a shared Observation.Context, another clears the context
 * and then marks it done; the lookup must never throw.
 */
public class ObservationContextTest {

    /** What a handler keeps in the context (a tracing handler keeps its span state there: a new id). */
    static final class HandlerState {
        final String spanId;

        HandlerState(Object key) {
            this.spanId = UUID.randomUUID().toString();
        }
    }

    @Test
    public void lookupWhileAnotherThreadClearsTheContext() throws Exception {
        Observation.Context context = new Observation.Context();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread handler = new Thread(() -> {
            await(start);
            for (int i = 0; i < 3; i++) {
                HandlerState state = context.computeIfAbsent(HandlerState.class, HandlerState::new);
                if (state == null) {
                    throw new AssertionError("no handler state");
                }
            }
        }, "handler");
        Thread clearer = new Thread(() -> {
            await(start);
            for (int i = 0; i < 3; i++) {
                context.clear();
            }
            context.put("thread", "done");
        }, "clearer");
        handler.setUncaughtExceptionHandler((t, e) -> thrown.compareAndSet(null, e));
        clearer.setUncaughtExceptionHandler((t, e) -> thrown.compareAndSet(null, e));
        handler.start();
        clearer.start();
        start.countDown();
        handler.join();
        clearer.join();
        assertNull(thrown.get(), () -> "the context threw " + thrown.get());
        assertEquals("done", context.get("thread"));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
