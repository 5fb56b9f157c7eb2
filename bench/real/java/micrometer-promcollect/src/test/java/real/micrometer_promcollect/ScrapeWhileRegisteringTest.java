package real.micrometer_promcollect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;

/**
 * micrometer-metrics/micrometer #345 (micrometer-registry-prometheus 1.0.0-rc.7):
 * "ConcurrentModificationException would be thrown when MicrometerCollector#add is called while
 * iterating over children in MicrometerCollector#collect call." A scraper thread scrapes the
 * Prometheus registry while a request thread registers counters of the same name with new tag
 * values (each a new child of the name's collector).
 */
public class ScrapeWhileRegisteringTest {

    static final int ROUNDS = Integer.getInteger("rounds", 2);
    static final int METERS = Integer.getInteger("meters", 8);

    @Test
    public void scrapeWhileCountersAreRegistered() throws Exception {
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        for (int round = 0; round < ROUNDS; round++) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            for (int i = 0; i < METERS; i++) {
                registry.counter("http.requests", "uri", "/existing/" + i).increment();
            }
            CountDownLatch start = new CountDownLatch(1);
            Thread scraper = new Thread(() -> {
                try {
                    start.await();
                    registry.scrape();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    failures.add("scraper: " + e);
                }
            }, "scraper");
            Thread requests = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 2; i++) {
                    registry.counter("http.requests", "uri", "/new/" + i).increment();
                }
            }, "requests");
            scraper.start();
            requests.start();
            start.countDown();
            scraper.join();
            requests.join();
        }
        assertEquals(List.of(), failures, "scraping while counters are registered");
    }
}
