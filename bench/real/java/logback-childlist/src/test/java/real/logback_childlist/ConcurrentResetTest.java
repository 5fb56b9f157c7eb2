package real.logback_childlist;

import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import ch.qos.logback.classic.LoggerContext;

/**
 * LOGBACK-397 (logback-classic 1.1.6): LoggerContext.reset() walks every logger's children list
 * (Logger.recursiveReset iterates an ArrayList) while another thread's getLogger(...) adds a new
 * child to that list (Logger.createChildByName), so the reset throws
 * ConcurrentModificationException, as in the report's stack trace
 * (Logger.recursiveReset <- LoggerContext.reset).
 */
public class ConcurrentResetTest {

    @Test
    public void resetWhileLoggersAreCreated() throws Exception {
        LoggerContext context = new LoggerContext();
        for (int i = 0; i < 3; i++) {
            context.getLogger("app.existing" + i);
        }
        AtomicReference<Throwable> resetFailure = new AtomicReference<>();
        Thread resetter = new Thread(() -> {
            try {
                context.reset();
            } catch (Throwable t) {
                resetFailure.set(t);
            }
        }, "resetter");
        Thread creator = new Thread(() -> {
            for (int i = 0; i < 2; i++) {
                context.getLogger("app.created" + i);
            }
        }, "creator");
        resetter.start();
        creator.start();
        resetter.join();
        creator.join();
        assertNull(resetFailure.get(), () -> "LoggerContext.reset() failed: " + resetFailure.get());
    }
}
