package real.logback_rfacollision;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import ch.qos.logback.core.ContextBase;
import ch.qos.logback.core.encoder.EchoEncoder;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.TimeBasedRollingPolicy;

/**
 * qos-ch/logback #959, logback-core 1.5.22: RollingFileAppenders of one context started on several
 * threads at once (a SiftingAppender creates and starts its nested appender on the logging thread).
 * Each start() walks the context's file-name-pattern collision map (a HashMap) and then puts its own
 * pattern into it; a start on another thread that puts while the first walks the map makes the walk
 * throw java.util.ConcurrentModificationException.
 */
public class RollingStartTest {

    static final int EARLIER = 6;   // appenders started before the concurrent ones
    static final int THREADS = 3;
    static final int ROUNDS = 4;

    static RollingFileAppender<Object> appender(ContextBase context, File dir, String name) {
        RollingFileAppender<Object> rfa = new RollingFileAppender<>();
        rfa.setContext(context);
        rfa.setName(name);
        rfa.setEncoder(new EchoEncoder<>());
        TimeBasedRollingPolicy<Object> policy = new TimeBasedRollingPolicy<>();
        policy.setContext(context);
        policy.setFileNamePattern(new File(dir, name + "-%d{yyyy-MM-dd}.log").getPath());
        rfa.setRollingPolicy(policy);
        policy.setParent(rfa);
        policy.start();
        return rfa;
    }

    @Test
    public void concurrentStartsOfRollingFileAppenders() throws Exception {
        File dir = Files.createTempDirectory("rfa959").toFile();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int round = 0; round < ROUNDS && failures.isEmpty(); round++) {
            ContextBase context = new ContextBase();
            List<RollingFileAppender<Object>> all = new ArrayList<>();
            for (int i = 0; i < EARLIER; i++) {
                RollingFileAppender<Object> rfa = appender(context, dir, "r" + round + "-early" + i);
                rfa.start();
                all.add(rfa);
            }
            CountDownLatch go = new CountDownLatch(1);
            Thread[] starters = new Thread[THREADS];
            for (int t = 0; t < THREADS; t++) {
                RollingFileAppender<Object> rfa = appender(context, dir, "r" + round + "-sift" + t);
                all.add(rfa);
                starters[t] = new Thread(() -> {
                    try {
                        go.await();
                        rfa.start();
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "starter-" + t);
                starters[t].start();
            }
            go.countDown();
            for (Thread t : starters) {
                t.join();
            }
            for (RollingFileAppender<Object> rfa : all) {
                rfa.stop();
            }
        }
        assertTrue(failures.isEmpty(), "RollingFileAppender.start() failed: " + failures);
    }
}
