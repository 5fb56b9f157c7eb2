package real.glazedlists_selectionlisteners;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import ca.odell.glazedlists.EventList;
import ca.odell.glazedlists.GlazedLists;
import ca.odell.glazedlists.ListSelection;

/**
 * glazedlists/glazedlists #634, glazedlists 1.9.1: "ListSelection: management of selection
 * listeners is not thread-safe ... when fireSelectionChanged iterates over the listeners, other
 * threads could dispose and clear the list or add/remove listeners which leads to
 * ConcurrentModificationExceptions." One thread changes the selection (each change notifies the
 * selection listeners) while another thread registers a listener and removes it; neither may throw.
 * (The first driver — 500 changes, the listener added and removed for as long as the changes went
 * on — failed 4 of 10 plain runs but 75 of 75 under braid test's defaults.)
 */
public class ListSelectionListenersTest {

    private static final int CHANGES = 100;
    private static final int LISTENERS = 8;

    @Test
    public void selectionChangesWhileListenersComeAndGo() throws Exception {
        EventList<String> source = GlazedLists.eventListOf("a", "b", "c", "d", "e", "f", "g", "h");
        ListSelection<String> selection = new ListSelection<>(source);
        int[] notified = new int[1];
        for (int k = 0; k < LISTENERS; k++) {
            selection.addSelectionListener((start, end) -> notified[0]++);
        }
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread selector = new Thread(() -> {
            await(start);
            for (int i = 0; i < CHANGES; i++) {
                selection.select(i % source.size());
                selection.deselect(i % source.size());
            }
        }, "selector");
        Thread subscriber = new Thread(() -> {
            await(start);
            ListSelection.Listener listener = (s, e) -> { };
            selection.addSelectionListener(listener);
            selection.removeSelectionListener(listener);
        }, "subscriber");
        for (Thread t : new Thread[] { selector, subscriber }) {
            t.setUncaughtExceptionHandler((th, e) -> thrown.compareAndSet(null, e));
            t.start();
        }
        start.countDown();
        selector.join();
        subscriber.join();
        assertNull(thrown.get(), () -> "a thread threw " + thrown.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
