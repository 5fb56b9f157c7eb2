package real.pool2_evictoldest;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.junit.jupiter.api.Test;

/**
 * POOL-326 (commons-pool2 2.7.0): "Threading issue, NullPointerException and IllegalStateException
 * in GenericKeyedObjectPool" — keyed pools removed too early. The evictor races with clearOldest():
 * while the evictor is testing an idle instance, clearOldest() destroys the same instance, and the
 * evictor then destroys it a second time. The key's create count drops to zero although one
 * instance is still borrowed, the key is removed, and returning the borrowed instance throws a
 * NullPointerException.
 */
public class EvictWhileClearOldestTest {

    static final int ROUNDS = 30;

    static final class Connections extends BaseKeyedPooledObjectFactory<String, int[]> {
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger destroyed = new AtomicInteger();

        @Override
        public int[] create(String key) {
            created.incrementAndGet();
            return new int[1];
        }

        @Override
        public PooledObject<int[]> wrap(int[] connection) {
            return new DefaultPooledObject<>(connection);
        }

        @Override
        public void destroyObject(String key, PooledObject<int[]> p) {
            destroyed.incrementAndGet();
        }
    }

    @Test
    public void anIdleConnectionIsDestroyedOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Connections factory = new Connections();
            GenericKeyedObjectPoolConfig<int[]> config = new GenericKeyedObjectPoolConfig<>();
            config.setJmxEnabled(false);
            config.setMinEvictableIdleTimeMillis(1);
            GenericKeyedObjectPool<String, int[]> pool = new GenericKeyedObjectPool<>(factory, config);
            try {
                int[] inUse = pool.borrowObject("db");
                pool.addObject("db");
                Thread.sleep(3); // the idle connection is now old enough to be evicted

                CountDownLatch start = new CountDownLatch(1);
                Thread evictor = new Thread(() -> {
                    try {
                        start.await();
                        pool.evict();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }, "evictor");
                Thread clearer = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    pool.clearOldest();
                }, "clearer");
                evictor.start();
                clearer.start();
                start.countDown();
                evictor.join();
                clearer.join();

                int destroyed = factory.destroyed.get();
                try {
                    pool.returnObject("db", inUse);
                } catch (RuntimeException e) {
                    fail("round " + round + ": returning the borrowed connection threw " + e
                            + " (idle connection destroyed " + destroyed + " times)", e);
                }
                if (destroyed != 1) {
                    fail("round " + round + ": the idle connection was destroyed " + destroyed + " times");
                }
            } finally {
                pool.close();
            }
        }
    }
}
