package real.indriya_picache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import javax.measure.UnitConverter;

import org.junit.jupiter.api.Test;

import tech.units.indriya.function.MultiplyConverter;

/**
 * unitsofmeasurement/indriya #371, indriya 2.1.3: "If you have two threads and each thread has its
 * own local UnitConverter instance, a concurrent call of #convert() can lead to a
 * ConcurrentModificationException because access to the static Calculus$Pi#piCache variable is not
 * synchronized" (HashMap.computeIfAbsent in Calculus$Pi.ofNumDigits). Two threads, each with its
 * own π-converter, convert a value at the same time; neither may throw.
 */
public class PiConverterTest {

    @Test
    public void twoThreadsConvertWithTheirOwnPiConverters() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        double[] results = new double[2];
        Thread[] threads = new Thread[results.length];
        for (int i = 0; i < threads.length; i++) {
            int k = i;
            threads[i] = new Thread(() -> {
                UnitConverter timesPi = MultiplyConverter.ofPiExponent(1);
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                results[k] = timesPi.convert(2.0);
            }, "converter-" + i);
            threads[i].setUncaughtExceptionHandler((t, e) -> thrown.compareAndSet(null, e));
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(thrown.get(), () -> "convert threw " + thrown.get());
        for (double r : results) {
            assertEquals(2 * Math.PI, r, 1e-9);
        }
    }
}
