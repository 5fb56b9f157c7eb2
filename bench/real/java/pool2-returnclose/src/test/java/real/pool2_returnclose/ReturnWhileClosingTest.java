package real.pool2_returnclose;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;

/**
 * POOL-263 (commons-pool2 2.2): "concurrent calls to close() and returnObject() could result in
 * some returned objects not being destroyed". returnObject checks isClosed() and then adds the
 * object to the idle deque; if close() sets closed and clears the idle objects in between, the
 * returned object stays idle in a closed pool and is never destroyed (a leaked connection).
 */
public class ReturnWhileClosingTest {

    static final class Connections extends BasePooledObjectFactory<int[]> {
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger destroyed = new AtomicInteger();

        @Override
        public int[] create() {
            created.incrementAndGet();
            return new int[1];
        }

        @Override
        public PooledObject<int[]> wrap(int[] connection) {
            return new DefaultPooledObject<>(connection);
        }

        @Override
        public void destroyObject(PooledObject<int[]> p) {
            destroyed.incrementAndGet();
        }
    }

    @Test
    public void everyObjectReturnedWhileClosingIsDestroyed() throws Exception {
        Connections factory = new Connections();
        GenericObjectPoolConfig config = new GenericObjectPoolConfig();
        config.setJmxEnabled(false);
        GenericObjectPool<int[]> pool = new GenericObjectPool<>(factory, config);
        int[][] borrowed = new int[3][];
        for (int i = 0; i < borrowed.length; i++) {
            borrowed[i] = pool.borrowObject();
        }
        CountDownLatch start = new CountDownLatch(1);
        Thread returner = new Thread(() -> {
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int[] connection : borrowed) {
                pool.returnObject(connection);
            }
        }, "returner");
        Thread closer = new Thread(() -> {
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            pool.close();
        }, "closer");
        returner.start();
        closer.start();
        start.countDown();
        returner.join();
        closer.join();
        assertEquals(factory.created.get(), factory.destroyed.get(),
                "objects destroyed after close (" + pool.getNumIdle() + " left idle in the closed pool)");
    }
}
