package real.httpcore_stalepool;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.http.pool.AbstractConnPool;
import org.apache.http.pool.PoolEntry;
import org.junit.jupiter.api.Test;

/**
 * HTTPCORE-634 (httpcore 4.4.13): "pool cached in getPoolEntryBlocking could be removed from
 * routeToPool map by another thread while the thread executing getPoolEntryBlocking was waiting on
 * condition". A lease waits for the only connection of its route; the connection is released (not
 * reusable) and, before the waiting lease runs again, closeExpired() purges the route's now empty
 * pool from the map. The waiting lease then allocates its new connection in the purged route pool,
 * and releasing that connection fails: the route's new pool has never leased it.
 */
public class ReleaseWhilePurgeTest {

    static final int ROUNDS = 4;
    static final String ROUTE = "db.example:5432";

    static final class Connection {
        volatile boolean open = true;
    }

    static final class Entry extends PoolEntry<String, Connection> {
        Entry(String id, String route, Connection conn) {
            super(id, route, conn);
        }

        @Override
        public void close() {
            getConnection().open = false;
        }

        @Override
        public boolean isClosed() {
            return !getConnection().open;
        }
    }

    static final class Pool extends AbstractConnPool<String, Connection, Entry> {
        private final AtomicInteger ids = new AtomicInteger();

        Pool() {
            super(route -> new Connection(), 1, 10);
        }

        @Override
        protected Entry createEntry(String route, Connection conn) {
            return new Entry("c" + ids.incrementAndGet(), route, conn);
        }
    }

    @Test
    public void aConnectionLeasedAfterWaitingCanBeReleased() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Pool pool = new Pool();
            try {
                Entry first = pool.lease(ROUTE, null).get(5, TimeUnit.SECONDS);

                AtomicReference<Object> second = new AtomicReference<>();
                Thread waiter = new Thread(() -> {
                    try {
                        second.set(pool.lease(ROUTE, null).get(5, TimeUnit.SECONDS));
                    } catch (Exception e) {
                        second.set(e);
                    }
                }, "waiter");
                waiter.start();
                while (pool.getStats(ROUTE).getPending() == 0) { // the waiter waits for the route's only connection
                    Thread.sleep(1);
                }

                CountDownLatch start = new CountDownLatch(1);
                Thread releaser = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    pool.release(first, false); // the connection broke: not reusable
                }, "releaser");
                Thread evictor = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    pool.closeExpired();
                }, "evictor");
                releaser.start();
                evictor.start();
                start.countDown();
                releaser.join();
                evictor.join();
                waiter.join();

                if (!(second.get() instanceof Entry)) {
                    fail("round " + round + ": the waiting lease got " + second.get());
                }
                try {
                    pool.release((Entry) second.get(), true);
                } catch (IllegalStateException e) {
                    fail("round " + round + ": releasing the connection leased after waiting threw " + e, e);
                }
            } finally {
                pool.shutdown();
            }
        }
    }
}
