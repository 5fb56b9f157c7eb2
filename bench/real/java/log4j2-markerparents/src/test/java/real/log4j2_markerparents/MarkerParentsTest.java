package real.log4j2_markerparents;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.MarkerManager;
import org.junit.jupiter.api.Test;

/**
 * LOG4J2-3159 (log4j-api 2.14.1): Log4jMarker.getParents() reads the volatile field parents
 * twice, once for the null check and again for the copy; a concurrent remove(parent) of the last
 * parent sets parents to null in between, and getParents throws NullPointerException.
 */
public class MarkerParentsTest {

    @Test
    public void getParentsWhileParentIsRemoved() throws Exception {
        String id = UUID.randomUUID().toString();
        Marker child = MarkerManager.getMarker("child-" + id);
        Marker parent = MarkerManager.getMarker("parent-" + id);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> readFailure = new AtomicReference<>();
        Thread remover = new Thread(() -> {
            for (int i = 0; i < 30; i++) {
                child.addParents(parent);
                child.remove(parent);
            }
            done.set(true);
        }, "remover");
        Thread reader = new Thread(() -> {
            try {
                for (int i = 0; i < 30 && !done.get(); i++) {
                    child.getParents();
                }
            } catch (Throwable t) {
                readFailure.set(t);
            }
        }, "reader");
        reader.start();
        remover.start();
        remover.join();
        reader.join();
        assertNull(readFailure.get(), () -> "Marker.getParents() failed: " + readFailure.get());
    }
}
