package real.reactor_bufferdiscard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * reactor/reactor-core #2362 ("BufferPredicateSubscriber not thread safe"), reactor-core
 * 3.3.9.RELEASE: cancel() of a bufferUntil subscriber discards its open buffer by iterating it
 * (Operators.onDiscardMultiple) while the source's thread, which had not yet seen the
 * cancellation, adds one more element to that same ArrayList in onNext. The iteration fails with a
 * ConcurrentModificationException (caught and logged, the rest is not discarded) or the late
 * element stays in the buffer: some emitted elements are neither delivered nor discarded.
 *
 * The source is a plain Publisher that emits on its own thread and stops as soon as it sees the
 * cancellation; the test thread cancels while it emits. Each element handed to onNext must be
 * discarded (the predicate never closes a buffer, so nothing is delivered).
 */
public class BufferUntilCancelRaceTest {

    static final int ROUNDS = 1;
    static final int MAX_ELEMENTS = 100_000;
    static final int CANCEL_AFTER = 8;

    static final class ThreadSource implements Publisher<Integer> {
        final AtomicInteger emitted = new AtomicInteger();
        volatile boolean cancelled;
        volatile Thread thread;

        @Override
        public void subscribe(Subscriber<? super Integer> s) {
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                }

                @Override
                public void cancel() {
                    cancelled = true;
                }
            });
            thread = new Thread(() -> {
                for (int i = 0; i < MAX_ELEMENTS && !cancelled; i++) {
                    s.onNext(i);
                    emitted.incrementAndGet();
                }
            }, "source");
            thread.start();
        }
    }

    @Test
    public void everyElementOfTheCancelledBufferIsDiscarded() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            ThreadSource source = new ThreadSource();
            AtomicInteger discarded = new AtomicInteger();
            BaseSubscriber<java.util.List<Integer>> downstream = new BaseSubscriber<java.util.List<Integer>>() {
            };
            Flux.from(source)
                    .bufferUntil(i -> false)
                    .doOnDiscard(Integer.class, i -> discarded.incrementAndGet())
                    .subscribe(downstream);
            while (source.emitted.get() < CANCEL_AFTER) {
                Thread.onSpinWait();
            }
            downstream.dispose();
            source.thread.join();
            assertEquals(source.emitted.get(), discarded.get(),
                    "round " + round + ": elements emitted into the cancelled bufferUntil but never discarded");
        }
    }
}
