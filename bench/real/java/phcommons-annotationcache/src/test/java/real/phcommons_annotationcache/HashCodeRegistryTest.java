package real.phcommons_annotationcache;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import com.helger.commons.hashcode.HashCodeGenerator;
import com.helger.commons.hashcode.HashCodeImplementationRegistry;

/**
 * phax/ph-commons #27, ph-commons 10.1.5: "ConcurrentModificationException in AnnotationUsageCache"
 * (at java.util.HashMap.computeIfAbsent, AnnotationUsageCache.hasAnnotation, called from
 * HashCodeImplementationRegistry._isUseDirectHashCode while a MimeType's hashCode was computed by
 * HashCodeGenerator). Several threads compute hash codes with HashCodeGenerator, each over objects of
 * classes the registry has not seen yet (the registry is reinitialized first, as a fresh
 * application); none may throw.
 */
public class HashCodeRegistryTest {

    static final class K00 {}
    static final class K01 {}
    static final class K02 {}
    static final class K03 {}
    static final class K04 {}
    static final class K05 {}
    static final class K06 {}
    static final class K07 {}
    static final class K08 {}
    static final class K09 {}
    static final class K10 {}
    static final class K11 {}
    static final class K12 {}
    static final class K13 {}
    static final class K14 {}
    static final class K15 {}
    static final class K16 {}
    static final class K17 {}
    static final class K18 {}
    static final class K19 {}
    static final class K20 {}
    static final class K21 {}
    static final class K22 {}
    static final class K23 {}
    private static final Object[] VALUES = { new K00(), new K01(), new K02(), new K03(), new K04(), new K05(), new K06(), new K07(), new K08(), new K09(), new K10(), new K11(), new K12(), new K13(), new K14(), new K15(), new K16(), new K17(), new K18(), new K19(), new K20(), new K21(), new K22(), new K23(), };

    @Test
    public void threadsHashObjectsOfNewClasses() throws Exception {
        HashCodeImplementationRegistry.getInstance().reinitialize();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        int perThread = 8;
        Thread[] threads = new Thread[VALUES.length / perThread];
        for (int i = 0; i < threads.length; i++) {
            int first = i * perThread;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int k = first; k < first + perThread; k++) {
                    new HashCodeGenerator(this).append(VALUES[k]).getHashCode();
                }
            }, "hasher-" + i);
            threads[i].setUncaughtExceptionHandler((t, e) -> thrown.compareAndSet(null, e));
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertNull(thrown.get(), () -> "hashing threw " + thrown.get());
    }
}
